// Package display makes stored text safe to show to a person. Facts come from people and
// agents, documents and their file names from anywhere on disk: any of them can hold a
// terminal escape sequence (OSC 52 writes the clipboard, OSC 0 the window title, CSI 2 J
// clears the screen) or a bidirectional override that shows text in another order than it is
// stored. Every human-readable surface (CLI text output, MCP text content, the GUI) passes
// text through Line or Block before showing it; JSON output needs neither, encoding/json
// already escapes every control character.
package display

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line returns s safe for one line of output (a table cell, a title, a path, a message):
// every control character, newline and tab included, and every bidirectional embedding,
// override or isolate is written out in Go's escape notation (ESC as \x1b, a tab as \t,
// U+202E as \u202e), and invalid UTF-8 becomes U+FFFD. The result is valid UTF-8 and holds
// no control character.
func Line(s string) string { return sanitize(s, false) }

// Block is Line for text shown as a block of lines (a document chunk, a multi-line error):
// it keeps newlines and tabs, and a carriage return that ends a line before a newline (CRLF
// is a line end, not an overwrite). Everything else Line escapes, Block escapes too.
func Block(s string) string { return sanitize(s, true) }

// sanitize is the one implementation behind Line and Block. Escapes rather than U+FFFD or
// deletion: the reader sees that something was there and exactly what (\x1b is not \x07),
// in the notation of Go's %q that memdesk's messages already use, in plain ASCII that every
// terminal and font shows. A backslash in the text itself is left as it is, so Windows paths
// read normally; the display is for reading, --json is the exact form.
func sanitize(s string, keepLayout bool) string {
	if isSafe(s, keepLayout) {
		return s // the common case: no allocation
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			// A raw byte such as 0x9B is CSI to a terminal in 8-bit mode.
			b.WriteRune(utf8.RuneError)
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case keepLayout && r == '\r' && strings.HasPrefix(s[i+size:], "\n"):
			b.WriteRune(r)
		case mustEscape(r):
			q := strconv.QuoteRune(r) // '\x1b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// isSafe reports whether sanitize would return s unchanged.
func isSafe(s string, keepLayout bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if keepLayout && (c == '\n' || c == '\t') {
			continue
		}
		if c < 0x80 {
			return false // C0 control, DEL, or a CR that may overwrite a line
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || mustEscape(r) {
			return false
		}
		i += size - 1
	}
	return true
}

// Escapes reports whether Line and Block write r out as an escape: for a surface with
// escaping of its own (JSON's \u009b) that must cover the same characters.
func Escapes(r rune) bool { return mustEscape(r) }

// mustEscape reports whether r is a C0 or C1 control character, DEL, or a bidirectional
// embedding, override or isolate (the "Trojan Source" set, CVE-2021-42574). The implicit
// marks (U+200E, U+200F, U+061C) reorder nothing beyond neutral characters and stay.
func mustEscape(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
