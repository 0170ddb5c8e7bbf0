package rank

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/query"
)

// holder reports, for an index term, whether text holds it: what the word index says.
func holder(text string) func(string) bool {
	terms := map[string]bool{}
	for t := range analysis.Terms(text) {
		terms[t.Text] = true
	}
	return func(term string) bool { return terms[term] }
}

// TestOrderBreaksTies: with equal scores, memories come before knowledge, then the shorter
// text, then the lower id; corroborated hits always come before semantic-only ones.
func TestOrderBreaksTies(t *testing.T) {
	hits := []Hit{
		{Key: Key{KindChunk, 1}, Score: 1, textLen: 5},
		{Key: Key{KindFact, 9}, Score: 1, textLen: 5},
		{Key: Key{KindFact, 3}, Score: 1, textLen: 5},
		{Key: Key{KindFact, 7}, Score: 1, textLen: 4},
		{Key: Key{KindFact, 4}, Score: 0.5},
		{Key: Key{KindFact, 2}, Score: 2, SemanticOnly: true},
	}
	order(hits)
	var got []Key
	for _, h := range hits {
		got = append(got, h.Key)
	}
	want := []Key{{KindFact, 7}, {KindFact, 3}, {KindFact, 9}, {KindChunk, 1}, {KindFact, 4}, {KindFact, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestOrderMovesEveryHit: order places hits through a permutation of their indices; over
// many hits (long cycles, ties on every field) it must agree with a plain sort.
func TestOrderMovesEveryHit(t *testing.T) {
	var hits []Hit
	for i := range 500 {
		kind := KindFact
		if i%3 == 0 {
			kind = KindChunk
		}
		hits = append(hits, Hit{Key: Key{kind, int64((i * 7919) % 1009)}, Score: float64((i * 31) % 7),
			textLen: (i * 13) % 5, SemanticOnly: i%11 == 0})
	}
	want := slices.Clone(hits)
	slices.SortFunc(want, func(a, b Hit) int { return compareHits(&a, &b) })
	order(hits)
	if diff := cmp.Diff(want, hits, cmp.AllowUnexported(Hit{})); diff != "" {
		t.Errorf("order (-sorted +got):\n%s", diff)
	}
}

// byKey sorts fused results for comparison: fuse leaves the order to order.
var byKey = cmpopts.SortSlices(func(a, b fused) bool { return a.key.ID < b.key.ID })

func TestFuseDropsNoEvidence(t *testing.T) {
	got := fuse([]fusedLeg{{scores: []Score{{Key: Key{KindFact, 4}, Raw: 1}, {Key: Key{KindFact, 5}, Raw: 0}, {Key: Key{KindFact, 6}, Raw: 2}}, weight: 1}})
	want := []fused{{key: Key{KindFact, 4}, score: 0.5}, {key: Key{KindFact, 6}, score: 1}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fused{}), byKey); diff != "" {
		t.Errorf("fuse (-want +got):\n%s", diff)
	}
}

func TestFuseWeightsLegs(t *testing.T) {
	a, b := Key{"fact", 1}, Key{"fact", 2}
	legs := []fusedLeg{
		{scores: []Score{{Key: a, Raw: 10}, {Key: b, Raw: 5}}, weight: 1},                      // bm25: relative
		{scores: []Score{{Key: b, Raw: 0.4}, {Key: a, Raw: 0.1}}, weight: 0.5, absolute: true}, // Jaccard
	}
	got := fuse(legs)
	want := []fused{{key: a, score: 1 + 0.5*0.1}, {key: b, score: 0.5 + 0.5*0.4}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fused{}), cmpopts.EquateApprox(0, 1e-12), byKey); diff != "" {
		t.Errorf("fuse (-want +got):\n%s", diff)
	}
}

func TestFuseSupportingLegCannotOutrankAlone(t *testing.T) {
	lex, both, semOnly := Key{"fact", 1}, Key{"fact", 2}, Key{"fact", 3}
	legs := []fusedLeg{
		{scores: []Score{{Key: lex, Raw: 10}, {Key: both, Raw: 2}}, weight: 1},
		{scores: []Score{{Key: both, Raw: 0.9}, {Key: semOnly, Raw: 0.99}}, weight: 0.6, absolute: true, supporting: true},
	}
	got := fuse(legs)
	want := []fused{
		{key: lex, score: 1},
		{key: both, score: 0.2}, // the supporter's cosine leaves the primary order alone
		{key: semOnly, score: 0.6 * 0.99, uncorroborated: true}, // a higher score, but found by the supporter alone
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fused{}), cmpopts.EquateApprox(0, 1e-12), byKey); diff != "" {
		t.Errorf("fuse (-want +got):\n%s", diff)
	}
}

func TestAnchoredJaccard(t *testing.T) {
	// plain is |Q∩F| / |Q∪F| for sets given by sizes.
	plain := func(q, f, inter int) float64 { return float64(inter) / float64(q+f-inter) }
	tests := []struct {
		name             string
		shared, total, w int
		want             float64
	}{
		{"narrow fact equals plain Jaccard", 1, 2, 2, plain(2, 2, 1)},
		{"narrow fact, full overlap", 2, 2, 2, 1},
		{"narrow fact at the cap still plain", 1, 4, 3, plain(3, 4, 1)},
		{"wide fact with a rare query entity stays reachable", 1, 20, 1, 1.0 / (1 + entityUnionCap)},
		{"generic query entities count in W only", 1, 2, 2, 1.0 / 3},
		{"no overlap", 0, 5, 2, 0},
		{"no query entities", 1, 1, 0, 0},
		{"inconsistent counts stay in range", 3, 1, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AnchoredJaccard(tc.shared, tc.total, tc.w)
			if got != tc.want || math.IsNaN(got) || got < 0 || got > 1 {
				t.Errorf("AnchoredJaccard(%d, %d, %d) = %v, want %v", tc.shared, tc.total, tc.w, got, tc.want)
			}
		})
	}
}

func TestAnchorCeiling(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{0, 4}, {5, 4}, {20, 4}, {21, 5}, {100, 20}, {100_000, 20_000}} {
		if got := AnchorCeiling(tc.n); got != tc.want {
			t.Errorf("AnchorCeiling(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestLooseProfile(t *testing.T) {
	strict := DefaultFloors()
	got := strict.loose()
	want := strict
	want.MinEvidence = strict.MinEvidence - math.Log(4) // four times as many chance matches
	want.HitEvidence = strict.HitEvidence * 0.75
	want.MinJaccard = 0.15
	want.MinSemanticSimilarity = strict.MinSemanticSimilarity * 0.85
	if got != (profile{Floors: want, loose: true}) {
		t.Errorf("loose() = %+v, want %+v", got, want)
	}
}

func TestChanceLevelAndIDF(t *testing.T) {
	for _, tc := range []struct {
		n, df int
		want  float64
	}{
		{10000, 30, -math.Log(30.1 / 10010)},
		{9, 1, -math.Log(1.1 / 19)},
		{3, 3, -math.Log(3.1 / 13)}, // held by every text of a small store: still evidence
		{5, 0, 0},
		{0, 0, 0},
	} {
		if got := idf(tc.n, tc.df); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("idf(%d, %d) = %v, want %v", tc.n, tc.df, got, tc.want)
		}
	}
	if got, want := chanceLevel(10000), idf(10000, 1); got != want {
		t.Errorf("chanceLevel(10000) = %v, want the evidence of a term one text holds, %v", got, want)
	}
	if math.Abs(chanceLevel(1_000_000)-math.Log(1_000_000)) > 0.1 {
		t.Errorf("chanceLevel of a large store = %v, want about ln N", chanceLevel(1_000_000))
	}
}

// model builds an evidence model for a query over a scope of n with the given frequencies
// (by surface; 1 when not given).
func model(q string, n int, df map[string]int) *evidenceModel {
	src := &Source{N: n}
	for _, t := range query.LexicalTerms(q, 64) {
		src.LexicalTerms = append(src.LexicalTerms, Term{Text: t.Text, Surface: t.Surface, Kind: t.Kind, Run: t.Run, Pos: t.Pos})
		d, ok := df[t.Surface]
		if !ok {
			d = 1
		}
		src.DF = append(src.DF, d)
	}
	return newEvidenceModel(src)
}

// maskOf says which of m's terms text holds.
func maskOf(m *evidenceModel, text string) uint64 {
	holds := holder(text)
	var mask uint64
	for i, t := range m.terms {
		if holds(t.Text) {
			mask |= 1 << i
		}
	}
	return mask
}

func TestEvidenceCountsACompoundOnce(t *testing.T) {
	m := model("go-sqlite3 driver", 1000, map[string]int{"go-sqlite3": 2, "go": 100, "sqlite3": 5, "driver": 50})
	got, used := m.lexical(maskOf(m, "the go-sqlite3 driver"))
	want := idf(1000, 2) + idf(1000, 50)
	if math.Abs(got-want) > 1e-9 || len(used) != 2 {
		t.Errorf("evidence = %v over terms %v, want %v (the compound's best member and driver)", got, used, want)
	}
}

func TestEvidenceCountsDisjointBigrams(t *testing.T) {
	m := model("简约风格", 10000, map[string]int{"简约": 20, "约风": 2, "风格": 60})
	got, used := m.lexical(maskOf(m, "老王喜欢简约风格"))
	// 约风 is the rarest but overlaps both: 简约 + 风格 (two words) are worth more.
	want := idf(10000, 20) + idf(10000, 60)
	if math.Abs(got-want) > 1e-9 || len(used) != 2 {
		t.Errorf("evidence = %v over terms %v, want %v (简约 and 风格)", got, used, want)
	}
	alone, _ := m.lexical(maskOf(m, "约风"))
	if want := idf(10000, 2); math.Abs(alone-want) > 1e-9 {
		t.Errorf("evidence of 约风 alone = %v, want %v", alone, want)
	}
}

// FuzzEvidence: evidence is never negative, never more than the idfs of the terms held, and
// counts only terms the text holds.
func FuzzEvidence(f *testing.F) {
	f.Add("老王喜欢简约风格 go-sqlite3 python", "简约风格的 go driver", 100)
	f.Add("a b c", "", 1)
	f.Fuzz(func(t *testing.T, q, text string, n int) {
		n = n%100000 + 1
		if n < 1 {
			n = -n + 1
		}
		m := model(q, n, nil)
		mask := maskOf(m, text)
		got, used := m.lexical(mask)
		var most float64
		for i := range m.terms {
			if i < 64 && mask&(1<<i) != 0 {
				most += m.idf[i]
			}
		}
		if got < 0 || got > most+1e-9 || math.IsNaN(got) {
			t.Fatalf("evidence %v for idfs summing to %v", got, most)
		}
		for _, i := range used {
			if mask&(1<<i) == 0 {
				t.Fatalf("counted term %d the text does not hold", i)
			}
		}
	})
}

// TestCoverageOfAClause: what holding each kind of unit is worth, and that a candidate is
// measured against its best clause.
func TestCoverageOfAClause(t *testing.T) {
	src := &Source{LexicalTerms: []Term{{Text: "简约"}, {Text: "风格"}, {Text: "amp-activ"}, {Text: "activ"}, {Text: "kinas"}},
		Substrings: []string{"Sourdough"}}
	word := Unit{Terms: []string{"简约", "约风", "风格"}, All: true, Surface: "简约风格", Specificity: 12, Noun: true}
	verb := Unit{Terms: []string{"过期"}, All: true, Surface: "过期", Specificity: 12}
	pair := Unit{Terms: []string{"风格"}, All: true, Surface: "风格", Specificity: 8}
	topic := Unit{Terms: []string{"风格"}, All: true, Surface: "风格", Specificity: 14}
	name := Unit{Terms: []string{"赵鹏"}, All: true, Surface: "赵鹏", Specificity: 12, Name: true}
	knownName := Unit{Terms: []string{"简约"}, All: true, Surface: "简约", Specificity: 8, Name: true}
	absent := Unit{Terms: []string{"onchocerc"}, TermSpecificity: []float64{15}, Surface: "onchocerciasis", Specificity: 15}
	compound := Unit{Terms: []string{"amp-activ", "amp", "activ"}, TermSpecificity: []float64{17, 12, 9},
		Surface: "AMP-activated", Specificity: 17}
	kinase := Unit{Terms: []string{"kinas"}, TermSpecificity: []float64{13}, Surface: "kinase", Specificity: 13}
	sour := Unit{Terms: []string{"sourdough"}, TermSpecificity: []float64{16}, Surface: "sourdough", Specificity: 16}
	claim := Clause{Text: "AMP-activated kinase", Units: []Unit{compound, kinase}}
	unit := func(term string, spec float64) Unit {
		return Unit{Terms: []string{term}, TermSpecificity: []float64{spec}, Surface: term, Specificity: spec}
	}
	// Five words: 简约 (5) and 风格 (5) the least specific, then activ (9), kinas (12), x (12).
	long := Clause{Units: []Unit{unit("简约", 5), unit("风格", 5), unit("activ", 9), unit("kinas", 12), unit("x", 12)}}
	// Four words, the two held being most of them: 10 of 19.
	wide := Clause{Units: []Unit{unit("简约", 5), unit("风格", 5), unit("activ", 4.5), unit("kinas", 4.5)}}
	// Five words no better known than any other; the text holds the last two.
	foreign := Clause{Units: []Unit{unit("mereka", 17), unit("memang", 17), unit("tanya", 17), unit("风格", 17), unit("kinas", 17)}}
	cases := []struct {
		name    string
		clauses []Clause
		c       Candidate
		loose   bool
		want    float64
	}{
		// 约风 is held by no text of the scope: no text can hold the whole word.
		{"a Chinese word needs all its bigrams", []Clause{{Units: []Unit{word, topic}}}, Candidate{Terms: 0b011}, false, 14.0 / 26},
		// The clause's most specific unit is a name or a Chinese noun no text holds: its
		// other word, less than half of the clause, answers nothing. Where the clause names
		// someone the store knows, the noun it lacks is what is asked of them, and leaves
		// the rest its share; so do a Chinese verb and an English word no text holds.
		{"the name no text holds", []Clause{{Units: []Unit{name, pair}}}, Candidate{Terms: 0b011}, false, 0},
		{"a Chinese word no text holds", []Clause{{Units: []Unit{word, pair}}}, Candidate{Terms: 0b011}, false, 0},
		{"a word no text holds, of a name the store knows", []Clause{{Units: []Unit{word, knownName}}}, Candidate{Terms: 0b001}, false, 8.0 / 20},
		// 鸣冠雉, a name the table does not know, is two pairs: each under a third of the
		// clause, together over it.
		{"a three-character name no text holds", []Clause{{Units: []Unit{
			{Terms: []string{"鸣冠"}, All: true, Surface: "鸣冠", Specificity: 11, Name: true},
			{Terms: []string{"冠雉"}, All: true, Surface: "冠雉", Specificity: 11, Name: true},
			pair, {Terms: []string{"简约"}, All: true, Surface: "简约", Specificity: 7, Noun: true}}}}, Candidate{Terms: 0b011}, false, 0},
		{"a Chinese verb no text holds", []Clause{{Units: []Unit{verb, pair}}}, Candidate{Terms: 0b011}, false, 8.0 / 20},
		{"an English word no text holds", []Clause{{Units: []Unit{absent, kinase}}}, Candidate{Terms: 0b10000}, false, 13.0 / 28},
		{"the compound itself", []Clause{claim}, Candidate{Terms: 0b00100}, false, 17.0 / 30},
		{"a part of a compound is worth the part", []Clause{claim}, Candidate{Terms: 0b01000}, false, 9.0 / 30},
		{"the compound and another word", []Clause{claim}, Candidate{Terms: 0b11100}, false, 1},
		{"nothing held", []Clause{claim}, Candidate{Terms: 0b00011}, false, 0},
		{"a substring counts only under the loose profile", []Clause{{Units: []Unit{sour, kinase}}}, Candidate{Substrings: 1}, false, 0},
		{"a substring of a word as written, loose", []Clause{{Units: []Unit{sour, kinase}}}, Candidate{Substrings: 1}, true, 16.0 / 29},
		{"the best clause", []Clause{claim, {Units: []Unit{pair}}}, Candidate{Terms: 0b00010}, false, 1},
		// Of five words, the text holds the two least specific (10 of 43): no topic, not most.
		{"common words without the topic", []Clause{long}, Candidate{Terms: 0b00011}, false, 0},
		{"one topic word", []Clause{long}, Candidate{Terms: 0b01000}, false, 9.0 / 43},
		{"most of the clause without its topic", []Clause{wide}, Candidate{Terms: 0b00011}, false, 10.0 / 19},
		// A sentence of words the table does not know (another language: Mereka tanya
		// soal rute...): all equally specific, all its topic, not the first three written.
		{"words the table cannot rank", []Clause{foreign}, Candidate{Terms: 0b10010}, false, 34.0 / 85},
	}
	for _, tc := range cases {
		got, _ := newCoverage(tc.clauses, src).of(tc.c, tc.loose)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: coverage = %.3f, want %.3f", tc.name, got, tc.want)
		}
	}
	if newCoverage([]Clause{{Text: "3.12"}}, src).measurable() {
		t.Error("a clause without units is measurable")
	}
}

// TestCoverageOfALargeScopesOrdinaryWords: in a scope of more than coverageReference texts,
// a clause whose most specific unit no text holds is not covered by a text holding less than
// most of it in everyday Chinese words; a name held, a scope of a person's size, or a top unit
// some text holds leaves the share as it was.
func TestCoverageOfALargeScopesOrdinaryWords(t *testing.T) {
	name := background.NameSpecificity()
	unit := func(term string, spec float64) Unit {
		return Unit{Terms: []string{term}, All: true, Surface: term, Specificity: spec}
	}
	// 注销 (a verb, so no unknown-topic rule) is the top unit; 业务 and 公司 are everyday words.
	everyday := Clause{Units: []Unit{unit("注销", 12.5), unit("业务", 8.9), unit("公司", 7.1)}}
	withName := Clause{Units: []Unit{unit("注销", 12.5), unit("业务", 8.9), unit("公司", 7.1),
		{Terms: []string{"李思"}, All: true, Surface: "李思", Specificity: name, Name: true}}}
	// Bits: 业务 1, 公司 2, 李思 4, 注销 8 (DF 0 unless the top unit is known).
	terms := []Term{{Text: "业务"}, {Text: "公司"}, {Text: "李思"}, {Text: "注销"}}
	scope := func(n, topDF int) *Source {
		return &Source{N: n, LexicalTerms: terms, DF: []int{40, 60, 3, topDF}}
	}
	cases := []struct {
		name   string
		clause Clause
		src    *Source
		c      Candidate
		want   float64
	}{
		{"everyday words, large scope, top unknown", everyday, scope(3494, 0), Candidate{Terms: 0b001}, 0},
		{"everyday words, a person's store", everyday, scope(300, 0), Candidate{Terms: 0b001}, 8.9 / 28.5},
		{"everyday words, large scope, top held elsewhere", everyday, scope(3494, 5), Candidate{Terms: 0b001}, 8.9 / 28.5},
		{"a name held, large scope", withName, scope(3494, 0), Candidate{Terms: 0b100}, name / (28.5 + name)},
		{"most of the clause in everyday words, large scope", everyday, scope(3494, 0), Candidate{Terms: 0b011}, 16.0 / 28.5},
	}
	for _, tc := range cases {
		got, _ := newCoverage([]Clause{tc.clause}, tc.src).of(tc.c, false)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: coverage = %.3f, want %.3f", tc.name, got, tc.want)
		}
	}
}

// TestCoverageCountsAGuessedNameOnlyInALargeScope: a name guessed from one character
// (Unit.Guessed) that no text holds makes a clause's topic unknown in a scope of more than
// coverageReference texts, so a text holding only the clause's everyday word does not cover
// it; in a person's store the guess is left out and that word is the whole clause.
func TestCoverageCountsAGuessedNameOnlyInALargeScope(t *testing.T) {
	clause := Clause{Units: []Unit{
		{Terms: []string{"于乐"}, All: true, Surface: "于乐", Specificity: background.NameSpecificity(), Name: true, Guessed: true},
		{Terms: []string{"职业"}, All: true, Surface: "职业", Specificity: 7.9, Noun: true},
	}}
	terms := []Term{{Text: "于乐"}, {Text: "职业"}}
	holdsJob := Candidate{Terms: 0b10}
	for _, tc := range []struct {
		name string
		n    int
		want float64
	}{
		{"large scope", 3494, 0},
		{"a person's store", 300, 1},
	} {
		src := &Source{N: tc.n, LexicalTerms: terms, DF: []int{0, 40}}
		if got, _ := newCoverage([]Clause{clause}, src).of(holdsJob, false); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: coverage = %.3f, want %.3f", tc.name, got, tc.want)
		}
	}
}

// TestCoverageReportsTheClauseMostSpecificFirst: the words a report names are the clause's
// most specific (ties: the earlier).
func TestCoverageReportsTheClauseMostSpecificFirst(t *testing.T) {
	units := []Unit{
		{Terms: []string{"hour"}, Surface: "hours", Specificity: 8},
		{Terms: []string{"documentari"}, Surface: "documentaries", Specificity: 14},
		{Terms: []string{"spend"}, Surface: "spend", Specificity: 9},
		{Terms: []string{"watch"}, Surface: "watched", Specificity: 9},
	}
	cov := newCoverage([]Clause{{Units: units}}, &Source{})
	if got := cov.clauses[0].words(2); !slices.Equal(got, []string{"documentaries", "spend"}) {
		t.Errorf("words of 2 = %v, want documentaries, spend", got)
	}
}

func TestUnanswered(t *testing.T) {
	cases := []struct {
		r    FloorReport
		want string
	}{
		{FloorReport{Answered: true, BestEvidence: 3}, ""},
		{FloorReport{}, "no text holds any of its words"},
		{FloorReport{Terms: 2}, "what texts share with it is in nearly every text"},
		{FloorReport{BestEvidence: 4, Words: []string{"harpsichord", "marathon"}}, "no matching text holds any of its key words (harpsichord, marathon)"},
		{FloorReport{BestEvidence: 4, Words: []string{"a", "b", "c", "d"}}, "no matching text holds any of its key words (a, b, c, …)"},
		{FloorReport{BestEvidence: 4, Words: []string{"tumors", "skin"}, Held: []string{"skin"}}, "no matching text holds enough of what it asks (the closest holds skin, of tumors, skin)"},
		{FloorReport{BestEvidence: 4, Words: []string{"health"}, Covered: true}, "what matches is what any question with these words would find by chance"},
	}
	for _, tc := range cases {
		if got := tc.r.Unanswered(); got != tc.want {
			t.Errorf("Unanswered(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestCoverageBarRisesWithTheScope: a text holding the topic word of a three-word claim, and
// a third of its weight, answers it in a person's store of 500 texts and not in a pooled
// one of 50,000, where the best of so many texts holds that much of any claim by chance.
func TestCoverageBarRisesWithTheScope(t *testing.T) {
	f := DefaultFloors()
	for _, tc := range []struct {
		n    int
		want float64
	}{{10, 0.25}, {1000, 0.25}, {int(1000 * math.Exp(2)), 0.35}} {
		if got := f.coverageBar(tc.n); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("coverageBar(%d) = %.3f, want %.3f", tc.n, got, tc.want)
		}
	}
	flat := f
	flat.CoverageGrowth = 0
	if got := flat.coverageBar(50000); got != f.MinCoverage {
		t.Errorf("coverageBar(50000) without growth = %.3f, want %.3f", got, f.MinCoverage)
	}

	unit := func(term string, spec float64) Unit {
		return Unit{Terms: []string{term}, TermSpecificity: []float64{spec}, Surface: term, Specificity: spec}
	}
	clause := Clause{Text: "autophagy declines in aged organisms",
		Units: []Unit{unit("autophagi", 16), unit("declin", 14), unit("organ", 16)}}
	text := Key{Kind: "memory", ID: 1}
	source := func(n int) *Source {
		return &Source{Kind: "memory", N: n,
			LexicalTerms: []Term{{Text: "autophagi", Run: 0}, {Text: "declin", Run: 1}, {Text: "organ", Run: 2}},
			DF:           []int{2, 1, 0},
			Candidates:   map[Key]Candidate{text: {Terms: 0b010, TextLen: 40}},
			Lexical:      []LexicalList{{Index: Words, Scores: []Score{{Key: text, Raw: 3}}}},
		}
	}
	q := Query{Clauses: []Clause{clause}, Asked: 3}
	for _, tc := range []struct {
		n        int
		answered bool
	}{{500, true}, {50000, false}} {
		res := Rank(q, []*Source{source(tc.n)}, defaultConfig)
		if got := len(res.Hits) > 0; got != tc.answered {
			t.Errorf("scope of %d texts: answered %v (coverage %.2f, bar %.2f, significance %.1f), want %v",
				tc.n, got, res.Report.Coverage, res.Report.CoverageBar, res.Report.Significance, tc.answered)
		}
	}
}
