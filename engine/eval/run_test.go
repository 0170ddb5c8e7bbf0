package eval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fixed answers each query from a table.
func fixed(answers map[string][]string) RetrieverFunc {
	return func(_ context.Context, q Query, _ int) ([]string, error) { return answers[q.ID], nil }
}

func tinyDataset() *Dataset {
	return &Dataset{
		Name:    "tiny",
		Queries: []Query{{ID: "q1"}, {ID: "q2"}, {ID: "q3"}, {ID: "u1"}, {ID: "u2"}},
		Relevant: map[string]Relevance{
			"q1": rel("a"),
			"q2": rel("b", "c"),
			"q3": rel("z"),
		},
	}
}

func TestRun(t *testing.T) {
	r := fixed(map[string][]string{
		"q1": {"a", "x"},                                         // rank 1
		"q2": {"x", "y", "b", "w", "v", "c", "1", "2", "3", "4"}, // ranks 3 and 6
		"q3": {"x"},                                              // missed
		"u1": {},                                                 // unrelated, empty: pass
		"u2": {"x"},                                              // unrelated with a hit: fail
	})
	var calls []int
	got, err := Run(context.Background(), tinyDataset(), r, RunOptions{K: 10, Progress: func(done, total int) error {
		calls = append(calls, done*10+total)
		return nil
	}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// q2: recall@5 1/2, nDCG@10 (1/log2(4) + 1/log2(7)) / (1 + 1/log2(3)) = (0.5 + 0.356207) / 1.630930.
	half := 0.5
	want := Metrics{
		Recall1:            1.0 / 3,
		Recall5:            (1 + 0.5) / 3,
		Recall10:           (1 + 1) / 3.0,
		NDCG10:             (1 + 0.856207/1.630930) / 3,
		MRR10:              (1 + 1.0/3) / 3,
		Top3HitRate:        2.0 / 3,
		EmptyRateUnrelated: &half,
	}
	if diff := cmp.Diff(want, got.Metrics, cmpopts.EquateApprox(0, 1e-5)); diff != "" {
		t.Errorf("Run metrics mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{15, 25, 35, 45, 55}, calls); diff != "" {
		t.Errorf("progress calls (done*10+total) mismatch (-want +got):\n%s", diff)
	}
}

func TestRunTruncatesToK(t *testing.T) {
	ds := &Dataset{Queries: []Query{{ID: "q"}}, Relevant: map[string]Relevance{"q": rel("c")}}
	got, err := Run(context.Background(), ds, fixed(map[string][]string{"q": {"a", "b", "c"}}), RunOptions{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Metrics.Recall10 != 0 {
		t.Errorf("recall@10 with k 2 = %v, want 0: a retriever returning more than k must not gain", got.Metrics.Recall10)
	}
}

func TestRunNoUnrelatedIsNull(t *testing.T) {
	ds := &Dataset{Queries: []Query{{ID: "q"}}, Relevant: map[string]Relevance{"q": rel("a")}}
	arm, err := Run(context.Background(), ds, fixed(map[string][]string{"q": {"a"}}), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(arm)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"empty_rate_unrelated":null`) {
		t.Errorf("arm JSON = %s, want empty_rate_unrelated null when there are no unrelated queries", b)
	}
}

func TestRunStops(t *testing.T) {
	stop := errors.New("stop")
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		ctx     func() context.Context
		r       Retriever
		opts    RunOptions
		wantErr error
		wantMsg string
	}{
		{"progress error", context.Background, fixed(nil), RunOptions{Progress: func(done, _ int) error {
			if done == 2 {
				return stop
			}
			return nil
		}}, stop, ""},
		{"retriever error names the query", context.Background, RetrieverFunc(func(context.Context, Query, int) ([]string, error) {
			return nil, boom
		}), RunOptions{}, boom, `query "q1"`},
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, fixed(nil), RunOptions{}, context.Canceled, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(tc.ctx(), tinyDataset(), tc.r, tc.opts)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Run error = %v, want %v containing %q", err, tc.wantErr, tc.wantMsg)
			}
		})
	}
}

func TestReportJSONKeys(t *testing.T) {
	zero := 0.0
	rep := Report{Dataset: "scifact", NQueries: 300, K: 10, Arm: Arm{Metrics: Metrics{EmptyRateUnrelated: &zero}},
		Baseline: &Arm{}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	keys := func(m any) []string {
		var out []string
		for k := range m.(map[string]any) {
			out = append(out, k)
		}
		return out
	}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	wantMetrics := []string{"recall@1", "recall@5", "recall@10", "ndcg@10", "mrr@10", "top3_hit_rate", "empty_rate_unrelated"}
	for _, arm := range []map[string]any{got, got["baseline"].(map[string]any)} {
		if diff := cmp.Diff(wantMetrics, keys(arm["metrics"]), sorted); diff != "" {
			t.Errorf("metrics keys mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"p50", "p95", "p99"}, keys(arm["latency_ms"]), sorted); diff != "" {
			t.Errorf("latency keys mismatch (-want +got):\n%s", diff)
		}
	}
	for _, k := range []string{"dataset", "n_queries", "metrics", "latency_ms", "baseline"} {
		if _, ok := got[k]; !ok {
			t.Errorf("report JSON %s lacks %q", b, k)
		}
	}
}

func TestRunBreakdownAndObserve(t *testing.T) {
	r := fixed(map[string][]string{
		"q1": {"a"},      // found
		"q2": {"b", "x"}, // half found
		"q3": {"x"},      // missed
		"u1": {},         // unrelated, empty
		"u2": {"x"},      // unrelated, answered
	})
	groups := map[string]string{"q1": "easy", "q2": "hard", "q3": "hard", "u1": "none"}
	var seen []QueryOutcome
	arm, err := Run(context.Background(), tinyDataset(), r, RunOptions{Groups: groups, Observe: func(o QueryOutcome) error {
		o.Millis = 0 // timing is not what is tested
		seen = append(seen, o)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := arm.Breakdown["easy"].Recall10; got != 1 {
		t.Errorf("breakdown easy recall@10 = %v, want 1", got)
	}
	if got := arm.Breakdown["hard"].Recall10; got != 0.25 {
		t.Errorf("breakdown hard recall@10 = %v, want 0.25 (q2 1/2, q3 0)", got)
	}
	if e := arm.Breakdown["none"].EmptyRateUnrelated; e == nil || *e != 1 {
		t.Errorf("breakdown none empty rate = %v, want 1", e)
	}
	if e := arm.Breakdown[""].EmptyRateUnrelated; e == nil || *e != 0 {
		t.Errorf("breakdown of ungrouped queries: empty rate = %v, want 0 (u2 answered)", e)
	}
	want := []QueryOutcome{
		{ID: "q1", Group: "easy", Relevant: []string{"a"}, Ranked: []string{"a"}, Recall10: 1, NDCG10: 1},
		{ID: "q2", Group: "hard", Relevant: []string{"b", "c"}, Ranked: []string{"b", "x"}, Recall10: 0.5, NDCG10: 1 / (1 + 1/1.584962500721156)},
		{ID: "q3", Group: "hard", Relevant: []string{"z"}, Ranked: []string{"x"}},
		{ID: "u1", Group: "none", Relevant: []string{}, Ranked: []string{}},
		{ID: "u2", Relevant: []string{}, Ranked: []string{"x"}},
	}
	if diff := cmp.Diff(want, seen, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("observed outcomes mismatch (-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	if _, err := Run(context.Background(), tinyDataset(), r, RunOptions{Observe: func(QueryOutcome) error { return stop }}); !errors.Is(err, stop) {
		t.Errorf("Run with a failing Observe = %v, want the observer's error", err)
	}
}
