package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// ErrInvalidText is returned for text that cannot be stored as written: invalid UTF-8, NUL
// bytes, or nothing but whitespace. The wrapped message says which and where.
var ErrInvalidText = errors.New("invalid text")

// MaxFactBytes bounds one memory. Facts are short; a page belongs in knowledge.
const MaxFactBytes = 64 << 10

// NormalizeFact returns text as memdesk stores it: Unicode NFC, trimmed, every run of
// whitespace collapsed to one space. It rejects, rather than repairs, what would silently
// change the user's words.
func NormalizeFact(text string) (string, error) {
	if !utf8.ValidString(text) {
		i := firstInvalidUTF8(text)
		return "", fmt.Errorf("%w: not valid UTF-8 at byte %d; save the text as UTF-8 and try again", ErrInvalidText, i)
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return "", fmt.Errorf("%w: contains a NUL byte at byte %d; remove it and try again", ErrInvalidText, i)
	}
	text = strings.Join(strings.FieldsFunc(norm.NFC.String(text), unicode.IsSpace), " ")
	if text == "" {
		return "", fmt.Errorf("%w: the text is empty", ErrInvalidText)
	}
	// Text of only invisible format characters (U+200B, U+FEFF…) has no White_Space property,
	// so it survives the collapse above, yet lists as empty and no query can find it.
	if strings.IndexFunc(text, visible) < 0 {
		return "", fmt.Errorf("%w: the text has no visible character", ErrInvalidText)
	}
	if len(text) > MaxFactBytes {
		return "", fmt.Errorf("%w: %d bytes is longer than a memory may be (%d); import it as a document with `kb add` instead",
			ErrInvalidText, len(text), MaxFactBytes)
	}
	return text, nil
}

// visible is false for what shows as nothing: spaces, format characters (zero-width ones,
// the BOM) and controls. Private-use and unassigned code points count as visible: a font may
// draw them.
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && !unicode.IsControl(r)
}

func firstInvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// contentHash is the dedupe key of a normalized fact: compatibility-folded (full-width and
// half-width forms agree) and case-folded, so "CI uses Python" and "ci uses python" are the
// same memory.
func contentHash(normalized string) string {
	key := cases.Fold().String(norm.NFKC.String(normalized))
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
