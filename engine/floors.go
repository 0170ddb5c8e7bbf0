package engine

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/query"
)

// Floors are the absolute per-leg bars a candidate must reach on its raw score. A candidate
// equal to its floor is kept; 0 disables a floor.
type Floors struct {
	MinFTSTerms int     `json:"min_fts_terms"`
	MinJaccard  float64 `json:"min_jaccard"`
	// MinSemanticSimilarity is the semantic floor as configured: a minimum, raised to the
	// embedding model's measured noise floor (semantic.go). A FloorReport carries the floor
	// actually applied.
	MinSemanticSimilarity float64 `json:"min_semantic_similarity"`
}

// floorProfile is the set of floors one ranking pass applies: the strict floors, or the
// loose ones of the relaxed retry, where the FTS bar becomes half of each reading's graded
// terms (see gradedTerms.barFor) instead of MinFTSTerms.
type floorProfile struct {
	Floors
	loose bool
}

func (f Floors) strict() floorProfile { return floorProfile{Floors: f} }

// DefaultFloors are the strict profile.
func DefaultFloors() Floors {
	return Floors{MinFTSTerms: 2, MinJaccard: 0.2, MinSemanticSimilarity: 0.5}
}

// loose is the profile of the relaxed retry: the FTS bar becomes half of each reading's
// graded terms (see gradedTerms.looseBar), a lower Jaccard bar and a lower semantic bar. A
// genuinely unrelated query still clears nothing and stays empty.
func (f Floors) loose() floorProfile {
	l := f
	l.MinJaccard = min(f.MinJaccard, 0.15)
	l.MinSemanticSimilarity = f.MinSemanticSimilarity * 0.85
	return floorProfile{Floors: l, loose: f.MinFTSTerms > 0}
}

// gradedTerms are the query terms strong enough to count toward the FTS floor: every CJK
// character bigram, Latin words of 5+ letters (compared by stem, so "services" meets
// "service"), and shorter Latin words that are plainly specific: 3+ characters with a digit
// ("eb1", "p53") or written as an acronym ("IBP"). Other short words ("api", "go") are never
// graded: a query made only of them is not FTS-floored at all.
//
// CJK is graded by bigrams, not trigrams: on the CMRC dev set 20% of questions share no
// trigram with their answer sentence and a trigram bar of 2 dropped recall@10 from 0.85 to
// 0.74 (doc/retrieval.md). A bigram is the unit Chinese words are most often made of.
type gradedTerms struct {
	terms []string // what a hit is checked for (stems for Latin words)
	shown []string // the terms as the query wrote them, for explanations
}

func gradeQuery(q string) gradedTerms {
	acronyms := acronymsOf(q)
	var g gradedTerms
	for _, term := range query.WordTerms(q) {
		r, _ := utf8.DecodeRuneInString(term)
		n := utf8.RuneCountInString(term)
		switch {
		case query.IsCJK(r):
			if n == 2 && !strings.ContainsAny(term, functionChars) {
				g.add(term, term)
			}
		case n >= 5:
			g.add(matchStem(term), term)
		case n >= 3 && (strings.ContainsAny(term, "0123456789") || acronyms[term]):
			g.add(term, term)
		}
	}
	return g
}

// functionChars are Chinese function characters (particles, pronouns, copulas, measure
// words). A bigram that contains one ("的电", "话是") matches almost any sentence, so it is
// searched but not graded: "老张的电话是多少" must not clear the floor on 的电 and 话是.
const functionChars = "的了是在和与及或有也都就还又很吗呢吧啊呀着过把被让给对从向到这那哪谁什么个一不没我你他她它们之其"

// matchStem is the part of a word that its inflections share, for a substring test: the
// Porter2 stem, less a final "i" that stands for "y" or a final "e" that "-ing" drops
// (chemotherapi is not in "chemotherapy", stage is not in "staging").
func matchStem(word string) string {
	stem := query.Stem(word)
	if len(stem) > 4 && (strings.HasSuffix(stem, "i") || strings.HasSuffix(stem, "e")) {
		stem = stem[:len(stem)-1]
	}
	return stem
}

// acronymsOf returns, lowercased, the words of q written in capitals (2+ capital letters,
// e.g. "IBP", "G-CSF"): in a query they name something specific.
func acronymsOf(q string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		upper := 0
		lower := false
		for _, r := range w {
			if r >= 'A' && r <= 'Z' {
				upper++
			} else if r >= 'a' && r <= 'z' {
				lower = true
			}
		}
		if upper >= 2 && !lower {
			out[strings.ToLower(w)] = true
		}
	}
	return out
}

func (g *gradedTerms) add(term, shown string) {
	for _, t := range g.terms {
		if t == term {
			return
		}
	}
	g.terms = append(g.terms, term)
	g.shown = append(g.shown, shown)
}

// bar is the FTS floor for this query: the configured floor clamped to what the graded
// text can reach (a 2-character CJK query has one bigram), 0 when nothing is graded.
func (g gradedTerms) bar(configured int) int {
	return min(configured, len(g.terms))
}

// barFor is the FTS floor under a profile: the strict bar, or for the relaxed retry half of
// the graded terms (at least 1), so a long query is not answered by one shared word.
func (g gradedTerms) barFor(f floorProfile) int {
	if f.loose && len(g.terms) > 0 {
		return max(1, (len(g.terms)+1)/2)
	}
	return g.bar(f.MinFTSTerms)
}

// matched returns the graded terms text contains, as the query wrote them.
func (g gradedTerms) matched(lowerText string) []string {
	var out []string
	for i, t := range g.terms {
		if strings.Contains(lowerText, t) {
			out = append(out, g.shown[i])
		}
	}
	return out
}

// weight is what the matched terms count toward the bar: one each, two for a term that is
// rare in the searched corpus (see rareTerms). Matching one term that only a few of many
// texts hold is as unlikely by chance as matching two ordinary ones, and it is what a
// question with one distinctive word ("Ivermectin is used to treat onchocerciasis") shares
// with its answer.
func (g gradedTerms) weight(matched []string, rare map[string]bool) int {
	w := 0
	for _, m := range matched {
		w++
		if rare[m] {
			w++
		}
	}
	return w
}

// ftsGrade is one candidate's standing against the FTS floor for one reading of the query.
type ftsGrade struct {
	matched []string
	weight  int // what matched counts toward the bar (gradedTerms.weight)
	bar     int
}

func (f ftsGrade) passes() bool { return f.bar == 0 || f.weight >= f.bar }

// Rare terms: a graded term held by at most rareTermRate of the searched texts (and by at
// least one) counts as two toward the FTS bar. Under independence, two ordinary graded
// terms (each in ~5-10% of texts) co-occur by chance in well under 1% of texts; a term in
// at most 0.5% of them is about as selective on its own. The ceiling is floor(rate * N), so
// a corpus of fewer than 1/rate texts has no rare term at all: in a small memory store
// document frequencies say nothing. Rarity alone is no evidence of relatedness in a large
// general corpus (会员, 周期 are in under 0.5% of CMRC's sentences), so rank applies the
// bonus only to a query its profile answers without it: an unanswered query stays empty.
// Measured in doc/retrieval.md.
const rareTermRate = 0.005

// rareTermCeiling is the largest document frequency a rare term may have among n texts.
func rareTermCeiling(n int) int {
	return int(math.Floor(rareTermRate * float64(n)))
}
