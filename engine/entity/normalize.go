package entity

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normalize is the normalization applied to every entity, and the one to apply to an entity
// that did not come from Extract (a query term, a user's filter): NFKC (full-width and
// half-width forms agree: ＡＰＩ -> API, ｶﾞ -> ガ), case-folded (Straße -> strasse), then NFKC
// again because folding can leave a string that is not normalized (NFKC output is also NFC). Whitespace runs
// become one space, and leading and trailing punctuation is trimmed, except a trailing + or #
// after a letter or digit (c++, c#). Normalize is idempotent.
func Normalize(s string) string {
	if isPrintableASCII(s) {
		// The common case: NFKC is the identity on ASCII and folding is lowercasing.
		s = strings.ToLower(s)
	} else {
		s = strings.ToValidUTF8(s, "\uFFFD")
		// Lowercasing after folding is not redundant: x/text folds Cherokee to the other case
		// each time (Ꭺ -> ꭺ, ꭺ -> Ꭺ), so Fold alone is not idempotent (found by FuzzNormalize).
		s = norm.NFKC.String(strings.ToLower(cases.Fold().String(norm.NFKC.String(s))))
	}
	if strings.ContainsFunc(s, unicode.IsSpace) {
		s = strings.Join(strings.Fields(s), " ")
	}
	return trimEntity(s)
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// trimEntity drops leading runes that are not letters or digits and trailing runes that are
// not letters, digits or combining marks, keeping a trailing run of + and # that follows a
// letter or digit.
func trimEntity(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return !isWordRune(r) })
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if isWordRune(r) || unicode.IsMark(r) {
			break
		}
		if r == '+' || r == '#' {
			base := strings.TrimRight(s, "+#")
			if last, _ := utf8.DecodeLastRuneInString(base); isWordRune(last) {
				break
			}
		}
		s = s[:len(s)-size]
	}
	return s
}
