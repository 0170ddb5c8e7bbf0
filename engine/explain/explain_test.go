package explain

import (
	"testing"
	"time"
)

// now is a Thursday; the week began on Monday 2026-11-30.
var now = time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)

func TestSentence(t *testing.T) {
	lastTuesday := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name   string
		r      Record
		en, zh string
	}{
		{"words, a name, a date",
			Record{Matched: []string{"预算", "李娜"}, Anchors: []string{"李娜", "Alice"}, Written: lastTuesday},
			"matched 预算 and 李娜 · also names Alice · written last Tuesday",
			"匹配 预算、李娜 · 也提到 Alice · 上周二写的"},
		{"one word",
			Record{Matched: []string{"python"}, Written: now.Add(-time.Hour)},
			"matched python · written today", "匹配 python · 今天写的"},
		{"three words",
			Record{Matched: []string{"deploy", "rollback", "staging"}},
			"matched deploy, rollback and staging", "匹配 deploy、rollback、staging"},
		{"many words",
			Record{Matched: []string{"a1", "b2", "c3", "d4", "e5", "f6"}},
			"matched a1, b2, c3, d4 and 2 more", "匹配 a1、b2、c3、d4 等 6 个词"},
		{"inside a longer word",
			Record{Lexical: true, Written: now},
			"holds what you typed inside a longer word · written today", "输入的字在更长的词里 · 今天写的"},
		{"names already matched are not repeated",
			Record{Matched: []string{"Alice"}, Anchors: []string{"alice"}},
			"matched Alice", "匹配 Alice"},
		{"a leading model far above chance",
			Record{Matched: []string{"tea"}, Semantic: 0.81, SemanticLead: 4.2},
			"matched tea · very close in meaning", "匹配 tea · 意思非常接近"},
		{"a leading model just above chance",
			Record{Matched: []string{"tea"}, Semantic: 0.6, SemanticLead: 1.1},
			"matched tea · close in meaning", "匹配 tea · 意思相近"},
		{"a supporting model",
			Record{Matched: []string{"tea"}, Semantic: 0.6},
			"matched tea · related in meaning", "匹配 tea · 意思有关"},
		{"meaning alone",
			Record{Semantic: 0.7, SemanticOnly: true, Written: now.AddDate(0, 0, -1)},
			"found by meaning, not by its words · written yesterday", "按意思找到，字面不同 · 昨天写的"},
		{"a document imported this week",
			Record{Knowledge: true, Matched: []string{"部署"}, Written: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)},
			"matched 部署 · imported on Monday", "匹配 部署 · 本周一导入的"},
		{"within a month",
			Record{Matched: []string{"x"}, Written: now.AddDate(0, 0, -20)},
			"matched x · written 20 days ago", "匹配 x · 20 天前写的"},
		{"earlier this year",
			Record{Matched: []string{"x"}, Written: time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)},
			"matched x · written on 3 March", "匹配 x · 3月3日写的"},
		{"another year",
			Record{Matched: []string{"x"}, Written: time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)},
			"matched x · written in March 2025", "匹配 x · 2025年3月写的"},
		{"a clock behind the database",
			Record{Matched: []string{"x"}, Written: now.Add(time.Hour)},
			"matched x · written today", "匹配 x · 今天写的"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sentence(tt.r, English, now); got != tt.en {
				t.Errorf("English = %q, want %q", got, tt.en)
			}
			if got := Sentence(tt.r, Chinese, now); got != tt.zh {
				t.Errorf("Chinese = %q, want %q", got, tt.zh)
			}
		})
	}
}

// TestWhenUsesTheClocksTimeZone: a memory written at 23:30 in Shanghai on Wednesday is
// "yesterday" there on Thursday, although it is the same day in UTC.
func TestWhenUsesTheClocksTimeZone(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	written := time.Date(2026, 12, 2, 23, 30, 0, 0, shanghai) // 15:30 UTC on the 2nd
	at := time.Date(2026, 12, 3, 0, 30, 0, 0, shanghai)       // 16:30 UTC on the 2nd
	if got := when(written, at, Chinese); got != "昨天" {
		t.Errorf("when = %q, want 昨天", got)
	}
	if got := when(written, at.UTC(), English); got != "today" {
		t.Errorf("when in UTC = %q, want today", got)
	}
}

func TestLangOfAndParse(t *testing.T) {
	for q, want := range map[string]Lang{"预算 李娜": Chinese, "budget for Q3": English, "Alice 的预算": Chinese, "": English} {
		if got := LangOf(q); got != want {
			t.Errorf("LangOf(%q) = %q, want %q", q, got, want)
		}
	}
	for code, want := range map[string]Lang{"en": English, "en-GB": English, "zh_CN": Chinese, "zh-Hans": Chinese, "ZH": Chinese} {
		if got, ok := Parse(code); !ok || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", code, got, ok, want)
		}
	}
	if _, ok := Parse("fr"); ok {
		t.Error("Parse(fr) ok, want not: there is no French")
	}
}

// BenchmarkSentence is one hit's explanation; recall writes one per hit shown.
func BenchmarkSentence(b *testing.B) {
	r := Record{Matched: []string{"预算", "李娜", "review"}, Anchors: []string{"李娜", "Alice"}, Semantic: 0.7,
		SemanticLead: 2.1, Written: now.AddDate(0, 0, -9)}
	b.ReportAllocs()
	for b.Loop() {
		Sentence(r, Chinese, now)
	}
}
