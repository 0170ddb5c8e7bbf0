package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRecallFloorsAndRelaxedRetry(t *testing.T) {
	e := openTestEngine(t)
	ci := remember(t, e, "", "CI uses Python 3.12")
	both := remember(t, e, "", "the Python version on the build servers is pinned")
	remember(t, e, "", "老王喜欢简约风格")

	res, err := e.Recall(context.Background(), RecallRequest{Query: "python version"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Relaxed || len(res.Hits) != 1 || res.Hits[0].ID != both {
		t.Errorf("strict answer = %+v (relaxed %v); want only fact %d, which has both graded terms", res.Hits, res.Relaxed, both)
	}
	if res.Floors.FTSBar != 2 || res.Floors.DroppedFTS == 0 {
		t.Errorf("floor report = %+v; want bar 2 and the one-term fact dropped", res.Floors)
	}

	res, err = e.Recall(context.Background(), RecallRequest{Query: "python interpreter"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if !res.Relaxed || !cmp.Equal(ids, []int64{ci, both}) && !cmp.Equal(ids, []int64{both, ci}) {
		t.Errorf("relaxed answer = %v (relaxed %v); want both Python facts, marked relaxed", ids, res.Relaxed)
	}

	for _, q := range []string{"量子纠缠实验", "submarine volcano eruption", "老李讨厌复杂的设计"} {
		res, err := e.Recall(context.Background(), RecallRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 {
			t.Errorf("unrelated query %q returned %d hits, want none: %+v", q, len(res.Hits), res.Hits)
		}
	}
}

func TestRecallTimeWords(t *testing.T) {
	ctx := context.Background()
	tomorrow := time.Now().Add(24 * time.Hour)
	e, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Now: func() time.Time { return tomorrow }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	id := remember(t, e, "", "会议纪要：预算通过了")
	remember(t, e, "", "昨天这个词本身不该被匹配")

	// Seen from tomorrow, today's fact was written "yesterday"; the time word is not matched
	// as text, so the fact that contains the word 昨天 is not found by it.
	res, err := e.Recall(ctx, RecallRequest{Query: "昨天的会议纪要"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != id {
		t.Fatalf("昨天的会议纪要 = %+v; want fact %d", res.Hits, id)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "昨天") {
		t.Errorf("notes = %q; want one saying the time filter applied", res.Notes)
	}

	// Nothing was written last year: the filter is dropped and the result says so.
	res, err = e.Recall(ctx, RecallRequest{Query: "去年的会议纪要"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != id {
		t.Fatalf("去年的会议纪要 = %+v; want fact %d with the filter dropped", res.Hits, id)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "any time") {
		t.Errorf("notes = %q; want one saying the filter was dropped", res.Notes)
	}

	res, err = e.Recall(ctx, RecallRequest{Query: "昨天"})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("a query of only a time word = %+v, %v; want no hits and no error", res.Hits, err)
	}
}

func TestRecallStripsQuestionWords(t *testing.T) {
	e := openTestEngine(t)
	id := remember(t, e, "", "the staging cluster runs Kubernetes 1.31")
	res, err := e.Recall(context.Background(), RecallRequest{Query: "what does the staging cluster run?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != id || res.Relaxed {
		t.Errorf("question = %+v (relaxed %v); want fact %d under the strict floors", res.Hits, res.Relaxed, id)
	}
}

// A question the strict floors answer also finds, in a large corpus, the fact that shares only
// its one distinctive (rare) word; over a small store it does not, and a rare word never
// answers a question the floors leave unanswered.
func TestRecallRareTermClearsTheBar(t *testing.T) {
	ctx := context.Background()
	const (
		rareFact   = "Ivermectin mass treatment campaigns against onchocerciasis in Africa"
		answerFact = "outbreaks were reported in the northern villages"
		question   = "which villages reported onchocerciasis outbreaks"
		unanswered = "onchocerciasis prevalence estimates"
	)
	filler := func(i int) string { return fmt.Sprintf("the villages along river %d harvest crop %d", i, i*7) }

	small := openTestEngine(t)
	remember(t, small, "", rareFact)
	answer := remember(t, small, "", answerFact)
	for i := range 10 {
		remember(t, small, "", filler(i))
	}
	if ids := recallIDs(t, small, RecallRequest{Query: question}); !cmp.Equal(ids, []int64{answer}) {
		t.Errorf("small store: %q = %v, want only fact %d: df says nothing in a small store", question, ids, answer)
	}

	large := openTestEngine(t)
	rare := remember(t, large, "", rareFact)
	answer = remember(t, large, "", answerFact)
	texts := make([]string, 400)
	for i := range texts {
		texts[i] = filler(i)
	}
	if _, err := large.RememberBatch(ctx, "", texts, nil); err != nil {
		t.Fatal(err)
	}
	res, err := large.Recall(ctx, RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if !cmp.Equal(ids, []int64{answer, rare}) && !cmp.Equal(ids, []int64{rare, answer}) || res.Relaxed {
		t.Fatalf("large store: %q = %v (relaxed %v), want facts %d and %d under the strict floors", question, ids, res.Relaxed, answer, rare)
	}
	for _, h := range res.Hits {
		if h.ID == rare && (!cmp.Equal(h.Rare, []string{"onchocerciasis"}) || !strings.Contains(h.Why, "rare")) {
			t.Errorf("hit rare = %v, why %q; want onchocerciasis named as rare", h.Rare, h.Why)
		}
	}
	if ids := recallIDs(t, large, RecallRequest{Query: unanswered}); len(ids) != 0 {
		t.Errorf("large store: %q = %v, want nothing: a rare word alone answers no question", unanswered, ids)
	}
}
