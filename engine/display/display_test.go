package display

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var displayCases = []struct {
	name, in, line, block string
}{
	{"plain", "CI uses Python 3.12", "CI uses Python 3.12", "CI uses Python 3.12"},
	{"unicode kept", "Straße 東京 é ☃", "Straße 東京 é ☃", "Straße 東京 é ☃"},
	{"sgr colour", "The \x1b[31mred\x1b[0m heron", `The \x1b[31mred\x1b[0m heron`, `The \x1b[31mred\x1b[0m heron`},
	{"osc title with bel", "a \x1b]0;title\x07 b", `a \x1b]0;title\a b`, `a \x1b]0;title\a b`},
	{"osc 52 clipboard", "\x1b]52;c;cHdu\x1b\\", `\x1b]52;c;cHdu\x1b\`, `\x1b]52;c;cHdu\x1b\`},
	{"clear screen", "\x1b[2J", `\x1b[2J`, `\x1b[2J`},
	{"c1 csi as rune", "x\u009b2Jy", `x\u009b2Jy`, `x\u009b2Jy`},
	{"c1 csi as raw byte", "x\x9b2Jy", "x\uFFFD2Jy", "x\uFFFD2Jy"},
	{"invalid utf8", "a\xffb", "a\uFFFDb", "a\uFFFDb"},
	{"backspace", "pass\b\b\b\bxxxx", `pass\b\b\b\bxxxx`, `pass\b\b\b\bxxxx`},
	{"lone cr overwrites", "rm -rf /\rsafe", `rm -rf /\rsafe`, `rm -rf /\rsafe`},
	{"crlf line end", "one\r\ntwo", `one\r\ntwo`, "one\r\ntwo"},
	{"newline and tab", "a\tb\nc", `a\tb\nc`, "a\tb\nc"},
	{"del", "a\x7fb", `a\x7fb`, `a\x7fb`},
	{"nul", "a\x00b", `a\x00b`, `a\x00b`},
	{"bidi override", "file\u202egpj.exe", `file\u202egpj.exe`, `file\u202egpj.exe`},
	{"bidi isolates", "\u2066x\u2069\u2067y\u2068", `\u2066x\u2069\u2067y\u2068`, `\u2066x\u2069\u2067y\u2068`},
	{"implicit marks stay", "a\u200eb\u200fc", "a\u200eb\u200fc", "a\u200eb\u200fc"},
	{"backslash stays", `C:\Windows\System32`, `C:\Windows\System32`, `C:\Windows\System32`},
	{"empty", "", "", ""},
}

func TestLineAndBlock(t *testing.T) {
	for _, tc := range displayCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Block(tc.in); got != tc.block {
				t.Errorf("Block(%q) = %q, want %q", tc.in, got, tc.block)
			}
		})
	}
}

// checkDisplay fails unless out is valid UTF-8 holding no control character other than the
// layout ones Block keeps, and no bidirectional override.
func checkDisplay(t *testing.T, fn string, in, out string, keepLayout bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: not valid UTF-8", fn, in, out)
	}
	for i, r := range out {
		allowed := keepLayout && (r == '\n' || r == '\t' || (r == '\r' && strings.HasPrefix(out[i+1:], "\n")))
		if mustEscape(r) && !allowed {
			t.Fatalf("%s(%q) = %q: holds %U at byte %d", fn, in, out, r, i)
		}
	}
}

func FuzzDisplay(f *testing.F) {
	for _, tc := range displayCases {
		f.Add(tc.in)
	}
	f.Add("\r\r\n\n\r")
	f.Add("\xc2\x9b\xe2\x80\xae")
	f.Fuzz(func(t *testing.T, s string) {
		line, block := Line(s), Block(s)
		checkDisplay(t, "Line", s, line, false)
		checkDisplay(t, "Block", s, block, true)
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("Line(%q) = %q: holds a line break or tab", s, line)
		}
		// Safe text passes unchanged, and sanitizing is a fixed point: displaying text
		// twice shows it as once.
		if got := Line(line); got != line {
			t.Fatalf("Line(Line(%q)) = %q, want %q", s, got, line)
		}
		if got := Block(block); got != block {
			t.Fatalf("Block(Block(%q)) = %q, want %q", s, got, block)
		}
	})
}

func BenchmarkLine(b *testing.B) {
	b.ReportAllocs()
	for _, bc := range []struct{ name, in string }{
		{"clean", "CI uses Python 3.12 for every build on main"},
		{"escapes", "The \x1b[31mred\x1b[0m heron"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Line(bc.in)
			}
		})
	}
}
