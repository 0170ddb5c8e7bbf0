package rank

import (
	"fmt"
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
			p += fmt.Sprintf(" (matched %s%s", strings.Join(terms, ", "), more)
			if h.Bar > 0 {
				p += fmt.Sprintf("; %d of bar %d", len(h.Matched)+len(h.Rare), h.Bar)
			}
			if len(h.Rare) > 0 {
				p += fmt.Sprintf("; rare, counted twice: %s", strings.Join(h.Rare, ", "))
			}
			p += ")"
		}
		parts = append(parts, p)
	}
	if h.Legs.Entity > 0 {
		parts = append(parts, fmt.Sprintf("entity %.2f (anchors %s)", h.Legs.Entity, strings.Join(h.Anchors, ", ")))
	}
	if h.Legs.Semantic > 0 {
		parts = append(parts, fmt.Sprintf("semantic %.2f", h.Legs.Semantic))
	}
	return strings.Join(parts, " · ")
}
