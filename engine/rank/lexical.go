package rank

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/analysis"
)

// Graded are the query terms of one reading strong enough to count toward the term bar, in
// the analyzer's terms (engine/analysis), so a text holds a graded term exactly when the word
// index says so: every CJK bigram without a function character, words of 5+ letters (by
// stem, so "services" meets "service"), and shorter words that are plainly specific: 3+
// characters with a digit ("eb1", "p53") or written as an acronym ("IBP"). Other short words
// ("api", "go") and stopwords are never graded: a query made only of them is not
// term-floored at all.
//
// CJK is graded by bigrams, not trigrams: on the CMRC dev set 20% of questions share no
// trigram with their answer sentence and a trigram bar of 2 dropped recall@10 from 0.85 to
// 0.74 (doc/retrieval.md). A bigram is the unit Chinese words are most often made of.
type Graded struct {
	terms []string // the index terms a hit is checked for
	shown []string // the terms as the query wrote them (folded), for explanations
}

// Grade reads one reading of a query for the term bar.
func Grade(q string) Graded {
	acronyms := acronymsOf(q)
	var g Graded
	for t := range analysis.Terms(q) {
		n := utf8.RuneCountInString(t.Surface)
		switch t.Kind {
		case analysis.Bigram:
			if !strings.ContainsAny(t.Text, functionChars) {
				g.add(t.Text, t.Surface)
			}
		case analysis.Unigram:
		default:
			if analysis.IsStopword(t.Surface) {
				continue
			}
			if n >= 5 || n >= 3 && (strings.ContainsAny(t.Surface, "0123456789") || acronyms[t.Surface]) {
				g.add(t.Text, t.Surface)
			}
		}
	}
	return g
}

// Terms returns the index terms graded.
func (g Graded) Terms() []string { return g.terms }

// functionChars are Chinese function characters (particles, pronouns, copulas, measure
// words). A bigram that contains one ("的电", "话是") matches almost any sentence, so it is
// searched but not graded: "老张的电话是多少" must not clear the floor on 的电 and 话是.
const functionChars = "的了是在和与及或有也都就还又很吗呢吧啊呀着过把被让给对从向到这那哪谁什么个一不没我你他她它们之其"

// acronymsOf returns, folded, the words of q written in capitals (2+ capital letters, e.g.
// "IBP", "G-CSF"): in a query they name something specific.
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
			lw := strings.ToLower(w)
			out[lw] = true
			for _, part := range strings.Split(lw, "-") {
				out[part] = true
			}
		}
	}
	return out
}

func (g *Graded) add(term, shown string) {
	for _, t := range g.terms {
		if t == term {
			return
		}
	}
	g.terms = append(g.terms, term)
	g.shown = append(g.shown, shown)
}

// bar is the term bar for this reading: the configured bar clamped to what the graded text
// can reach (a 2-character CJK query has one bigram), 0 when nothing is graded.
func (g Graded) bar(configured int) int {
	return min(configured, len(g.terms))
}

// barFor is the term bar under a profile: the strict bar, or for the relaxed retry half of
// the graded terms (at least 1), so a long query is not answered by one shared word.
func (g Graded) barFor(f profile) int {
	if f.loose && len(g.terms) > 0 {
		return max(1, (len(g.terms)+1)/2)
	}
	return g.bar(f.MinFTSTerms)
}

// matched returns, as the query wrote them, the graded terms a candidate holds (has reports
// whether it holds an index term), and the index terms among them.
func (g Graded) matched(has func(term string) bool) (shown, terms []string) {
	for i, t := range g.terms {
		if has(t) {
			shown = append(shown, g.shown[i])
			terms = append(terms, t)
		}
	}
	return shown, terms
}

// weight is what the matched terms count toward the bar: one each, two for a term that is
// rare in the searched corpus (see RareTermCeiling). Matching one term that only a few of
// many texts hold is as unlikely by chance as matching two ordinary ones, and it is what a
// question with one distinctive word ("Ivermectin is used to treat onchocerciasis") shares
// with its answer.
func weight(terms []string, rare map[string]bool) int {
	w := 0
	for _, t := range terms {
		w++
		if rare[t] {
			w++
		}
	}
	return w
}

// termGrade is one candidate's standing against the term bar for one reading of the query.
type termGrade struct {
	matched []string // as the query wrote them
	rare    []string // the matched terms that counted twice, as the query wrote them
	weight  int      // what matched counts toward the bar (weight)
	bar     int
}

func (g termGrade) passes() bool { return g.bar == 0 || g.weight >= g.bar }

// gradeTerms grades one candidate against every reading of the query and keeps the best: the
// first reading's grade unless a later one passes with more weight. has reports whether the
// candidate holds an index term; rare holds the index terms that count twice.
func gradeTerms(readings []Graded, has func(string) bool, floors profile, rare map[string]bool) termGrade {
	var best termGrade
	for i, g := range readings {
		shown, terms := g.matched(has)
		cur := termGrade{matched: shown, weight: weight(terms, rare), bar: g.barFor(floors)}
		for j, t := range terms {
			if rare[t] {
				cur.rare = append(cur.rare, shown[j])
			}
		}
		if i == 0 || cur.passes() && (!best.passes() || cur.weight > best.weight) {
			best = cur
		}
	}
	return best
}

// Rare terms: a graded term held by at most rareTermRate of the searched texts (and by at
// least one) counts as two toward the term bar. Under independence, two ordinary graded
// terms (each in ~5-10% of texts) co-occur by chance in well under 1% of texts; a term in at
// most 0.5% of them is about as selective on its own. The ceiling is floor(rate * N), so a
// corpus of fewer than 1/rate texts has no rare term at all: in a small memory store document
// frequencies say nothing. Rarity alone is no evidence of relatedness in a large general
// corpus (会员, 周期 are in under 0.5% of CMRC's sentences), so the bonus applies only to a
// query its profile answers without it: an unanswered query stays empty. Measured in
// doc/retrieval.md.
const rareTermRate = 0.005

// RareTermCeiling is the largest document frequency a rare term may have among n texts; the
// lexical leg asks the store for the document frequency of the graded terms up to it.
func RareTermCeiling(n int) int {
	return int(math.Floor(rareTermRate * float64(n)))
}

// RareTerms returns the terms whose document frequency is at least 1 and at most the
// ceiling for n texts.
func RareTerms(df map[string]int, n int) map[string]bool {
	ceiling := RareTermCeiling(n)
	rare := map[string]bool{}
	for term, f := range df {
		if f >= 1 && f <= ceiling {
			rare[term] = true
		}
	}
	return rare
}

// mixLexical is the lexical leg's raw score per candidate: each index's bm25 divided by its
// best in this query (bm25 has no absolute scale), weighted by the mix and summed. A hit both
// indexes rank first scores Trigram + Words.
func mixLexical(lists []LexicalList, mix LexicalMix) map[Key]float64 {
	out := map[Key]float64{}
	for _, list := range lists {
		w := mix.Words
		if list.Index == Trigram {
			w = mix.Trigram
		}
		for key, v := range headNormalize(list.Scores) {
			out[key] += w * v
		}
	}
	return out
}
