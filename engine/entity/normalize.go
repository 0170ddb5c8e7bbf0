package entity

import (
	"strings"
	"unicode"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/textnorm"
)

// Normalize is the normalization applied to every entity, and the one to apply to an entity
// that did not come from Extract (a query term, a user's filter): NFKC (full-width and
// half-width forms agree: ＡＰＩ -> API, ｶﾞ -> ガ), case-folded (Straße -> strasse), then NFKC
// again because folding can leave a string that is not normalized (NFKC output is also NFC),
// and traditional Chinese characters written simplified (風格 -> 风格). Whitespace runs
// become one space, and leading and trailing punctuation is trimmed, except a trailing + or #
// after a letter or digit (c++, c#). Normalize is idempotent.
func Normalize(s string) string {
	s = analysis.Simplify(textnorm.Fold(s))
	if strings.ContainsFunc(s, unicode.IsSpace) {
		s = strings.Join(strings.Fields(s), " ")
	}
	return textnorm.TrimToWord(s)
}
