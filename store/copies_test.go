package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func smallDocument(path, hash, word string) DocumentInput {
	return DocumentInput{Space: "default", Path: path, Title: path, Format: "text", Hash: hash, Bytes: 10,
		Chunks: []Chunk{{Ordinal: 0, Text: word + " readme text", LineStart: 1, LineEnd: 1}}}
}

// listing is what ListDocuments says, as path -> copies.
func listing(t *testing.T, s *Store) map[string][]string {
	t.Helper()
	docs, err := s.ListDocuments(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, d := range docs {
		out[d.Path] = d.Copies
	}
	return out
}

func TestIdenticalFilesAreOneDocument(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		input func(path, hash, word string) DocumentInput
	}{
		{"small", smallDocument},
		{"staged", func(path, hash, word string) DocumentInput { return bigDocument(path, hash, stagedChunks+5, word) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			var first int64
			for i := range 5 {
				id, outcome, err := s.PutDocument(ctx, tc.input(fmt.Sprintf("/n/%d/README.md", i), "same", "alpha"))
				if err != nil {
					t.Fatal(err)
				}
				want := ImportDuplicate
				if i == 0 {
					first, want = id, ImportAdded
				}
				if id != first || outcome != want {
					t.Errorf("copy %d: id %d outcome %q, want %d %q", i, id, outcome, first, want)
				}
			}
			want := map[string][]string{"/n/0/README.md": {"/n/1/README.md", "/n/2/README.md", "/n/3/README.md", "/n/4/README.md"}}
			if diff := cmp.Diff(want, listing(t, s)); diff != "" {
				t.Errorf("after five copies (-want +got):\n%s", diff)
			}
			wantChunks := len(tc.input("x", "y", "alpha").Chunks)
			if got := matchCount(t, s, "alpha"); got != wantChunks {
				t.Errorf("alpha matches %d chunks, want %d (indexed once)", got, wantChunks)
			}

			// The own path goes: the first copy takes its place, the document stays.
			if _, gone, err := s.RemovePath(ctx, "default", "/n/0/README.md"); err != nil || gone {
				t.Fatalf("RemovePath own path: gone %v, %v; want kept", gone, err)
			}
			// A copy changes: it splits off as its own document.
			id, outcome, err := s.PutDocument(ctx, tc.input("/n/3/README.md", "changed", "beta"))
			if err != nil || outcome != ImportUpdated || id == first {
				t.Fatalf("changed copy: id %d outcome %q %v; want a new document, updated", id, outcome, err)
			}
			want = map[string][]string{"/n/1/README.md": {"/n/2/README.md", "/n/4/README.md"}, "/n/3/README.md": nil}
			if diff := cmp.Diff(want, listing(t, s)); diff != "" {
				t.Errorf("after removing one and changing one (-want +got):\n%s", diff)
			}
			// The changed copy changes back: it rejoins, and its own document goes.
			if id, outcome, err := s.PutDocument(ctx, tc.input("/n/3/README.md", "same", "alpha")); err != nil || outcome != ImportDuplicate || id != first {
				t.Fatalf("copy changed back: id %d outcome %q %v; want %d duplicate", id, outcome, err, first)
			}
			if got := matchCount(t, s, "beta"); got != 0 {
				t.Errorf("beta still matches %d chunks after its only path rejoined the copies", got)
			}
			for _, p := range []string{"/n/1/README.md", "/n/2/README.md", "/n/3/README.md"} {
				if _, gone, err := s.RemovePath(ctx, "default", p); err != nil || gone {
					t.Fatalf("RemovePath %s: gone %v, %v; want kept", p, gone, err)
				}
			}
			if _, gone, err := s.RemovePath(ctx, "default", "/n/4/README.md"); err != nil || !gone {
				t.Fatalf("RemovePath of the last path: gone %v, %v; want gone", gone, err)
			}
			if got := matchCount(t, s, "alpha"); got != 0 {
				t.Errorf("alpha still matches %d chunks after every path went", got)
			}
			if _, _, err := s.RemovePath(ctx, "default", "/n/4/README.md"); !errors.Is(err, ErrNotFound) {
				t.Errorf("RemovePath of a path no document holds = %v, want ErrNotFound", err)
			}
			if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
				t.Errorf("Integrity = %v, %v", problems, err)
			}
		})
	}
}

func TestDeleteDocumentTakesEveryCopy(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	id, _, err := s.PutDocument(ctx, smallDocument("/a.md", "h", "alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.PutDocument(ctx, smallDocument("/b.md", "h", "alpha")); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDocument(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := listing(t, s); len(got) != 0 {
		t.Errorf("after DeleteDocument: %v, want nothing", got)
	}
	// The copy's path is free again: importing it adds a document.
	if _, outcome, err := s.PutDocument(ctx, smallDocument("/b.md", "h", "alpha")); err != nil || outcome != ImportAdded {
		t.Errorf("re-import of the copy: %q %v, want added", outcome, err)
	}
}

// A database that stored identical files twice before copies existed folds them on upgrade.
func TestMigrationFoldsDuplicates(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, versionBefore(schemaDocumentCopies), wordsForTest)
	for _, p := range []string{"/x/a.md", "/y/a.md", "/z/a.md"} {
		res, err := db.Exec(`INSERT INTO documents(space, path, title, format, hash, bytes, imported_at) VALUES ('default', ?, 't', 'text', 'h', 1, 1)`, p)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		if _, err := db.Exec(`INSERT INTO chunks(doc_id, ordinal, text, byte_start, byte_end, line_start, line_end) VALUES (?, 0, 'alpha', 0, 5, 1, 1)`, id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: wordsForTest})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string][]string{"/x/a.md": {"/y/a.md", "/z/a.md"}}
	if diff := cmp.Diff(want, listing(t, s)); diff != "" {
		t.Errorf("after upgrade (-want +got):\n%s", diff)
	}
	if got := matchCount(t, s, "alpha"); got != 1 {
		t.Errorf("alpha matches %d chunks after upgrade, want 1", got)
	}
}
