package background

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// words lists ChineseWords(run) as text, checking each is specific and inside the run.
func chineseWords(t *testing.T, run string) []string {
	t.Helper()
	r := []rune(run)
	var out []string
	for _, w := range ChineseWords(run) {
		if w.Start < 0 || w.Len < 2 || w.Start+w.Len > len(r) {
			t.Fatalf("ChineseWords(%q): word at %d+%d is outside the run", run, w.Start, w.Len)
		}
		if !(w.Specificity > 0) {
			t.Errorf("ChineseWords(%q): %q has specificity %.2f, want > 0", run, string(r[w.Start:w.Start+w.Len]), w.Specificity)
		}
		out = append(out, string(r[w.Start:w.Start+w.Len]))
	}
	return out
}

func TestChineseWords(t *testing.T) {
	cases := []struct {
		run  string
		want []string
	}{
		// Pronouns and particles carry no topic; a single character is left out alone, but two
		// side by side that are no grammatical word are one (猫 / 叫, or a name: 晓 / 燕).
		{"我的猫叫什么名字", []string{"猫叫", "名字"}},
		{"我的猫", nil},
		// 张 is a measure word on its own (one sheet of paper), so the name pairs start at 晓.
		{"张晓燕住在哪个城市", []string{"晓燕", "燕住", "城市"}},
		// Time words (生日) are content; 哪, 天 and 着 are grammar on their own.
		{"我生日是哪天来着", []string{"生日"}},
		// 听起 spans no word: the cut is 听 / 起来 / 真 / 不错.
		{"听起来真不错", []string{"起来", "不错"}},
		// Words made of common characters are words: 过 of 过敏, 在 of 在家 do not hide them.
		{"我对花生过敏", []string{"花生", "过敏"}},
		{"现在一起对比过去", []string{"现在", "对比", "过去"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := chineseWords(t, c.run); !cmp.Equal(got, c.want) {
			t.Errorf("ChineseWords(%q) = %v, want %v", c.run, got, c.want)
		}
	}
	spec := map[string]float64{}
	for _, w := range ChineseWords("喜欢魔术") {
		spec[string([]rune("喜欢魔术")[w.Start:w.Start+w.Len])] = w.Specificity
	}
	if !(spec["魔术"] > spec["喜欢"]) {
		t.Errorf("specificity 魔术 %.2f, 喜欢 %.2f: want the rarer word more specific", spec["魔术"], spec["喜欢"])
	}
}

// TestGuessedNames: a character the table tags a name's, or has no count for alone, pairs
// with the character beside it where ChineseWords' own rule does not reach: a grammatical
// neighbour (于 of 于乐, 均 of 潘均顺) or a word's edge (司马晏, 徐夫人). Those pairs, and
// only those, are marked Guessed; the commonest grammar beside a surname's character (后被)
// is no name.
func TestGuessedNames(t *testing.T) {
	cases := []struct {
		run     string
		guessed []string
	}{
		{"于乐的职业是什么", []string{"于乐"}},
		{"潘均顺哪年去世", []string{"潘均"}},
		{"谁杀了司马晏", []string{"马晏"}},
		{"徐夫人是哪里人", []string{"徐夫"}},
		{"后被扎伊尔代替", nil},
		// Names the table's own rule finds are not guessed; nor is a run with no name.
		{"张晓燕住在哪个城市", nil},
		{"我对花生过敏", nil},
	}
	for _, c := range cases {
		r := []rune(c.run)
		var guessed []string
		for _, w := range ChineseWords(c.run) {
			if w.Guessed {
				if !w.Unknown || w.Len != 2 {
					t.Errorf("ChineseWords(%q): guessed %q is not an unknown pair", c.run, string(r[w.Start:w.Start+w.Len]))
				}
				guessed = append(guessed, string(r[w.Start:w.Start+w.Len]))
			}
		}
		if !cmp.Equal(guessed, c.guessed) {
			t.Errorf("ChineseWords(%q) guesses %v, want %v", c.run, guessed, c.guessed)
		}
	}
	if got := chineseWords(t, "于乐的职业是什么"); !cmp.Equal(got, []string{"于乐", "职业"}) {
		t.Errorf("ChineseWords(于乐的职业是什么) = %v, want the guessed name in query order", got)
	}
}

// TestChineseTable: the embedded table is sorted (the search depends on it), starts with its
// total, and every word is found where it lies, with no word found that it lacks.
func TestChineseTable(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(zhWords, "\n"), "\n")
	if len(lines) < 100_000 {
		t.Fatalf("the table has %d lines, want the dictionary's 140k", len(lines))
	}
	if !strings.HasPrefix(lines[0], "\t") {
		t.Fatalf("first line %q, want the total under the empty word", lines[0])
	}
	var sum float64
	words := make([]string, 0, len(lines)-1)
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" {
			t.Fatalf("line %d: %q is not word, count and tag", i+2, line)
		}
		words = append(words, f[0])
		e, found, prefix := lookupZH(f[0])
		if !found || !prefix || e.tag != f[2] {
			t.Fatalf("lookupZH(%q) = %+v, %v, %v; want the line %q", f[0], e, found, prefix, line)
		}
		sum += e.count
	}
	if !slices.IsSorted(words) {
		t.Fatal("the table is not sorted by its words' bytes")
	}
	if total := zhTotal(); math.Abs(total-sum) > 0.5 {
		t.Errorf("zhTotal() = %.0f, want the counts' sum %.0f", total, sum)
	}
	for _, absent := range []string{"", "\x00", "zzz", "\U0010FFFF", "花生过敏症状"} {
		if _, found, _ := lookupZH(absent); found {
			t.Errorf("lookupZH(%q) found a word the table lacks", absent)
		}
	}
	if _, found, prefix := lookupZH("花"); !found || !prefix {
		t.Errorf("lookupZH(花): found %v, prefix %v; want both (花 and 花生 are words)", found, prefix)
	}
	if _, _, prefix := lookupZH("花生过敏症状"); prefix {
		t.Error("lookupZH(花生过敏症状) says some word starts with it")
	}
}

// FuzzChineseWords: any text, valid UTF-8 or not, is cut without a panic into words that lie
// inside it.
func FuzzChineseWords(f *testing.F) {
	for _, s := range []string{"我对花生过敏", "张晓燕住在哪个城市", "\xff花生\x00", "", strings.Repeat("的", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := utf8.RuneCountInString(text)
		for _, w := range ChineseWords(text) {
			if w.Start < 0 || w.Len < 2 || w.Start+w.Len > n || !(w.Specificity > 0) {
				t.Fatalf("ChineseWords(%q): word %+v", text, w)
			}
		}
	})
}

// TestPairKinds: a query's reading tells content from grammar by the table: pairs inside
// frequent grammatical words or a grammatical character against a word are grammar, two single
// characters one of which is grammar are loose (it may be a name's: 于乐), and words made of
// common characters, names and pairs across content words are content.
func TestPairKinds(t *testing.T) {
	kinds := func(run string) string {
		r := []rune(run)
		var b strings.Builder
		for i, k := range PairKinds(run) {
			if k != ContentPair {
				fmt.Fprintf(&b, "%s:%d ", string(r[i:i+2]), k)
			}
		}
		return strings.TrimSpace(b.String())
	}
	cases := []struct{ run, want string }{
		// 我对 is two single characters, 我 and 对 grammar: loose. 对花 leans on 对 against
		// the word 花生: grammar. 生过 joins 花生 and 过敏, the ends of two words: loose.
		{"我对花生过敏", "我对:1 对花:2 生过:1"},
		// 们在 joins 我们 and 在家, 家办 在家 and 办公: loose.
		{"我们在家办公", "我们:2 们在:1 家办:1"},
		{"于乐的职业", "于乐:1 乐的:1 的职:2"},
		{"三体", ""},
		{"过敏", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := kinds(c.run); got != c.want {
			t.Errorf("PairKinds(%q): %q, want %q", c.run, got, c.want)
		}
	}
	// A pair that is content in one place and grammar in another is content.
	if k := BigramKinds("我们 我们的"); k["我们"] != GrammarPair {
		t.Errorf("BigramKinds(我们 我们的) = %v, want 我们 grammar", k)
	}
	if k := BigramKinds("对花生 花生"); len(k) != 1 || k["对花"] != GrammarPair {
		t.Errorf("BigramKinds(对花生 花生) = %v, want only 对花, grammar", k)
	}
}
