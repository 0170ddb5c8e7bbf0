package store

import (
	"context"
	"os"
	"testing"
)

// TestWALShrinksAfterBigWrite: a long-lived process (the window, the MCP server) keeps the
// database open for days; after one big import the WAL must not stay at the import's size.
// SQLite reuses the WAL from its start after a checkpoint but never shortens it unless
// journal_size_limit says to.
func TestWALShrinksAfterBigWrite(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE bulk(b BLOB)`); err != nil {
		t.Fatal(err)
	}
	// One transaction of 40 MB: the WAL must hold all of it until the commit.
	if _, err := s.db.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 640)
		INSERT INTO bulk SELECT randomblob(65536) FROM n`); err != nil {
		t.Fatal(err)
	}
	walSize := func() int64 {
		fi, err := os.Stat(s.Path() + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	peak := walSize()
	if peak < 40<<20 {
		t.Fatalf("the big write left a WAL of %d bytes; the test needs one of 40 MB to mean anything", peak)
	}
	// What the app does next: small writes, as a person makes them.
	for range 20 {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO bulk VALUES (x'00')`); err != nil {
			t.Fatal(err)
		}
	}
	if got := walSize(); got > walSizeLimit {
		t.Errorf("WAL is %d bytes after the big write checkpointed and small writes followed (peak %d); want at most %d", got, peak, walSizeLimit)
	}
}
