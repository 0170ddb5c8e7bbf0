package engine

import (
	"context"
	"testing"

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
