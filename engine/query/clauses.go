package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clauses cuts text into its sentences and lines: after a line break, after a Chinese or
// full-width sentence end (。！？；), after ! ? ; and after a full stop that ends a word
// and is followed by a space ("Tokyo. Do you" but not "3.12" or "go-sqlite3.x"). A pasted
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
			prev, _ := utf8.DecodeLastRuneInString(text[:i])
			if unicode.IsSpace(next) && unicode.IsLetter(prev) {
				emit(end)
			}
		}
	}
	emit(len(text))
	return out
}
