package rank

import (
	"fmt"
	"math"
	"strings"
)

// Explain says, in one line, which legs put the hit where it is and on what evidence, read
// off the decisions Rank recorded on it.
func Explain(h Hit) string {
	var parts []string
	if h.Legs.FTS > 0 {
		terms := h.Matched
		more := ""
		if len(terms) > 6 {
			more = fmt.Sprintf(" +%d more", len(terms)-6)
			terms = terms[:6]
		}
		p := fmt.Sprintf("lexical %.2f", h.Legs.FTS)
		if len(h.Matched) > 0 {
			p += fmt.Sprintf(" (matched %s%s; evidence %.1f, chance %.1f)", strings.Join(terms, ", "), more, h.Evidence, h.Chance)
		}
		parts = append(parts, p)
	}
	if h.Legs.Entity > 0 {
		parts = append(parts, fmt.Sprintf("entity %.2f (anchors %s)", h.Legs.Entity, strings.Join(h.Anchors, ", ")))
	}
	switch {
	case h.Legs.Semantic > 0 && h.SemanticLead > 0:
		parts = append(parts, fmt.Sprintf("semantic %.2f (%.1f sd above what chance would bring)", h.Legs.Semantic, h.SemanticLead))
	case h.Legs.Semantic > 0:
		parts = append(parts, fmt.Sprintf("semantic %.2f", h.Legs.Semantic))
	}
	if len(h.Same) > 0 {
		least := h.Same[0].Shared
		for _, s := range h.Same {
			least = min(least, s.Shared)
		}
		parts = append(parts, fmt.Sprintf("same passage as %d lower %s (%.0f%%+ of the wording shared): shown once",
			len(h.Same), plural(len(h.Same), "hit", "hits"), math.Floor(least*100)))
	}
	return strings.Join(parts, " · ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Unanswered says, for a person, why a ranking pass found that the store holds no answer,
// or "" when it found one.
func (r FloorReport) Unanswered() string {
	switch {
	case r.Answered:
		return ""
	case r.BestEvidence == 0 && r.Terms > 0:
		return "what texts share with it is in nearly every text"
	case r.BestEvidence == 0:
		return "no text holds any of its words"
	case !r.Covered && len(r.Words) > 0:
		words := strings.Join(r.Words[:min(3, len(r.Words))], ", ")
		if len(r.Words) > 3 {
			words += ", …"
		}
		if len(r.Held) == 0 {
			return fmt.Sprintf("no matching text holds any of its key words (%s)", words)
		}
		return fmt.Sprintf("no matching text holds enough of what it asks (the closest holds %s, of %s)", strings.Join(r.Held, ", "), words)
	}
	return "what matches is what any question with these words would find by chance"
}
