package modelboot

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var windowTests = []struct {
	name    string
	text    string
	window  int
	want    string
	wantCut bool
}{
	{"unknown window keeps all", strings.Repeat("a", 10000), 0, strings.Repeat("a", 10000), false},
	{"fits", "hello world", 10, "hello world", false},
	// 12-2 reserved = 10 tokens = 20 Latin letters; whitespace is free.
	{"latin cut at a word", "alpha bravo charlie delta echo", 12, "alpha bravo charlie", true},
	{"latin cut before punctuation keeps the word", "abcdefghij abcdefghij, more", 12, "abcdefghij abcdefghij", true},
	{"cjk one token per rune", "老王喜欢简约风格的设计", 6, "老王喜欢", true},
	{"emoji two tokens", "😀😀😀😀", 6, "😀😀", true},
	{"one long word cut mid-word", strings.Repeat("x", 100), 12, strings.Repeat("x", 20), true},
	{"tiny window still keeps a token", "abc", 1, "ab", true},
	{"accented latin is half a token", "ééééé", 4, "éééé", true},
	{"mixed", "manager 老王 likes", 8, "manager 老王", true},
}

func TestTruncateToWindow(t *testing.T) {
	for _, tt := range windowTests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := TruncateToWindow(tt.text, tt.window)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("TruncateToWindow(%q, %d) = %q, %v; want %q, %v", tt.text, tt.window, got, cut, tt.want, tt.wantCut)
			}
		})
	}
}

func FuzzTruncateToWindow(f *testing.F) {
	for _, tt := range windowTests {
		f.Add(tt.text, tt.window)
	}
	f.Fuzz(func(t *testing.T, text string, window int) {
		window %= 4096
		got, cut := TruncateToWindow(text, window)
		if !strings.HasPrefix(text, got) {
			t.Fatalf("result %q is not a prefix of %q", got, text)
		}
		if cut != (got != text) {
			t.Fatalf("cut = %v but result %q vs text %q", cut, got, text)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("result %q of valid text is not valid UTF-8", got)
		}
		if window > 0 {
			spent := 0
			for _, r := range got {
				spent += halfTokens(r)
			}
			if budget := 2 * max(window-reservedTokens, 1); spent > budget {
				t.Fatalf("result costs %d half tokens, budget %d", spent, budget)
			}
		}
		if again, _ := TruncateToWindow(got, window); again != got {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
	})
}
