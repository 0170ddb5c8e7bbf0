package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/eval/enginearm"
)

const evalUsage = `eval --beir DIR [--scope none|prefix] [--as memory|knowledge] [--legs fts,entity,semantic] [--meaning-only] [-k 10]
     [--baseline] [--limit-queries N] [--breakdown FIELD] [--per-query FILE] [--json] [--out FILE]
eval --cases FILE [--json] [--out FILE]`

// eval measures retrieval in a scratch database, never the user's: a public benchmark
// (--beir) or a file of hand-written cases (--cases), with the regression cases derived from
// them (collision, time word, irrelevant).
func (c *cli) eval(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	beirDir := fs.String("beir", "", "benchmark directory with corpus.jsonl, queries.jsonl and qrels.jsonl")
	casesFile := fs.String("cases", "", "case file (JSON)")
	scope := fs.String("scope", string(eval.ScopeNone), "none or prefix (each id's part before the first / is its own space)")
	as := fs.String("as", string(enginearm.AsMemory), "load the corpus as memory (one fact per document) or knowledge")
	k := fs.Int("k", 10, "hits asked per query")
	baseline := fs.Bool("baseline", false, "also run plain BM25 over the same corpus")
	limit := fs.Int("limit-queries", 0, "only the first N queries (0: all)")
	out := fs.String("out", "", "also write the JSON report to this file")
	meaningOnly := fs.Bool("meaning-only", false, "rank by the semantic leg alone (the model's nearest texts, no floor): the model's own figure")
	legs := fs.String("legs", "fts,entity", "retrieval legs to use: fts (always on), entity, semantic (needs Ollama)")
	breakdown := fs.String("breakdown", "", "also report the metrics per value of this queries_meta.jsonl field")
	perQuery := fs.String("per-query", "", "write every query's ranked hits, scores and why to this JSONL file")
	unrelated := fs.String("unrelated-from", "", "also ask the queries of this benchmark directory, as unrelated (no answer expected)")
	unrelatedLimit := fs.Int("unrelated-limit", 0, "ask at most this many of --unrelated-from's queries (0: all)")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("eval: unexpected argument %q\nusage: %s", pos[0], evalUsage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case (*beirDir == "") == (*casesFile == ""):
		return usagef("eval: give either --beir DIR or --cases FILE\nusage: %s", evalUsage)
	case *casesFile != "":
		for _, name := range []string{"scope", "as", "k", "baseline", "limit-queries", "legs", "breakdown", "per-query", "unrelated-from", "unrelated-limit", "meaning-only"} {
			if set[name] {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				return usagef("eval: %s%s applies to --beir only (each case sets its own k)", dash, name)
			}
		}
		return c.evalCases(ctx, *casesFile, *out)
	}
	entities, semantic, err := parseLegs(*legs)
	if err != nil {
		return err
	}
	if *meaningOnly {
		semantic = true
	}
	opts := beirRun{dir: *beirDir, scope: eval.Scope(*scope), as: enginearm.As(*as), k: *k,
		baseline: *baseline, limit: *limit, out: *out, entities: entities, semantic: semantic,
		breakdown: *breakdown, perQuery: *perQuery, unrelated: *unrelated, unrelatedLimit: *unrelatedLimit,
		meaningOnly: *meaningOnly}
	switch {
	case opts.scope != eval.ScopeNone && opts.scope != eval.ScopePrefix:
		return usagef("eval: --scope %q: want none or prefix", *scope)
	case opts.as != enginearm.AsMemory && opts.as != enginearm.AsKnowledge:
		return usagef("eval: --as %q: want memory or knowledge", *as)
	case opts.k <= 0:
		return usagef("eval: -k must be positive")
	case opts.limit < 0:
		return usagef("eval: --limit-queries must be 0 (all) or positive")
	}
	return c.evalBEIR(ctx, opts)
}

// parseLegs reads --legs. The lexical leg is the engine's base and cannot be left out.
func parseLegs(list string) (entities, semantic bool, err error) {
	fts := false
	for _, leg := range strings.Split(list, ",") {
		switch strings.TrimSpace(leg) {
		case "fts", "lexical":
			fts = true
		case "entity":
			entities = true
		case "semantic":
			semantic = true
		default:
			return false, false, usagef("eval: --legs: unknown leg %q (want fts, entity, semantic)", leg)
		}
	}
	if !fts {
		return false, false, usagef("eval: --legs must include fts: the lexical leg is always on")
	}
	return entities, semantic, nil
}

type beirRun struct {
	entities bool
	semantic bool
	dir      string
	scope    eval.Scope
	as       enginearm.As
	k        int
	baseline bool
	limit    int
	out      string
	// breakdown is a queries_meta.jsonl field to group the metrics by; perQuery a JSONL
	// file for every query's hits.
	breakdown string
	perQuery  string
	// unrelated is another benchmark whose queries are asked as unrelated ones.
	unrelated      string
	unrelatedLimit int
	// meaningOnly runs the semantic leg alone: the model's own figure.
	meaningOnly bool
}

func (c *cli) evalBEIR(ctx context.Context, o beirRun) error {
	ds, err := eval.LoadBEIR(o.dir)
	if err != nil {
		return err
	}
	ds.LimitQueries(o.limit)
	if o.unrelated != "" {
		qs, err := eval.LoadQueries(o.unrelated)
		if err != nil {
			return err
		}
		if o.unrelatedLimit > 0 && len(qs) > o.unrelatedLimit {
			qs = qs[:o.unrelatedLimit]
		}
		ds.AddUnrelated(qs, o.scope)
	}
	var groups map[string]string
	if o.breakdown != "" {
		if groups, err = eval.LoadQueryGroups(o.dir, o.breakdown); err != nil {
			return usagef("eval: --breakdown %s: %v", o.breakdown, err)
		}
	}
	rep := eval.Report{Dataset: ds.Name, NQueries: len(ds.Queries), NUnrelated: ds.CountUnrelated(),
		K: o.k, As: string(o.as), Scope: o.scope, Legs: []string{"fts"}}
	if o.entities {
		rep.Legs = append(rep.Legs, "entity")
	}
	var sem *semantic
	if o.meaningOnly {
		rep.Legs = []string{"semantic alone"}
	}
	if o.semantic {
		if !o.meaningOnly {
			rep.Legs = append(rep.Legs, "semantic")
		}
		if sem, err = c.startSemantic(ctx); err != nil {
			return err
		}
		if sem != nil {
			defer sem.stop()
		}
		if err := sem.waitReady(ctx); err != nil {
			return err
		}
	}

	err = c.withScratchEngine(ctx, o.entities, sem, func(e *engine.Engine, dir string) error {
		progress, done := c.countProgress(fmt.Sprintf("loading %d documents as %s", len(ds.Docs), o.as))
		r, stats, err := enginearm.Load(ctx, e, ds.Docs, enginearm.LoadOptions{
			As: o.as, Scope: o.scope, FilesDir: filepath.Join(dir, "docs"), Progress: progress})
		done()
		if err != nil {
			return err
		}
		rep.Load = &stats
		if sem != nil {
			// The whole corpus is embedded before the first query, so every query sees the
			// same vector space; the report names it.
			if rep.VectorSpace, err = embedAll(ctx, e, c.countProgress); err != nil {
				return err
			}
		}
		r.MeaningOnly = o.meaningOnly
		trace, closeTrace, err := newQueryTrace(o.perQuery, r)
		if err != nil {
			return err
		}
		progress, done = c.countProgress("memdesk")
		rep.Arm, err = eval.Run(ctx, ds, r, eval.RunOptions{K: o.k, Progress: progress, Groups: groups, Observe: trace})
		done()
		if cerr := closeTrace(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return err
	}
	if o.baseline {
		progress, done := c.countProgress("baseline")
		arm, err := eval.Run(ctx, ds, eval.NewBM25Retriever(ds.Docs, o.scope), eval.RunOptions{K: o.k, Progress: progress, Groups: groups})
		done()
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		rep.Baseline = &arm
	}
	if err := writeReport(o.out, rep); err != nil {
		return err
	}
	return c.emit(rep, func(w io.Writer) { printBEIRReport(w, rep) })
}

// queryTraceLine is one line of --per-query: the query's outcome and the engine's answer.
type queryTraceLine struct {
	eval.QueryOutcome
	Relaxed bool               `json:"relaxed"`
	Notes   []string           `json:"notes,omitempty"`
	Floors  engine.FloorReport `json:"floors"`
	Hits    []tracedHit        `json:"hits"`
	// Dropped are the best candidates the floors left out, with the floor that did.
	Dropped []tracedDrop `json:"dropped,omitempty"`
}

type tracedDrop struct {
	Docs     []string `json:"docs"`
	Relevant bool     `json:"relevant,omitempty"`
	engine.DroppedHit
}

// tracedDrops is how many dropped candidates --per-query lists per query.
const tracedDrops = 20

type tracedHit struct {
	Docs     []string         `json:"docs"`
	Relevant bool             `json:"relevant,omitempty"`
	ID       int64            `json:"id"`
	Score    float64          `json:"score"`
	Legs     engine.LegScores `json:"legs"`
	Why      string           `json:"why"`
	Text     string           `json:"text"`
}

// newQueryTrace returns an observer that writes one JSON line per query to path, joining the
// run's outcome with the engine's last answer (r.Trace), and its close; both do nothing for "".
func newQueryTrace(path string, r *enginearm.Retriever) (func(eval.QueryOutcome) error, func() error, error) {
	if path == "" {
		return nil, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("per-query file: %w", err)
	}
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var last queryTraceLine
	r.ListDropped = tracedDrops
	r.Trace = func(q eval.Query, res engine.RecallResult, docIDs, droppedIDs [][]string) {
		last = queryTraceLine{Relaxed: res.Relaxed, Notes: res.Notes, Floors: res.Floors}
		for i, h := range res.Hits {
			last.Hits = append(last.Hits, tracedHit{Docs: docIDs[i], ID: h.ID, Score: h.Score, Legs: h.Legs,
				Why: h.Why, Text: clip(h.Text, 200)})
		}
		for i, d := range res.Dropped {
			last.Dropped = append(last.Dropped, tracedDrop{Docs: droppedIDs[i], DroppedHit: d})
		}
	}
	observe := func(o eval.QueryOutcome) error {
		line := last
		last = queryTraceLine{}
		line.QueryOutcome = o
		rel := map[string]bool{}
		for _, id := range o.Relevant {
			rel[id] = true
		}
		for i := range line.Hits {
			for _, d := range line.Hits[i].Docs {
				line.Hits[i].Relevant = line.Hits[i].Relevant || rel[d]
			}
		}
		for i := range line.Dropped {
			for _, d := range line.Dropped[i].Docs {
				line.Dropped[i].Relevant = line.Dropped[i].Relevant || rel[d]
			}
		}
		return enc.Encode(line)
	}
	closeFn := func() error {
		err := bw.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("per-query file: %w", err)
		}
		return nil
	}
	return observe, closeFn, nil
}

func printBEIRReport(w io.Writer, rep eval.Report) {
	fmt.Fprintf(w, "%s: %d queries (%d unrelated), k %d, corpus as %s, scope %s\n",
		display.Line(rep.Dataset), rep.NQueries, rep.NUnrelated, rep.K, rep.As, rep.Scope)
	if l := rep.Load; l != nil {
		units := "facts"
		if rep.As == string(enginearm.AsKnowledge) {
			units = "chunks"
		}
		fmt.Fprintf(w, "loaded %d documents as %d %s in %.1f s (%.0f documents/s", l.Docs, l.Units, units,
			l.Seconds, l.DocsPerSecond())
		if l.Skipped > 0 {
			fmt.Fprintf(w, ", %d without text skipped", l.Skipped)
		}
		fmt.Fprintln(w, ")")
	}
	fmt.Fprintln(w)

	figures := []struct {
		name   string
		digits int
		of     func(eval.Arm) float64
	}{
		{"recall@1", 3, func(a eval.Arm) float64 { return a.Metrics.Recall1 }},
		{"recall@5", 3, func(a eval.Arm) float64 { return a.Metrics.Recall5 }},
		{"recall@10", 3, func(a eval.Arm) float64 { return a.Metrics.Recall10 }},
		{"nDCG@10", 3, func(a eval.Arm) float64 { return a.Metrics.NDCG10 }},
		{"MRR@10", 3, func(a eval.Arm) float64 { return a.Metrics.MRR10 }},
		{"top-3 hit rate", 3, func(a eval.Arm) float64 { return a.Metrics.Top3HitRate }},
		{"empty rate, unrelated", 3, func(a eval.Arm) float64 { return *a.Metrics.EmptyRateUnrelated }},
		{"latency p50 ms", 2, func(a eval.Arm) float64 { return a.Latency.P50 }},
		{"latency p95 ms", 2, func(a eval.Arm) float64 { return a.Latency.P95 }},
		{"latency p99 ms", 2, func(a eval.Arm) float64 { return a.Latency.P99 }},
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if rep.Baseline == nil {
		fmt.Fprintf(tw, "\t%8s\n", "memdesk")
	} else {
		fmt.Fprintf(tw, "\t%8s\t%8s\t%8s\n", "memdesk", "BM25", "diff")
	}
	for _, f := range figures {
		if f.name == "empty rate, unrelated" && rep.NUnrelated == 0 {
			continue // no unrelated query, no rate
		}
		mine := f.of(rep.Arm)
		if rep.Baseline == nil {
			fmt.Fprintf(tw, "%s\t%8.*f\n", f.name, f.digits, mine)
			continue
		}
		base := f.of(*rep.Baseline)
		fmt.Fprintf(tw, "%s\t%8.*f\t%8.*f\t%+8.*f\n", f.name, f.digits, mine, f.digits, base, f.digits, mine-base)
	}
	tw.Flush()
	printBreakdown(w, rep)
}

// printBreakdown prints recall@10 and nDCG@10 per group, the baseline's beside them.
func printBreakdown(w io.Writer, rep eval.Report) {
	if len(rep.Breakdown) == 0 {
		return
	}
	groups := make([]string, 0, len(rep.Breakdown))
	for g := range rep.Breakdown {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if rep.Baseline == nil {
		fmt.Fprintf(tw, "group\t%9s\t%9s\n", "recall@10", "nDCG@10")
	} else {
		fmt.Fprintf(tw, "group\t%9s\t%9s\t%9s\t%9s\n", "recall@10", "nDCG@10", "BM25 r@10", "BM25 nDCG")
	}
	for _, g := range groups {
		m := rep.Breakdown[g]
		name := display.Line(g)
		if name == "" {
			name = "(none)"
		}
		if rep.Baseline == nil {
			fmt.Fprintf(tw, "%s\t%9.3f\t%9.3f\n", name, m.Recall10, m.NDCG10)
			continue
		}
		b := rep.Baseline.Breakdown[g]
		fmt.Fprintf(tw, "%s\t%9.3f\t%9.3f\t%9.3f\t%9.3f\n", name, m.Recall10, m.NDCG10, b.Recall10, b.NDCG10)
	}
	tw.Flush()
}

// caseReports is the JSON of eval --cases: the two arms side by side, each labelled, for the
// cases of the file and for the regression cases derived from them.
type caseReports struct {
	Real    eval.CaseReport `json:"real"`
	Stub    eval.CaseReport `json:"stub"`
	Derived derivedReports  `json:"derived"`
}

type derivedReports struct {
	Skipped []eval.DerivedSkip `json:"skipped"`
	Real    eval.DerivedReport `json:"real"`
	Stub    eval.DerivedReport `json:"stub"`
}

func (c *cli) evalCases(ctx context.Context, path, out string) error {
	cf, err := eval.LoadCases(path)
	if err != nil {
		return err
	}
	var reps caseReports
	// The stub arm checks the cases themselves: a query that even a token counter cannot
	// answer may be testing something else than it claims.
	reps.Stub, err = eval.RunCases(ctx, cf, eval.StubRetrieve, eval.CaseRunOptions{Arm: "stub"})
	if err != nil {
		return err
	}
	// The facts are written as the cases run, so the derived time words are read against now.
	derived := eval.Derive(cf, time.Now())
	reps.Derived.Skipped = derived.Skipped
	reps.Derived.Stub, err = eval.RunDerived(ctx, derived, eval.StubRetrieve, eval.CaseRunOptions{Arm: "stub"})
	if err != nil {
		return err
	}
	err = c.withScratchEngine(ctx, true, nil, func(e *engine.Engine, _ string) error {
		retrieve := enginearm.NewCases(e).Retrieve
		progress, done := c.countProgress("cases")
		reps.Real, err = eval.RunCases(ctx, cf, retrieve, eval.CaseRunOptions{Arm: "real", Latency: true, Progress: progress})
		done()
		if err != nil {
			return err
		}
		progress, done = c.countProgress("derived cases")
		reps.Derived.Real, err = eval.RunDerived(ctx, derived, retrieve, eval.CaseRunOptions{Arm: "real", Progress: progress})
		done()
		return err
	})
	if err != nil {
		return err
	}
	if err := writeReport(out, reps); err != nil {
		return err
	}
	if err := c.emit(reps, func(w io.Writer) { printCaseReports(w, reps) }); err != nil {
		return err
	}
	if s, d := reps.Real.Summary, reps.Derived.Real.Summary; s.Failed > 0 || d.Failed > 0 {
		return fmt.Errorf("%d of %d case queries and %d of %d derived queries failed", s.Failed, s.Queries, d.Failed, d.Queries)
	}
	return nil
}

func printCaseReports(w io.Writer, reps caseReports) {
	fmt.Fprintf(w, "%s: %d queries\n\n", display.Line(reps.Real.Name), reps.Real.Summary.Queries)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%6s\t%6s\n", "real", "stub")
	r, s := reps.Real, reps.Stub
	fmt.Fprintf(tw, "passed\t%6d\t%6d\n", r.Summary.Passed, s.Summary.Passed)
	fmt.Fprintf(tw, "failed\t%6d\t%6d\n", r.Summary.Failed, s.Summary.Failed)
	for _, m := range []struct {
		name       string
		real, stub float64
	}{
		{"must-include pass rate", r.Summary.MustIncludePassRate, s.Summary.MustIncludePassRate},
		{"must-exclude pass rate", r.Summary.MustExcludePassRate, s.Summary.MustExcludePassRate},
		{"empty rate, unrelated", r.Summary.EmptyRateUnrelated, s.Summary.EmptyRateUnrelated},
		{"recall@1", r.Ranking.Recall1, s.Ranking.Recall1},
		{"recall@5", r.Ranking.Recall5, s.Ranking.Recall5},
		{"nDCG@10", r.Ranking.NDCG10, s.Ranking.NDCG10},
		{"MRR@10", r.Ranking.MRR10, s.Ranking.MRR10},
	} {
		fmt.Fprintf(tw, "%s\t%6.3f\t%6.3f\n", m.name, m.real, m.stub)
	}
	tw.Flush()
	if r.Latency != nil {
		fmt.Fprintf(w, "real latency: p50 %.2f ms, p95 %.2f ms\n", r.Latency.P50, r.Latency.P95)
	}
	printFailures(w, "failed in the real arm:", r.Queries)
	printDerivedReports(w, reps.Derived)
}

// printDerivedReports prints the derived cases' pass counts per kind, both arms side by side.
// The stub arm is meant to fail collisions and time words: that is the fixtures biting.
func printDerivedReports(w io.Writer, d derivedReports) {
	fmt.Fprintf(w, "\nderived: %d queries (%d gold queries could not be derived from, see --json)\n\n",
		d.Real.Summary.Queries, len(d.Skipped))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%9s\t%9s\n", "real", "stub")
	for _, kind := range []eval.DerivedKind{eval.DerivedCollision, eval.DerivedTimeWord, eval.DerivedIrrelevant} {
		r, s := d.Real.Kinds[kind], d.Stub.Kinds[kind]
		fmt.Fprintf(tw, "%s\t%9s\t%9s\n", kind, fmt.Sprintf("%d/%d", r.Passed, r.Queries), fmt.Sprintf("%d/%d", s.Passed, s.Queries))
	}
	tw.Flush()
	// Derived case names start with their kind (collision/work/3).
	outcomes := make([]eval.CaseOutcome, len(d.Real.Queries))
	for i, q := range d.Real.Queries {
		outcomes[i] = q.CaseOutcome
	}
	printFailures(w, "derived queries failed in the real arm:", outcomes)
}

func printFailures(w io.Writer, title string, outcomes []eval.CaseOutcome) {
	first := true
	for _, q := range outcomes {
		if q.Pass {
			continue
		}
		if first {
			fmt.Fprintln(w, "\n"+title)
			first = false
		}
		fmt.Fprintf(w, "  [%s] %q got %v: %s\n", display.Line(q.Case), q.Query, q.Got, display.Line(strings.Join(q.Why, "; ")))
	}
}

// withScratchEngine runs fn on an engine over a new database in a temporary directory,
// removed afterwards; dir is free for fn's own files.
func (c *cli) withScratchEngine(ctx context.Context, entities bool, sem *semantic, fn func(e *engine.Engine, dir string) error) (err error) {
	dir, err := os.MkdirTemp("", "memdesk-eval-")
	if err != nil {
		return fmt.Errorf("create scratch directory: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); err == nil && rerr != nil {
			err = fmt.Errorf("remove scratch directory: %w", rerr)
		}
	}()
	opts := c.engineOptions()
	if sem != nil {
		opts = sem.options(opts)
	}
	e, err := engine.Open(ctx, filepath.Join(dir, "eval.db"), opts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := e.Close(); err == nil {
			err = cerr
		}
	}()
	// An eval of the entity leg waits for the extractor the app loads in the background;
	// entities are then extracted as the corpus loads.
	if entities {
		if err := e.LoadEntities(ctx); err != nil {
			return err
		}
	}
	return fn(e, dir)
}

// embedAll embeds every fact and chunk of the scratch engine in bounded passes, with a
// progress bar, and returns the vector space they were made in.
func embedAll(ctx context.Context, e *engine.Engine, newProgress func(string) (eval.Progress, func())) (string, error) {
	start, err := e.DiagnoseVectors(ctx)
	if err != nil {
		return "", err
	}
	total := start.Stale
	progress, done := newProgress(fmt.Sprintf("embedding %d texts", total))
	defer done()
	for {
		rep, err := e.EmbedPending(ctx, 0)
		if err != nil {
			return "", err
		}
		if progress != nil {
			if err := progress(total-rep.Remaining, total); err != nil {
				return "", err
			}
		}
		if rep.Remaining == 0 || rep.Embedded+rep.Zero == 0 {
			break // done, or only inputs the model keeps failing on are left
		}
	}
	d, err := e.DiagnoseVectors(ctx)
	if err != nil {
		return "", err
	}
	return d.Fingerprint, nil
}

// countProgress returns a progress callback drawing a counting bar on stderr (nothing when
// stderr is not a terminal, or with --json) and a func to clear it when the work ends.
func (c *cli) countProgress(desc string) (eval.Progress, func()) {
	f, ok := c.err.(*os.File)
	if !ok || c.json || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	progress := func(done, total int) error {
		if bar == nil {
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(c.err),
				progressbar.OptionSetDescription(desc),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
		return bar.Set(done)
	}
	return progress, func() {
		if bar != nil {
			bar.Finish()
		}
	}
}

// writeReport writes v as indented JSON to path; "" writes nothing.
func writeReport(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
