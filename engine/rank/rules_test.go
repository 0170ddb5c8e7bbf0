package rank

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memdesk/memdesk/engine/analysis"
)

// holder reports, for an index term, whether text holds it: what the word index says.
func holder(text string) func(string) bool {
	terms := map[string]bool{}
	for t := range analysis.Terms(text) {
		terms[t.Text] = true
	}
	return func(term string) bool { return terms[term] }
}

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
			g := Grade(tc.query)
			if diff := cmp.Diff(tc.wantShown, g.shown, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Grade(%q) terms (-want +got):\n%s", tc.query, diff)
			}
			if got := g.bar(2); got != tc.wantStrict {
				t.Errorf("Grade(%q).bar(2) = %d, want %d", tc.query, got, tc.wantStrict)
			}
		})
	}
}

func TestGradedMatchUsesStems(t *testing.T) {
	g := Grade("chemotherapy services improved")
	got, _ := g.matched(holder("The service improves after Chemotherapy"))
	if diff := cmp.Diff([]string{"chemotherapy", "services", "improved"}, got); diff != "" {
		t.Errorf("matched (-want +got):\n%s", diff)
	}
}

func TestLooseProfile(t *testing.T) {
	strict := DefaultFloors()
	got := strict.loose()
	want := profile{Floors: Floors{MinFTSTerms: 2, MinJaccard: 0.15, MinSemanticSimilarity: strict.MinSemanticSimilarity * 0.85}, loose: true}
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
		g := Grade(b.query)
		if s, l := g.barFor(strict.strict()), g.barFor(got); s != b.strict || l != b.loose {
			t.Errorf("%q bars: strict %d loose %d, want %d and %d (graded %v)", b.query, s, l, b.strict, b.loose, g.shown)
		}
	}
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

func TestRareTermCeiling(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 0}, {16, 0}, {199, 0}, // a small store has no rare term: df says nothing there
		{200, 1}, {5183, 25}, {10339, 51},
	} {
		if got := RareTermCeiling(tc.n); got != tc.want {
			t.Errorf("RareTermCeiling(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestGradedWeightCountsRareTermsTwice(t *testing.T) {
	g := Grade("ivermectin treats onchocerciasis")
	_, matched := g.matched(holder("onchocerciasis control in africa"))
	rare := map[string]bool{analysis.Stem("onchocerciasis"): true}
	bar := g.barFor(DefaultFloors().strict())
	if got := (termGrade{matched: matched, weight: weight(matched, nil), bar: bar}); got.passes() {
		t.Errorf("one ordinary term %v passes bar %d, want it dropped", matched, bar)
	}
	if got := (termGrade{matched: matched, weight: weight(matched, rare), bar: bar}); !got.passes() {
		t.Errorf("one rare term %v (weight %d) fails bar %d, want it to count twice", matched, got.weight, bar)
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

// FuzzGradeQuery: any query grades into distinct, valid terms whose bars stay within what
// the terms can reach, and a text matches only terms the query graded.
func FuzzGradeQuery(f *testing.F) {
	for _, s := range []string{"老王喜欢简约风格", "python version", "IBP in bacteria", "周三", "老张的电话是多少", "Kafka 集群有几个分区", "\xff", ""} {
		f.Add(s, "老王喜欢简约的风格 and Python 3.12")
	}
	strict := DefaultFloors().strict()
	loose := DefaultFloors().loose()
	f.Fuzz(func(t *testing.T, q, text string) {
		g := Grade(q)
		if len(g.terms) != len(g.shown) {
			t.Fatalf("Grade(%q): %d terms but %d shown", q, len(g.terms), len(g.shown))
		}
		seen := map[string]bool{}
		for _, term := range g.terms {
			if term == "" || !utf8.ValidString(term) || seen[term] {
				t.Fatalf("Grade(%q) term %q empty, invalid or repeated", q, term)
			}
			seen[term] = true
		}
		s, l := g.barFor(strict), g.barFor(loose)
		if s > len(g.terms) || l > len(g.terms) || s < 0 || (len(g.terms) > 0 && l < 1) {
			t.Fatalf("Grade(%q): bars strict %d loose %d for %d terms", q, s, l, len(g.terms))
		}
		shown := map[string]bool{}
		for _, sh := range g.shown {
			shown[sh] = true
		}
		shownOf, _ := g.matched(holder(text))
		for _, m := range shownOf {
			if !shown[m] {
				t.Fatalf("matched %q is not a graded term of %q", m, q)
			}
		}
	})
}
