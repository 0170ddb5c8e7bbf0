package ui

import (
	"slices"
	"unicode"
)

// span is a run of hit text, marked when it is part of a matched query term.
type span struct {
	Text    string
	Matched bool
}

// highlight splits text into spans so the terms the engine reports as matched can be shown
// in bold. Matching ignores case rune by rune (so offsets never shift); a term the engine
// folded further (ß → ss) simply stays unmarked. A match at the start of a Latin word marks
// the whole word: the engine matched "uses" by its stem "use" and "goroutine" by "go", and
// half a word in bold (CI **use**s) reads as a different word. CJK text has no spaces between
// words, so a match there marks only itself. Joining the spans' text gives back text.
func highlight(text string, terms []string) []span {
	runes := []rune(text)
	if len(runes) == 0 {
		return nil
	}
	lower := make([]rune, len(runes))
	for i, r := range runes {
		lower[i] = unicode.ToLower(r)
	}
	marked := make([]bool, len(runes))
	for _, term := range terms {
		t := []rune(term)
		for i := range t {
			t[i] = unicode.ToLower(t[i])
		}
		if len(t) == 0 {
			continue
		}
		for i := 0; i+len(t) <= len(lower); i++ {
			if slices.Equal(lower[i:i+len(t)], t) {
				for j := i; j < i+len(t); j++ {
					marked[j] = true
				}
			}
		}
	}
	for i := 0; i < len(runes); i++ {
		if !marked[i] || (i > 0 && (marked[i-1] || latinWordRune(runes[i-1]))) {
			continue
		}
		for i++; i < len(runes) && (marked[i] || latinWordRune(runes[i])); i++ {
			marked[i] = true
		}
	}
	var out []span
	start := 0
	for i := 1; i <= len(runes); i++ {
		if i == len(runes) || marked[i] != marked[start] {
			out = append(out, span{Text: string(runes[start:i]), Matched: marked[start]})
			start = i
		}
	}
	return out
}

// clip shortens long highlighted text to about limit runes, keeping the first match in view
// and marking each cut with an ellipsis.
func clip(spans []span, limit int) []span {
	total, first := 0, -1
	for _, s := range spans {
		if s.Matched && first < 0 {
			first = total
		}
		total += len([]rune(s.Text))
	}
	if total <= limit {
		return spans
	}
	// Start a little before the first match so it reads in context.
	start := max(0, min(first-limit/5, total-limit))
	end := start + limit
	var out []span
	if start > 0 {
		out = append(out, span{Text: "…"})
	}
	pos := 0
	for _, s := range spans {
		r := []rune(s.Text)
		lo, hi := max(start-pos, 0), min(end-pos, len(r))
		if lo < hi {
			out = append(out, span{Text: string(r[lo:hi]), Matched: s.Matched})
		}
		pos += len(r)
	}
	if end < total {
		out = append(out, span{Text: "…"})
	}
	return out
}

// latinWordRune reports whether r continues a word written with spaces between words: a
// letter or digit of any script but the CJK ones.
func latinWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) &&
		!unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
