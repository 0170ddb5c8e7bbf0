package store

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestCompactSearchShrinksTheFile: facts written one transaction each leave the full-text
// indexes in many segments; compacting merges them, the pages it frees go back to the file
// system, and every search answers as before.
func TestCompactSearchShrinksTheFile(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var mode int
	if err := s.db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("auto_vacuum of a new store = %d (%v), want 2 (incremental)", mode, err)
	}
	const n = 1500
	for i := range n {
		text := fmt.Sprintf("note %d about the zeppelin hangar number%d and topic%d", i, i, i%37)
		if _, _, err := s.AddFact(ctx, "default", NewFact{Content: text, Hash: text}); err != nil {
			t.Fatal(err)
		}
	}
	search := func() (words, trigrams int) {
		t.Helper()
		w, err := s.WordCandidates(ctx, KindFact, `"topic5" OR "number42"`, SearchScope{Limit: 5000})
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.TrigramCandidates(ctx, KindFact, `"ppe" AND "lin"`, SearchScope{Limit: 5000})
		if err != nil {
			t.Fatal(err)
		}
		return len(w), len(g)
	}
	wordsBefore, trigramsBefore := search()
	if wordsBefore != 41 || trigramsBefore != n {
		t.Fatalf("before compacting: %d word matches, %d trigram matches; want 41 and %d", wordsBefore, trigramsBefore, n)
	}
	checkpoint := func() int64 {
		t.Helper()
		if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	sizeBefore := checkpoint()

	passes := 0
	for {
		worked, err := s.CompactSearch(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !worked {
			break
		}
		if passes++; passes > 1000 {
			t.Fatal("CompactSearch still reports work after 1000 passes")
		}
	}
	if passes < 2 {
		t.Errorf("compacting took %d passes of 2 pages; want several (the passes are bounded)", passes)
	}
	if worked, err := s.CompactSearch(ctx, 2); err != nil || worked {
		t.Errorf("CompactSearch after the end = %v, %v; want false, nil", worked, err)
	}
	free, _, err := s.FreePages(ctx)
	if err != nil || free == 0 {
		t.Fatalf("free pages after compacting = %d (%v), want some", free, err)
	}
	left, err := s.ReleaseFreePages(ctx, 1<<20)
	if err != nil || left != 0 {
		t.Fatalf("ReleaseFreePages = %d left, %v; want 0", left, err)
	}
	if sizeAfter := checkpoint(); sizeAfter >= sizeBefore {
		t.Errorf("file %d bytes after compacting, %d before; want smaller", sizeAfter, sizeBefore)
	}
	if w, g := search(); w != wordsBefore || g != trigramsBefore {
		t.Errorf("after compacting: %d word matches, %d trigram matches; want %d and %d", w, g, wordsBefore, trigramsBefore)
	}
	if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
		t.Errorf("Integrity = %v, %v", problems, err)
	}
}

// TestVacuumSwitchesAnOldStoreToIncremental: a store made before incremental vacuuming
// shrinks only by a full VACUUM, which also switches it over.
func TestVacuumSwitchesAnOldStoreToIncremental(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A change of auto_vacuum takes effect at the next VACUUM, on the same connection.
	for _, q := range []string{`PRAGMA auto_vacuum = NONE`, `VACUUM`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	if ok, err := s.incrementalVacuum(ctx); err != nil || ok {
		t.Fatalf("after VACUUM with auto_vacuum NONE: incremental = %v, %v; want false", ok, err)
	}
	if _, err := s.ReleaseFreePages(ctx, 100); err != nil {
		t.Fatalf("ReleaseFreePages on a store without incremental vacuum: %v; want it to do nothing", err)
	}
	if err := s.Vacuum(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.incrementalVacuum(ctx); err != nil || !ok {
		t.Errorf("after Vacuum: incremental = %v, %v; want true", ok, err)
	}
}

// TestOpenSaysItUpgrades: an older store's open says it migrates, once; a new store and a
// current one say nothing.
func TestOpenSaysItUpgrades(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, versionBefore(schemaSubstrings), wordsForTest)
	db.Close()
	var told [][2]int
	opts := Options{Words: wordsForTest, OnUpgrade: func(from, to int) { told = append(told, [2]int{from, to}) }}
	for range 2 {
		s, err := Open(ctx, path, opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	if want := [][2]int{{versionBefore(schemaSubstrings), SchemaVersion()}}; fmt.Sprint(told) != fmt.Sprint(want) {
		t.Errorf("OnUpgrade calls over two opens = %v, want %v", told, want)
	}
	told = nil
	s, err := Open(ctx, t.TempDir()+"/new.db", opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(told) != 0 {
		t.Errorf("a new store was told it upgrades: %v", told)
	}
}
