package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrBadCase marks a case file that cannot be run as written.
var ErrBadCase = errors.New("bad case file")

// CaseFile is a set of hand-written retrieval cases (JSON in testdata/eval/).
type CaseFile struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Cases       []Case `json:"cases"`
}

// Case is a small memory store and the queries asked of it.
type Case struct {
	Name string `json:"name"`
	// Facts are remembered in order; queries refer to them by 0-based index.
	Facts []string `json:"facts"`
	// K is the default number of hits a query of this case looks at (default 5).
	K       int         `json:"k,omitempty"`
	Queries []CaseQuery `json:"queries"`
}

// CaseQuery is one query with what it must find. A query without Expect is unrelated to
// every fact: it passes only when nothing at all comes back.
type CaseQuery struct {
	Query string `json:"query"`
	K     int    `json:"k,omitempty"` // hits looked at; 0 takes the case's K
	// Expect lists the relevant facts, graded by the ranking metrics.
	Expect []int `json:"expect,omitempty"`
	// MustInclude facts must be among the first K hits, MustExclude facts must not.
	MustInclude []int  `json:"must_include,omitempty"`
	MustExclude []int  `json:"must_exclude,omitempty"`
	Note        string `json:"note,omitempty"`
}

// Unrelated reports whether the query should get no hit at all.
func (q CaseQuery) Unrelated() bool { return len(q.Expect) == 0 }

// defaultCaseK is the number of hits a case query looks at when neither it nor its case says.
const defaultCaseK = 5

func (c Case) k(q CaseQuery) int {
	switch {
	case q.K > 0:
		return q.K
	case c.K > 0:
		return c.K
	}
	return defaultCaseK
}

// LoadCases reads and checks a case file.
func LoadCases(path string) (*CaseFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read case file: %w", err)
	}
	cf, err := ParseCases(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cf, nil
}

// ParseCases decodes a case file strictly (unknown fields are mistakes) and checks that
// every index points at a fact.
func ParseCases(b []byte) (*CaseFile, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var cf CaseFile
	if err := dec.Decode(&cf); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCase, err)
	}
	if len(cf.Cases) == 0 {
		return nil, fmt.Errorf("%w: no cases", ErrBadCase)
	}
	names := map[string]bool{}
	for ci, c := range cf.Cases {
		where := fmt.Sprintf("case %d (%q)", ci, c.Name)
		if c.Name == "" || names[c.Name] {
			return nil, fmt.Errorf("%w: %s needs a unique name", ErrBadCase, where)
		}
		names[c.Name] = true
		if len(c.Queries) == 0 {
			return nil, fmt.Errorf("%w: %s has no queries", ErrBadCase, where)
		}
		for fi, f := range c.Facts {
			if strings.TrimSpace(f) == "" {
				return nil, fmt.Errorf("%w: %s: fact %d is empty", ErrBadCase, where, fi)
			}
		}
		for qi, q := range c.Queries {
			qwhere := fmt.Sprintf("%s, query %d (%q)", where, qi, q.Query)
			if strings.TrimSpace(q.Query) == "" {
				return nil, fmt.Errorf("%w: %s is empty", ErrBadCase, qwhere)
			}
			if q.K < 0 {
				return nil, fmt.Errorf("%w: %s: k must be positive", ErrBadCase, qwhere)
			}
			for field, list := range map[string][]int{"expect": q.Expect, "must_include": q.MustInclude, "must_exclude": q.MustExclude} {
				for _, i := range list {
					if i < 0 || i >= len(c.Facts) {
						return nil, fmt.Errorf("%w: %s: %s index %d is not a fact (the case has %d)", ErrBadCase, qwhere, field, i, len(c.Facts))
					}
				}
			}
			if q.Unrelated() && len(q.MustInclude) > 0 {
				return nil, fmt.Errorf("%w: %s: must_include without expect; list the relevant facts in expect", ErrBadCase, qwhere)
			}
			for _, i := range q.MustExclude {
				if slices.Contains(q.Expect, i) || slices.Contains(q.MustInclude, i) {
					return nil, fmt.Errorf("%w: %s: fact %d is both expected and excluded", ErrBadCase, qwhere, i)
				}
			}
		}
	}
	return &cf, nil
}

// CaseRetrieveFunc answers query over facts with fact indices, best first, at most k. The
// same cases run through a stub and through the real engine by passing a different func;
// it is called with the same facts slice for every query of a case.
type CaseRetrieveFunc func(ctx context.Context, query string, k int, facts []string) ([]int, error)

// CaseReport is the outcome of running a case file through one arm. Summary holds the
// pass/fail counts; Ranking, beside it, the ranking metrics, so adding a metric never
// changes the summary's keys.
type CaseReport struct {
	Arm     string        `json:"arm"`
	Name    string        `json:"name"`
	Summary CaseSummary   `json:"summary"`
	Ranking CaseRanking   `json:"ranking"`
	Latency *Latency      `json:"latency_ms,omitempty"`
	Queries []CaseOutcome `json:"queries"`
}

// CaseSummary counts what passed.
type CaseSummary struct {
	Queries             int     `json:"queries"`
	Passed              int     `json:"passed"`
	Failed              int     `json:"failed"`
	MustIncludePassRate float64 `json:"must_include_pass_rate"`
	MustExcludePassRate float64 `json:"must_exclude_pass_rate"`
	EmptyRateUnrelated  float64 `json:"empty_rate_unrelated"`
}

// CaseRanking holds ranking metrics over the related queries, at depth 10 and at 3.
type CaseRanking struct {
	Recall1          float64 `json:"recall@1"`
	Recall5          float64 `json:"recall@5"`
	Recall10         float64 `json:"recall@10"`
	NDCG10           float64 `json:"ndcg@10"`
	MRR10            float64 `json:"mrr@10"`
	Top3HitRate      float64 `json:"top3_hit_rate"`
	Top3MeanRelevant float64 `json:"top3_mean_relevant"`
}

// CaseOutcome is one query's result: the first K fact indices and why it failed, if it did.
type CaseOutcome struct {
	Case   string   `json:"case"`
	Query  string   `json:"query"`
	K      int      `json:"k"`
	Expect []int    `json:"expect"`
	Got    []int    `json:"got"`
	Pass   bool     `json:"pass"`
	Why    []string `json:"why,omitempty"`
}

// CaseRunOptions configure RunCases.
type CaseRunOptions struct {
	// Arm labels the report ("stub", "real") so merged reports cannot be confused.
	Arm string
	// Latency adds per-query latency percentiles to the report. Off for golden files: they
	// must not change from run to run.
	Latency  bool
	Progress Progress
}

// RunCases asks every query of cf through retrieve. A query retrieves at least 10 hits for
// the ranking metrics, but its pass/fail looks at its own first K.
func RunCases(ctx context.Context, cf *CaseFile, retrieve CaseRetrieveFunc, opts CaseRunOptions) (CaseReport, error) {
	rep := CaseReport{Arm: opts.Arm, Name: cf.Name, Queries: []CaseOutcome{}}
	var (
		include, exclude, empty PassCount
		top3                    Top3
		sum                     CaseRanking
		latencies               []time.Duration
		total, done             int
	)
	for _, c := range cf.Cases {
		total += len(c.Queries)
	}
	for _, c := range cf.Cases {
		for _, q := range c.Queries {
			if err := ctx.Err(); err != nil {
				return CaseReport{}, err
			}
			k := c.k(q)
			start := time.Now()
			ranked, err := retrieve(ctx, q.Query, max(k, 10), c.Facts)
			latencies = append(latencies, time.Since(start))
			if err != nil {
				return CaseReport{}, fmt.Errorf("case %q, query %q: %w", c.Name, q.Query, err)
			}
			// Empty lists stay [] in JSON, never null, so golden files read the same either way.
			out := CaseOutcome{Case: c.Name, Query: q.Query, K: k,
				Expect: append([]int{}, q.Expect...), Got: append([]int{}, ranked[:min(k, len(ranked))]...)}
			if q.Unrelated() {
				ok := len(ranked) == 0
				empty.Add(ok)
				if !ok {
					out.Why = append(out.Why, fmt.Sprintf("unrelated query got %d hits", len(ranked)))
				}
			} else {
				ids, rel := indexIDs(ranked), Relevance{}
				for _, i := range q.Expect {
					rel[strconv.Itoa(i)] = true
				}
				sum.Recall1 += Recall(ids, rel, 1)
				sum.Recall5 += Recall(ids, rel, 5)
				sum.Recall10 += Recall(ids, rel, 10)
				sum.NDCG10 += NDCG(ids, rel, 10)
				sum.MRR10 += ReciprocalRank(ids, rel, 10)
				top3.Add(RelevantInTop3(ids, rel))
			}
			if len(q.MustInclude) > 0 {
				ok := IncludesAll(ranked, q.MustInclude, k)
				include.Add(ok)
				if !ok {
					out.Why = append(out.Why, fmt.Sprintf("must include %v in the first %d", q.MustInclude, k))
				}
			}
			if len(q.MustExclude) > 0 {
				ok := ExcludesAll(ranked, q.MustExclude, k)
				exclude.Add(ok)
				if !ok {
					out.Why = append(out.Why, fmt.Sprintf("must exclude %v from the first %d", q.MustExclude, k))
				}
			}
			out.Pass = len(out.Why) == 0
			if out.Pass {
				rep.Summary.Passed++
			} else {
				rep.Summary.Failed++
			}
			rep.Queries = append(rep.Queries, out)
			done++
			if opts.Progress != nil {
				if err := opts.Progress(done, total); err != nil {
					return CaseReport{}, err
				}
			}
		}
	}
	rep.Summary.Queries = done
	rep.Summary.MustIncludePassRate = include.Rate()
	rep.Summary.MustExcludePassRate = exclude.Rate()
	rep.Summary.EmptyRateUnrelated = empty.Rate()
	if n := float64(top3.Queries); n > 0 {
		rep.Ranking = CaseRanking{Recall1: sum.Recall1 / n, Recall5: sum.Recall5 / n, Recall10: sum.Recall10 / n,
			NDCG10: sum.NDCG10 / n, MRR10: sum.MRR10 / n, Top3HitRate: top3.HitRate(), Top3MeanRelevant: top3.Mean()}
	}
	if opts.Latency {
		l := Percentiles(latencies)
		rep.Latency = &l
	}
	return rep, nil
}

func indexIDs(ranked []int) []string {
	ids := make([]string, len(ranked))
	for i, r := range ranked {
		ids[i] = strconv.Itoa(r)
	}
	return ids
}

// StubRetrieve is a deterministic ranker with no index and no model: a fact's score is the
// raw number of the query's distinct Tokens it contains, not normalized by length; ties
// keep fact order and facts sharing no token are not returned. It checks that a case tests
// what it claims, and is the "stub" arm of the case runner.
func StubRetrieve(ctx context.Context, query string, k int, facts []string) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qtoks := map[string]bool{}
	for _, t := range Tokens(query) {
		qtoks[t] = true
	}
	type scored struct{ index, count int }
	var hits []scored
	for i, f := range facts {
		seen := map[string]bool{}
		for _, t := range Tokens(f) {
			if qtoks[t] {
				seen[t] = true
			}
		}
		if len(seen) > 0 {
			hits = append(hits, scored{i, len(seen)})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.count - a.count })
	out := make([]int, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.index)
	}
	return out, nil
}
