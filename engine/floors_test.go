package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRecallAnswersByEvidence: in a small store a query sharing one content word with a fact
// is answered, the fact holding more of the query first; queries sharing nothing (or only
// stopwords) come back empty.
func TestRecallAnswersByEvidence(t *testing.T) {
	e := openTestEngine(t)
	ci := remember(t, e, "", "CI uses Python 3.12")
	both := remember(t, e, "", "the Python version on the build servers is pinned")
	remember(t, e, "", "老王喜欢简约风格")
	remember(t, e, "", "the printer on the second floor is out of toner")

	if ids := recallIDs(t, e, RecallRequest{Query: "python version"}); !cmp.Equal(ids, []int64{both, ci}) {
		t.Errorf("python version = %v, want %d (both words) then %d (one)", ids, both, ci)
	}
	res, err := e.Recall(context.Background(), RecallRequest{Query: "python interpreter"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || !res.Floors.Answered {
		t.Errorf("python interpreter = %+v (relaxed %v, floors %+v); want both Python facts", res.Hits, res.Relaxed, res.Floors)
	}
	for _, q := range []string{"量子纠缠实验", "submarine volcano eruption", "what is the capital of Australia"} {
		res, err := e.Recall(context.Background(), RecallRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 || res.Floors.Answered {
			t.Errorf("unrelated query %q returned %d hits (floors %+v), want none", q, len(res.Hits), res.Floors)
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

// TestRecallEvidenceScalesWithTheStore: in a store of hundreds of texts a word a few hundred
// of them hold answers no question alone, a word only one holds does, and several words
// together do where each alone would not.
func TestRecallEvidenceScalesWithTheStore(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	rare := remember(t, e, "", "Ivermectin mass treatment campaigns against onchocerciasis in Africa")
	answer := remember(t, e, "", "outbreaks were reported in the northern villages")
	texts := make([]string, 400)
	for i := range texts {
		texts[i] = fmt.Sprintf("the villages along river %d harvest crop %d", i, i*7)
	}
	if _, err := e.RememberBatch(ctx, "", texts, nil); err != nil {
		t.Fatal(err)
	}
	ids := recallIDs(t, e, RecallRequest{Query: "which villages reported onchocerciasis outbreaks"})
	if len(ids) < 2 || !(ids[0] == answer && ids[1] == rare || ids[0] == rare && ids[1] == answer) {
		t.Errorf("question = %v; want facts %d and %d first", ids, answer, rare)
	}
	// A word 401 of 402 texts hold says nothing about any of them, but it is the whole
	// query: a lookup of a word lists the texts that hold it.
	if ids := recallIDs(t, e, RecallRequest{Query: "villages", K: 10}); len(ids) != 10 || slices.Contains(ids, rare) {
		t.Errorf("villages = %v, want 10 texts that hold it (not %d)", ids, rare)
	}
	// Beside other words, it is no evidence: the question is about something else.
	if ids := recallIDs(t, e, RecallRequest{Query: "villages with hydroelectric turbines"}); len(ids) != 0 {
		t.Errorf("a question sharing only that word = %v, want nothing", ids)
	}
	res, err := e.Recall(ctx, RecallRequest{Query: "onchocerciasis"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != rare || !strings.Contains(res.Hits[0].Why, "onchocerciasis") {
		t.Errorf("a word one text holds = %+v, want that fact, explained", res.Hits)
	}
}
