package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// knowledgeHits returns the knowledge hits of a query.
func knowledgeHits(t *testing.T, e *Engine, query string) []Hit {
	t.Helper()
	res, err := e.Recall(context.Background(), RecallRequest{Query: query, Source: SourceKnowledge})
	if err != nil {
		t.Fatalf("Recall(%q): %v", query, err)
	}
	return res.Hits
}

// waitFor polls cond until it holds, failing the test after a generous deadline; it returns
// how long that took.
func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after %v", what, time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

func TestIdenticalCopiesAreOneHit(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := t.TempDir()
	var paths []string
	for _, sub := range []string{"a", "b", "c", "d", "e"} {
		p := filepath.Join(dir, sub, "README.md")
		writeFile(t, p, "# Setup\n\nRun the flamingo installer before the first build.\n")
		paths = append(paths, p)
	}
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Duplicate != 4 {
		t.Errorf("KBAdd of five copies: added %d, duplicate %d; want 1 and 4", res.Added, res.Duplicate)
	}
	hits := knowledgeHits(t, e, "flamingo installer")
	if len(hits) != 1 {
		t.Fatalf("recall of five identical copies: %d hits, want 1: %+v", len(hits), hits)
	}
	if got := hits[0].Doc; got.Path != paths[0] || !cmp.Equal(got.OtherPaths, paths[1:]) {
		t.Errorf("hit at %s also at %v, want %s also at %v", got.Path, got.OtherPaths, paths[0], paths[1:])
	}
	list, err := e.KBList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Documents) != 1 || !cmp.Equal(list.Documents[0].Copies, paths[1:]) {
		t.Errorf("KBList: %+v, want one document with copies %v", list.Documents, paths[1:])
	}

	// Removing one copy keeps the document for the others.
	if r, err := e.KBRemovePath(ctx, "", paths[2]); err != nil || r.Removed {
		t.Fatalf("KBRemovePath(one copy) = %+v, %v; want the document kept", r, err)
	}
	hits = knowledgeHits(t, e, "flamingo installer")
	want := []string{paths[1], paths[3], paths[4]}
	if len(hits) != 1 || !cmp.Equal(hits[0].Doc.OtherPaths, want) {
		t.Errorf("after removing one copy: %+v, want one hit also at %v", hits, want)
	}

	// A copy whose file changed splits off when it is read again.
	writeFile(t, paths[4], "# Setup\n\nRun the pelican installer instead.\n")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{paths[4]}}); err != nil {
		t.Fatal(err)
	}
	if hits := knowledgeHits(t, e, "pelican"); len(hits) != 1 || hits[0].Doc.Path != paths[4] || len(hits[0].Doc.OtherPaths) != 0 {
		t.Errorf("changed copy: %+v, want its own hit at %s", hits, paths[4])
	}
	want = []string{paths[1], paths[3]}
	if hits := knowledgeHits(t, e, "flamingo"); len(hits) != 1 || !cmp.Equal(hits[0].Doc.OtherPaths, want) {
		t.Errorf("the others after one split off: %+v, want one hit also at %v", hits, want)
	}
}

// TestSamePassageIsOneHit: a manual kept as HTML and as Markdown holds each passage twice in
// different markup. Recall shows each passage once, says where else it is, and keeps the
// passages that differ.
func TestSamePassageIsOneHit(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := t.TempDir()
	md := filepath.Join(dir, "fs.md")
	html := filepath.Join(dir, "fs.html")
	writeFile(t, md, "# File system\n\n## readFile\n\nReads the entire contents of a file with the flamingo reader. "+
		"If no encoding is specified, then the raw buffer is returned; pass `utf8` to get a string.\n\n"+
		"## writeFile\n\nWrites data to a file with the flamingo writer, replacing the file if it already exists.\n")
	writeFile(t, html, "<html><head><title>File system</title></head><body><h1>File system</h1>"+
		"<h2>readFile</h2><p>Reads the entire contents of a file with the <em>flamingo</em> reader. "+
		"If no encoding is specified, then the raw buffer is returned; pass <code>utf8</code> to get a string.</p>"+
		"<h2>open</h2><p>Opens a file with the flamingo opener and returns its descriptor, which must be closed.</p></body></html>")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	var readers []Hit
	for _, h := range knowledgeHits(t, e, "flamingo reader encoding") {
		if strings.Contains(h.Text, "Reads the entire contents") {
			readers = append(readers, h)
		}
	}
	if len(readers) != 1 {
		t.Fatalf("recall of one passage in two formats: %d hits hold it, want 1: %+v", len(readers), readers)
	}
	hits := readers
	d := hits[0].Doc
	other := html
	if d.Path == html {
		other = md
	}
	if len(d.AlsoIn) != 1 || d.AlsoIn[0].Path != other || d.AlsoIn[0].LineStart == 0 {
		t.Errorf("hit at %s: same passage in %+v, want one place in %s with its lines", d.Path, d.AlsoIn, other)
	}
	if !strings.Contains(hits[0].WhyPlain, "same passage is in 1 more place") || !strings.Contains(hits[0].Why, "same passage as 1 lower hit") {
		t.Errorf("why = %q / %q, want both to say the passage is in one more place", hits[0].WhyPlain, hits[0].Why)
	}
	// The passages each format holds alone stay hits of their own.
	if hits := knowledgeHits(t, e, "flamingo"); len(hits) != 3 {
		t.Errorf("recall of flamingo: %d hits, want 3 (readFile once, writeFile, open): %+v", len(hits), hits)
	}
}

// watching runs Watch on dir until the test ends, and waits for its rescan to finish.
func watching(t *testing.T, e *Engine, dir string) (stop func(), events func() []WatchEvent) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var seen []WatchEvent
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- e.Watch(ctx, WatchRequest{Root: dir,
			Events: func(ev WatchEvent) { mu.Lock(); seen = append(seen, ev); mu.Unlock() },
			Ready:  func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Watch ended before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("Watch not ready after 30s")
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Watch: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop, func() []WatchEvent { mu.Lock(); defer mu.Unlock(); return append([]WatchEvent(nil), seen...) }
}

func TestWatchKeepsFolderInSync(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "before.md"), "The heron notes were here before the watch.\n")
	_, _ = watching(t, e, dir)

	if hits := knowledgeHits(t, e, "heron"); len(hits) != 1 {
		t.Errorf("file present at start: %d hits, want 1 (the rescan imports it)", len(hits))
	}
	list, err := e.KBList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Watched) != 1 || list.Watched[0].Root != mustReal(t, dir) {
		t.Errorf("KBList watched = %+v, want %s", list.Watched, dir)
	}

	saved := filepath.Join(dir, "new.md")
	writeFile(t, saved, "Quarterly kingfisher budget review.\n")
	took := waitFor(t, "saved file searchable", func() bool { return len(knowledgeHits(t, e, "kingfisher")) == 1 })
	t.Logf("saved file searchable after %v", took)

	nested := filepath.Join(dir, "deep", "er", "nested.md")
	writeFile(t, nested, "The cormorant migration plan.\n")
	took = waitFor(t, "file in a new folder searchable", func() bool { return len(knowledgeHits(t, e, "cormorant")) == 1 })
	t.Logf("file in a new folder searchable after %v", took)

	writeFile(t, saved, "Quarterly osprey budget review.\n")
	took = waitFor(t, "changed file re-indexed", func() bool {
		return len(knowledgeHits(t, e, "osprey")) == 1 && len(knowledgeHits(t, e, "kingfisher")) == 0
	})
	t.Logf("changed file re-indexed after %v", took)

	if err := os.Remove(saved); err != nil {
		t.Fatal(err)
	}
	took = waitFor(t, "deleted file gone from results", func() bool { return len(knowledgeHits(t, e, "osprey")) == 0 })
	t.Logf("deleted file gone after %v", took)

	if err := os.RemoveAll(filepath.Join(dir, "deep")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "deleted folder gone from results", func() bool { return len(knowledgeHits(t, e, "cormorant")) == 0 })
}

func mustReal(t *testing.T, path string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestWatchCopiesInWatchedFolder(t *testing.T) {
	e := openTestEngine(t)
	dir := t.TempDir()
	_, _ = watching(t, e, dir)
	text := "Identical sandpiper readme.\n"
	var paths []string
	for _, sub := range []string{"a", "b", "c"} {
		p := filepath.Join(mustReal(t, dir), sub, "README.md")
		writeFile(t, p, text)
		paths = append(paths, p)
	}
	waitFor(t, "three copies as one hit", func() bool {
		hits := knowledgeHits(t, e, "sandpiper")
		return len(hits) == 1 && len(hits[0].Doc.OtherPaths) == 2
	})
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "one copy deleted, the document stays with the others", func() bool {
		hits := knowledgeHits(t, e, "sandpiper")
		return len(hits) == 1 && len(hits[0].Doc.OtherPaths) == 1
	})
}

func TestWatchRescanFindsWhatChangedWhileStopped(t *testing.T) {
	e := openTestEngine(t)
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.md")
	change := filepath.Join(dir, "change.md")
	gone := filepath.Join(dir, "gone.md")
	writeFile(t, keep, "Stable albatross notes.\n")
	writeFile(t, change, "Old puffin notes.\n")
	writeFile(t, gone, "Doomed grebe notes.\n")
	stop, _ := watching(t, e, dir)
	stop()

	writeFile(t, change, "New puffin and gannet notes, longer than before.\n")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "added.md"), "Fresh petrel notes.\n")

	_, events := watching(t, e, dir)
	for query, want := range map[string]int{"albatross": 1, "gannet": 1, "grebe": 0, "petrel": 1} {
		if got := len(knowledgeHits(t, e, query)); got != want {
			t.Errorf("after the rescan, %q: %d hits, want %d", query, got, want)
		}
	}
	// The unchanged file is passed over on its size and time alone.
	for _, ev := range events() {
		if ev.Path == mustReal(t, keep) {
			t.Errorf("rescan read the unchanged file: %+v", ev)
		}
	}
}

func TestWatchKeepsSymlinksInside(t *testing.T) {
	e := openTestEngine(t)
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	writeFile(t, secret, "Private lammergeier password.\n")
	_, events := watching(t, e, dir)
	if err := os.Symlink(secret, filepath.Join(dir, "link.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	writeFile(t, filepath.Join(dir, "marker.md"), "Marker shrike.\n")
	waitFor(t, "marker searchable", func() bool { return len(knowledgeHits(t, e, "shrike")) == 1 })
	waitFor(t, "link reported skipped", func() bool {
		for _, ev := range events() {
			if ev.Outcome == ImportSkipped {
				return true
			}
		}
		return false
	})
	if hits := knowledgeHits(t, e, "lammergeier"); len(hits) != 0 {
		t.Errorf("a link out of the watched folder was imported: %+v", hits)
	}
}
