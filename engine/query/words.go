package query

import (
	"github.com/memdesk/memdesk/engine/analysis"
)

// LexicalTerms are the query's terms for the word index, in the analyzer's terms
// (engine/analysis), each once, in order: CJK bigrams, words folded and stemmed, compounds and
// their parts, without English stopwords (they would make the search walk most of the index
// for nothing), at most max. A lone CJK character (猫, or 天 left of 哪天 once the question
// word is stripped) is searched only when the query has nothing else: one character inside a
// longer word is no evidence of what a longer query asks.
func LexicalTerms(q string, max int) []analysis.Term {
	var out, lone []analysis.Term
	seen := map[string]bool{}
	for t := range analysis.Terms(q) {
		if len(out) >= max {
			break
		}
		if seen[t.Text] || analysis.IsStopword(t.Surface) {
			continue
		}
		switch {
		case t.Kind != analysis.Unigram:
			out = append(out, t)
		case t.Counted():
			lone = append(lone, t)
		default:
			continue
		}
		seen[t.Text] = true
	}
	if len(out) == 0 {
		return lone
	}
	return out
}

// Occurrences counts how often each term occurs in q, by its index text: what LexicalTerms
// keeps once, a pasted conversation may say turn after turn.
func Occurrences(q string) map[string]int {
	n := map[string]int{}
	for t := range analysis.Terms(q) {
		n[t.Text]++
	}
	return n
}

// WordTerms are the texts of LexicalTerms, at most MaxTerms.
func WordTerms(q string) []string {
	terms := LexicalTerms(q, MaxTerms)
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t.Text
	}
	return out
}

// IsStopword reports whether a folded word is an English stopword.
func IsStopword(w string) bool { return analysis.IsStopword(w) }
