package ui

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var highlightTests = []struct {
	name  string
	text  string
	terms []string
	want  []span
}{
	{"no terms", "CI uses Python", nil, []span{{Text: "CI uses Python"}}},
	{"case-insensitive", "CI uses Python 3.12", []string{"python"},
		[]span{{Text: "CI uses "}, {Text: "Python", Matched: true}, {Text: " 3.12"}}},
	{"cjk", "老王的生日是三月十二日", []string{"老王", "生日"},
		[]span{{Text: "老王", Matched: true}, {Text: "的"}, {Text: "生日", Matched: true}, {Text: "是三月十二日"}}},
	{"every occurrence", "tea, more tea", []string{"tea"},
		[]span{{Text: "tea", Matched: true}, {Text: ", more "}, {Text: "tea", Matched: true}}},
	{"overlapping terms merge", "backups!", []string{"back", "ckup"},
		[]span{{Text: "backups", Matched: true}, {Text: "!"}}},
	{"a stem marks its whole word", "CI uses goroutines, modeled", []string{"use", "go", "model"},
		[]span{{Text: "CI "}, {Text: "uses", Matched: true}, {Text: " "}, {Text: "goroutines", Matched: true}, {Text: ", "}, {Text: "modeled", Matched: true}}},
	{"a match inside a word marks only itself", "postgresql", []string{"sql"},
		[]span{{Text: "postgre"}, {Text: "sql", Matched: true}}},
	{"cjk marks only the match", "生日快乐abc", []string{"生日"},
		[]span{{Text: "生日", Matched: true}, {Text: "快乐abc"}}},
	{"a latin match stops at cjk", "ok生日", []string{"o"},
		[]span{{Text: "ok", Matched: true}, {Text: "生日"}}},
	{"whole text", "Go", []string{"go"}, []span{{Text: "Go", Matched: true}}},
	{"term longer than text", "Go", []string{"golang"}, []span{{Text: "Go"}}},
	{"empty term ignored", "abc", []string{""}, []span{{Text: "abc"}}},
	{"empty text", "", []string{"a"}, nil},
}

func TestHighlight(t *testing.T) {
	for _, tt := range highlightTests {
		t.Run(tt.name, func(t *testing.T) {
			got := highlight(tt.text, tt.terms)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("highlight(%q, %q) mismatch (-want +got):\n%s", tt.text, tt.terms, diff)
			}
		})
	}
}

func FuzzHighlight(f *testing.F) {
	for _, tt := range highlightTests {
		f.Add(tt.text, strings.Join(tt.terms, "|"))
	}
	f.Fuzz(func(t *testing.T, text, terms string) {
		if !utf8.ValidString(text) {
			t.Skip("the engine stores valid UTF-8 only")
		}
		spans := highlight(text, strings.Split(terms, "|"))
		var joined strings.Builder
		for i, s := range spans {
			if s.Text == "" {
				t.Fatalf("span %d is empty", i)
			}
			if i > 0 && spans[i-1].Matched == s.Matched {
				t.Fatalf("spans %d and %d should have been one", i-1, i)
			}
			joined.WriteString(s.Text)
		}
		if joined.String() != text {
			t.Fatalf("spans join to %q, want %q", joined.String(), text)
		}
		clipped := clip(spans, 10)
		if n := runes(clipped); n > 12 {
			t.Fatalf("clip to 10 kept %d runes", n)
		}
	})
}

func runes(spans []span) int {
	n := 0
	for _, s := range spans {
		n += utf8.RuneCountInString(s.Text)
	}
	return n
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 100) + "MATCH" + strings.Repeat("b", 100)
	tests := []struct {
		name  string
		spans []span
		limit int
		want  []span
	}{
		{"short text untouched", []span{{Text: "abc"}}, 10, []span{{Text: "abc"}}},
		{"no match keeps the start", []span{{Text: strings.Repeat("x", 20)}}, 10,
			[]span{{Text: strings.Repeat("x", 10)}, {Text: "…"}}},
		{"match kept in view", highlight(long, []string{"match"}), 20, []span{
			{Text: "…"}, {Text: "aaaa"}, {Text: "MATCH", Matched: true}, {Text: strings.Repeat("b", 11)}, {Text: "…"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, clip(tt.spans, tt.limit)); diff != "" {
				t.Errorf("clip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFitLine(t *testing.T) {
	spans := []span{{Text: "the "}, {Text: "garden", Matched: true}, {Text: " gate is green"}}
	if got := fitLine(spans, 40); !slices.Equal(got, spans) {
		t.Errorf("a line that fits was cut: %v", got)
	}
	got := fitLine(spans, 6.5) // 5.5 em of text: "the " is 2, the bold "garden" 3.3
	want := []span{{Text: "the "}, {Text: "garden", Matched: true}, {Text: "…"}}
	if !slices.Equal(got, want) {
		t.Errorf("fitLine(6.5 em) = %v, want %v", got, want)
	}
	if got := fitLine(spans, 6.2); !slices.Equal(got, []span{{Text: "the "}, {Text: "garde", Matched: true}, {Text: "…"}}) {
		t.Errorf("fitLine(6.2 em) = %v: a bold character is 0.55 em", got)
	}
	if got := fitLine([]span{{Text: "老王喜欢简约风格"}}, 5); !slices.Equal(got, []span{{Text: "老王喜欢"}, {Text: "…"}}) {
		t.Errorf("fitLine(CJK, 5 em) = %v: a Han character is 1 em", got)
	}
}

func TestFaceRuns(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", []string{""}},
		{"plain latin text, with commas", []string{"plain latin text, with commas"}},
		{"老王喜欢简约风格", []string{"老王喜欢简约风格"}},
		{"CI uses 预算 and 发票 too", []string{"CI uses ", "预算 ", "and ", "发票 ", "too"}},
		{"会议：agenda", []string{"会议：", "agenda"}},
		{" 快递", []string{" 快递"}},
	}
	for _, tt := range tests {
		got := faceRuns(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("faceRuns(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if strings.Join(got, "") != tt.text {
			t.Errorf("faceRuns(%q) lost text: %q", tt.text, got)
		}
	}
}
