package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFullIsWorded fills the database to its page limit (PRAGMA max_page_count, SQLite's
// own "database or disk is full"): the write fails with a DiskError that says which disk and
// what to do, matches ErrDiskFull, and what was stored before stays whole.
func TestDiskFullIsWorded(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	first := bigDocument("/notes/first.txt", "h1", 20, "heron")
	if _, _, err := s.PutDocument(ctx, first); err != nil {
		t.Fatal(err)
	}
	// One connection, so the page limit (a per-connection setting) holds for every write.
	s.db.SetMaxOpenConns(1)
	var pages int
	if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+2)); err != nil {
		t.Fatal(err)
	}
	// A small document (one transaction) and a staged one (many).
	for _, n := range []int{200, 2*stagedChunks + 1} {
		_, _, err := s.PutDocument(ctx, bigDocument(fmt.Sprintf("/notes/big%d.txt", n), "h2", n, strings.Repeat("ledger ", 50)))
		if !errors.Is(err, ErrDiskFull) {
			t.Fatalf("PutDocument(%d chunks) on a full database: %v, want ErrDiskFull", n, err)
		}
		want := "the disk holding " + s.Path() + " is full: free space and run again; nothing acknowledged was lost"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q, want it to say %q", err, want)
		}
	}
	s.db.Exec(`PRAGMA max_page_count = 1073741823`)
	docs, err := s.ListDocuments(ctx, "")
	if err != nil || len(docs) != 1 || docs[0].Chunks != 20 {
		t.Errorf("documents after the failed writes = %+v, %v; want only the first, whole", docs, err)
	}
	if st, _ := s.Stats(ctx); st.Chunks != 20 {
		t.Errorf("stats count %d chunks after the failed writes, want 20", st.Chunks)
	}
}

func TestDiskErrorKinds(t *testing.T) {
	s := &Store{path: "/data/memdesk.db"}
	enospc := fmt.Errorf("write: %w", &fs.PathError{Op: "write", Path: "/data/memdesk.db-wal", Err: syscall.ENOSPC})
	if err := s.diskError(enospc); !errors.Is(err, ErrDiskFull) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("diskError(ENOSPC) = %v, want ErrDiskFull wrapping ENOSPC", err)
	}
	other := errors.New("constraint failed")
	if err := s.diskError(other); err != other {
		t.Errorf("diskError(other) = %v, want it unchanged", err)
	}
}
