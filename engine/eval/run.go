package eval

import (
	"context"
	"fmt"
	"time"
)

// Retriever answers one benchmark query with document ids, best first, at most k.
type Retriever interface {
	Retrieve(ctx context.Context, q Query, k int) ([]string, error)
}

// RetrieverFunc adapts a function to Retriever.
type RetrieverFunc func(ctx context.Context, q Query, k int) ([]string, error)

// Retrieve implements Retriever.
func (f RetrieverFunc) Retrieve(ctx context.Context, q Query, k int) ([]string, error) {
	return f(ctx, q, k)
}

// Progress is told how many of total items are done; returning an error stops the work,
// which then returns that error.
type Progress func(done, total int) error

// Metrics are the ranking figures of one arm. Ranking metrics are means over the queries
// that have a relevant document; EmptyRateUnrelated is over the others, and null when a set
// has none.
type Metrics struct {
	Recall1            float64  `json:"recall@1"`
	Recall5            float64  `json:"recall@5"`
	Recall10           float64  `json:"recall@10"`
	NDCG10             float64  `json:"ndcg@10"`
	MRR10              float64  `json:"mrr@10"`
	Top3HitRate        float64  `json:"top3_hit_rate"`
	EmptyRateUnrelated *float64 `json:"empty_rate_unrelated"`
}

// Arm is one retriever's result over a dataset.
type Arm struct {
	Metrics Metrics `json:"metrics"`
	Latency Latency `json:"latency_ms"`
}

// Report is the outcome of a benchmark run: the memdesk arm's figures at the top level and,
// when asked for, the plain BM25 baseline's beside them under the same keys.
type Report struct {
	Dataset    string `json:"dataset"`
	NQueries   int    `json:"n_queries"`
	NUnrelated int    `json:"n_unrelated"`
	K          int    `json:"k"`
	// As and Scope say how the corpus was loaded into memdesk.
	As    string `json:"as,omitempty"`
	Scope Scope  `json:"scope,omitempty"`
	// Legs are the retrieval legs memdesk ran with; VectorSpace is the embedding fingerprint
	// when the semantic leg was one of them.
	Legs        []string `json:"legs,omitempty"`
	VectorSpace string   `json:"vector_space,omitempty"`
	Arm
	Load     *LoadStats `json:"load,omitempty"`
	Baseline *Arm       `json:"baseline,omitempty"`
}

// LoadStats says how long putting the corpus into a retriever took.
type LoadStats struct {
	Docs int `json:"docs"`
	// Units is what the docs became: facts (identical texts share one) or knowledge chunks.
	Units   int     `json:"units"`
	Skipped int     `json:"skipped"` // documents with no text
	Seconds float64 `json:"seconds"`
}

// DocsPerSecond is the load rate.
func (l LoadStats) DocsPerSecond() float64 {
	if l.Seconds == 0 {
		return 0
	}
	return float64(l.Docs) / l.Seconds
}

// RunOptions configure Run.
type RunOptions struct {
	// K is how many documents each query asks for; the @10 metrics see at most K. Default 10.
	K        int
	Progress Progress
}

// Run asks r every query of ds, one at a time so latencies are not skewed by each other, and
// computes the arm's metrics.
func Run(ctx context.Context, ds *Dataset, r Retriever, opts RunOptions) (Arm, error) {
	k := opts.K
	if k <= 0 {
		k = 10
	}
	var (
		sum       Metrics
		top3      Top3
		empty     PassCount
		latencies = make([]time.Duration, 0, len(ds.Queries))
	)
	for i, q := range ds.Queries {
		if err := ctx.Err(); err != nil {
			return Arm{}, err
		}
		start := time.Now()
		ranked, err := r.Retrieve(ctx, q, k)
		latencies = append(latencies, time.Since(start))
		if err != nil {
			return Arm{}, fmt.Errorf("query %q: %w", q.ID, err)
		}
		if len(ranked) > k {
			ranked = ranked[:k]
		}
		rel := ds.Relevant[q.ID]
		if len(rel) == 0 {
			empty.Add(len(ranked) == 0)
		} else {
			sum.Recall1 += Recall(ranked, rel, 1)
			sum.Recall5 += Recall(ranked, rel, 5)
			sum.Recall10 += Recall(ranked, rel, 10)
			sum.NDCG10 += NDCG(ranked, rel, 10)
			sum.MRR10 += ReciprocalRank(ranked, rel, 10)
			top3.Add(RelevantInTop3(ranked, rel))
		}
		if opts.Progress != nil {
			if err := opts.Progress(i+1, len(ds.Queries)); err != nil {
				return Arm{}, err
			}
		}
	}
	m := Metrics{Top3HitRate: top3.HitRate()}
	if n := float64(top3.Queries); n > 0 {
		m.Recall1, m.Recall5, m.Recall10 = sum.Recall1/n, sum.Recall5/n, sum.Recall10/n
		m.NDCG10, m.MRR10 = sum.NDCG10/n, sum.MRR10/n
	}
	if empty.Checked > 0 {
		rate := empty.Rate()
		m.EmptyRateUnrelated = &rate
	}
	return Arm{Metrics: m, Latency: Percentiles(latencies)}, nil
}

// LimitQueries keeps the first n queries of ds (all when n <= 0), for quick runs.
func (d *Dataset) LimitQueries(n int) {
	if n > 0 && n < len(d.Queries) {
		d.Queries = d.Queries[:n]
	}
}

// CountUnrelated counts the queries without a relevant document.
func (d *Dataset) CountUnrelated() int {
	n := 0
	for _, q := range d.Queries {
		if !d.Related(q.ID) {
			n++
		}
	}
	return n
}
