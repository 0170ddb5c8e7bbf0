package entity

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpansAndKnown(t *testing.T) {
	vocab := map[string]bool{"花生": true, "花生油": true, "过敏": true, "alice": true, "api": true,
		"go-sqlite3": true, "python": true, "3.12": true, "老王": true, "台北": true}
	known := func(name string) bool { return vocab[name] }
	cases := []struct {
		query string
		want  []string
	}{
		{"我对什么过敏", []string{"过敏"}},
		// 花生 lies inside 花生油 where the query names the oil; alone it is itself.
		{"花生油过敏吗", []string{"花生油", "过敏"}},
		{"花生和花生油", []string{"花生", "花生油"}},
		{"What does Alice's API use?", []string{"alice", "api"}},
		{"Which APIs did ALICE write", []string{"api", "alice"}},
		{"CI uses Python 3.12 with go-sqlite3", []string{"python", "3.12", "go-sqlite3"}},
		// Traditional characters and full-width letters read as the store's names do.
		{"老王去臺北", []string{"老王", "台北"}},
		{"ＡＬＩＣＥ", []string{"alice"}},
		{"nothing here", nil},
		{"", nil},
	}
	for _, c := range cases {
		if got := Known(Spans(c.query), known); !cmp.Equal(got, c.want) {
			t.Errorf("Known(Spans(%q)) = %v, want %v", c.query, got, c.want)
		}
	}
}

// TestSpansAreBounded: a long CJK query offers each piece once, none longer than the bound.
func TestSpansAreBounded(t *testing.T) {
	spans := Spans("我们昨天去了北京的博物馆看了很多有趣的东西我们昨天去了北京")
	seen := map[string]bool{}
	for _, s := range spans {
		if seen[s.Name] {
			t.Errorf("Spans offers %q twice", s.Name)
		}
		seen[s.Name] = true
		if n := len([]rune(s.Name)); n < 2 || n > maxQueryNameRunes {
			t.Errorf("Spans offers %q of %d characters", s.Name, n)
		}
	}
	if !slices.ContainsFunc(spans, func(s Span) bool { return s.Name == "博物馆" }) {
		t.Error("Spans does not offer 博物馆")
	}
}

// FuzzSpans: any query, valid UTF-8 or not, gives spans of normalized names inside it.
func FuzzSpans(f *testing.F) {
	for _, s := range []string{"我对花生过敏", "Alice's APIs", "\xff\x00go-sqlite3", "", "ＡＰＩ 臺北"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		text := prepare(q)
		for _, s := range Spans(q) {
			if s.Name == "" || s.Name != Normalize(s.Name) || s.From < 0 || s.To > len(text) || s.From >= s.To {
				t.Fatalf("Spans(%q): %+v", q, s)
			}
		}
	})
}
