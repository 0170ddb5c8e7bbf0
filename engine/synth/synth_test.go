package synth

import (
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func TestDeterministic(t *testing.T) {
	tests := []struct {
		name string
		make func(g *Generator) any
	}{
		{"facts", func(g *Generator) any { return g.Facts(500) }},
		{"documents", func(g *Generator) any { return g.Documents(5) }},
		{"facts then documents", func(g *Generator) any { return []any{g.Facts(50), g.Documents(2)} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.make(New(1)), tc.make(New(1))); diff != "" {
				t.Errorf("same seed, different output (-first +second):\n%s", diff)
			}
			if cmp.Equal(tc.make(New(1)), tc.make(New(2))) {
				t.Errorf("seeds 1 and 2 gave the same output")
			}
		})
	}
}

// TestFactsStable pins the first facts of seed 1: benchmark figures in doc/performance.md
// were measured on this corpus, so a change here makes them incomparable.
func TestFactsStable(t *testing.T) {
	got := New(1).Facts(3)
	want := []string{
		"Rupert deprecated PostgreSQL 16 for the CI pipeline in 上海 (ticket OPS-1)",
		"刘志强每天早上在北京买了简约风格，编号2",
		"陈桂英每周三在上海喜欢简约风格，编号3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("New(1).Facts(3) changed (-want +got):\n%s", diff)
	}
}

func TestFactsMixed(t *testing.T) {
	facts := New(3).Facts(2000)
	seen := map[string]bool{}
	var zh int
	for _, f := range facts {
		if seen[f] {
			t.Fatalf("fact %q repeated", f)
		}
		seen[f] = true
		if strings.IndexFunc(f, func(r rune) bool { return unicode.Is(unicode.Han, r) }) == 0 {
			zh++
		}
	}
	// Half Chinese, half English, within a generous margin.
	if zh < 800 || zh > 1200 {
		t.Errorf("%d of 2000 facts start in Chinese, want about half", zh)
	}
}

func TestDocuments(t *testing.T) {
	g := New(4)
	g.Facts(10) // documents continue the sentence sequence, so their tickets do not repeat facts'
	docs := g.Documents(20)
	names := map[string]bool{}
	for _, d := range docs {
		if names[d.Name] {
			t.Errorf("document name %q repeated", d.Name)
		}
		names[d.Name] = true
		if !strings.HasPrefix(d.Name, "doc-") || !strings.HasSuffix(d.Name, ".md") {
			t.Errorf("document name %q, want doc-NNNN.md", d.Name)
		}
		if !strings.HasPrefix(d.Text, "# ") {
			t.Errorf("%s starts %q, want a Markdown title", d.Name, d.Text[:min(20, len(d.Text))])
		}
		if n := strings.Count(d.Text, "\n## "); n < 3 || n > 5 {
			t.Errorf("%s has %d sections, want 3 to 5", d.Name, n)
		}
		if strings.Contains(d.Text, "编号1。") || strings.Contains(d.Text, "OPS-1)") {
			t.Errorf("%s repeats a ticket number of the facts made before it", d.Name)
		}
	}
}

func TestQueriesMix(t *testing.T) {
	qs := Queries()
	var han1, han2, han3, latin int
	for _, q := range qs {
		runes := []rune(q)
		switch {
		case unicode.Is(unicode.Han, runes[0]) && len(runes) == 1:
			han1++
		case unicode.Is(unicode.Han, runes[0]) && len(runes) == 2:
			han2++
		case unicode.Is(unicode.Han, runes[0]):
			han3++
		default:
			latin++
		}
	}
	if han1 == 0 || han2 == 0 || han3 == 0 || latin == 0 {
		t.Errorf("query mix has %d one-, %d two-, %d longer Chinese and %d Latin queries, want some of each",
			han1, han2, han3, latin)
	}
}
