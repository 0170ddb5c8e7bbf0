// Package textnorm holds the text folding that entities and statements share, so an entity
// extracted from a fact and a statement's subject normalize alike. It is small on purpose:
// engine/hygiene needs it without linking engine/entity's segmenter and language models.
package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold makes text compare the way a person reads it: NFKC (full-width and half-width forms
// agree: ＡＰＩ -> API, ｶﾞ -> ガ), case-folded (Straße -> strasse), then NFKC again because
// folding can leave a string that is not normalized. Invalid UTF-8 becomes U+FFFD. Fold is
// idempotent.
func Fold(s string) string {
	if isPrintableASCII(s) {
		// The common case: NFKC is the identity on ASCII and folding is lowercasing.
		return strings.ToLower(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	// Lowercasing after folding is not redundant: x/text folds Cherokee to the other case
	// each time (Ꭺ -> ꭺ, ꭺ -> Ꭺ), so Fold alone is not idempotent (found by FuzzNormalize).
	return norm.NFKC.String(strings.ToLower(cases.Fold().String(norm.NFKC.String(s))))
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// TrimToWord drops leading runes that are not letters or digits and trailing runes that are
// not letters, digits or combining marks, keeping a trailing run of + and # that follows a
// letter or digit (c++, c#).
func TrimToWord(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return !IsWordRune(r) })
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if IsWordRune(r) || unicode.IsMark(r) {
			break
		}
		if r == '+' || r == '#' {
			base := strings.TrimRight(s, "+#")
			if last, _ := utf8.DecodeLastRuneInString(base); IsWordRune(last) {
				break
			}
		}
		s = s[:len(s)-size]
	}
	return s
}

// IsWordRune reports whether r is a letter or a digit.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
