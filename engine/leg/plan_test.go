package leg

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine/background"
)

func TestPlanQuery(t *testing.T) {
	now := time.Date(2026, 3, 11, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		query         string
		wantWindow    bool
		wantTimeWords string
		wantSubstr    []string
		wantEntity    string
		wantSemantic  string
	}{
		{name: "question words stripped for matching, kept for meaning", query: "what is the staging cluster",
			wantSubstr: []string{"staging", "cluster"}, wantEntity: "staging cluster", wantSemantic: "what is the staging cluster"},
		{name: "time words become a window and leave every reading", query: "deploy notes yesterday",
			wantWindow: true, wantTimeWords: "yesterday", wantSubstr: []string{"deploy", "notes"}, wantEntity: "deploy notes", wantSemantic: "deploy notes"},
		// Chinese is found through the word index or not at all: no substring fallback.
		{name: "Chinese has no substrings", query: "老王喜欢什么风格", wantEntity: "老王喜欢 风格", wantSemantic: "老王喜欢什么风格"},
		{name: "short Latin words are no substrings", query: "go db", wantEntity: "go db", wantSemantic: "go db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PlanQuery(tc.query, now)
			if got := p.When != nil; got != tc.wantWindow {
				t.Errorf("window = %v, want %v", p.When, tc.wantWindow)
			}
			if p.TimeWords != tc.wantTimeWords {
				t.Errorf("time words = %q, want %q", p.TimeWords, tc.wantTimeWords)
			}
			if !slices.Equal(p.Substrings, tc.wantSubstr) {
				t.Errorf("substrings = %q, want %q", p.Substrings, tc.wantSubstr)
			}
			if p.EntityText != tc.wantEntity {
				t.Errorf("entity text = %q, want %q", p.EntityText, tc.wantEntity)
			}
			if p.SemanticText != tc.wantSemantic {
				t.Errorf("semantic text = %q, want %q", p.SemanticText, tc.wantSemantic)
			}
			if len(p.Words) == 0 || p.Empty() {
				t.Errorf("no words to search in %q: %+v", tc.query, p)
			}
		})
	}
}

// TestChineseBigramsByKind: a query's CJK bigrams are all searched, and the plan says which
// are grammar or loose as it reads (background.BigramKinds); content is not in the map.
func TestChineseBigramsByKind(t *testing.T) {
	p := PlanQuery("我对花生过敏", time.Now())
	want := map[string]background.PairKind{"我对": background.LoosePair, "对花": background.GrammarPair, "生过": background.LoosePair}
	if !maps.Equal(p.Pairs, want) {
		t.Errorf("pairs of 我对花生过敏 = %v, want %v (过敏 and 花生 content)", p.Pairs, want)
	}
}

func TestPlanOfTimeWordsAloneIsEmpty(t *testing.T) {
	p := PlanQuery("yesterday", time.Now())
	if !p.Empty() {
		t.Errorf("plan of %q is not empty: %+v", "yesterday", p)
	}
	if p.When == nil {
		t.Error("no window for yesterday")
	}
}
