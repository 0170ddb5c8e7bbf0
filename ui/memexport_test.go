package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestExportAndImportMemories: File › Export memories writes every memory to the chosen
// file (Markdown by its name) and says so; File › Import memories in another window adds
// them, and importing again adds nothing.
func TestExportAndImportMemories(t *testing.T) {
	src := newHarness(t, Options{}, nil).start()
	src.remember("老王喜欢简约风格", "")
	src.remember("CI uses Python 3.12 on the build server", "work")
	if !hasMenuItem(src.u.mainMenu(), "Export memories…") || !hasMenuItem(src.u.mainMenu(), "Import memories…") {
		t.Fatal("the File menu offers no memories export and import")
	}
	path := filepath.Join(t.TempDir(), "mine.md")
	src.u.exportMemoriesTo(path)
	src.waitFor("the export report", func() bool { return strings.HasPrefix(src.u.memories.banner.text.Text, "Exported 2 memories") })
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), "## work\n\n- CI uses Python 3.12 on the build server <!-- memdesk created=") {
		t.Fatalf("export file (%v):\n%s", err, data)
	}

	dst := newHarness(t, Options{}, nil).start()
	dst.u.importMemoriesFrom(path)
	dst.waitFor("the import report", func() bool { return strings.HasPrefix(dst.u.memories.banner.text.Text, "Imported 2 memories") })
	dst.waitFor("the list", func() bool { return dst.u.memories.pages.length == 2 })
	dst.u.importMemoriesFrom(path)
	dst.waitFor("the second report", func() bool {
		return strings.HasPrefix(dst.u.memories.banner.text.Text, "Imported 0 memories") && strings.Contains(dst.u.memories.banner.text.Text, "2 already here")
	})

	dst.u.importMemoriesFrom(filepath.Join(t.TempDir(), "missing.md"))
	dst.waitFor("the error", func() bool {
		return strings.Contains(dst.u.memories.banner.text.Text, "missing.md") && strings.Contains(dst.u.memories.banner.text.Text, "no such file")
	})
}

func hasMenuItem(m *fyne.MainMenu, label string) bool {
	for _, menu := range m.Items {
		for _, it := range menu.Items {
			if it.Label == label {
				return true
			}
		}
	}
	return false
}
