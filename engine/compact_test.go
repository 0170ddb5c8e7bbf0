package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memdesk/memdesk/engine/synth"
)

// TestImportCompactsTheIndexes: documents imported a file at a time leave the full-text
// indexes in many segments; an import large enough merges them and gives the space back,
// and recall answers as before.
func TestImportCompactsTheIndexes(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := t.TempDir()
	for _, d := range synth.New(3).Documents(80) {
		if err := os.WriteFile(filepath.Join(dir, d.Name), []byte(d.Text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}})
	if err != nil || res.Added != 80 {
		t.Fatalf("KBAdd = %d added, %v; want 80", res.Added, err)
	}
	w, err := e.st.SearchWritesSinceCompaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w.Since != 0 {
		t.Fatalf("after an import of %d chunks, %d writes are not compacted; want the import to compact", w.Live, w.Since)
	}
	if worked, err := e.st.CompactSearch(ctx, compactPages); err != nil || worked {
		t.Errorf("CompactSearch after the import's compaction = %v, %v; want nothing left to merge", worked, err)
	}
	if free, _, err := e.st.FreePages(ctx); err != nil || free != 0 {
		t.Errorf("free pages after the import = %d (%v), want 0: given back to the file system", free, err)
	}
	hits := recallIDs(t, e, RecallRequest{Query: "nginx", Source: SourceKnowledge, K: 5})
	if len(hits) == 0 {
		t.Error("recall after compacting finds nothing for nginx")
	}
}

// TestAdminCompact: facts written one transaction each are compacted on request, the file
// shrinks, and recall gives the same hits.
func TestAdminCompact(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	for i := range 400 {
		remember(t, e, "", fmt.Sprintf("note %d: the zeppelin hangar at gate %d holds crate%d", i, i%17, i))
	}
	req := RecallRequest{Query: "zeppelin crate77", K: 10}
	before := recallIDs(t, e, req)
	res, err := e.Admin(ctx, AdminRequest{Action: "compact"})
	if err != nil || !res.OK {
		t.Fatalf("Admin compact = %+v, %v", res, err)
	}
	if res.Counts["passes"] == 0 {
		t.Errorf("compact did no merge pass over 400 one-fact transactions: %+v", res)
	}
	if res.Counts["file_bytes_after"] >= res.Counts["file_bytes_before"] {
		t.Errorf("file %d bytes after compacting, %d before; want smaller (%v)", res.Counts["file_bytes_after"], res.Counts["file_bytes_before"], res.Details)
	}
	if after := recallIDs(t, e, req); !slices.Equal(before, after) {
		t.Errorf("recall after compacting = %v, before %v", after, before)
	}
}

// TestSubstringIndexFollowsEdits: the trigram index holds a rewrite of each text
// (leg.IndexSubstrings), and its deletes must see the same rewrite: after adds, edits and
// deletes through the engine the index is exactly what the facts say.
func TestSubstringIndexFollowsEdits(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	a := remember(t, e, "", "The garden shed holds the go-sqlite3 manual and 老王的咖啡")
	b := remember(t, e, "", "Rupert deprecated PostgreSQL 16 for the CI pipeline")
	if _, err := e.Remember(ctx, RememberRequest{Action: ActionEdit, ID: a, Text: "The garden shed holds the modernc-sqlite manual"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Remember(ctx, RememberRequest{Action: ActionForget, ID: b}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "integrity"})
	if err != nil || !res.OK {
		t.Fatalf("integrity after edits = %+v, %v", res, err)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "moderncsql"}); len(got) != 0 {
		t.Errorf("recall moderncsql = %v, want nothing", got)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "ernc"}); !slices.Equal(got, []int64{a}) {
		t.Errorf("recall ernc (inside the edited identifier) = %v, want [%d]", got, a)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "greSQL"}); len(got) != 0 {
		t.Errorf("recall greSQL after its fact was deleted = %v, want nothing", got)
	}
}

// TestRunCompactsAfterWrites: in a long-lived process the writes wake Run, which compacts
// once enough was written since the last time.
func TestRunCompactsAfterWrites(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	e := openEntityEngine(t)
	runInBackground(t, e)
	for i := range compactMinWrites + 50 {
		remember(t, e, "", fmt.Sprintf("note %d about the zeppelin hangar", i))
	}
	waitFor(t, "the writes compacted", func() bool {
		w, err := e.st.SearchWritesSinceCompaction(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return w.Since < compactMinWrites
	})
}
