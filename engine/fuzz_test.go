package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var normalizeSeeds = []string{
	"  CI uses\tPython 3.12 ", "老王喜欢简约风格", "a\u00a0b\u3000c", "e\u0301", "bad \xff byte",
	"nul\x00byte", "", " \n\t ", "ｆｕｌｌ　ｗｉｄｔｈ", "\u200b zero width",
}

func TestNormalizeFact(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"  CI uses\tPython 3.12 ", "CI uses Python 3.12", false},
		{"line\nbreaks\r\nfolded", "line breaks folded", false},
		{"ideographic\u3000space and nbsp\u00a0too", "ideographic space and nbsp too", false},
		{"e\u0301", "\u00e9", false},
		{"老王喜欢简约风格", "老王喜欢简约风格", false},
		{"bad \xff byte", "", true},
		{"nul\x00byte", "", true},
		{" \t\n", "", true},
	}
	for _, tc := range tests {
		got, err := NormalizeFact(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("NormalizeFact(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && !errors.Is(err, ErrInvalidText) {
			t.Errorf("NormalizeFact(%q) error %v is not ErrInvalidText", tc.in, err)
		}
	}
}

// FuzzNormalizeFact: whatever comes in, what is stored is valid, NFC, trimmed, single-spaced
// and stable under a second normalization; what is refused is refused with ErrInvalidText.
func FuzzNormalizeFact(f *testing.F) {
	for _, s := range normalizeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := NormalizeFact(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidText) {
				t.Fatalf("NormalizeFact(%q) error %v is not ErrInvalidText", in, err)
			}
			if utf8.ValidString(in) && !strings.ContainsRune(in, 0) && strings.IndexFunc(in, visible) >= 0 && len(in) <= MaxFactBytes {
				t.Fatalf("NormalizeFact(%q) refused good text: %v", in, err)
			}
			return
		}
		if !utf8.ValidString(got) || strings.ContainsRune(got, 0) || !norm.NFC.IsNormalString(got) {
			t.Fatalf("NormalizeFact(%q) = %q: not valid NFC text", in, got)
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("NormalizeFact(%q) = %q: whitespace not collapsed", in, got)
		}
		if strings.IndexFunc(got, visible) < 0 {
			t.Fatalf("NormalizeFact(%q) = %q: stored text with nothing visible", in, got)
		}
		if again, err := NormalizeFact(got); err != nil || again != got {
			t.Fatalf("NormalizeFact not idempotent on %q: %q, %v", got, again, err)
		}
	})
}

// FuzzRecall sends arbitrary queries through the real engine and SQLite: a query may find
// nothing, but it never errors (bar the empty query) and every hit is well-formed.
func FuzzRecall(f *testing.F) {
	for _, s := range []string{"老王", "周三", `"*" AND (`, "NEAR(a b)", "go", "python 3.12", "\xff", "%_\\"} {
		f.Add(s)
	}
	e := openTestEngine(f)
	for _, text := range []string{"老王喜欢简约风格", "每周三开会", "CI uses Python 3.12", `quotes "and" AND (parens)`, "100% sure_thing"} {
		remember(f, e, "", text)
	}
	f.Fuzz(func(t *testing.T, q string) {
		res, err := e.Recall(context.Background(), RecallRequest{Query: q, K: 5})
		if err != nil {
			if errors.Is(err, ErrBadRequest) && strings.TrimSpace(q) == "" {
				return
			}
			t.Fatalf("Recall(%q): %v", q, err)
		}
		if len(res.Hits) > 5 {
			t.Fatalf("Recall(%q) returned %d hits for k=5", q, len(res.Hits))
		}
		for i, h := range res.Hits {
			if h.Score <= 0 || h.Score > 1.0000001 || h.Score != h.Score {
				t.Fatalf("Recall(%q) hit %d score %v outside (0,1]", q, i, h.Score)
			}
			if i > 0 && res.Hits[i-1].Score < h.Score {
				t.Fatalf("Recall(%q) hits out of order", q)
			}
		}
	})
}
