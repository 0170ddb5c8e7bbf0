package eval

import (
	"context"
	"fmt"
	"path/filepath"
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

// Arm is one retriever's result over a dataset. Breakdown, when the run was given groups,
// holds the same metrics per group (a question type, a category), keyed by group value.
type Arm struct {
	Metrics   Metrics            `json:"metrics"`
	Latency   Latency            `json:"latency_ms"`
	Breakdown map[string]Metrics `json:"breakdown,omitempty"`
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
	// Groups maps a query id to its group (queries_meta.jsonl's question type, say); the arm
	// then reports its metrics per group too. Queries without a group are grouped as "".
	Groups map[string]string
	// Observe, when set, is told each query's outcome as soon as it is judged (a failure
	// analysis writes them out); returning an error stops the run.
	Observe func(QueryOutcome) error
}

// QueryOutcome is one query's answer and how it scored.
type QueryOutcome struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Group    string   `json:"group,omitempty"`
	Relevant []string `json:"relevant"`
	Ranked   []string `json:"ranked"`
	Recall10 float64  `json:"recall@10"`
	NDCG10   float64  `json:"ndcg@10"`
	Millis   float64  `json:"ms"`
}

// Run asks r every query of ds, one at a time so latencies are not skewed by each other, and
// computes the arm's metrics.
func Run(ctx context.Context, ds *Dataset, r Retriever, opts RunOptions) (Arm, error) {
	k := opts.K
	if k <= 0 {
		k = 10
	}
	all := newMetricsSum()
	groups := map[string]*metricsSum{}
	latencies := make([]time.Duration, 0, len(ds.Queries))
	for i, q := range ds.Queries {
		if err := ctx.Err(); err != nil {
			return Arm{}, err
		}
		start := time.Now()
		ranked, err := r.Retrieve(ctx, q, k)
		took := time.Since(start)
		latencies = append(latencies, took)
		if err != nil {
			return Arm{}, fmt.Errorf("query %q: %w", q.ID, err)
		}
		if len(ranked) > k {
			ranked = ranked[:k]
		}
		rel := ds.Relevant[q.ID]
		all.add(ranked, rel)
		if opts.Groups != nil {
			g := opts.Groups[q.ID]
			if groups[g] == nil {
				groups[g] = newMetricsSum()
			}
			groups[g].add(ranked, rel)
		}
		if opts.Observe != nil {
			out := QueryOutcome{ID: q.ID, Text: q.Text, Group: opts.Groups[q.ID], Ranked: ranked,
				Relevant: rel.sorted(), Millis: float64(took.Microseconds()) / 1000}
			if len(rel) > 0 {
				out.Recall10, out.NDCG10 = Recall(ranked, rel, 10), NDCG(ranked, rel, 10)
			}
			if err := opts.Observe(out); err != nil {
				return Arm{}, err
			}
		}
		if opts.Progress != nil {
			if err := opts.Progress(i+1, len(ds.Queries)); err != nil {
				return Arm{}, err
			}
		}
	}
	arm := Arm{Metrics: all.metrics(), Latency: Percentiles(latencies)}
	if opts.Groups != nil {
		arm.Breakdown = make(map[string]Metrics, len(groups))
		for g, sum := range groups {
			arm.Breakdown[g] = sum.metrics()
		}
	}
	return arm, nil
}

// metricsSum accumulates the ranking metrics of some queries.
type metricsSum struct {
	sum   Metrics
	top3  Top3
	empty PassCount
}

func newMetricsSum() *metricsSum { return &metricsSum{} }

func (m *metricsSum) add(ranked []string, rel Relevance) {
	if len(rel) == 0 {
		m.empty.Add(len(ranked) == 0)
		return
	}
	m.sum.Recall1 += Recall(ranked, rel, 1)
	m.sum.Recall5 += Recall(ranked, rel, 5)
	m.sum.Recall10 += Recall(ranked, rel, 10)
	m.sum.NDCG10 += NDCG(ranked, rel, 10)
	m.sum.MRR10 += ReciprocalRank(ranked, rel, 10)
	m.top3.Add(RelevantInTop3(ranked, rel))
}

// metrics are the means: ranking metrics over the queries with a relevant document, the
// empty rate over the others (null when there were none).
func (m *metricsSum) metrics() Metrics {
	out := Metrics{Top3HitRate: m.top3.HitRate()}
	if n := float64(m.top3.Queries); n > 0 {
		out.Recall1, out.Recall5, out.Recall10 = m.sum.Recall1/n, m.sum.Recall5/n, m.sum.Recall10/n
		out.NDCG10, out.MRR10 = m.sum.NDCG10/n, m.sum.MRR10/n
	}
	if m.empty.Checked > 0 {
		rate := m.empty.Rate()
		out.EmptyRateUnrelated = &rate
	}
	return out
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

// AddUnrelated appends queries from another benchmark as unrelated queries (no document is
// relevant to them): the check that a store says nothing to questions it holds no answer to.
// Under ScopePrefix each is asked in one of the dataset's spaces, taking them in turn, so a
// per-user store is asked other people's questions; their ids become "<space>/unrelated:<id>".
func (d *Dataset) AddUnrelated(queries []Query, scope Scope) {
	var spaces []string
	if scope == ScopePrefix {
		seen := map[string]bool{}
		for _, doc := range d.Docs {
			if sp := scope.SpaceOf(doc.ID); !seen[sp] {
				seen[sp] = true
				spaces = append(spaces, sp)
			}
		}
	}
	for i, q := range queries {
		id := "unrelated:" + q.ID
		if len(spaces) > 0 {
			id = spaces[i%len(spaces)] + "/" + id
		}
		d.Queries = append(d.Queries, Query{ID: id, Text: q.Text})
	}
}

// LoadQueries reads a benchmark directory's queries.jsonl alone.
func LoadQueries(dir string) ([]Query, error) {
	var out []Query
	err := readJSONL(filepath.Join(dir, QueriesFile), func(line []byte) error {
		q, err := ParseQueryLine(line)
		if err != nil {
			return err
		}
		out = append(out, q)
		return nil
	})
	return out, err
}
