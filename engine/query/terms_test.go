package query

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var parseCases = []struct {
	name  string
	query string
	want  Terms
}{
	{"chinese sentence", "老王喜欢简约风格", Terms{Trigram: []string{"老王喜", "王喜欢", "喜欢简", "欢简约", "简约风", "约风格"}}},
	{"three cjk chars is one trigram", "换手机", Terms{Trigram: []string{"换手机"}}},
	{"two cjk chars is a short term", "周三", Terms{Short: []string{"周三"}}},
	{"one cjk char", "猫", Terms{Short: []string{"猫"}}},
	{"english words lowercased", "CI uses Python 3.12", Terms{Trigram: []string{"uses", "python", "3.12"}, Short: []string{"ci"}}},
	{"identifier kept whole", "go-sqlite3 driver", Terms{Trigram: []string{"go-sqlite3", "driver"}}},
	{"trailing joiners trimmed", "version 1.2. done-", Terms{Trigram: []string{"version", "1.2", "done"}}},
	{"duplicates removed", "foo foo FOO", Terms{Trigram: []string{"foo"}}},
	{"mixed scripts split", "用Go写API服务", Terms{Trigram: []string{"api"}, Short: []string{"用", "go", "写", "服务"}}},
	{"fts5 syntax is not a term", `"" * ( ) AND OR NOT NEAR - ^ :`, Terms{Trigram: []string{"and", "not", "near"}, Short: []string{"or"}}},
	{"only punctuation", `*"()-:^`, Terms{}},
	{"empty", "", Terms{}},
	{"invalid utf8 ignored", "ab\xffcd python", Terms{Trigram: []string{"python"}, Short: []string{"ab", "cd"}}},
	{"nul separates", "abc\x00def", Terms{Trigram: []string{"abc", "def"}}},
	{"japanese kana are cjk", "ひらがなテスト", Terms{Trigram: []string{"ひらが", "らがな", "がなテ", "なテス", "テスト"}}},
	{"full-width digits stay words", "ＡＢＣ", Terms{Trigram: []string{"ａｂｃ"}}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.query)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

func TestParseCapsTerms(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("word")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteRune(rune('a' + i%26))
		b.WriteRune(rune('a' + (i/26)%26))
		b.WriteByte(' ')
	}
	got := Parse(b.String())
	if n := len(got.Trigram) + len(got.Short); n != MaxTerms {
		t.Errorf("Parse(500 words) gave %d terms, want the cap %d", n, MaxTerms)
	}
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		name  string
		terms []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"python"}, `"python"`},
		{"or of quoted terms", []string{"老王喜", "python"}, `"老王喜" OR "python"`},
		{"quote doubled", []string{`a"b`}, `"a""b"`},
		{"operators stay literal", []string{"near", "and", "*"}, `"near" OR "and" OR "*"`},
		{"empty terms skipped", []string{"", "abc", ""}, `"abc"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MatchExpr(tc.terms); got != tc.want {
				t.Errorf("MatchExpr(%q) = %s, want %s", tc.terms, got, tc.want)
			}
		})
	}
}

func TestMatched(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		terms []string
		want  []string
	}{
		{"case-insensitive", "CI uses Python 3.12", []string{"python", "3.12", "java"}, []string{"python", "3.12"}},
		{"short latin needs word bounds", "a good gopher", []string{"go"}, nil},
		{"short latin as a word", "we write Go daily", []string{"go"}, []string{"go"}},
		{"short latin next to cjk", "用Go写服务", []string{"go"}, []string{"go"}},
		{"short cjk anywhere", "每周三开会", []string{"周三"}, []string{"周三"}},
		{"second occurrence counts", "gone go", []string{"go"}, []string{"go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Matched(tc.text, tc.terms)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Matched(%q, %q) mismatch (-want +got):\n%s", tc.text, tc.terms, diff)
			}
		})
	}
}

// FuzzParseMatch checks that any query yields valid, bounded terms whose MATCH expression
// keeps every term inside quotes.
func FuzzParseMatch(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.query)
	}
	f.Fuzz(func(t *testing.T, q string) {
		terms := Parse(q)
		all := append(append([]string{}, terms.Trigram...), terms.Short...)
		if len(all) > MaxTerms {
			t.Fatalf("Parse(%q) gave %d terms, more than MaxTerms", q, len(all))
		}
		seen := map[string]bool{}
		for _, term := range all {
			if term == "" || !utf8.ValidString(term) || strings.ContainsRune(term, 0) {
				t.Fatalf("Parse(%q) gave bad term %q", q, term)
			}
			if seen[term] {
				t.Fatalf("Parse(%q) repeated term %q", q, term)
			}
			seen[term] = true
		}
		for _, term := range terms.Trigram {
			if utf8.RuneCountInString(term) < 3 {
				t.Fatalf("Parse(%q) trigram term %q shorter than 3", q, term)
			}
		}
		expr := MatchExpr(terms.Trigram)
		if expr == "" {
			if len(terms.Trigram) != 0 {
				t.Fatalf("MatchExpr of %q is empty", terms.Trigram)
			}
			return
		}
		// Every term is a quoted string: removing the quoted parts leaves only " OR ".
		rest := unquote(t, expr)
		if strings.Trim(strings.ReplaceAll(rest, " OR ", ""), " ") != "" {
			t.Fatalf("MatchExpr(%q) = %q has text outside quotes: %q", terms.Trigram, expr, rest)
		}
	})
}

// unquote removes FTS5 string literals from expr and fails on an unterminated one.
func unquote(t *testing.T, expr string) string {
	t.Helper()
	var out strings.Builder
	for i := 0; i < len(expr); i++ {
		if expr[i] != '"' {
			out.WriteByte(expr[i])
			continue
		}
		for i++; ; i++ {
			if i >= len(expr) {
				t.Fatalf("unterminated string in %q", expr)
			}
			if expr[i] == '"' {
				if i+1 < len(expr) && expr[i+1] == '"' {
					i++
					continue
				}
				break
			}
		}
	}
	return out.String()
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse("老王喜欢简约风格, and CI uses Python 3.12 with go-sqlite3")
	}
}

func TestAtWordStart(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"The shed by the gate", "shed", true},
		{"Shedding leaves", "shed", true},            // the start of a longer word
		{"well established practice", "shed", false}, // inside one
		{"established; then shed it", "shed", true},  // a later occurrence counts
		{"go-sqlite3", "sqlite", true},               // after punctuation a word starts
		{"咖啡shed", "shed", true},                     // after CJK a Latin word starts
		{"", "shed", false},
		{"anything", "", false},
	} {
		if got := AtWordStart(tc.text, tc.term); got != tc.want {
			t.Errorf("AtWordStart(%q, %q) = %v, want %v", tc.text, tc.term, got, tc.want)
		}
	}
}

func TestSubstringText(t *testing.T) {
	common := func(w string) bool {
		switch strings.ToLower(w) {
		case "the", "garden", "shed", "uses", "for", "background", "in":
			return true
		}
		return false
	}
	for _, c := range []struct{ in, want string }{
		{"The garden shed", " "},
		{"CI uses go-sqlite3 for the PostgreSQL backups", "CI go-sqlite3 PostgreSQL backups"},
		{"ticket OPS-4242, Python 3.12.", "ticket OPS-4242, Python 3.12."},
		{"老王喜欢 nginx 在北京", " nginx "},
		{"background-music and background.", "background-music and ."},
		{"shed_2 shed2 shed", "shed_2 shed2 "},
		{"", ""},
	} {
		if got := SubstringText(c.in, common); got != c.want {
			t.Errorf("SubstringText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzSubstringText(f *testing.F) {
	f.Add("CI uses go-sqlite3 在北京 for PostgreSQL.")
	f.Add("a-\xffb 3.1_")
	f.Fuzz(func(t *testing.T, text string) {
		common := func(w string) bool { return len(w)%2 == 0 }
		got := SubstringText(text, common)
		if len(got) > len(text)+1 {
			t.Fatalf("SubstringText(%q) = %q: longer than its text", text, got)
		}
		for _, r := range got {
			if IsCJK(r) {
				t.Fatalf("SubstringText(%q) = %q keeps CJK", text, got)
			}
		}
		// What is kept is kept whole: the identifiers and rarer words of the text.
		for _, w := range strings.Fields(got) {
			if !strings.Contains(text, w) {
				t.Fatalf("SubstringText(%q) = %q: %q is not in the text", text, got, w)
			}
		}
	})
}

func TestPrefixExpr(t *testing.T) {
	for _, c := range []struct {
		terms []string
		want  string
	}{
		{[]string{"backgr", "Café", "咖啡馆", "backgr"}, `"backgr" * OR "cafe" *`},
		{[]string{`a"b`}, `"a""b" *`},
		{[]string{"老王"}, ""},
		{nil, ""},
	} {
		if got := PrefixExpr(c.terms); got != c.want {
			t.Errorf("PrefixExpr(%q) = %s, want %s", c.terms, got, c.want)
		}
	}
}
