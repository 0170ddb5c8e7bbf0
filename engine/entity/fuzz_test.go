package entity

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func FuzzExtract(f *testing.F) {
	for _, tt := range extractTests {
		f.Add(tt.text)
	}
	x := testExtractor(f)
	f.Fuzz(func(t *testing.T, text string) {
		got := x.Extract(text)
		seen := make(map[string]bool, len(got))
		for _, e := range got {
			switch {
			case e == "":
				t.Errorf("Extract(%q) got an empty entity in %q", text, got)
			case !utf8.ValidString(e):
				t.Errorf("Extract(%q) got invalid UTF-8 entity %q", text, e)
			case seen[e]:
				t.Errorf("Extract(%q) got %q twice in %q", text, e, got)
			case Normalize(e) != e:
				t.Errorf("Extract(%q) got %q, which Normalize changes to %q", text, e, Normalize(e))
			case utf8.RuneCountInString(e) > maxEntityRunes:
				t.Errorf("Extract(%q) got %d-rune entity %q, want at most %d", text, utf8.RuneCountInString(e), e, maxEntityRunes)
			}
			seen[e] = true
		}
		if again := x.Extract(text); !slices.Equal(got, again) {
			t.Errorf("Extract(%q) is not deterministic: got %q, then %q", text, got, again)
		}
		if lang, again := x.Lang(text), x.Lang(text); lang != again {
			t.Errorf("Lang(%q) is not deterministic: got %q, then %q", text, lang, again)
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"ＡＢＣ", "C++", "Straße", "ｶﾞ", "e\u0301", "老王", "İstanbul", "ﷺ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Normalize(s)
		if !utf8.ValidString(once) {
			t.Errorf("Normalize(%q) got invalid UTF-8 %q", s, once)
		}
		if twice := Normalize(once); twice != once {
			t.Errorf("Normalize is not idempotent: Normalize(%q) = %q, Normalize(%q) = %q", s, once, once, twice)
		}
	})
}
