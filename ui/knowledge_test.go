package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
)

// writeDocs makes a folder of n small Markdown files.
func writeDocs(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		text := fmt.Sprintf("# Note %d\n\nThe build server note number %d mentions 部署 and backups.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note%02d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func (h *harness) documents() []engine.DocumentView {
	h.t.Helper()
	res, err := h.eng.KBList(context.Background(), "")
	if err != nil {
		h.t.Fatalf("kb list: %v", err)
	}
	return res.Documents
}

func TestKnowledgeDropImportViewReimportRemove(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	k := h.u.knowledge
	dir := writeDocs(t, 4)

	// Dropping a folder on the window switches to Knowledge and imports it.
	h.u.dropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(dir)})
	if got := h.u.tabs.SelectedIndex(); got != screenKnowledge {
		t.Errorf("screen after drop = %d, want knowledge (%d)", got, screenKnowledge)
	}
	if !k.progressRow.Visible() {
		t.Error("no progress shown while importing")
	}
	h.waitFor("the import to finish", func() bool { return k.cancelImport == nil && len(k.docs) == 4 })
	if k.progressRow.Visible() {
		t.Error("progress still shown after the import")
	}
	if got := k.banner.text.Text; got != "Files: 4 added." {
		t.Errorf("banner = %q, want %q", got, "Files: 4 added.")
	}
	if shown := texts(k.list); !strings.Contains(shown, "Note 0") || !strings.Contains(shown, "1 chunk") {
		t.Errorf("document list lacks the title and chunk count:\n%s", shown)
	}

	// Chunks open in a dialog.
	test.Tap(button(k.list, "Chunks"))
	h.waitFor("the chunk viewer", func() bool { return h.overlay() != nil })
	if shown := texts(h.overlay()); !strings.Contains(shown, "note number 0") {
		t.Errorf("chunk viewer lacks the chunk text:\n%s", shown)
	}
	test.Tap(button(h.overlay(), "Close"))

	// Re-import an unchanged file.
	test.Tap(button(k.list, "Re-import"))
	h.waitFor("the re-import", func() bool { return strings.HasPrefix(k.banner.text.Text, "Re-imported") })
	if !strings.HasSuffix(k.banner.text.Text, engine.ImportUnchanged+".") {
		t.Errorf("banner = %q, want the file reported unchanged", k.banner.text.Text)
	}

	// Remove asks first.
	test.Tap(button(k.list, "Remove"))
	dlg := h.overlay()
	if dlg == nil {
		t.Fatal("Remove asked nothing")
	}
	test.Tap(button(dlg, "Remove"))
	h.waitFor("three documents left", func() bool { return len(k.docs) == 3 })
	if n := len(h.documents()); n != 3 {
		t.Errorf("%d documents in the database, want 3", n)
	}
	h.waitFor("the status bar count", func() bool { return strings.Contains(h.u.status.counts.Text, "3 documents") })
}

// gatedImport pauses an import after its first file until the import is cancelled.
type gatedImport struct{ Backend }

func (b gatedImport) KBAdd(ctx context.Context, req engine.KBAddRequest) (engine.KBAddResult, error) {
	report := req.Progress
	req.Progress = func(p engine.ImportProgress) {
		report(p)
		if p.FilesDone == 1 {
			<-ctx.Done()
		}
	}
	return b.Backend.KBAdd(ctx, req)
}

func TestKnowledgeImportCancel(t *testing.T) {
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { return gatedImport{e} }).start()
	k := h.u.knowledge
	k.importPaths([]string{writeDocs(t, 5)})
	h.waitFor("the first file's progress", func() bool { return k.progress.Value == 0.2 })
	if !strings.HasPrefix(k.progressText.Text, "1 of 5 files") {
		t.Errorf("progress text = %q, want 1 of 5 files", k.progressText.Text)
	}
	test.Tap(k.cancelButton)
	h.waitFor("the import to stop", func() bool { return k.cancelImport == nil })
	if got := k.banner.text.Text; !strings.Contains(got, "cancelled after 1 of 5 files") {
		t.Errorf("banner = %q, want it to say the import was cancelled after 1 of 5 files", got)
	}
	if n := len(h.documents()); n != 1 {
		t.Errorf("%d documents kept, want the 1 finished before cancel", n)
	}
	if k.progressRow.Visible() || k.importFolder.Disabled() {
		t.Error("progress still shown, or import still disabled, after cancel")
	}
}

func TestKnowledgeImportShowsConflicts(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	fact := h.remember("CI uses Python 3.11", "")
	h.start()
	k := h.u.knowledge
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ci.md"), []byte("# CI\n\nCI uses Python 3.12.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.u.dropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(dir)})
	h.waitFor("the import to finish", func() bool { return k.cancelImport == nil && len(k.docs) == 1 })
	if got := k.banner.text.Text; !strings.Contains(got, "1 sentence contradicts your memories.") {
		t.Fatalf("banner = %q, want the conflict counted", got)
	}
	test.Tap(k.banner.action)
	dlg := h.overlay()
	if dlg == nil {
		t.Fatal("Show opened no dialog")
	}
	shown := texts(dlg)
	for _, want := range []string{"ci.md:3", "CI uses Python 3.12", fmt.Sprintf("memory #%d", fact)} {
		if !strings.Contains(shown, want) {
			t.Errorf("conflict dialog lacks %q:\n%s", want, shown)
		}
	}
}

func TestKnowledgeKeepFolderInSync(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	k := h.u.knowledge
	if k.sync == nil {
		t.Fatal("no Keep in sync switch over a real engine")
	}
	dir := t.TempDir()
	k.sync.watch(dir)
	if !k.sync.check.Checked {
		t.Error("switch off while a folder is watched")
	}
	if err := os.WriteFile(filepath.Join(dir, "synced.md"), []byte("# Synced\n\nThe okapi roster.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the saved file in the list", func() bool { return len(k.docs) == 1 })
	test.Tap(k.sync.check)
	h.waitFor("the folder forgotten", func() bool {
		res, err := h.eng.KBList(context.Background(), "")
		return err == nil && len(res.Watched) == 0
	})
	if k.sync.stop != nil {
		t.Error("still watching after the switch was turned off")
	}
}

// TestKnowledgeResumesTheFolderKeptInSync: a folder kept in sync when the window last closed
// is kept in sync again when it opens: the switch is on, names the folder, and a file saved
// there is imported.
func TestKnowledgeResumesTheFolderKeptInSync(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	dir := t.TempDir()
	// A watch that ran and ended (the window closed) leaves its folder recorded.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.eng.Watch(ctx, engine.WatchRequest{Root: dir, Ready: cancel}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first watch did not start within a minute")
	}
	h.start()
	k := h.u.knowledge
	h.waitFor("the recorded folder kept in sync again", func() bool { return k.sync.stop != nil })
	if !k.sync.check.Checked || !strings.Contains(k.sync.folder.Text, filepath.Base(dir)) {
		t.Errorf("switch checked %v, folder %q; want it on and naming %s", k.sync.check.Checked, k.sync.folder.Text, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "resumed.md"), []byte("# Resumed\n\nThe tapir roster.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the file saved after the restart in the list", func() bool { return len(k.docs) == 1 })
}

// TestKnowledgeImportListsSkipped checks that the import summary leads to every file left
// out, with its reason: here a photo beside a README without an extension.
func TestKnowledgeImportListsSkipped(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	k := h.u.knowledge
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("Notes about the heron colony.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	photo := filepath.Join(dir, "photo.png")
	if err := os.WriteFile(photo, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.u.dropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(dir)})
	h.waitFor("the import to finish", func() bool { return k.cancelImport == nil && len(k.docs) == 1 })
	if got := k.banner.text.Text; got != "Files: 1 added, 1 skipped." {
		t.Errorf("banner = %q, want %q", got, "Files: 1 added, 1 skipped.")
	}
	if k.banner.action.Hidden || k.banner.action.Text != "Show skipped" {
		t.Fatalf("banner action = %q (hidden %v), want a visible \"Show skipped\"", k.banner.action.Text, k.banner.action.Hidden)
	}
	test.Tap(k.banner.action)
	h.waitFor("the skipped files dialog", func() bool { return h.overlay() != nil })
	want := "skipped: " + photo + " — image (png): not imported"
	if shown := texts(h.overlay()); !strings.Contains(shown, want) {
		t.Errorf("skipped files dialog lacks %q:\n%s", want, shown)
	}
}
