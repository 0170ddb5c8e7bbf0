package query

import (
	"github.com/memdesk/memdesk/engine/analysis"
)

// WordTerms are the query's terms for the word index, in the analyzer's terms
// (engine/analysis): CJK bigrams, words folded and stemmed, compounds and their parts, without
// English stopwords (they would make the search walk most of the index for nothing).
// Distinct, in order, at most MaxTerms. A lone CJK character (猫, or 天 left of 哪天 once the
// question word is stripped) is searched only when the query has nothing else: one character
// inside a longer word is no evidence of what a longer query asks.
func WordTerms(q string) []string {
	var out, lone []string
	seen := map[string]bool{}
	for t := range analysis.Terms(q) {
		if len(out) >= MaxTerms {
			break
		}
		if seen[t.Text] || analysis.IsStopword(t.Surface) {
			continue
		}
		switch {
		case t.Kind != analysis.Unigram:
			out = append(out, t.Text)
		case t.Counted():
			lone = append(lone, t.Text)
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

// IsStopword reports whether a folded word is an English stopword.
func IsStopword(w string) bool { return analysis.IsStopword(w) }
