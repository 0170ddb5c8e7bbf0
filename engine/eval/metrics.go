// Package eval owns how memdesk measures retrieval: the metrics, the loader for public
// benchmark sets (BEIR-style corpus/queries/qrels JSONL), the runner that turns a retriever's
// answers into a report, an in-memory BM25 baseline computed by the same harness, and the
// case files of hand-written queries with must-include and must-exclude expectations.
//
// It is pure: it never opens a database and does not import the engine, so every metric is a
// table test away and the engine may itself depend on it. Package enginearm runs the same
// harness against a real engine.
package eval

import (
	"math"
	"slices"
	"time"
)

// Relevance is the set of relevant document ids of one query (binary relevance).
type Relevance map[string]bool

// judged walks ranked down to depth k, calling visit with each position whose id is relevant
// and seen for the first time there. A repeated id counts once, at its first position, so a
// retriever that returns one document twice cannot inflate a score.
func judged(ranked []string, rel Relevance, k int, visit func(pos int)) {
	if k > len(ranked) {
		k = len(ranked)
	}
	seen := make(map[string]bool, k)
	for i := 0; i < k; i++ {
		id := ranked[i]
		if seen[id] {
			continue
		}
		seen[id] = true
		if rel[id] {
			visit(i)
		}
	}
}

// gain is the discount of a relevant document at 0-based position pos.
func gain(pos int) float64 { return 1 / math.Log2(float64(pos)+2) }

// DCG is the discounted cumulative gain of ranked at depth k: the sum of 1/log2(rank+1)
// over the relevant documents among the first k (rank 1-based).
func DCG(ranked []string, rel Relevance, k int) float64 {
	var dcg float64
	judged(ranked, rel, k, func(pos int) { dcg += gain(pos) })
	return dcg
}

// IdealDCG is the DCG of a perfect ranking at depth k: every relevant document first.
func IdealDCG(relevant, k int) float64 {
	var dcg float64
	for pos := 0; pos < min(relevant, k); pos++ {
		dcg += gain(pos)
	}
	return dcg
}

// NDCG is DCG divided by the ideal DCG at depth k. It is 0, never NaN, when nothing is
// relevant or k is 0.
func NDCG(ranked []string, rel Relevance, k int) float64 {
	ideal := IdealDCG(len(rel), k)
	if ideal == 0 {
		return 0
	}
	return DCG(ranked, rel, k) / ideal
}

// Recall is the share of the relevant documents found among the first k; 0 when nothing
// is relevant.
func Recall(ranked []string, rel Relevance, k int) float64 {
	if len(rel) == 0 {
		return 0
	}
	found := 0
	judged(ranked, rel, k, func(int) { found++ })
	return float64(found) / float64(len(rel))
}

// ReciprocalRank is 1/rank of the first relevant document among the first k, 0 if none.
// Its mean over queries is MRR@k.
func ReciprocalRank(ranked []string, rel Relevance, k int) float64 {
	first := -1
	judged(ranked, rel, k, func(pos int) {
		if first < 0 {
			first = pos
		}
	})
	if first < 0 {
		return 0
	}
	return 1 / float64(first+1)
}

// RelevantInTop3 counts the relevant documents among the first three.
func RelevantInTop3(ranked []string, rel Relevance) int {
	n := 0
	judged(ranked, rel, 3, func(int) { n++ })
	return n
}

// Top3 sums relevant-in-top-3 over queries.
type Top3 struct {
	Queries  int // queries added
	Relevant int // relevant documents in their top 3, summed
	Hits     int // queries with at least one relevant document in their top 3
}

// Add records one query's relevant-in-top-3 count.
func (t *Top3) Add(count int) {
	t.Queries++
	t.Relevant += count
	if count > 0 {
		t.Hits++
	}
}

// Mean is the average number of relevant documents in a query's top 3.
func (t Top3) Mean() float64 { return ratio(t.Relevant, t.Queries) }

// HitRate is the share of queries with a relevant document in their top 3.
func (t Top3) HitRate() float64 { return ratio(t.Hits, t.Queries) }

// PassCount tallies a yes/no check over queries: must-include, must-exclude, or "an
// unrelated query came back empty".
type PassCount struct {
	Checked int
	Passed  int
}

// Add records one check.
func (p *PassCount) Add(passed bool) {
	p.Checked++
	if passed {
		p.Passed++
	}
}

// Rate is the share that passed; 0 when nothing was checked.
func (p PassCount) Rate() float64 { return ratio(p.Passed, p.Checked) }

// IncludesAll reports whether every id of must is among the first k of ranked.
func IncludesAll[T comparable](ranked []T, must []T, k int) bool {
	top := ranked[:min(k, len(ranked))]
	for _, m := range must {
		if !slices.Contains(top, m) {
			return false
		}
	}
	return true
}

// ExcludesAll reports whether no id of mustNot is among the first k of ranked.
func ExcludesAll[T comparable](ranked []T, mustNot []T, k int) bool {
	top := ranked[:min(k, len(ranked))]
	for _, m := range mustNot {
		if slices.Contains(top, m) {
			return false
		}
	}
	return true
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// Latency holds per-query latency percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// Percentiles computes p50, p95 and p99 of samples by the nearest-rank method (the smallest
// sample with at least p% of the samples at or below it). No samples give zeros.
func Percentiles(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	at := func(p float64) float64 {
		rank := int(math.Ceil(p / 100 * float64(len(sorted))))
		rank = max(1, min(rank, len(sorted)))
		return float64(sorted[rank-1]) / float64(time.Millisecond)
	}
	return Latency{P50: at(50), P95: at(95), P99: at(99)}
}

// sorted returns the relevant ids in order, for reports.
func (r Relevance) sorted() []string {
	out := make([]string, 0, len(r))
	for id := range r {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
