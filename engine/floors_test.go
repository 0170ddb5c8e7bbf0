package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestGradeQuery(t *testing.T) {
	tests := []struct {
		query      string
		wantShown  []string
		wantStrict int // bar with min_fts_terms = 2
	}{
		{"老王喜欢简约风格", []string{"老王", "王喜", "喜欢", "欢简", "简约", "约风", "风格"}, 2},
		{"换手机", []string{"换手", "手机"}, 2},
		{"周三", []string{"周三"}, 1},      // clamped: one bigram can only match once
		{"猫", nil, 0},                  // a single character is not graded
		{"Go or Rust", nil, 0},         // nothing graded: not FTS-floored at all
		{"API Go", []string{"api"}, 1}, // an acronym is graded, so API still finds API
		{"python version", []string{"python", "version"}, 2},
		{"use the api", nil, 0},
		{"老张的电话是多少", []string{"老张", "电话", "多少"}, 2},         // bigrams with 的/是 are not graded                             // 3-letter words are not graded
		{"IBP in bacteria", []string{"ibp", "bacteria"}, 2}, // an acronym is specific
		{"p53 mutations", []string{"p53", "mutations"}, 2},  // so is a word with a digit
		{"周三 meeting", []string{"周三", "meeting"}, 2},        // graded Latin word: no CJK fallback
		{"chemotherapy", []string{"chemotherapy"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			g := gradeQuery(tc.query)
			if diff := cmp.Diff(tc.wantShown, g.shown, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("gradeQuery(%q) terms (-want +got):\n%s", tc.query, diff)
			}
			if got := g.bar(2); got != tc.wantStrict {
				t.Errorf("gradeQuery(%q).bar(2) = %d, want %d", tc.query, got, tc.wantStrict)
			}
		})
	}
}

func TestGradedMatchUsesStems(t *testing.T) {
	g := gradeQuery("chemotherapy services improved")
	got := g.matched(strings.ToLower("The service improves after Chemotherapy"))
	if diff := cmp.Diff([]string{"chemotherapy", "services", "improved"}, got); diff != "" {
		t.Errorf("matched (-want +got):\n%s", diff)
	}
}

func TestLooseProfile(t *testing.T) {
	strict := DefaultFloors()
	got := strict.loose()
	want := floorProfile{Floors: Floors{MinFTSTerms: 2, MinJaccard: 0.15, MinSemanticSimilarity: strict.MinSemanticSimilarity * 0.85}, loose: true}
	if got != want {
		t.Errorf("loose() = %+v, want %+v", got, want)
	}
	if off := (Floors{}).loose(); off != (Floors{}).strict() {
		t.Errorf("loose() of disabled floors = %+v, want all disabled", off)
	}
	bars := []struct {
		query         string
		strict, loose int
	}{
		{"python version", 2, 1},
		{"周三", 1, 1},
		{"Kafka 集群有几个分区", 2, 2}, // graded: kafka 集群 群有 分区 -> half is 2: one shared word is not enough
		{"the api", 0, 0},
	}
	for _, b := range bars {
		g := gradeQuery(b.query)
		if s, l := g.barFor(strict.strict()), g.barFor(got); s != b.strict || l != b.loose {
			t.Errorf("%q bars: strict %d loose %d, want %d and %d (graded %v)", b.query, s, l, b.strict, b.loose, g.shown)
		}
	}
}

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

func TestFuseBreaksTiesDeterministically(t *testing.T) {
	legs := [][]legScore{{
		{key: candidateKey{"chunk", 1}, raw: 2},
		{key: candidateKey{"fact", 9}, raw: 2},
		{key: candidateKey{"fact", 3}, raw: 2},
		{key: candidateKey{"fact", 4}, raw: 1},
		{key: candidateKey{"fact", 5}, raw: 0},
	}}
	got := fuse([]fusedLeg{{scores: legs[0], weight: 1}})
	want := []fused{
		{key: candidateKey{"fact", 3}, score: 1}, {key: candidateKey{"fact", 9}, score: 1},
		{key: candidateKey{"chunk", 1}, score: 1}, {key: candidateKey{"fact", 4}, score: 0.5},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fused{}, candidateKey{})); diff != "" {
		t.Errorf("fuse (-want +got):\n%s", diff)
	}
}

func TestFuseWeightsLegs(t *testing.T) {
	a, b := candidateKey{"fact", 1}, candidateKey{"fact", 2}
	legs := []fusedLeg{
		{scores: []legScore{{key: a, raw: 10}, {key: b, raw: 5}}, weight: 1},                      // bm25: relative
		{scores: []legScore{{key: b, raw: 0.4}, {key: a, raw: 0.1}}, weight: 0.5, absolute: true}, // Jaccard
	}
	got := fuse(legs)
	want := []fused{{key: a, score: 1 + 0.5*0.1}, {key: b, score: 0.5 + 0.5*0.4}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fused{}, candidateKey{}), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("fuse (-want +got):\n%s", diff)
	}
}

func TestFuseSupportingLegCannotOutrankAlone(t *testing.T) {
	lex, both, semOnly := candidateKey{"fact", 1}, candidateKey{"fact", 2}, candidateKey{"fact", 3}
	legs := []fusedLeg{
		{scores: []legScore{{key: lex, raw: 10}, {key: both, raw: 2}}, weight: 1},
		{scores: []legScore{{key: both, raw: 0.9}, {key: semOnly, raw: 0.99}}, weight: 0.6, absolute: true, supporting: true},
	}
	got := fuse(legs)
	want := []fused{
		{key: lex, score: 1},
		{key: both, score: 0.2}, // the supporter's cosine leaves the primary order alone
		{key: semOnly, score: 0.6 * 0.99, uncorroborated: true}, // a higher score, but found by the supporter alone
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fused{}, candidateKey{}), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("fuse (-want +got):\n%s", diff)
	}
}

func TestRareTermCeiling(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 0}, {16, 0}, {199, 0}, // a small store has no rare term: df says nothing there
		{200, 1}, {5183, 25}, {10339, 51},
	} {
		if got := rareTermCeiling(tc.n); got != tc.want {
			t.Errorf("rareTermCeiling(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestGradedWeightCountsRareTermsTwice(t *testing.T) {
	g := gradeQuery("ivermectin treats onchocerciasis")
	matched := g.matched("onchocerciasis control in africa")
	rare := map[string]bool{"onchocerciasis": true}
	bar := g.barFor(DefaultFloors().strict())
	if got := (ftsGrade{matched: matched, weight: g.weight(matched, nil), bar: bar}); got.passes() {
		t.Errorf("one ordinary term %v passes bar %d, want it dropped", matched, bar)
	}
	if got := (ftsGrade{matched: matched, weight: g.weight(matched, rare), bar: bar}); !got.passes() {
		t.Errorf("one rare term %v (weight %d) fails bar %d, want it to count twice", matched, got.weight, bar)
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
