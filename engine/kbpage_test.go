package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/store"
)

// writeSectionsDoc writes a Markdown file of n one-chunk sections.
func writeSectionsDoc(t testing.TB, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "## Part %d\n\nPart %d is about the shed.\n\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestKBChunkPage(t *testing.T) {
	e := openTestEngine(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "book.md")
	writeSectionsDoc(t, path, 50)
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	docID := res.Files[0].DocID
	all, err := e.KBChunks(ctx, docID)
	if err != nil {
		t.Fatal(err)
	}
	ordinals := func(p KBChunkPage) string {
		var s []string
		for _, c := range p.Chunks {
			s = append(s, fmt.Sprint(c.Ordinal))
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name    string
		req     KBChunkPageRequest
		want    string
		wantHit int
	}{
		{"around the middle", KBChunkPageRequest{Around: all[25].ID, Before: 2, After: 2}, "23,24,25,26,27", 2},
		{"around the first", KBChunkPageRequest{Around: all[0].ID, Before: 3, After: 1}, "0,1", 0},
		{"around the last", KBChunkPageRequest{Around: all[49].ID, Before: 1, After: 5}, "48,49", 1},
		{"from an ordinal", KBChunkPageRequest{From: 47, After: 5}, "47,48,49", -1},
		{"default page", KBChunkPageRequest{}, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.DocID = docID
			p, err := e.KBChunkPage(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := ordinals(p); got != tc.want || p.Hit != tc.wantHit {
				t.Errorf("ordinals %s hit %d, want %s hit %d", got, p.Hit, tc.want, tc.wantHit)
			}
			if p.Document.Chunks != 50 || p.Document.Path != path {
				t.Errorf("document = %+v, want %s with 50 chunks", p.Document, path)
			}
		})
	}
	other := filepath.Join(t.TempDir(), "other.md")
	writeSectionsDoc(t, other, 2)
	res2, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{other}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBChunkPage(ctx, KBChunkPageRequest{DocID: res2.Files[0].DocID, Around: all[3].ID}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a chunk of another document: err = %v, want not found", err)
	}
	if _, err := e.KBChunkPage(ctx, KBChunkPageRequest{DocID: docID, Before: -1}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("negative before: err = %v, want a bad request", err)
	}
}

// TestDeferredEntitiesAreSweptByRun: an import that defers extraction stores the chunks
// pending, and Run, already running, extracts them once the import ends.
func TestDeferredEntitiesAreSweptByRun(t *testing.T) {
	e := openEntityEngine(t)
	runInBackground(t, e)
	path := filepath.Join(t.TempDir(), "team.md")
	if err := os.WriteFile(path, []byte("# Team\n\nAlice maintains the billing service in Berlin.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBAdd(context.Background(), KBAddRequest{Paths: []string{path}, DeferEntities: true}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, stale, err := e.st.StaleEntities(context.Background(), store.KindChunk, entity.RulesVersion, 10)
		if err != nil {
			t.Fatal(err)
		}
		if stale == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d chunks still have pending entities a minute after the import", stale)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestUnchangedRecheckSkipsExtraction: re-importing an unchanged folder answers from the
// stored hash and extracts nothing, so it runs at the speed of an engine without the
// extractor. The figures are logged, not asserted: speed targets live in benchmarks.
func TestUnchangedRecheckSkipsExtraction(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 300 files three times")
	}
	dir := t.TempDir()
	for i := range 300 {
		text := fmt.Sprintf("# Note %d\n\nAlice Smith in Berlin runs backups %d on Kubernetes.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%03d.md", i)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	e := openEntityEngine(t)
	for _, pass := range []struct {
		name     string
		deferred bool
	}{{"inline entities", false}, {"deferred entities (window)", true}} {
		start := time.Now()
		sub := filepath.Join(t.TempDir(), "copy")
		if err := os.CopyFS(sub, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{sub}, DeferEntities: pass.deferred}); err != nil {
			t.Fatal(err)
		}
		added := time.Since(start)
		start = time.Now()
		res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{sub}, DeferEntities: pass.deferred})
		if err != nil || res.Unchanged != 300 {
			t.Fatalf("re-check: %d unchanged, %v; want 300", res.Unchanged, err)
		}
		t.Logf("%s: 300 new files in %v, re-check in %v (%.0f files/s)", pass.name, added,
			time.Since(start), 300/time.Since(start).Seconds())
	}
}
