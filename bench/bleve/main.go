// Command bleve times memdesk's recall beside bleve's search on the corpus and query mix of
// `memdesk bench`, in one process, query by query, for issue 26: at 100k facts, recall p50 at
// most 2 ms and p95 at most 2x bleve's in the same run. With --beir it measures bleve's
// recall@k and nDCG@k on a BEIR-style set instead (quality.go).
//
// It is a module of its own so that bleve never enters memdesk's go.mod or binary.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/synth"
	"github.com/memdesk/memdesk/internal/synthbench"
)

// memdeskGCPercent is cmd/memdesk's gcPercent, which it sets unless GOGC is in the
// environment; both arms run under it here, as they share the process. cmd/memdesk is a
// main package, so the constant cannot be imported: keep the two equal.
const memdeskGCPercent = 25

// Issue 26's bound at 100k facts.
const (
	targetP50MS      = 2.0
	targetP95OfBleve = 2.0
)

// bleveBatch is how many texts go into one bleve batch while indexing.
const bleveBatch = 2000

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/bleve:", err)
		os.Exit(1)
	}
}

// report is one run's figures; its JSON is what --json prints.
type report struct {
	Facts     int    `json:"facts"`
	Documents int    `json:"documents"`
	Chunks    int    `json:"chunks"`
	Seed      uint64 `json:"seed"`
	K         int    `json:"k"`
	CPUs      int    `json:"cpus"`
	// GOGC is the collector's target both arms ran under.
	GOGC string `json:"gogc"`
	// LoadBefore and LoadAfter are the load averages around the timed part: latency
	// measured on a busy machine should say so.
	LoadBefore string `json:"load_before"`
	LoadAfter  string `json:"load_after"`
	// Queries is how many timed queries each arm answered (the mix, repeated).
	Queries   int          `json:"queries"`
	MemdeskMS eval.Latency `json:"memdesk_ms"`
	BleveMS   eval.Latency `json:"bleve_ms"`
	// RatioP95 is MemdeskMS.P95 over BleveMS.P95.
	RatioP95 float64 `json:"ratio_p95"`
	// Met is issue 26's bound: memdesk p50 <= 2 ms and p95 <= 2x bleve's.
	Met      bool          `json:"met"`
	PerQuery []queryMedian `json:"per_query"`
}

// queryMedian is one query's median time per arm, over its timed repetitions.
type queryMedian struct {
	Query     string  `json:"query"`
	MemdeskMS float64 `json:"memdesk_ms"`
	BleveMS   float64 `json:"bleve_ms"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("bench/bleve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	facts := fs.Int("facts", 100000, "facts in the corpus (documents follow, as in memdesk bench)")
	queries := fs.Int("queries", 200, "timed queries per arm, at least (the mix is repeated)")
	seed := fs.Uint64("seed", 1, "corpus generator seed")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	var q qualityOptions
	fs.StringVar(&q.dir, "beir", "", "measure bleve's recall@k and nDCG@k on the BEIR-style set in this directory instead")
	scope := fs.String("scope", "none", "with --beir: none, or prefix (each query ranks only the docs of its id's space)")
	fs.StringVar(&q.scoring, "scoring", "bm25", "with --beir: bm25 or tfidf (bleve's default)")
	fs.StringVar(&q.analyzer, "analyzer", "cjk", "with --beir: cjk or en")
	fs.IntVar(&q.k, "k", 10, "with --beir: the depth of recall and nDCG")
	fs.StringVar(&q.perQuery, "per-query", "", "with --beir: write each query's ranking and recall to this file (JSON lines)")
	fs.BoolVar(&q.merge, "merge", true, "with --beir: merge the index into one segment before the queries (bleve's BM25 depends on the segments)")
	// On a bad command line the usage is printed here and main exits 2 on flag.ErrHelp.
	if err := fs.Parse(args); err != nil {
		return flag.ErrHelp // flag has said what was wrong
	}
	if fs.NArg() > 0 || *facts <= 0 || *queries <= 0 {
		fmt.Fprintln(stderr, "want positive --facts and --queries, and no arguments")
		fs.Usage()
		return flag.ErrHelp
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if q.dir != "" {
		q.scope = eval.Scope(*scope)
		return runQuality(ctx, log, q, stdout)
	}

	gogc := os.Getenv("GOGC")
	if gogc == "" {
		debug.SetGCPercent(memdeskGCPercent)
		gogc = strconv.Itoa(memdeskGCPercent)
	}

	dir, err := os.MkdirTemp("", "memdesk-bleve-bench-")
	if err != nil {
		return fmt.Errorf("create scratch directory: %w", err)
	}
	// Deferred closes run last in, first out: the index and the engine close before the
	// scratch directory goes.
	defer closeInto(&err, func() error { return os.RemoveAll(dir) })

	e, err := openMemdesk(ctx, log, dir, *seed, *facts)
	if err != nil {
		return err
	}
	defer closeInto(&err, e.engine.Close)

	idx, err := newBleveIndex(ctx, log, filepath.Join(dir, "bleve"), slices.Concat(e.facts, e.chunks))
	if err != nil {
		return err
	}
	defer closeInto(&err, idx.Close)

	r := report{Facts: *facts, Documents: e.documents, Chunks: len(e.chunks), Seed: *seed, K: synthbench.K,
		CPUs: runtime.NumCPU(), GOGC: gogc, LoadBefore: synthbench.LoadAverage()}
	arms := []*synthbench.Arm{
		{Name: "memdesk", Answer: func(ctx context.Context, q string) error {
			_, err := e.engine.Recall(ctx, engine.RecallRequest{Query: q, K: synthbench.K})
			return err
		}},
		{Name: "bleve", Answer: func(ctx context.Context, q string) error {
			_, err := idx.SearchInContext(ctx, bleveRequest(q))
			return err
		}},
	}
	mix := synth.Queries()
	log.Info("timing", "queries per arm", (*queries+len(mix)-1)/len(mix)*len(mix))
	if err := synthbench.TimeArms(ctx, arms, mix, *queries, nil); err != nil {
		return err
	}
	r.LoadAfter = synthbench.LoadAverage()

	md, bl := arms[0].Samples, arms[1].Samples
	r.Queries = len(md)
	r.MemdeskMS, r.BleveMS = eval.Percentiles(md), eval.Percentiles(bl)
	if r.BleveMS.P95 > 0 {
		r.RatioP95 = r.MemdeskMS.P95 / r.BleveMS.P95
	}
	r.Met = r.MemdeskMS.P50 <= targetP50MS && r.MemdeskMS.P95 <= targetP95OfBleve*r.BleveMS.P95
	for qi, q := range mix {
		r.PerQuery = append(r.PerQuery, queryMedian{Query: q,
			MemdeskMS: eval.Percentiles(ofQuery(md, qi, len(mix))).P50,
			BleveMS:   eval.Percentiles(ofQuery(bl, qi, len(mix))).P50})
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printReport(stdout, r, len(mix))
	return nil
}

// memdeskStore is the engine with the synthetic corpus in, and the texts it holds.
type memdeskStore struct {
	engine        *engine.Engine
	facts, chunks []string
	documents     int
}

// openMemdesk builds the store as `memdesk bench` does: a new database, the entity
// extractor loaded first, the facts through RememberBatch, then the documents imported as
// knowledge (which compacts the search indexes after so large a write).
func openMemdesk(ctx context.Context, log *slog.Logger, dir string, seed uint64, n int) (s *memdeskStore, err error) {
	e, err := engine.Open(ctx, filepath.Join(dir, "bench.db"), engine.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	if err := e.LoadEntities(ctx); err != nil {
		return nil, err
	}
	facts, docs := synthbench.Corpus(seed, n)
	start := time.Now()
	if err := synthbench.RememberFacts(ctx, e, facts, nil); err != nil {
		return nil, err
	}
	chunks, _, err := synthbench.ImportDocuments(ctx, e, filepath.Join(dir, "docs"), docs)
	if err != nil {
		return nil, err
	}
	log.Info("memdesk loaded", "facts", n, "documents", len(docs), "chunks", len(chunks),
		"took", time.Since(start).Round(time.Millisecond))
	return &memdeskStore{engine: e, facts: facts, chunks: chunks, documents: len(docs)}, nil
}

// newBleveIndex indexes texts in a new scorch index at path, one field analyzed by bleve's
// cjk analyzer (Unicode words, CJK as character bigrams) and scored by BM25, and merges it
// into one segment: its best layout for reading, as memdesk's indexes are compacted after
// the import, and no merging left in the background to run during the timing.
func newBleveIndex(ctx context.Context, log *slog.Logger, path string, texts []string) (bleve.Index, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = cjk.AnalyzerName
	field := bleve.NewTextFieldMapping()
	field.Analyzer = cjk.AnalyzerName
	field.Store = false
	field.IncludeInAll = false
	field.IncludeTermVectors = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("text", field)
	im.DefaultMapping = dm

	idx, err := bleve.New(path, im)
	if err != nil {
		return nil, fmt.Errorf("create bleve index: %w", err)
	}
	start := time.Now()
	if err := fillBleve(ctx, idx, texts); err != nil {
		idx.Close()
		return nil, err
	}
	log.Info("bleve indexed", "texts", len(texts), "took", time.Since(start).Round(time.Millisecond))
	return idx, nil
}

func fillBleve(ctx context.Context, idx bleve.Index, texts []string) error {
	type doc struct {
		Text string `json:"text"`
	}
	for from := 0; from < len(texts); from += bleveBatch {
		b := idx.NewBatch()
		for i, t := range texts[from:min(from+bleveBatch, len(texts))] {
			if err := b.Index(strconv.Itoa(from+i), doc{Text: t}); err != nil {
				return fmt.Errorf("bleve index text %d: %w", from+i, err)
			}
		}
		if err := idx.Batch(b); err != nil {
			return fmt.Errorf("bleve index: %w", err)
		}
	}
	s, err := scorchOf(idx)
	if err != nil {
		return err
	}
	return mergeToOneSegment(ctx, s)
}

// scorchOf is the scorch index under idx: its segments are what a merge and the stats read.
func scorchOf(idx bleve.Index) (*scorch.Scorch, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("bleve index: %w", err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, fmt.Errorf("bleve index is %T, want scorch", adv)
	}
	return s, nil
}

// mergeToOneSegment waits for the persister to write every segment to disk (a force merge
// takes only those), then force-merges until one is left: each pass merges at most ten
// segments into one (14 became 2, then 1, at 100k facts).
func mergeToOneSegment(ctx context.Context, s *scorch.Scorch) error {
	stat := func(name string) uint64 {
		n, _ := s.StatsMap()[name].(uint64)
		return n
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for stat("TotMemorySegmentsAtRoot") > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("bleve index: wait for the persister: %w", ctx.Err())
		case <-tick.C:
		}
	}
	const maxPasses = 10
	for range maxPasses {
		if stat("TotFileSegmentsAtRoot") <= 1 {
			return nil
		}
		if err := s.ForceMerge(ctx, nil); err != nil {
			return fmt.Errorf("bleve index: merge: %w", err)
		}
	}
	return fmt.Errorf("bleve index: %d segments left after %d force merges, want 1",
		stat("TotFileSegmentsAtRoot"), maxPasses)
}

// bleveRequest is q as a match query (an OR of its cjk-analyzed terms) for the top K, ids
// and scores only: no stored text is loaded, where memdesk's recall returns its hits' texts.
func bleveRequest(q string) *bleve.SearchRequest {
	mq := bleve.NewMatchQuery(q)
	mq.SetField("text")
	mq.Analyzer = cjk.AnalyzerName
	return bleve.NewSearchRequestOptions(mq, synthbench.K, 0, false)
}

// ofQuery is the samples of the mix's query qi: TimeArms records sample i for query i%n.
func ofQuery(samples []time.Duration, qi, n int) []time.Duration {
	var out []time.Duration
	for i := qi; i < len(samples); i += n {
		out = append(out, samples[i])
	}
	return out
}

func printReport(w io.Writer, r report, mixLen int) {
	fmt.Fprintf(w, "memdesk vs bleve 2.6.3: %d facts, %d documents (%d chunks), seed %d, k %d, %d CPUs, GOGC %s\n",
		r.Facts, r.Documents, r.Chunks, r.Seed, r.K, r.CPUs, r.GOGC)
	if r.LoadBefore != "" {
		fmt.Fprintf(w, "load average %s before the timing, %s after\n", r.LoadBefore, r.LoadAfter)
	}
	fmt.Fprintf(w, "%d timed queries per arm (%d-query mix repeated), arms interleaved; times in ms\n\n", r.Queries, mixLen)

	// Figures align right; names are padded to one width first so they read left-aligned.
	const nameWidth = 16
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	// The query goes last: a terminal shows a CJK character two columns wide, which
	// tabwriter cannot know, so nothing is aligned after it.
	fmt.Fprintf(tw, "%-*s\tmemdesk\tbleve\t\n", nameWidth, "median per query")
	for _, q := range r.PerQuery {
		fmt.Fprintf(tw, "%-*s\t%.2f\t%.2f\t  %s\n", nameWidth, "", q.MemdeskMS, q.BleveMS, strconv.Quote(q.Query))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(tw, "%-*s\tp50\tp95\tp99\t\n", nameWidth, "all queries")
	for _, a := range []struct {
		name string
		l    eval.Latency
	}{{"memdesk", r.MemdeskMS}, {"bleve", r.BleveMS}} {
		fmt.Fprintf(tw, "%-*s\t%.2f\t%.2f\t%.2f\t\n", nameWidth, a.name, a.l.P50, a.l.P95, a.l.P99)
	}
	tw.Flush()

	verdict := "not met"
	if r.Met {
		verdict = "met"
	}
	fmt.Fprintf(w, "\np95 memdesk / bleve: %.2fx\n", r.RatioP95)
	fmt.Fprintf(w, "issue 26 (p50 <= %.0f ms, p95 <= %.0fx bleve's): %s (p50 %.2f; p95 %.2f against %.2f)\n",
		targetP50MS, targetP95OfBleve, verdict, r.MemdeskMS.P50, r.MemdeskMS.P95, targetP95OfBleve*r.BleveMS.P95)
}

// closeInto runs release and keeps its error in *err unless an earlier one is there.
func closeInto(err *error, release func() error) {
	if cerr := release(); *err == nil {
		*err = cerr
	}
}
