package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
)

func TestKnowledgeListFiltersAndGroupsByFolder(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	k := h.u.knowledge
	root := t.TempDir()
	for _, name := range []string{"garden/roses.md", "garden/tulips.md", "work/budget.md", "work/plans/q3.md"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("# "+strings.TrimSuffix(filepath.Base(name), ".md")+"\n\nSome notes.\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.eng.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{root}}); err != nil {
		t.Fatal(err)
	}
	h.u.showScreen(screenKnowledge)
	k.reload()
	h.waitFor("four documents", func() bool { return len(k.docs) == 4 })

	var folders []string
	for _, r := range k.rows {
		if r.doc == nil {
			folders = append(folders, fmt.Sprintf("%s:%d", filepath.Base(r.folder), len(r.docs)))
		}
	}
	if got, want := strings.Join(folders, " "), "garden:2 work:1 plans:1"; got != want {
		t.Errorf("folders = %q, want %q", got, want)
	}
	if shown := texts(k.list); !strings.Contains(shown, filepath.Join(root, "garden")+" — 2 documents") {
		t.Errorf("list lacks the garden folder's header:\n%s", shown)
	}

	test.Type(k.filter, "TULIP")
	if len(k.rows) != 2 || k.rows[1].doc == nil || filepath.Base(k.rows[1].doc.Path) != "tulips.md" {
		t.Errorf("rows for filter %q = %+v, want the garden header and tulips.md", k.filter.Text, k.rows)
	}
	k.filter.SetText("plans/")
	if len(k.rows) != 2 || filepath.Base(k.rows[1].doc.Path) != "q3.md" {
		t.Errorf("rows for filter %q = %+v, want q3.md under its folder", k.filter.Text, k.rows)
	}
	k.filter.SetText("nothing like this")
	if len(k.rows) != 0 || !k.empty.Visible() || !strings.Contains(k.empty.Text, "nothing like this") {
		t.Errorf("no match: %d rows, empty note %q (visible %v)", len(k.rows), k.empty.Text, k.empty.Visible())
	}
	k.filter.SetText("")

	// Remove folder says how many documents go, then removes them.
	test.Tap(button(k.list, "Remove folder"))
	dlg := h.overlay()
	if dlg == nil {
		t.Fatal("Remove folder asked nothing")
	}
	if shown := texts(dlg); !strings.Contains(shown, "Remove 2 documents?") || !strings.Contains(shown, "The 2 documents listed under") {
		t.Errorf("confirmation does not count the documents:\n%s", shown)
	}
	test.Tap(button(dlg, "Remove"))
	h.waitFor("the garden folder removed", func() bool { return len(k.docs) == 2 })
	if got := k.banner.text.Text; !strings.HasPrefix(got, "Removed 2 documents from") {
		t.Errorf("banner = %q, want the removal counted", got)
	}
}

// pausedImport holds an import after its third file until release is closed.
type pausedImport struct {
	Backend
	release chan struct{}
}

func (b pausedImport) KBAdd(ctx context.Context, req engine.KBAddRequest) (engine.KBAddResult, error) {
	report := req.Progress
	req.Progress = func(p engine.ImportProgress) {
		report(p)
		if p.FilesDone == 3 {
			select {
			case <-b.release:
			case <-ctx.Done():
			}
		}
	}
	return b.Backend.KBAdd(ctx, req)
}

func TestKnowledgeListShowsDocumentsDuringAnImport(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { return pausedImport{e, release} }).start()
	k := h.u.knowledge
	h.u.showScreen(screenKnowledge)
	h.waitFor("the empty list", func() bool { return k.empty.Visible() })
	k.importPaths([]string{writeDocs(t, 6)})
	h.waitFor("documents listed while the import runs", func() bool {
		return k.cancelImport != nil && len(k.docs) > 0 && !k.empty.Visible()
	})
	if shown := texts(k.list); !strings.Contains(shown, "Note 0") {
		t.Errorf("list during the import lacks the first document:\n%s", shown)
	}
	close(release)
	h.waitFor("the import to finish", func() bool { return k.cancelImport == nil && len(k.docs) == 6 })
}

// TestImportThroughputWindowVsCLI imports the same 300 files through the window (its
// progress callback, its request, an engine with the entity extractor loaded as the app's
// is) and as the CLI does (an engine without the extractor, a progress callback per file),
// and logs both times. The target is the window within 10% of the CLI; it is a logged
// figure, not an assertion, because timing on a shared machine is not a unit test.
func TestImportThroughputWindowVsCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 300 files three times on two engines and loads the entity extractor")
	}
	src := t.TempDir()
	for i := range 300 {
		text := fmt.Sprintf("# Note %d\n\nAlice Smith in Berlin runs backup job %d on Kubernetes for the billing service.\n\nSecond paragraph %d about release 2.%d.\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("n%03d.md", i)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyOf := func() string {
		dir := filepath.Join(t.TempDir(), "notes")
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	// Each path imports fresh copies three times, alternating, and keeps its best time, so the
	// first run's cold caches and a neighbour's burst of work do not decide the comparison.
	cli, err := engine.Open(context.Background(), filepath.Join(t.TempDir(), "cli.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	h := newHarness(t, Options{}, nil).start()
	if err := h.eng.LoadEntities(context.Background()); err != nil {
		t.Fatal(err)
	}
	k := h.u.knowledge
	h.poll = 2 * time.Millisecond
	cliImport := func(dir string) time.Duration {
		start := time.Now()
		files := 0
		if _, err := cli.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{dir},
			Progress: func(p engine.ImportProgress) { files = p.FilesDone }}); err != nil || files != 300 {
			t.Fatalf("cli import: %d files, %v", files, err)
		}
		return time.Since(start)
	}
	windowImport := func(dir string) time.Duration {
		start := time.Now()
		k.importPaths([]string{dir})
		h.waitFor("the window's import", func() bool { return k.cancelImport == nil })
		return time.Since(start)
	}
	best := func(a, b time.Duration) time.Duration { return min(a, b) }
	var cliAdd, cliRecheck, winAdd, winRecheck time.Duration = 1 << 62, 1 << 62, 1 << 62, 1 << 62
	for range 3 {
		dir := copyOf()
		cliAdd = best(cliAdd, cliImport(dir))
		cliRecheck = best(cliRecheck, cliImport(dir))
		dir = copyOf()
		winAdd = best(winAdd, windowImport(dir))
		winRecheck = best(winRecheck, windowImport(dir))
	}
	if got := k.banner.text.Text; got != "Files: 300 unchanged." {
		t.Errorf("window's last import says %q, want 300 unchanged", got)
	}
	t.Logf("300 new files: window %v, CLI %v (window/CLI %.2f)", winAdd, cliAdd, winAdd.Seconds()/cliAdd.Seconds())
	t.Logf("300 unchanged: window %v (%.0f files/s), CLI %v (%.0f files/s)", winRecheck, 300/winRecheck.Seconds(),
		cliRecheck, 300/cliRecheck.Seconds())
}
