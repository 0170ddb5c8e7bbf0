package engine

import (
	"context"
	"errors"
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

// TestRecallWeighsARepeatedWordMore: a pasted conversation says its topic more than once; the
// text holding the word said three times ranks above the one holding the word said once,
// though it was written later and is as long.
func TestRecallWeighsARepeatedWordMore(t *testing.T) {
	e := openTestEngine(t)
	pasta := remember(t, e, "", "we cooked pasta on friday")
	pizza := remember(t, e, "", "we cooked pizza on friday")
	ids := recallIDs(t, e, RecallRequest{Query: "pizza? pasta, or pizza... pizza!"})
	if !cmp.Equal(ids, []int64{pizza, pasta}) {
		t.Errorf("ranked %v, want %d (pizza, said three times) before %d (pasta, once)", ids, pizza, pasta)
	}
}

// TestRecallWeighsWordsByTheWholeStore: a space's bm25 takes how common a word is from
// every space, not from its own few texts. In space "trip" both words are held by one text
// each, so its own counts cannot tell them apart; across the store "hotel" is everywhere
// and "lisbon" rare, so the text naming Lisbon comes first.
func TestRecallWeighsWordsByTheWholeStore(t *testing.T) {
	e := openTestEngine(t)
	hotel := remember(t, e, "trip", "booked the hotel")
	lisbon := remember(t, e, "trip", "flying to lisbon")
	for i := range 8 {
		remember(t, e, "work", fmt.Sprintf("hotel invoice %d is due", i))
	}
	ids := recallIDs(t, e, RecallRequest{Query: "hotel lisbon", Space: "trip"})
	if !cmp.Equal(ids, []int64{lisbon, hotel}) {
		t.Errorf("ranked %v, want %d (lisbon, rare in the store) before %d (hotel, common)", ids, lisbon, hotel)
	}
}

// TestRecallCoverage: the store answers when a text holds enough of one clause of the query,
// its words weighed by how specific they are in general language; the question at the end of
// a chatty message is measured on its own; a name the dictionary does not know counts; a
// claim that shares one ordinary word with a text is not answered.
func TestRecallCoverage(t *testing.T) {
	e := openEntityEngine(t)
	name := remember(t, e, "me", "张晓燕住在上海，在一家银行工作")
	remember(t, e, "me", "我的狗叫旺财，是一只金毛")
	car := remember(t, e, "me", "I parked the car on level B2 at the mall")
	tom := remember(t, e, "me", "Tom lost his job at the plant last spring")
	remember(t, e, "me", "the giraffe's skin has a pattern like a map")
	remember(t, e, "me", "my sister declined the offer from the bank")
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"张晓燕住在哪个城市", []int64{name}},
		{"Hi! Long day, the weather was awful and my boss was grumpy again. Anyway, where did I park the car?", []int64{car}},
		{"what does Tom do for a job", []int64{tom}},
		{"AIRE is expressed in some skin tumors.", nil},
		{"Autophagy declines in aged organisms.", nil},
	} {
		res, err := e.Recall(context.Background(), RecallRequest{Query: tc.query, Space: "me"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		if len(tc.want) == 0 {
			if len(ids) != 0 {
				t.Errorf("%q = %v (coverage %.2f of %q, held %v), want nothing", tc.query, ids, res.Floors.Coverage, res.Floors.Clause, res.Floors.Held)
			} else if why := res.Floors.Unanswered(); !strings.Contains(why, "enough of what it asks") {
				t.Errorf("%q: empty because %q, want the coverage named", tc.query, why)
			}
			continue
		}
		if len(ids) == 0 || ids[0] != tc.want[0] {
			t.Errorf("%q = %v (coverage %.2f of %q), want %v first", tc.query, ids, res.Floors.Coverage, res.Floors.Clause, tc.want)
		}
	}
}

// TestRecallDates: a month and a day are one term however written, so a date finds the
// memory of that day, in either language, before one holding the same numbers the other
// way round.
func TestRecallDates(t *testing.T) {
	e := openTestEngine(t)
	rent := remember(t, e, "", "8月6日交房租")
	birthday := remember(t, e, "", "小王的生日是6月8号")
	remember(t, e, "", "周末去爬山")
	for _, q := range []string{"6月8日", "6月8号是谁的生日", "what happened on June 8th?", "the 8th of June"} {
		ids := recallIDs(t, e, RecallRequest{Query: q})
		if len(ids) == 0 || ids[0] != birthday {
			t.Errorf("%q = %v, want %d (6月8号) first", q, ids, birthday)
		}
	}
	if ids := recallIDs(t, e, RecallRequest{Query: "August 6"}); len(ids) == 0 || ids[0] != rent {
		t.Errorf("August 6 = %v, want %d (8月6日) first", ids, rent)
	}
}

// TestRecallAStoreAboutOnePerson: every fact names 赵磊, so his name tells the facts apart
// from nothing; a question about him whose other words no fact holds (太太, 妻子) is still
// answered by the facts about him, the one about his wife among them. A question about
// someone else gets nothing.
func TestRecallAStoreAboutOnePerson(t *testing.T) {
	e := openEntityEngine(t)
	var wife int64
	for i, f := range []string{"赵磊在深圳做外贸生意", "赵磊的老家在湖南长沙", "赵磊收藏了两百多张黑胶唱片",
		"赵磊的血型是O型", "赵磊每周打两次羽毛球", "赵磊的妻子孙悦是一名护士", "赵磊喜欢吃辣"} {
		id := remember(t, e, "zl", f)
		if i == 5 {
			wife = id
		}
	}
	ids := recallIDs(t, e, RecallRequest{Query: "赵磊的太太是做什么的", Space: "zl"})
	if !slices.Contains(ids, wife) {
		t.Errorf("赵磊的太太是做什么的 = %v, want the facts about him, %d among them", ids, wife)
	}
	if ids := recallIDs(t, e, RecallRequest{Query: "王小明的爸爸是做什么工作的", Space: "zl"}); len(ids) != 0 {
		t.Errorf("a question about someone else = %v, want nothing", ids)
	}
}

// TestRecallListsWhatTheFloorsDropped: asked for them, a recall lists the candidates the
// floors left out and the floor that did; not asked, none.
func TestRecallListsWhatTheFloorsDropped(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	skin := remember(t, e, "", "the giraffe's skin has a pattern like a map")
	remember(t, e, "", "Tom lost his job at the plant last spring")
	res, err := e.Recall(ctx, RecallRequest{Query: "AIRE is expressed in some skin tumors.", ListDropped: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || len(res.Dropped) != 1 || res.Dropped[0].ID != skin ||
		!strings.HasPrefix(res.Dropped[0].Floor, "the store holds no answer: no matching text holds enough") {
		t.Errorf("hits %v, dropped %+v; want none, and the skin fact dropped because the store holds no answer", res.Hits, res.Dropped)
	}
	res, err = e.Recall(ctx, RecallRequest{Query: "AIRE is expressed in some skin tumors."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped != nil {
		t.Errorf("dropped %+v without asking, want none", res.Dropped)
	}
	if _, err := e.Recall(ctx, RecallRequest{Query: "skin", ListDropped: -1}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("ListDropped -1: err %v, want ErrBadRequest", err)
	}
}
