package eval

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memdesk/memdesk/engine/eval/evaltest"
	"github.com/memdesk/memdesk/engine/timeexpr"
)

// deriveNow is the clock of the derivation tests. Every time word Derive uses covers the
// moment it is read at, so the fixtures do not depend on it.
var deriveNow = time.Date(2025, 6, 18, 15, 4, 5, 0, time.UTC)

func TestSegments(t *testing.T) {
	type seg struct {
		Gap, Text string
		Bridging  bool
	}
	for _, tc := range []struct {
		name, query string
		facts       []string
		want        []seg
	}{
		{"cjk question", "老王喜欢什么风格", []string{"老王喜欢简约风格的设计"},
			[]seg{{"", "老王喜欢", true}, {"", "什么", false}, {"", "风格", true}}},
		{"latin words and identifiers", "is go-sqlite3 on 3.12?", []string{"We use go-sqlite3 with Python 3.12"},
			[]seg{{"", "is", false}, {" ", "go-sqlite3", true}, {" ", "on", false}, {" ", "3.12", true}}},
		{"a word bridges through one token", "which db", []string{"db-staging.internal"},
			[]seg{{"", "which", false}, {" ", "db", true}}},
		{"mixed", "nginx 配置文件在哪", []string{"nginx 配置在 /etc/nginx"},
			[]seg{{"", "nginx", true}, {" ", "配置", true}, {"", "文件在哪", false}}},
		{"one-character run", "猫 food", []string{"喂猫"},
			[]seg{{"", "猫", true}, {" ", "food", false}}},
		{"no facts", "Atlas", nil, []seg{{"", "Atlas", false}}},
		{"punctuation only", "?!", []string{"x"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []seg
			for _, s := range segments(tc.query, tc.facts) {
				got = append(got, seg{s.gap, s.text, s.bridging})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("segments(%q) mismatch (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

// miniCases is a small case file with one query of each shape Derive handles.
func miniCases() *CaseFile {
	return &CaseFile{Name: "mini", Cases: []Case{{
		Name: "c",
		K:    3,
		Facts: []string{
			"老王喜欢简约风格的设计",
			"老李喜欢钓鱼",
			"The staging Postgres listens on port 5433",
			"Production Redis listens on port 6380",
		},
		Queries: []CaseQuery{
			{Query: "老王喜欢什么风格", Expect: []int{0}, MustExclude: []int{1}},
			{Query: "which port does the staging db use", Expect: []int{2}, MustInclude: []int{2}, MustExclude: []int{3}},
			{Query: "port", Expect: []int{2, 3}},
			{Query: "how to bake sourdough bread"},
			{Query: "钓鱼竿在哪里", Expect: []int{3}, Note: "the stub cannot find this gold"},
		},
	}}}
}

func derivedOf(d *Derived, kind DerivedKind, from string) (DerivedCase, bool) {
	i := slices.IndexFunc(d.Cases, func(dc DerivedCase) bool { return dc.Kind == kind && dc.From == from })
	if i < 0 {
		return DerivedCase{}, false
	}
	return d.Cases[i], true
}

func skipOf(d *Derived, kind DerivedKind, query string) string {
	for _, s := range d.Skipped {
		if s.Kind == kind && s.Query == query {
			return s.Reason
		}
	}
	return ""
}

func TestDeriveCollision(t *testing.T) {
	cf := miniCases()
	d := Derive(cf, deriveNow)
	facts := cf.Cases[0].Facts
	for _, tc := range []struct {
		query      string
		wantGold   int
		wantPieces []string
		notPieces  []string
	}{
		{"老王喜欢什么风格", 1, []string{"老王喜欢", "风格"}, []string{"什么"}},
		{"which port does the staging db use", 3, []string{"port", "the", "staging"}, []string{"which", "db", "use"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			dc, ok := derivedOf(d, DerivedCollision, tc.query)
			if !ok {
				t.Fatalf("no collision derived; skipped: %q", skipOf(d, DerivedCollision, tc.query))
			}
			want := CaseQuery{Query: tc.query, K: 1, Expect: []int{tc.wantGold}, MustInclude: []int{tc.wantGold}, MustExclude: []int{0}}
			if diff := cmp.Diff(want, dc.Query, cmpopts.IgnoreFields(CaseQuery{}, "Note")); diff != "" {
				t.Errorf("collision query mismatch (-want +got):\n%s", diff)
			}
			for _, p := range tc.wantPieces {
				if !strings.Contains(dc.Planted, p) {
					t.Errorf("carrier %q lacks the bridging word %q", dc.Planted, p)
				}
			}
			for _, p := range tc.notPieces {
				if slices.Contains(Tokens(dc.Planted), strings.ToLower(p)) {
					t.Errorf("carrier %q holds %q, which the gold lacks: it would have a real lead", dc.Planted, p)
				}
			}
			if strings.Contains(dc.Planted, tc.query) || len([]rune(dc.Planted)) < 3*len([]rune(facts[tc.wantGold-1])) {
				t.Errorf("carrier %q should be long and never hold the query verbatim", dc.Planted)
			}
			// The self-check, again: the carrier beats the gold under the stub, and the gold
			// is first without it.
			with := slices.Concat([]string{dc.Planted}, facts)
			if got, _ := StubRetrieve(context.Background(), tc.query, 10, with); len(got) == 0 || got[0] != 0 {
				t.Errorf("stub with the carrier ranks %v, want the carrier (0) first", got)
			}
			if got, _ := StubRetrieve(context.Background(), tc.query, 10, facts); len(got) == 0 || got[0] != tc.wantGold-1 {
				t.Errorf("stub without the carrier ranks %v, want the gold (%d) first", got, tc.wantGold-1)
			}
		})
	}
	for query, want := range map[string]string{
		"port":                        "several relevant facts",
		"钓鱼竿在哪里":                      "not a gold first",
		"how to bake sourdough bread": "", // unrelated: not a collision source, and not worth a skip line
	} {
		if _, ok := derivedOf(d, DerivedCollision, query); ok {
			t.Errorf("collision derived from %q, want none", query)
		}
		if got := skipOf(d, DerivedCollision, query); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("collision skip reason for %q = %q, want one containing %q", query, got, want)
		}
	}
}

func TestDeriveTimeWord(t *testing.T) {
	cf := miniCases()
	d := Derive(cf, deriveNow)
	for _, tc := range []struct {
		from string
		want CaseQuery
	}{
		{"老王喜欢什么风格", CaseQuery{Query: "最近老王喜欢什么风格", K: 3, Expect: []int{1}, MustInclude: []int{1}, MustExclude: []int{0, 2}}},
		{"which port does the staging db use", CaseQuery{Query: "which port does the staging db use today", K: 3,
			Expect: []int{3}, MustInclude: []int{3}, MustExclude: []int{0, 4}}},
		{"how to bake sourdough bread", CaseQuery{Query: "how to bake sourdough bread lately", K: 3, MustExclude: []int{0}}},
	} {
		t.Run(tc.from, func(t *testing.T) {
			dc, ok := derivedOf(d, DerivedTimeWord, tc.from)
			if !ok {
				t.Fatalf("no time-word case derived; skipped: %q", skipOf(d, DerivedTimeWord, tc.from))
			}
			if diff := cmp.Diff(tc.want, dc.Query, cmpopts.IgnoreFields(CaseQuery{}, "Note")); diff != "" {
				t.Errorf("time-word query mismatch (-want +got):\n%s", diff)
			}
			rest, found := timeexpr.Parse(dc.Query.Query, deriveNow)
			if len(found) != 1 || !slices.Equal(Tokens(rest), Tokens(tc.from)) {
				t.Fatalf("timeexpr reads %q as %v + %q, want one time word and the original query", dc.Query.Query, found, rest)
			}
			if word := found[0].Text; !strings.Contains(dc.Planted, word) {
				t.Errorf("distractor %q does not hold the time word %q literally", dc.Planted, word)
			}
			if sharesToken(dc.Planted, tc.from) {
				t.Errorf("distractor %q shares a fragment with %q beyond the time word", dc.Planted, tc.from)
			}
		})
	}
	cf.Cases[0].Queries = append(cf.Cases[0].Queries, CaseQuery{Query: "上周的周会", Expect: []int{0}})
	if got := skipOf(Derive(cf, deriveNow), DerivedTimeWord, "上周的周会"); !strings.Contains(got, "already holds the time word") {
		t.Errorf("time-word skip reason = %q, want one saying the query already has a time word", got)
	}
}

func TestDeriveIrrelevant(t *testing.T) {
	d := Derive(miniCases(), deriveNow)
	for from, want := range map[string]string{
		"老王喜欢什么风格":                           "老赵什么潜水艇",
		"which port does the staging db use": "which glacier does the saxophone db use",
		"port":                               "volcano",
	} {
		dc, ok := derivedOf(d, DerivedIrrelevant, from)
		if !ok {
			t.Errorf("no negative control derived from %q; skipped: %q", from, skipOf(d, DerivedIrrelevant, from))
			continue
		}
		if dc.Query.Query != want || !dc.Query.Unrelated() || dc.Planted != "" {
			t.Errorf("negative control of %q = %+v, want the unrelated query %q with nothing planted", from, dc.Query, want)
		}
		for _, swap := range strings.Split(strings.TrimPrefix(dc.Query.Note, "swapped "), ", ") {
			_, in, ok := strings.Cut(swap, "→")
			if !ok {
				t.Fatalf("negative control note %q does not list its swaps", dc.Query.Note)
			}
			for _, f := range miniCases().Cases[0].Facts {
				if sharesToken(in, f) {
					t.Errorf("swapped-in entity %q of %q shares a fragment with the fact %q", in, from, f)
				}
			}
		}
	}
	if got := skipOf(d, DerivedIrrelevant, "钓鱼竿在哪里"); !strings.Contains(got, "not a gold first") {
		t.Errorf("irrelevant skip reason = %q, want the stub self-check", got)
	}
}

func TestRunDerived(t *testing.T) {
	d := Derive(miniCases(), deriveNow)
	// A perfect retriever, from the fixtures' own expectations: everything passes.
	perfect := map[string][]int{}
	cf := d.CaseFile()
	for _, c := range cf.Cases {
		for _, q := range c.Queries {
			perfect[q.Query] = q.Expect
		}
	}
	rep, err := RunDerived(context.Background(), d, func(_ context.Context, q string, _ int, _ []string) ([]int, error) {
		return perfect[q], nil
	}, CaseRunOptions{Arm: "real"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[DerivedKind]DerivedKindSummary{
		DerivedCollision:  {Queries: 2, Passed: 2},
		DerivedTimeWord:   {Queries: 5, Passed: 5},
		DerivedIrrelevant: {Queries: 3, Passed: 3},
	}
	if diff := cmp.Diff(want, rep.Kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if rep.Arm != "real" || rep.Summary.Queries != 10 || rep.Summary.Failed != 0 {
		t.Errorf("report = arm %q, %+v; want arm real, 10 queries, none failed", rep.Arm, rep.Summary)
	}
	for i, o := range rep.Queries {
		if o.From == "" || o.Kind == "" || !strings.HasPrefix(o.Case, string(o.Kind)+"/c/") {
			t.Errorf("outcome %d = %+v: want its kind, source query and a case named kind/c/n", i, o)
		}
	}

	// The stub is what the fixtures are built to beat.
	stub, err := RunDerived(context.Background(), d, StubRetrieve, CaseRunOptions{Arm: "stub"})
	if err != nil {
		t.Fatal(err)
	}
	if got := stub.Kinds[DerivedCollision]; got.Passed != 0 {
		t.Errorf("stub passed %d of %d collisions, want none: the carrier is built to beat it", got.Passed, got.Queries)
	}
}

// TestBilingualDerivedGolden derives the regression cases of the bilingual gold set and runs
// them through the stub arm. The fixtures and the stub's report are golden files, so a change
// to the derivation shows as a diff; go test -update rewrites them. The real arm's report is
// frozen by package enginearm.
func TestBilingualDerivedGolden(t *testing.T) {
	cf, err := LoadCases(filepath.Join(caseDir, "bilingual.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := Derive(cf, deriveNow)
	counts := map[DerivedKind]int{}
	for _, dc := range d.Cases {
		counts[dc.Kind]++
	}
	for _, kind := range derivedKinds {
		if counts[kind] < 20 {
			t.Errorf("%d %s cases derived from the gold set, want at least 20", counts[kind], kind)
		}
	}
	// The derived file is a valid case file.
	b, err := json.Marshal(d.CaseFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCases(b); err != nil {
		t.Errorf("derived case file does not parse: %v", err)
	}
	evaltest.Golden(t, filepath.Join(caseDir, "bilingual.derived.golden.json"), d, *update)

	rep, err := RunDerived(context.Background(), d, StubRetrieve, CaseRunOptions{Arm: "stub"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Queries {
		switch {
		case o.Kind == DerivedCollision && (len(o.Got) == 0 || o.Got[0] != 0):
			t.Errorf("stub ranks %v for the collision %q: the carrier (0) must be first", o.Got, o.Query)
		case o.Kind == DerivedTimeWord && o.Pass:
			t.Errorf("stub passed the time-word query %q: it matches time words literally, the distractor should show", o.Query)
		}
	}
	evaltest.Golden(t, filepath.Join(caseDir, "bilingual.derived.stub.golden.json"), rep, *update)
}

func FuzzDerive(f *testing.F) {
	for _, c := range miniCases().Cases {
		for _, q := range c.Queries {
			f.Add(q.Query, c.Facts[0], c.Facts[2])
		}
	}
	f.Add("wifi密码", "家里的 Wi-Fi 密码是 sunflower2024", "B2-117 號車位")
	f.Fuzz(func(t *testing.T, query, gold, other string) {
		if strings.TrimSpace(query) == "" || strings.TrimSpace(gold) == "" || strings.TrimSpace(other) == "" {
			return
		}
		cf := &CaseFile{Name: "fuzz", Cases: []Case{{Name: "c", Facts: []string{gold, other},
			Queries: []CaseQuery{{Query: query, Expect: []int{0}}, {Query: query}}}}}
		d := Derive(cf, deriveNow)
		again := Derive(cf, deriveNow)
		if !cmp.Equal(d, again, cmpopts.IgnoreUnexported(Derived{})) {
			t.Fatalf("Derive is not deterministic for %q", query)
		}
		b, err := json.Marshal(d.CaseFile())
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Cases) > 0 {
			if _, err := ParseCases(b); err != nil {
				t.Fatalf("derived case file of %q does not parse: %v", query, err)
			}
		}
		for _, dc := range d.Cases {
			if strings.TrimSpace(dc.Query.Query) == "" {
				t.Errorf("%s case derived from %q has an empty query", dc.Kind, query)
			}
			if dc.Kind == DerivedCollision {
				got, _ := StubRetrieve(context.Background(), query, 3, slices.Concat([]string{dc.Planted}, cf.Cases[0].Facts))
				if len(got) == 0 || got[0] != 0 {
					t.Errorf("collision of %q: stub ranks %v, want the carrier first", query, got)
				}
			}
		}
	})
}
