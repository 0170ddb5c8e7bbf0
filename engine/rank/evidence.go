package rank

import (
	"math"
	"slices"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/background"
)

// Evidence. Whether the store holds an answer at all is decided per query from the store's
// own statistics, not by counting terms: a candidate's evidence is how unlikely its match
// with the query would be by chance in the searched scope. A text holding a term that df of
// the scope's N texts hold is a 1-in-N/df event, worth ln(N/df) (the term's idf); holding
// several independent terms multiplies the odds, so their idfs add. ln(N), the evidence of a
// term only one text holds, is the store's chance level; each hit of an answered query needs
// a share of it (Floors.HitEvidence), and whether the query is answered at all is the best
// candidate's significance under a null model (below) and its coverage of the query
// (coverage.go).
//
// The same rule fits every size of store. In a user's store of 9 facts one shared content
// word with one holder is ln(9) = 2.2, the chance level: answered. In a pooled store of
// 10,000 that word (held by 30) is ln(333) = 5.8 against ln(10,000) = 9.2: not answered
// unless the text shares more of the query. One count of "graded" terms could not tell the
// two apart.
//
// Terms of one run of the query are not independent evidence: a compound holds its parts
// (go-sqlite3, go, sqlite3), and overlapping bigrams share a character (简约风格 is 简约, 约风,
// 风格, two words). A run's evidence is its best term for a word run, and for a CJK run the
// best set of its matched bigrams that share no character.

// Term is one lexical query term as ranking sees it: the index term, how the query wrote
// it, and where in the query it came from (see analysis.Term).
type Term struct {
	Text    string
	Surface string
	Kind    analysis.Kind
	Run     int
	Pos     int
	// Pair is what a CJK bigram is as the query reads (background.PairKinds): a loose
	// pair (我对, or 于乐 of a name) is weighed as if grammarTexts more texts all held it,
	// a grammar pair (我们, 对花) is no evidence.
	Pair background.PairKind
}

// A store's own frequencies say little when it is small: in a store of 3 texts a word 2 of
// them hold is not common language, the store is about it. So a term's rate is smoothed
// toward a background rate, as if the store also held backgroundTexts texts of general
// language holding it backgroundHolders times: rate = (df + backgroundHolders) / (N +
// backgroundTexts). A term's evidence is -ln(rate); the chance level is the evidence of a
// term only one text holds (the rarest match a store can show). In a large store the
// smoothing vanishes and both are ln(N/df) and ln(N).
const (
	backgroundTexts   = 10
	backgroundHolders = 0.1
)

// grammarTexts is how many texts of general language, each holding it, a loose pair's
// frequency is smoothed with: grammar is in any text, a name is not. In a person's store of
// 85 memories, 我对 in 3 of them is as common as language makes it (evidence 0.6, where a
// content word in 3 is worth 3.4); among 10,000 sentences the store's own count speaks, and
// 于乐 (于 a surname there, a preposition to the word table) in 2 of them is worth 4.6
// (doc/retrieval.md, "Recall core v3").
const grammarTexts = 100

// grammarIDF is the evidence of holding a grammar term that df of n texts hold.
func grammarIDF(n, df int) float64 {
	if df <= 0 || n <= 0 {
		return 0
	}
	return max(-math.Log((float64(df)+grammarTexts)/(float64(n)+grammarTexts)), 0)
}

// chanceLevel is the evidence at which one of n texts matches by chance: that of a term one
// text holds.
func chanceLevel(n int) float64 {
	return idf(max(n, 1), 1)
}

// idf is the evidence of holding a term that df of n texts hold (0 for a term no text holds).
func idf(n, df int) float64 {
	if df <= 0 || n <= 0 {
		return 0
	}
	rate := (float64(df) + backgroundHolders) / (float64(n) + backgroundTexts)
	return max(-math.Log(rate), 0)
}

// evidenceModel computes candidates' evidence in one source.
type evidenceModel struct {
	n     int
	idf   []float64 // per lexical term
	runs  [][]int   // lexical term indices by query run
	isCJK []bool    // per run
	terms []Term
	// entity anchors' idf
	entityIDF map[string]float64
}

func newEvidenceModel(src *Source) *evidenceModel {
	m := &evidenceModel{n: src.N, terms: src.LexicalTerms, entityIDF: map[string]float64{}}
	byRun := map[int]int{}
	for i, t := range src.LexicalTerms {
		df := 0
		if i < len(src.DF) {
			df = src.DF[i]
		}
		w := idf(src.N, df)
		switch t.Pair {
		case background.LoosePair:
			w = grammarIDF(src.N, df)
		case background.GrammarPair:
			w = 0
		}
		m.idf = append(m.idf, w)
		r, ok := byRun[t.Run]
		if !ok {
			r = len(m.runs)
			byRun[t.Run] = r
			m.runs = append(m.runs, nil)
			m.isCJK = append(m.isCJK, t.Kind == analysis.Bigram || t.Kind == analysis.Unigram)
		}
		m.runs[r] = append(m.runs[r], i)
	}
	for name, df := range src.EntityDF {
		m.entityIDF[name] = idf(src.N, df)
	}
	return m
}

// lexical is the evidence of a candidate holding the terms of mask (bit i: LexicalTerms[i]),
// and the terms it counted.
func (m *evidenceModel) lexical(mask uint64) (float64, []int) {
	total, _, used := m.lexicalParts(mask)
	return total, used
}

// lexicalParts is lexical with the share of the evidence its CJK runs gave.
func (m *evidenceModel) lexicalParts(mask uint64) (total, cjk float64, used []int) {
	if mask == 0 {
		return 0, 0, nil
	}
	for r, idx := range m.runs {
		var matched []int
		for _, i := range idx {
			if i < 64 && mask&(1<<i) != 0 && m.idf[i] > 0 {
				matched = append(matched, i)
			}
		}
		if len(matched) == 0 {
			continue
		}
		if !m.isCJK[r] {
			best := matched[0]
			for _, i := range matched[1:] {
				if m.idf[i] > m.idf[best] {
					best = i
				}
			}
			total += m.idf[best]
			used = append(used, best)
			continue
		}
		w, picked := m.bestDisjointBigrams(matched)
		total += w
		cjk += w
		used = append(used, picked...)
	}
	slices.Sort(used)
	return total, cjk, used
}

// bestDisjointBigrams picks, among the matched terms of one CJK run, the set of greatest idf
// whose bigrams share no character (a bigram at Pos p covers characters p and p+1; a unigram
// covers p alone).
func (m *evidenceModel) bestDisjointBigrams(matched []int) (float64, []int) {
	type span struct {
		from, to int // characters [from, to]
		i        int
	}
	spans := make([]span, 0, len(matched))
	for _, i := range matched {
		t := m.terms[i]
		end := t.Pos
		if t.Kind == analysis.Bigram {
			end++
		}
		spans = append(spans, span{from: t.Pos, to: end, i: i})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.to - b.to })
	// Weighted interval scheduling: best[k] is the best weight using spans[:k].
	best := make([]float64, len(spans)+1)
	take := make([]bool, len(spans)+1)
	prev := make([]int, len(spans))
	for k, s := range spans {
		p := k
		for p > 0 && spans[p-1].to >= s.from {
			p--
		}
		prev[k] = p
		with := best[p] + m.idf[s.i]
		if with > best[k] {
			best[k+1], take[k+1] = with, true
		} else {
			best[k+1] = best[k]
		}
	}
	var picked []int
	for k := len(spans); k > 0; {
		if take[k] {
			picked = append(picked, spans[k-1].i)
			k = prev[k-1]
		} else {
			k--
		}
	}
	return best[len(spans)], picked
}

// entity is the evidence of the anchors a candidate shares.
func (m *evidenceModel) entity(shared []string) float64 {
	var total float64
	for _, a := range shared {
		total += m.entityIDF[a]
	}
	return total
}

// The null model. Holding one rare term is surprising; holding 2 of a 64-term query's rare
// terms is not: a long query (a pasted dialogue) offers many chances to share something with
// some text. So the bar is not a fixed level but the answer to: if the query's terms were
// scattered over the scope at random, each with its own frequency, how many texts would match
// at least this well? That expected count is N times the chance that one text's evidence
// reaches the best candidate's, with each term held independently with its smoothed rate;
// the store holds an answer when the count is small. Its negative log is the significance
// (in the units of evidence: a significance of ln 10 says one text in ten stores of this size
// would match this well by chance).

// significanceStep is the resolution (in evidence units) of the evidence distribution the
// null model computes.
const significanceStep = 0.25

// nullUnit is one independent chance of a match: a term held at rate p, worth w.
type nullUnit struct{ p, w float64 }

// units are the query's independent terms under the null model: every term but a compound's
// parts (the compound's best stands for its run) and unigrams next to bigrams.
func (m *evidenceModel) units() []nullUnit {
	var out []nullUnit
	for r, idx := range m.runs {
		if !m.isCJK[r] {
			best := -1
			for _, i := range idx {
				if best < 0 || m.idf[i] > m.idf[best] {
					best = i
				}
			}
			if best >= 0 && m.idf[best] > 0 {
				out = append(out, nullUnit{p: math.Exp(-m.idf[best]), w: m.idf[best]})
			}
			continue
		}
		for _, i := range idx {
			if m.idf[i] > 0 {
				out = append(out, nullUnit{p: math.Exp(-m.idf[i]), w: m.idf[i]})
			}
		}
	}
	return out
}

// significance is -ln of the expected number of the scope's n texts whose evidence would
// reach e by chance (at most ln n + the evidence of nothing: a match nothing could beat).
func (m *evidenceModel) significance(e float64) float64 {
	if e <= 0 {
		return math.Inf(-1)
	}
	units := m.units()
	steps := int(math.Ceil(e/significanceStep)) + 1
	// dist[s] is the chance a text's evidence is s steps (capped at steps: "at least e").
	dist := make([]float64, steps+1)
	dist[0] = 1
	next := make([]float64, steps+1)
	for _, u := range units {
		k := int(math.Round(u.w / significanceStep))
		clear(next)
		for s, q := range dist {
			if q == 0 {
				continue
			}
			next[s] += q * (1 - u.p)
			next[min(s+k, steps)] += q * u.p
		}
		dist, next = next, dist
	}
	// Evidence at or above e: the top bucket, and the ones rounding puts within half a step.
	first := int(math.Floor(e/significanceStep + 0.5))
	var tail float64
	for s := min(first, steps); s <= steps; s++ {
		tail += dist[s]
	}
	n := float64(max(m.n, 1))
	if tail <= 0 {
		return math.Log(n) + e
	}
	return -math.Log(n * tail)
}
