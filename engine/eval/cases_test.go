package eval

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memdesk/memdesk/engine/eval/evaltest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/eval")

// caseDir holds the case files and their golden reports, shared with package enginearm.
var caseDir = filepath.Join("..", "..", "testdata", "eval")

func TestParseCasesErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		json    string
		wantMsg string
	}{
		{"not json", `{`, "unexpected EOF"},
		{"unknown field", `{"name": "x", "cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expected": [0]}]}]}`, `unknown field "expected"`},
		{"no cases", `{"name": "x", "cases": []}`, "no cases"},
		{"case without name", `{"cases": [{"facts": ["f"], "queries": [{"query": "q"}]}]}`, "unique name"},
		{"duplicate case name", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q"}]}, {"name": "a", "facts": ["f"], "queries": [{"query": "q"}]}]}`, "unique name"},
		{"no queries", `{"cases": [{"name": "a", "facts": ["f"]}]}`, "no queries"},
		{"empty fact", `{"cases": [{"name": "a", "facts": [" "], "queries": [{"query": "q"}]}]}`, "fact 0 is empty"},
		{"empty query", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": ""}]}]}`, "is empty"},
		{"index out of range", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expect": [1]}]}]}`, "expect index 1 is not a fact"},
		{"negative index", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expect": [0], "must_exclude": [-1]}]}]}`, "must_exclude index -1"},
		{"include without expect", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "must_include": [0]}]}]}`, "must_include without expect"},
		{"expected and excluded", `{"cases": [{"name": "a", "facts": ["f", "g"], "queries": [{"query": "q", "expect": [0], "must_exclude": [0]}]}]}`, "both expected and excluded"},
		{"negative k", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "k": -1}]}]}`, "k must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCases([]byte(tc.json))
			if !errors.Is(err, ErrBadCase) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("ParseCases error = %v, want %v containing %q", err, ErrBadCase, tc.wantMsg)
			}
		})
	}
}

func TestRunCases(t *testing.T) {
	cf := &CaseFile{Name: "mini", Cases: []Case{{
		Name:  "c",
		K:     2,
		Facts: []string{"f0", "f1", "f2", "f3"},
		Queries: []CaseQuery{
			{Query: "found first", Expect: []int{1}, MustInclude: []int{1}, MustExclude: []int{3}},
			{Query: "found third", Expect: []int{2}, MustInclude: []int{2}},
			{Query: "excluded shows", Expect: []int{0}, MustExclude: []int{3}},
			{Query: "unrelated, empty"},
			{Query: "unrelated, not empty"},
		},
	}}}
	answers := map[string][]int{
		"found first":          {1, 0},
		"found third":          {0, 3, 2},
		"excluded shows":       {3, 0},
		"unrelated, not empty": {2},
	}
	var asked []int
	retrieve := func(_ context.Context, q string, k int, facts []string) ([]int, error) {
		asked = append(asked, k)
		if len(facts) != 4 {
			t.Errorf("retrieve got %d facts, want 4", len(facts))
		}
		return answers[q], nil
	}
	got, err := RunCases(context.Background(), cf, retrieve, CaseRunOptions{Arm: "stub"})
	if err != nil {
		t.Fatalf("RunCases: %v", err)
	}
	want := CaseReport{
		Arm:  "stub",
		Name: "mini",
		Summary: CaseSummary{Queries: 5, Passed: 2, Failed: 3,
			MustIncludePassRate: 0.5, MustExcludePassRate: 0.5, EmptyRateUnrelated: 0.5},
		// Related queries: ranks 1, 3 and 2; nDCG 1, 0.5 and 0.630930.
		Ranking: CaseRanking{Recall1: 1.0 / 3, Recall5: 1, Recall10: 1, NDCG10: (1 + 0.5 + 0.630930) / 3,
			MRR10: (1 + 1.0/3 + 0.5) / 3, Top3HitRate: 1, Top3MeanRelevant: 1},
		Queries: []CaseOutcome{
			{Case: "c", Query: "found first", K: 2, Expect: []int{1}, Got: []int{1, 0}, Pass: true},
			{Case: "c", Query: "found third", K: 2, Expect: []int{2}, Got: []int{0, 3}, Why: []string{"must include [2] in the first 2"}},
			{Case: "c", Query: "excluded shows", K: 2, Expect: []int{0}, Got: []int{3, 0}, Why: []string{"must exclude [3] from the first 2"}},
			{Case: "c", Query: "unrelated, empty", K: 2, Expect: []int{}, Got: []int{}, Pass: true},
			{Case: "c", Query: "unrelated, not empty", K: 2, Expect: []int{}, Got: []int{2}, Why: []string{"unrelated query got 1 hits"}},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-5), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("RunCases mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{10, 10, 10, 10, 10}, asked); diff != "" {
		t.Errorf("depth asked (-want +got):\n%s", diff)
	}
}

func TestStubRetrieve(t *testing.T) {
	facts := []string{
		"CI uses Python 3.12",
		"Python and Go and CI and GitHub: a long fact that names everything",
		"老王喜欢简约风格",
		"nothing in common",
	}
	for _, tc := range []struct {
		query string
		k     int
		want  []int
	}{
		{"python CI github", 10, []int{1, 0}},
		{"python CI github", 1, []int{1}},
		{"老王的风格", 10, []int{2}},
		{"quantum", 10, []int{}},
	} {
		got, err := StubRetrieve(context.Background(), tc.query, tc.k, facts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("StubRetrieve(%q, %d) mismatch (-want +got):\n%s", tc.query, tc.k, diff)
		}
	}
}

// TestBilingualStubGolden runs the bilingual case file through the stub arm: a change to the
// cases or to the stub shows as a diff of the golden report (go test -update rewrites it).
func TestBilingualStubGolden(t *testing.T) {
	cf, err := LoadCases(filepath.Join(caseDir, "bilingual.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunCases(context.Background(), cf, StubRetrieve, CaseRunOptions{Arm: "stub"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Summary.Queries; got < 60 {
		t.Errorf("bilingual case file has %d queries, want at least 60", got)
	}
	unrelated := 0
	for _, c := range cf.Cases {
		for _, q := range c.Queries {
			if q.Unrelated() {
				unrelated++
			}
		}
	}
	if unrelated < 10 {
		t.Errorf("bilingual case file has %d unrelated queries, want at least 10", unrelated)
	}
	evaltest.Golden(t, filepath.Join(caseDir, "bilingual.stub.golden.json"), rep, *update)
}
