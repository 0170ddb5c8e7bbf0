package eval

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func rel(ids ...string) Relevance {
	r := Relevance{}
	for _, id := range ids {
		r[id] = true
	}
	return r
}

// Discounts by hand: 1/log2(2) = 1, 1/log2(3) = 0.630930, 1/log2(4) = 0.5, 1/log2(5) = 0.430677.
var metricCases = []struct {
	name    string
	ranked  []string
	rel     Relevance
	k       int
	dcg     float64
	ndcg    float64
	recall  float64
	rr      float64
	inTop3  int
	comment string
}{
	{name: "two relevant at ranks 2 and 4", ranked: []string{"a", "b", "c", "d"}, rel: rel("b", "d"), k: 4,
		dcg: 0.630930 + 0.430677, ndcg: (0.630930 + 0.430677) / (1 + 0.630930), recall: 1, rr: 0.5, inTop3: 1},
	{name: "depth cuts the second", ranked: []string{"a", "b", "c", "d"}, rel: rel("b", "d"), k: 2,
		dcg: 0.630930, ndcg: 0.630930 / (1 + 0.630930), recall: 0.5, rr: 0.5, inTop3: 1},
	{name: "perfect ranking", ranked: []string{"x", "y", "z"}, rel: rel("x", "y"), k: 10,
		dcg: 1.630930, ndcg: 1, recall: 1, rr: 1, inTop3: 2},
	{name: "a relevant doc never retrieved lowers recall", ranked: []string{"a", "b"}, rel: rel("a", "q", "r"), k: 10,
		dcg: 1, ndcg: 1 / (1 + 0.630930 + 0.5), recall: 1.0 / 3, rr: 1, inTop3: 1},
	{name: "nothing relevant is 0, not NaN", ranked: []string{"a", "b"}, rel: Relevance{}, k: 10},
	{name: "nil relevance", ranked: []string{"a"}, rel: nil, k: 10},
	{name: "empty ranking", ranked: nil, rel: rel("a"), k: 10},
	{name: "depth 0", ranked: []string{"a"}, rel: rel("a"), k: 0, inTop3: 1},
	{name: "repeated id counts once", ranked: []string{"b", "b", "d"}, rel: rel("b", "d"), k: 3,
		dcg: 1 + 0.5, ndcg: 1.5 / 1.630930, recall: 1, rr: 1, inTop3: 2},
	{name: "first relevant at rank 3", ranked: []string{"a", "b", "c", "d"}, rel: rel("c", "d"), k: 10,
		dcg: 0.5 + 0.430677, ndcg: 0.930677 / 1.630930, recall: 1, rr: 1.0 / 3, inTop3: 1},
	{name: "beyond the top 3", ranked: []string{"a", "b", "c", "d"}, rel: rel("d"), k: 10,
		dcg: 0.430677, ndcg: 0.430677, recall: 1, rr: 0.25, inTop3: 0},
}

func approx(got, want float64) bool { return math.Abs(got-want) < 1e-5 }

func TestMetrics(t *testing.T) {
	for _, tc := range metricCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []struct {
				name      string
				got, want float64
			}{
				{"DCG", DCG(tc.ranked, tc.rel, tc.k), tc.dcg},
				{"NDCG", NDCG(tc.ranked, tc.rel, tc.k), tc.ndcg},
				{"Recall", Recall(tc.ranked, tc.rel, tc.k), tc.recall},
				{"ReciprocalRank", ReciprocalRank(tc.ranked, tc.rel, tc.k), tc.rr},
			} {
				if math.IsNaN(m.got) || !approx(m.got, m.want) {
					t.Errorf("%s(%q, %v, %d) = %.6f, want %.6f", m.name, tc.ranked, tc.rel, tc.k, m.got, m.want)
				}
			}
			if got := RelevantInTop3(tc.ranked, tc.rel); got != tc.inTop3 {
				t.Errorf("RelevantInTop3(%q, %v) = %d, want %d", tc.ranked, tc.rel, got, tc.inTop3)
			}
		})
	}
}

func TestIdealDCG(t *testing.T) {
	for _, tc := range []struct {
		relevant, k int
		want        float64
	}{
		{0, 10, 0},
		{1, 10, 1},
		{3, 2, 1.630930},
		{2, 0, 0},
	} {
		if got := IdealDCG(tc.relevant, tc.k); !approx(got, tc.want) {
			t.Errorf("IdealDCG(%d, %d) = %.6f, want %.6f", tc.relevant, tc.k, got, tc.want)
		}
	}
}

func TestTop3(t *testing.T) {
	var top Top3
	for _, n := range []int{2, 0, 1} {
		top.Add(n)
	}
	if got, want := top.Mean(), 1.0; got != want {
		t.Errorf("Mean() = %v, want %v", got, want)
	}
	if got, want := top.HitRate(), 2.0/3; !approx(got, want) {
		t.Errorf("HitRate() = %v, want %v", got, want)
	}
	var none Top3
	if none.Mean() != 0 || none.HitRate() != 0 {
		t.Errorf("zero Top3: Mean() = %v, HitRate() = %v, want 0, 0", none.Mean(), none.HitRate())
	}
}

func TestPassCount(t *testing.T) {
	var p PassCount
	if got := p.Rate(); got != 0 {
		t.Errorf("zero PassCount.Rate() = %v, want 0", got)
	}
	for _, ok := range []bool{true, false, true, true} {
		p.Add(ok)
	}
	if got, want := p, (PassCount{Checked: 4, Passed: 3}); got != want {
		t.Errorf("PassCount = %+v, want %+v", got, want)
	}
	if got, want := p.Rate(), 0.75; got != want {
		t.Errorf("Rate() = %v, want %v", got, want)
	}
}

func TestIncludesExcludes(t *testing.T) {
	ranked := []int{4, 1, 7}
	for _, tc := range []struct {
		name     string
		must     []int
		k        int
		includes bool
		excludes bool
	}{
		{"all in the top k", []int{4, 7}, 3, true, false},
		{"one below k", []int{4, 7}, 2, false, false},
		{"none present", []int{9}, 3, false, true},
		{"present but below k", []int{7}, 2, false, true},
		{"nothing asked", nil, 3, true, true},
		{"k beyond the ranking", []int{1}, 10, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IncludesAll(ranked, tc.must, tc.k); got != tc.includes {
				t.Errorf("IncludesAll(%v, %v, %d) = %v, want %v", ranked, tc.must, tc.k, got, tc.includes)
			}
			if got := ExcludesAll(ranked, tc.must, tc.k); got != tc.excludes {
				t.Errorf("ExcludesAll(%v, %v, %d) = %v, want %v", ranked, tc.must, tc.k, got, tc.excludes)
			}
		})
	}
}

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, n := range v {
		out[i] = time.Duration(n) * time.Millisecond
	}
	return out
}

func TestPercentiles(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // unsorted on purpose
	}
	for _, tc := range []struct {
		name    string
		samples []time.Duration
		want    Latency
	}{
		{"none", nil, Latency{}},
		{"one", ms(7), Latency{P50: 7, P95: 7, P99: 7}},
		{"three", ms(30, 10, 20), Latency{P50: 20, P95: 30, P99: 30}},
		{"1 to 100", ms(hundred...), Latency{P50: 50, P95: 95, P99: 99}},
		{"sub-millisecond", []time.Duration{250 * time.Microsecond}, Latency{P50: 0.25, P95: 0.25, P99: 0.25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Percentiles(tc.samples)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Percentiles(%v) mismatch (-want +got):\n%s", tc.samples, diff)
			}
		})
	}
}
