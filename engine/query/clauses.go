package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clauses cuts text into its sentences and lines: after a line break, after a Chinese or
// full-width sentence end (。！？；), after ! ? ; and after a full stop that ends a word
// and is followed by a space ("Tokyo. Do you" but not "3.12", "go-sqlite3.x", an initial
// as in "H. pylori" or a title as in "Dr. Huang"). A pasted
// conversation is one clause per turn or sentence; a question is usually one clause. The
// clauses keep their text as written, ends included, and empty ones are dropped.
func Clauses(text string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if c := strings.TrimSpace(text[start:end]); c != "" {
			out = append(out, c)
		}
		start = end
	}
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		switch r {
		case '\n', '\r', '。', '！', '？', '；', '!', '?', ';':
			emit(end)
		case '.':
			next, _ := utf8.DecodeRuneInString(text[end:])
			if unicode.IsSpace(next) && endsSentence(text[start:i]) {
				emit(end)
			}
		}
	}
	emit(len(text))
	return out
}

// endsSentence reports whether a full stop after before ends a sentence: before ends in a
// word of two or more letters that is not a title or a usual abbreviation.
func endsSentence(before string) bool {
	i := strings.LastIndexFunc(before, func(r rune) bool { return !unicode.IsLetter(r) })
	word := strings.ToLower(before[i+1:])
	if utf8.RuneCountInString(word) < 2 {
		return false
	}
	switch word {
	case "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "fig", "no", "eg", "ie":
		return false
	}
	return true
}
