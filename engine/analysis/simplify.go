package analysis

import (
	_ "embed"
	"strings"
	"unicode/utf8"
)

// tsCharacters is OpenCC's traditional-to-simplified character table (TSCharacters.txt,
// OpenCC 1.1, Apache License 2.0, https://github.com/BYVoid/OpenCC; the copy shipped in
// github.com/longbridgeapp/opencc v0.3.13): one traditional character, a tab, and its
// simplified forms, the usual one first.
//
//go:embed tscharacters.txt
var tsCharacters string

// simplified maps a traditional character to its usual simplified form; it is built once
// from tsCharacters and only read after that.
var simplified = func() map[rune]rune {
	m := make(map[rune]rune, 4200)
	for line := range strings.Lines(tsCharacters) {
		trad, simp, ok := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
		if !ok {
			continue
		}
		t, n := utf8.DecodeRuneInString(trad)
		s, _ := utf8.DecodeRuneInString(simp)
		if n == len(trad) && t != s && s != utf8.RuneError {
			m[t] = s
		}
	}
	return m
}()

// Simplify writes traditional Chinese characters in their simplified form (阿嬤 -> 阿嬷,
// 農曆 -> 农历), character by character, leaving everything else alone: a person who writes
// one script finds what was written in the other. Character by character is what search
// needs; words that differ between the regions (軟體 / 软件) are other words, not another
// script, and stay apart.
func Simplify(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { _, ok := simplified[r]; return ok })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if to, ok := simplified[r]; ok {
			r = to
		}
		b.WriteRune(r)
	}
	return b.String()
}
