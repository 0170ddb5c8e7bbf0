package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRecallMarksConflictingPairs: recall shows both facts of a contradicting pair, each
// marked with the other and which of the two is newer, until a person keeps both.
func TestRecallMarksConflictingPairs(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	old := add(t, e, RememberRequest{Text: "CI uses Python 3.11 on the build server"}).FactID
	newer := add(t, e, RememberRequest{Text: "CI uses Python 3.12 on the build server"}).FactID
	plain := add(t, e, RememberRequest{Text: "The build server has 32 GB of memory"}).FactID

	// marks maps each hit to its conflicts; paired says the pair is still reported.
	marks := func(paired bool) map[int64][]HitConflict {
		t.Helper()
		res, err := e.Recall(ctx, RecallRequest{Query: "build server", Source: SourceMemory})
		if err != nil {
			t.Fatalf("Recall: %v", err)
		}
		out := map[int64][]HitConflict{}
		for _, h := range res.Hits {
			out[h.ID] = h.Conflicts
			if want := paired && h.ID == newer; h.Newest() != want {
				t.Errorf("hit #%d Newest() = %v, want %v", h.ID, h.Newest(), want)
			}
		}
		return out
	}
	got := marks(true)
	for id, c := range got {
		for i := range c {
			if c[i].Reason == "" {
				t.Errorf("hit #%d conflict %+v has no reason", id, c[i])
			}
			c[i].Reason = ""
		}
	}
	want := map[int64][]HitConflict{
		old:   {{FactID: newer, Newer: true}},
		newer: {{FactID: old, Newer: false}},
		plain: nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conflict marks (-want +got):\n%s", diff)
	}

	if err := e.DismissContradiction(ctx, old, newer); err != nil {
		t.Fatalf("DismissContradiction: %v", err)
	}
	for id, c := range marks(false) {
		if len(c) != 0 {
			t.Errorf("hit #%d still marked %+v after the pair was kept both", id, c)
		}
	}
}

// TestKeepBothSilencesARestatement: "Keep both" on a near-duplicate is remembered as a
// dismissed contradiction is, so editing the fact does not report the same pair again.
func TestKeepBothSilencesARestatement(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	first := add(t, e, RememberRequest{Text: "Our CI uses Python 3.12"}).FactID
	second := add(t, e, RememberRequest{Text: "The CI uses Python 3.12 now"})
	if diff := cmp.Diff([]int64{first}, second.SimilarTo); diff != "" {
		t.Fatalf("similar_to before keeping both (-want +got):\n%s", diff)
	}
	if err := e.DismissContradiction(ctx, second.FactID, first); err != nil {
		t.Fatalf("DismissContradiction: %v", err)
	}
	res, err := e.Remember(ctx, RememberRequest{Action: ActionEdit, ID: second.FactID, Text: "The CI uses Python 3.12 today"})
	if err != nil {
		t.Fatalf("edit: %v", err)
	}
	if len(res.SimilarTo) != 0 {
		t.Errorf("edit after keeping both reports similar_to %v, want nothing", res.SimilarTo)
	}
}

// TestConflictMarksGoByTimeWritten: a memory imported with its own, older time is the older
// of a pair even though its id is the newer (the export's round trip keeps times).
func TestConflictMarksGoByTimeWritten(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	current := add(t, e, RememberRequest{Text: "CI uses Python 3.12 on the build server"}).FactID
	at := time.Date(2019, 3, 1, 9, 0, 0, 0, time.UTC)
	ex := MemoryExport{Format: MemoryExportFormat, Memories: []ExportedMemory{
		{Text: "CI uses Python 3.11 on the build server", Space: "default", CreatedAt: at, UpdatedAt: at}}}
	if _, err := e.ImportMemories(ctx, ex, nil); err != nil {
		t.Fatalf("ImportMemories: %v", err)
	}
	res, err := e.Recall(ctx, RecallRequest{Query: "build server", Source: SourceMemory})
	if err != nil {
		t.Fatalf("Recall: %v", err)
	}
	var imported int64
	for _, h := range res.Hits {
		if h.ID != current {
			imported = h.ID
		}
	}
	if imported <= current {
		t.Fatalf("hits %+v: want the imported memory with a higher id than #%d", res.Hits, current)
	}
	for _, h := range res.Hits {
		if len(h.Conflicts) != 1 {
			t.Fatalf("hit #%d conflicts %+v, want one", h.ID, h.Conflicts)
		}
		if wantNewer := h.ID == imported; h.Conflicts[0].Newer != wantNewer {
			t.Errorf("hit #%d: its conflict #%d marked newer=%v, want %v (the import is from 2019)",
				h.ID, h.Conflicts[0].FactID, h.Conflicts[0].Newer, wantNewer)
		}
	}
}

func TestWrittenAfter(t *testing.T) {
	early, late := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		aAt  time.Time
		aID  int64
		bAt  time.Time
		bID  int64
		want bool
	}{
		{late, 1, early, 2, true},       // time decides over ids
		{early, 9, late, 2, false},      // an import: higher id, older time
		{late, 3, late, 2, true},        // same time: the id
		{time.Time{}, 3, late, 2, true}, // unknown time: the id
		{time.Time{}, 1, early, 2, false},
	} {
		if got := WrittenAfter(tc.aAt, tc.aID, tc.bAt, tc.bID); got != tc.want {
			t.Errorf("WrittenAfter(%v, %d, %v, %d) = %v, want %v", tc.aAt, tc.aID, tc.bAt, tc.bID, got, tc.want)
		}
	}
}

// TestRecallPutsTheNewerOfAContradictionFirst: the ranking puts the older fact first (it
// holds more of the query); the newer one, which contradicts it, is moved above it.
func TestRecallPutsTheNewerOfAContradictionFirst(t *testing.T) {
	e := openTestEngine(t)
	old := remember(t, e, "", "CI uses Python 3.11 on the build server, pinned by the data team")
	remember(t, e, "", "The build server has 32 GB of memory")
	newer := remember(t, e, "", "CI uses Python 3.12")
	res, err := e.Recall(context.Background(), RecallRequest{Query: "which python does CI use on the build server"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if len(ids) < 2 || ids[0] != newer || ids[1] != old {
		t.Fatalf("hits %v, want %d (newer) then %d (older)", ids, newer, old)
	}
	if !strings.Contains(res.Hits[0].Why, "newer than #1") {
		t.Errorf("why = %q, want it to say it was moved above #%d", res.Hits[0].Why, old)
	}
}

func TestNewerFirstMovesOnlyThePairs(t *testing.T) {
	hit := func(id int64, newerThan ...int64) Hit {
		h := Hit{ID: id, Source: SourceMemory}
		for _, o := range newerThan {
			h.Conflicts = append(h.Conflicts, HitConflict{FactID: o, Newer: false})
		}
		return h
	}
	older := func(h Hit, newer ...int64) Hit {
		for _, n := range newer {
			h.Conflicts = append(h.Conflicts, HitConflict{FactID: n, Newer: true})
		}
		return h
	}
	// 1 < 3 < 5 in time, all contradicting each other; 2 and 4 stand alone.
	hits := []Hit{older(hit(1), 3, 5), hit(2), older(hit(3, 1), 5), hit(4), hit(5, 1, 3)}
	newerFirst(hits)
	var got []int64
	for _, h := range hits {
		got = append(got, h.ID)
	}
	if want := []int64{5, 3, 1, 2, 4}; !cmp.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
