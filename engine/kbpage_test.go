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

// TestPendingFactsAreSweptByRun: facts stored while no extractor is loaded (a one-shot CLI,
// or the app's first seconds) are pending, and Run extracts them; an import stores its
// chunks without entities, and the knowledge search still finds them.
func TestPendingFactsAreSweptByRun(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	path := filepath.Join(t.TempDir(), "team.md")
	if err := os.WriteFile(path, []byte("# Team\n\nAlice maintains the billing service in Berlin.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Remember(ctx, RememberRequest{Text: "Alice moved the billing service to Hamburg"}); err != nil {
		t.Fatal(err)
	}
	if _, stale, err := e.st.StaleEntities(ctx, entity.RulesVersion, 10); err != nil || stale != 1 {
		t.Fatalf("before Run: %d pending facts (%v), want the one remembered", stale, err)
	}
	runInBackground(t, e)
	deadline := time.Now().Add(time.Minute)
	for {
		_, stale, err := e.st.StaleEntities(ctx, entity.RulesVersion, 10)
		if err != nil {
			t.Fatal(err)
		}
		if stale == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d facts still have pending entities a minute after Run started", stale)
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := e.Recall(ctx, RecallRequest{Query: "billing service Berlin", Source: SourceKnowledge})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("knowledge recall after an import without entities: %+v, %v", res.Hits, err)
	}
}
