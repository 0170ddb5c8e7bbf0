package analysis

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// texts renders the terms of s as "text/kind" strings, the shape the table below reads best in.
func texts(s string) []string {
	var out []string
	for t := range Terms(s) {
		out = append(out, t.Text+"/"+kindNames[t.Kind])
	}
	return out
}

var kindNames = map[Kind]string{Word: "w", Compound: "c", Part: "p", Bigram: "b", Unigram: "u", Date: "d"}

var termCases = []struct {
	name string
	in   string
	want []string
}{
	{"english words stemmed", "CI uses Python", []string{"ci/w", "use/w", "python/w"}},
	{"short words are not stemmed", "the cat was", []string{"the/w", "cat/w", "was/w"}},
	{"compound and its parts", "go-sqlite3 driver", []string{"go-sqlite3/c", "go/p", "sqlite3/p", "driver/w"}},
	{"version", "Python 3.12", []string{"python/w", "3.12/c", "3/p", "12/p"}},
	{"hyphenated words are found by their stemmed parts", "transgender-specific services",
		[]string{"transgender-specific/c", "transgend/p", "specif/p", "servic/w"}},
	{"trailing joiners are not part of a word", "version 1.2. done-", []string{"version/w", "1.2/c", "1/p", "2/p", "done/w"}},
	{"leading joiner separates", "-flag .env", []string{"flag/w", "env/w"}},
	{"diacritics folded", "Café Ångström naïve", []string{"cafe/w", "angstrom/w", "naiv/w"}},
	{"full width folded", "ＡＰＩ　Ｖ２", []string{"api/w", "v2/w"}},
	{"possessive dropped", "Tom's job, the cats' toys", []string{"tom/w", "job/w", "the/w", "cat/w", "toy/w"}},
	{"curly possessive", "Alice’s laptop", []string{"alic/w", "laptop/w"}},
	{"chinese bigrams and unigrams", "老王喜欢", []string{"老王/b", "老/u", "王喜/b", "王/u", "喜欢/b", "喜/u", "欢/u"}},
	{"one chinese character", "猫", []string{"猫/u"}},
	{"traditional is indexed simplified", "阿嬤", []string{"阿嬷/b", "阿/u", "嬷/u"}},
	{"mixed scripts", "用Go写API服务", []string{"用/u", "go/w", "写/u", "api/w", "服务/b", "服/u", "务/u"}},
	{"japanese dakuten kept", "ガラス", []string{"ガラ/b", "ガ/u", "ラス/b", "ラ/u", "ス/u"}},
	{"korean syllables", "서울에", []string{"서울/b", "서/u", "울에/b", "울/u", "에/u"}},
	{"cyrillic and greek folded", "Ёлка Ελλάδα", []string{"елка/w", "ελλαδα/w"}},
	{"invalid utf8 separates", "ab\xffcd", []string{"ab/w", "cd/w"}},
	{"nul separates", "abc\x00def", []string{"abc/w", "def/w"}},
	{"fts5 syntax is punctuation", `"a" * (b) AND c:d ^e`, []string{"a/w", "b/w", "and/w", "c/w", "d/w", "e/w"}},
	{"a chinese date", "6月8号", []string{"6/w", "6月8日/d", "月/u", "8/w", "号/u"}},
	{"a chinese date with its year", "2023年06月08日交房租", []string{"2023/w", "年/u", "06/w", "6月8日/d", "月/u", "08/w", "日交/b", "日/u", "交房/b", "交/u", "房租/b", "房/u", "租/u"}},
	{"an english date", "June 8th", []string{"june/w", "6月8日/d", "8th/w"}},
	{"day first", "8 June, the 1st of Sept", []string{"8/w", "6月8日/d", "june/w", "the/w", "1st/w", "9月1日/d", "of/w", "sept/w"}},
	{"may is a month before its day only", "you may 3 times; 8 may", []string{"you/w", "may/w", "5月3日/d", "3/w", "time/w", "8/w", "may/w"}},
	{"not a date", "13月8日 June 32 8 of", []string{"13/w", "月/u", "8/w", "日/u", "june/w", "32/w", "8/w", "of/w"}},
	{"only punctuation", `*"()-:^`, nil},
	{"empty", "", nil},
}

func TestTerms(t *testing.T) {
	for _, tc := range termCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, texts(tc.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Terms(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestSurfaceIsTheWordAsFolded(t *testing.T) {
	var got []string
	for term := range Terms("Services improved") {
		got = append(got, term.Surface)
	}
	if diff := cmp.Diff([]string{"services", "improved"}, got); diff != "" {
		t.Errorf("surfaces (-want +got):\n%s", diff)
	}
}

func TestIndexTextAndLength(t *testing.T) {
	tests := []struct {
		in    string
		index string
		n     int
	}{
		{"CI uses go-sqlite3", "ci use go-sqlite3 go sqlite3", 3},
		{"老王喜欢", "老王 老 王喜 王 喜欢 喜 欢", 3},
		{"go go go go go go Go", "go go⁺2 go⁺3 go⁺4 go⁺5", 7}, // occurrences past MaxTF are counted, not recorded
		{"猫", "猫", 1},
		{"", "", 0},
	}
	for _, tc := range tests {
		index, n := IndexText(tc.in)
		if index != tc.index || n != tc.n || Length(tc.in) != n {
			t.Errorf("IndexText(%q) = %q, %d (Length %d); want %q, %d", tc.in, index, n, Length(tc.in), tc.index, tc.n)
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Café", "cafe"},
		{"ＡＢＣ", "abc"},
		{"Straße", "strasse"},
		{"e\u0301", "e"},
		{"ガ", "ガ"}, // dakuten is meaning, not a diacritic
		{"हिन्दी", "हिन्दी"}, // so are Devanagari vowel signs
		{"老王", "老王"},
		{"阿嬤住在台南，農曆新年", "阿嬷住在台南,农历新年"}, // traditional folds to simplified (and NFKC the comma)
	}
	for _, tc := range tests {
		if got := Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzTerms: every term is valid, non-empty, free of spaces and of ASCII punctuation other
// than the joiners (so an FTS5 tokenizer that splits on spaces sees exactly these terms), and
// folding is idempotent.
func FuzzTerms(f *testing.F) {
	for _, tc := range termCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for term := range Terms(s) {
			if term.Text == "" || !utf8.ValidString(term.Text) || term.Surface == "" {
				t.Fatalf("Terms(%q): bad term %+v", s, term)
			}
			for i := 0; i < len(term.Text); i++ {
				c := term.Text[i]
				if c < 0x80 && !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
					t.Fatalf("Terms(%q): term %q holds %q, which the index tokenizer would split on", s, term.Text, c)
				}
			}
			if strings.ContainsFunc(term.Text, func(r rune) bool { return r == utf8.RuneError }) {
				t.Fatalf("Terms(%q): term %q holds U+FFFD", s, term.Text)
			}
		}
		if f1 := Fold(s); Fold(f1) != f1 {
			t.Fatalf("Fold not idempotent on %q: %q then %q", s, f1, Fold(f1))
		}
	})
}
