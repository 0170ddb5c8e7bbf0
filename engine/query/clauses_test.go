package query

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestClauses(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"what does Tom do for a job", []string{"what does Tom do for a job"}},
		{"I'm anxious about Tokyo. Do you have any tips?", []string{"I'm anxious about Tokyo.", "Do you have any tips?"}},
		{"CI uses Python 3.12. see go-sqlite3.x now", []string{"CI uses Python 3.12. see go-sqlite3.x now"}},
		{"Active H. pylori urease, says Dr. Huang. Really", []string{"Active H. pylori urease, says Dr. Huang.", "Really"}},
		{"Bart: 我要表演魔术！\nAssistant: 真棒。你紧张吗？\nBart: 有点", []string{"Bart: 我要表演魔术！", "Assistant: 真棒。", "你紧张吗？", "Bart: 有点"}},
		{"first;second\r\n\r\n  third  ", []string{"first;", "second", "third"}},
		{"  \n ?! ", []string{"?", "!"}},
		{"", nil},
	} {
		if got := Clauses(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Clauses(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzClauses: the clauses of any text are pieces of it, in order, none empty, and hold every
// character of it that is not space.
func FuzzClauses(f *testing.F) {
	for _, s := range []string{"a. b", "x\ny", "你好。再见！", "3.12", ". .", "\xff.\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		clauses := Clauses(text)
		var joined, compact []rune
		rest := text
		for _, c := range clauses {
			if c == "" {
				t.Fatalf("Clauses(%q) has an empty clause: %q", text, clauses)
			}
			i := indexOf(rest, c)
			if i < 0 {
				t.Fatalf("Clauses(%q): %q is not the next piece of the text", text, c)
			}
			rest = rest[i+len(c):]
			for _, r := range c {
				if !isSpace(r) {
					joined = append(joined, r)
				}
			}
		}
		for _, r := range text {
			if !isSpace(r) {
				compact = append(compact, r)
			}
		}
		if string(joined) != string(compact) {
			t.Fatalf("Clauses(%q) = %q: lost or added text", text, clauses)
		}
	})
}

func indexOf(s, sub string) int { return strings.Index(s, sub) }

func isSpace(r rune) bool { return unicode.IsSpace(r) }
