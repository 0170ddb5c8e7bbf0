package modelboot

import (
	"unicode"
	"unicode/utf8"
)

// reservedTokens is what a model adds around every input ([CLS]/[SEP],
// BOS/EOS) out of the window.
const reservedTokens = 2

// TruncateToWindow cuts text so that, by a conservative estimate, it fits a
// model input window of window tokens, and reports whether it cut. A window
// of zero or less is unknown: the text comes back whole.
//
// Why estimate: Ollama truncates over-long inputs itself, but 0.17.4 still
// answers 400 "the input length exceeds the context length" for some inputs
// past the window, and one such input fails its whole batch. The true count
// needs the model's tokenizer, which the API does not expose, so the estimate
// errs long: WordPiece, SentencePiece and BPE vocabularies spend about one
// token per 3-5 Latin letters and about one per CJK character, and here a
// Latin letter or digit costs half a token, a CJK (or other unspaced-script)
// character, punctuation or symbol a whole token, a character outside the
// Basic Multilingual Plane (emoji, rare Han) two, and whitespace nothing.
// That leaves room for rare words, numbers and code that split finely.
// Engine chunkers should cut with the same function, so that what is
// searched is what was embedded.
func TruncateToWindow(text string, window int) (string, bool) {
	if window <= 0 {
		return text, false
	}
	budget := 2 * max(window-reservedTokens, 1) // in half tokens
	spent := 0
	for i, r := range text {
		spent += halfTokens(r)
		if spent > budget {
			return cutAtSpace(text[:i], r), true
		}
	}
	return text, false
}

// halfTokens is the estimated cost of r in half tokens.
func halfTokens(r rune) int {
	switch {
	case unicode.IsSpace(r):
		return 0
	case r > 0xFFFF:
		return 4
	case r < utf8.RuneSelf:
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return 1
		}
		return 2
	case unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic) || unicode.IsMark(r):
		return 1
	}
	return 2
}

// cutAtSpace drops the word that next, the first rune cut off, would have
// continued, if a space is near; otherwise it keeps the cut where it is (CJK
// has no spaces).
func cutAtSpace(prefix string, next rune) string {
	const lookBack = 48 // bytes: longer than most words
	last, _ := utf8.DecodeLastRuneInString(prefix)
	if !inWord(last) || !inWord(next) {
		return prefix
	}
	for i := len(prefix); i > 0 && len(prefix)-i < lookBack; {
		r, size := utf8.DecodeLastRuneInString(prefix[:i])
		if unicode.IsSpace(r) {
			return prefix[:i-size]
		}
		i -= size
	}
	return prefix
}

func inWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
