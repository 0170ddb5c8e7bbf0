package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func bigDocument(path, hash string, n int, word string) DocumentInput {
	in := DocumentInput{Space: "default", Path: path, Title: "big", Format: "text", Hash: hash, Bytes: int64(n * 20)}
	for i := range n {
		in.Chunks = append(in.Chunks, Chunk{Ordinal: i, Text: fmt.Sprintf("%s chunk number %d", word, i), LineStart: i + 1, LineEnd: i + 1})
	}
	return in
}

func matchCount(t *testing.T, s *Store, word string) int {
	t.Helper()
	got, err := s.WordCandidates(context.Background(), KindChunk, `"`+word+`"`, SearchScope{Space: "default", Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	return len(got)
}

func TestStagedImportIsWholeOrNothing(t *testing.T) {
	ctx := context.Background()
	var words atomic.Int64
	var cancelAt atomic.Int64
	cancelAt.Store(-1)
	var cancel context.CancelFunc
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Words: func(text string) string {
		if words.Add(1) == cancelAt.Load() && cancel != nil {
			cancel()
		}
		return text
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 3*stagedChunks + 7

	id, outcome, err := s.PutDocument(ctx, bigDocument("/notes/big.txt", "h1", n, "alpha"))
	if err != nil || outcome != ImportAdded {
		t.Fatalf("PutDocument = %d, %q, %v", id, outcome, err)
	}
	if got := matchCount(t, s, "alpha"); got != n {
		t.Fatalf("%d chunks searchable, want %d", got, n)
	}

	// A changed version cancelled after its first piece: the old version stays, whole.
	cctx, c := context.WithCancel(ctx)
	cancel = c
	cancelAt.Store(words.Load() + stagedChunks + 1)
	if _, _, err := s.PutDocument(cctx, bigDocument("/notes/big.txt", "h2", n, "bravo")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled PutDocument err = %v, want context.Canceled", err)
	}
	if a, b := matchCount(t, s, "alpha"), matchCount(t, s, "bravo"); a != n || b != 0 {
		t.Fatalf("after a cancelled update: %d old and %d new chunks searchable, want %d and 0", a, b, n)
	}
	docs, _ := s.ListDocuments(ctx, "")
	if len(docs) != 1 || docs[0].ID != id || docs[0].Chunks != n {
		t.Fatalf("documents after a cancelled update = %+v, want only %d with %d chunks", docs, id, n)
	}
	var leftover int
	s.db.QueryRow(`SELECT count(*) FROM chunks WHERE doc_id != ?`, id).Scan(&leftover)
	if leftover != 0 {
		t.Errorf("%d staged chunks left behind by the cancelled update", leftover)
	}

	// The update done: the new version replaces the old one, and the old one is gone.
	newID, outcome, err := s.PutDocument(ctx, bigDocument("/notes/big.txt", "h2", n+1, "bravo"))
	if err != nil || outcome != ImportUpdated {
		t.Fatalf("update = %d, %q, %v", newID, outcome, err)
	}
	if a, b := matchCount(t, s, "alpha"), matchCount(t, s, "bravo"); a != 0 || b != n+1 {
		t.Fatalf("after the update: %d old and %d new chunks searchable, want 0 and %d", a, b, n+1)
	}
	var docsLeft, chunksLeft int
	s.db.QueryRow(`SELECT count(*) FROM documents`).Scan(&docsLeft)
	s.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunksLeft)
	if docsLeft != 1 || chunksLeft != n+1 {
		t.Errorf("after the update the tables hold %d documents and %d chunks, want 1 and %d", docsLeft, chunksLeft, n+1)
	}
	if _, outcome, _ := s.PutDocument(ctx, bigDocument("/notes/big.txt", "h2", n+1, "bravo")); outcome != ImportUnchanged {
		t.Errorf("same hash again = %q, want unchanged", outcome)
	}
	if problems, err := s.Integrity(ctx); err != nil || len(problems) != 0 {
		t.Errorf("integrity = %v, %v", problems, err)
	}

	if err := s.DeleteDocument(ctx, newID); err != nil {
		t.Fatal(err)
	}
	s.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunksLeft)
	if got := matchCount(t, s, "bravo"); got != 0 || chunksLeft != 0 {
		t.Errorf("after removing: %d searchable, %d chunk rows, want none", got, chunksLeft)
	}
	if err := s.DeleteDocument(ctx, newID); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing twice err = %v, want ErrNotFound", err)
	}
}

func TestRemoveAbandonedImports(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memdesk.db")
	s, err := Open(ctx, path, Options{Words: wordsForTest})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if _, _, err := s.PutDocument(ctx, DocumentInput{Space: "default", Path: "/notes/a.md", Title: "a", Format: "text", Hash: "a",
		Chunks: []Chunk{{Text: "leftover text in a real document"}}}); err != nil {
		t.Fatal(err)
	}
	// What crashes leave: a staging document written a moment ago by a process now dead (no
	// lock held), a retired version; and a live import whose last piece is hours old (a
	// slow writer, a laptop asleep) that holds its lock.
	live, err := s.lockImport("live")
	if err != nil || live == nil {
		t.Fatalf("lockImport = %v, %v", live, err)
	}
	defer live.release()
	old := time.Now().Add(-2 * abandonedAfter).UnixMilli()
	addReserved := func(space string, at int64) {
		t.Helper()
		res, err := s.db.Exec(`INSERT INTO documents(space, path, title, format, hash, bytes, imported_at) VALUES (?, 'p', 't', 'text', 'h', 1, ?)`, space, at)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		for i := range 3 {
			if _, err := s.db.Exec(`INSERT INTO chunks(doc_id, ordinal, text, byte_start, byte_end, line_start, line_end, wlen) VALUES (?, ?, 'leftover text', 0, 1, 1, 1, 2)`, id, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	addReserved(stagingSpace+"dead", time.Now().UnixMilli())
	addReserved(stagingSpace+"live", old)
	addReserved(retiredSpace+"x", time.Now().UnixMilli())
	reservedLeft := func() []string {
		t.Helper()
		var left []string
		rows, err := s.db.Query(`SELECT space FROM documents d WHERE NOT (` + notReserved + `) ORDER BY space`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var sp string
			rows.Scan(&sp)
			left = append(left, sp)
		}
		return left
	}

	if docs, _ := s.ListDocuments(ctx, ""); len(docs) != 1 {
		t.Errorf("documents listed: %+v, want only the real one", docs)
	}
	if st, _ := s.Stats(ctx); st.Documents != 1 || st.Spaces != 1 || st.Chunks != 1 {
		t.Errorf("stats count reserved spaces: %+v, want 1 document, 1 space, 1 chunk", st)
	}
	if df, err := s.WordDF(ctx, KindChunk, "", []string{"leftover"}, 100); err != nil || df["leftover"] != 1 {
		t.Errorf("WordDF(leftover) = %v, %v; want 1 (staged chunks are not documents yet)", df, err)
	}
	if _, total, err := s.MissingVectors(ctx, KindChunk, "fp", 0, 100); err != nil || total != 1 {
		t.Errorf("MissingVectors(chunks) total = %d, %v; want 1 (staged chunks are not embedded)", total, err)
	}

	if err := s.RemoveAbandoned(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := reservedLeft(), []string{stagingSpace + "live"}; !slices.Equal(got, want) {
		t.Errorf("after RemoveAbandoned reserved documents are %q, want %q: the dead import is reclaimed whatever its age, the live one kept whatever its age", got, want)
	}

	// Its writer gone (the lock dropped, the file left, as a kill leaves it), the next open
	// reclaims the last one, and its lock file.
	live.f.Close()
	s.Close()
	if s, err = Open(ctx, path, Options{Words: wordsForTest}); err != nil {
		t.Fatal(err)
	}
	if got := reservedLeft(); len(got) != 0 {
		t.Errorf("after reopening reserved documents are %q, want none", got)
	}
	var chunks int
	s.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunks)
	if chunks != 1 {
		t.Errorf("%d chunk rows left, want 1", chunks)
	}
	if _, err := os.Stat(s.importLockPath("live")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file of the reclaimed import: %v, want it removed", err)
	}
}

// TestRemoveAbandonedOrphanLock: an import killed after it took its lock and before its
// first staged row leaves a lock file no document names; the next reclaim removes it, and
// never the lock of an import still running.
func TestRemoveAbandonedOrphanLock(t *testing.T) {
	if !lockedAtBirth {
		t.Skip("young unlocked lock files are spared on this platform")
	}
	s := openTest(t)
	ctx := context.Background()
	orphan := s.importLockPath("0123456789abcdef")
	if err := os.WriteFile(orphan, nil, 0o600); err != nil { // what a killed writer leaves
		t.Fatal(err)
	}
	live, err := s.lockImport("fedcba9876543210")
	if err != nil || live == nil {
		t.Fatalf("lock an import: %v", err)
	}
	defer live.release()
	if err := s.RemoveAbandoned(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan lock file still there after the reclaim (%v)", err)
	}
	if _, err := os.Stat(live.path); err != nil {
		t.Errorf("a live import's lock file was removed: %v", err)
	}
}
