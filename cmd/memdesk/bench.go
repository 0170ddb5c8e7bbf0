package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/synth"
	"github.com/memdesk/memdesk/internal/synthbench"
)

const benchUsage = `bench [--facts 10000,100000,300000] [--queries 200] [--seed 1] [--json]`

const (
	// benchK is the hits asked per query, of memdesk and of the baseline alike.
	benchK = synthbench.K
	// restartQuery is what a restarted engine answers first: a common two-character
	// Chinese word, neither the cheapest nor the dearest kind of query in the mix.
	restartQuery = "咖啡"
	// benchBusyTimeout is how long the baseline's connection waits for the engine's.
	benchBusyTimeout = 10 * time.Second
)

// benchResult is one corpus size's figures; its JSON keys are the bench report's contract.
type benchResult struct {
	Facts     int `json:"facts"`
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	// Queries is how many timed queries each arm answered (the mix, repeated).
	Queries int `json:"queries"`
	// IngestFactsPerS is RememberBatch's rate with the entity extractor loaded: lexical
	// indexes plus entity extraction, no embedding.
	IngestFactsPerS float64 `json:"ingest_facts_per_s"`
	// RecallMS is the fused recall (every leg available here) over memories and knowledge.
	RecallMS eval.Latency `json:"recall_ms"`
	LegsMS   benchLegs    `json:"legs_ms"`
	// BaselineFTS5MS is plain FTS5 BM25 over the same texts in the same file.
	BaselineFTS5MS baselineLatency `json:"baseline_fts5_ms"`
	// RatioP95 is RecallMS.P95 over BaselineFTS5MS.P95.
	RatioP95 float64 `json:"ratio_p95"`
	// RSSMB is the process's peak resident set while this size ran (VmHWM, reset per size;
	// the Go runtime's Sys where /proc is missing). It includes the entity extractor.
	RSSMB float64 `json:"rss_mb"`
	// DBBytes is the database file plus its -wal after a checkpoint, before the baseline
	// table is added. The documents' import compacts the search indexes first (KBAdd does
	// when enough was written, as the app does after a large write).
	DBBytes int64 `json:"db_bytes"`
	// RawTextBytes is the UTF-8 size of the facts and documents as generated.
	RawTextBytes int64 `json:"raw_text_bytes"`
	// FirstAnswerMS is engine.Open on the loaded file through the first Recall's return,
	// without the entity extractor: what a restarted app shows while the extractor loads.
	FirstAnswerMS float64 `json:"first_answer_ms"`
	// EntitiesLoadMS is LoadEntities alone.
	EntitiesLoadMS float64 `json:"entities_load_ms"`
}

// benchLegs splits recall latency by leg, as far as the engine's API allows.
type benchLegs struct {
	// FTS is an engine without the entity extractor: the lexical leg alone.
	FTS eval.Latency `json:"fts"`
	// Entity is what the entity leg adds: per query, the fused time minus the lexical-only
	// time of the same query run next to it. Noise can make a low percentile negative.
	Entity eval.Latency `json:"entity"`
	// Semantic is always null: the semantic leg needs an embedding model.
	Semantic *eval.Latency `json:"semantic"`
}

type baselineLatency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

type benchRun struct {
	sizes   []int
	queries int
	seed    uint64
	// loadBefore and loadAfter are the load averages around the run, for the human report:
	// latency measured on a busy machine should say so.
	loadBefore, loadAfter string
}

// bench measures ingest, recall latency, memory and size on synthetic corpora, each in a
// new temporary database, next to a plain FTS5 BM25 table in the same file.
func (c *cli) bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	facts := fs.String("facts", "10000,100000,300000", "corpus sizes, comma-separated")
	queries := fs.Int("queries", 200, "timed queries per arm, at least (the mix is repeated)")
	seed := fs.Uint64("seed", 1, "corpus generator seed")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("bench: unexpected argument %q\nusage: %s", pos[0], benchUsage)
	}
	sizes, err := parseSizes(*facts)
	if err != nil {
		return err
	}
	if *queries <= 0 {
		return usagef("bench: --queries must be positive\nusage: %s", benchUsage)
	}
	run := benchRun{sizes: sizes, queries: *queries, seed: *seed, loadBefore: synthbench.LoadAverage()}
	results := make([]benchResult, 0, len(sizes))
	for _, n := range sizes {
		r, err := c.benchSize(ctx, run, n)
		if err != nil {
			return fmt.Errorf("bench %d facts: %w", n, err)
		}
		results = append(results, r)
	}
	var v any = results
	if len(results) == 1 {
		v = results[0]
	}
	run.loadAfter = synthbench.LoadAverage()
	return c.emit(v, func(w io.Writer) { printBench(w, run, results) })
}

// parseSizes reads "10000,100000" (underscores allowed: 100_000).
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(part), "_", ""))
		if err != nil || n <= 0 {
			return nil, usagef("bench: --facts %q: want positive fact counts separated by commas, e.g. 10000,100000", s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func (c *cli) benchSize(ctx context.Context, run benchRun, n int) (res benchResult, err error) {
	resetPeakRSS()
	dir, err := os.MkdirTemp("", "memdesk-bench-")
	if err != nil {
		return res, fmt.Errorf("create scratch directory: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); err == nil && rerr != nil {
			err = fmt.Errorf("remove scratch directory: %w", rerr)
		}
	}()
	path := filepath.Join(dir, "bench.db")
	// Deferred closes run last in, first out: the baseline table is dropped, then the
	// connections close, then the scratch directory goes.

	full, err := engine.Open(ctx, path, c.engineOptions())
	if err != nil {
		return res, err
	}
	defer closeInto(&err, full.Close)
	start := time.Now()
	if err := full.LoadEntities(ctx); err != nil {
		return res, err
	}
	res.EntitiesLoadMS = millis(time.Since(start))

	facts, docs := synthbench.Corpus(run.seed, n)
	res.Facts, res.Documents = n, len(docs)
	for _, f := range facts {
		res.RawTextBytes += int64(len(f))
	}

	progress, done := c.countProgress(fmt.Sprintf("%d facts: ingest", n))
	start = time.Now()
	err = synthbench.RememberFacts(ctx, full, facts, func(d int) {
		if progress != nil {
			progress(d, n) // a progress bar's error only loses the bar
		}
	})
	elapsed := time.Since(start)
	done()
	if err != nil {
		return res, err
	}
	res.IngestFactsPerS = float64(n) / elapsed.Seconds()

	chunks, raw, err := synthbench.ImportDocuments(ctx, full, filepath.Join(dir, "docs"), docs)
	if err != nil {
		return res, err
	}
	res.Chunks, res.RawTextBytes = len(chunks), res.RawTextBytes+raw

	plain, err := openPlain(path)
	if err != nil {
		return res, err
	}
	defer closeInto(&err, plain.Close)
	if res.DBBytes, err = checkpointedSize(ctx, plain, path); err != nil {
		return res, err
	}

	// A restart: a second engine on the loaded file, timed from open to its first answer,
	// without the entity extractor, as an app answers while it loads in the background. The
	// file is in the OS cache and the process already runs: a warm restart, not a cold boot.
	// This engine then serves as the lexical-only arm.
	start = time.Now()
	lexical, err := engine.Open(ctx, path, c.engineOptions())
	if err != nil {
		return res, err
	}
	defer closeInto(&err, lexical.Close)
	if _, err := lexical.Recall(ctx, engine.RecallRequest{Query: restartQuery, K: benchK}); err != nil {
		return res, err
	}
	res.FirstAnswerMS = millis(time.Since(start))

	baseline, err := newPlainBaseline(ctx, plain, slices.Concat(facts, chunks))
	if err != nil {
		return res, err
	}
	defer closeInto(&err, func() error { return baseline.drop(context.WithoutCancel(ctx)) })

	arms := []*synthbench.Arm{
		{Name: "memdesk", Answer: recaller(full)},
		{Name: "lexical", Answer: recaller(lexical)},
		{Name: "baseline", Answer: baseline.search},
	}
	progress, done = c.countProgress(fmt.Sprintf("%d facts: recall", n))
	err = synthbench.TimeArms(ctx, arms, synth.Queries(), run.queries, progress)
	done()
	if err != nil {
		return res, err
	}
	fused, lex, base := arms[0].Samples, arms[1].Samples, arms[2].Samples
	res.Queries = len(fused)
	res.RecallMS = eval.Percentiles(fused)
	res.LegsMS.FTS = eval.Percentiles(lex)
	added := make([]time.Duration, len(fused))
	for i := range fused {
		added[i] = fused[i] - lex[i]
	}
	res.LegsMS.Entity = eval.Percentiles(added)
	b := eval.Percentiles(base)
	res.BaselineFTS5MS = baselineLatency{P50: b.P50, P95: b.P95}
	if b.P95 > 0 {
		res.RatioP95 = res.RecallMS.P95 / b.P95
	}
	res.RSSMB = peakRSSMB()
	return res, nil
}

// closeInto runs release and keeps its error in *err unless an earlier one is there.
func closeInto(err *error, release func() error) {
	if cerr := release(); *err == nil {
		*err = cerr
	}
}

func recaller(e *engine.Engine) func(ctx context.Context, q string) error {
	return func(ctx context.Context, q string) error {
		_, err := e.Recall(ctx, engine.RecallRequest{Query: q, K: benchK})
		return err
	}
}

// openPlain opens the database file with a connection of its own, outside the store: the
// baseline is plain SQLite, with nothing of memdesk's on the connection.
func openPlain(path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", benchBusyTimeout.Milliseconds())
	db, err := driver.Open(dsn, fts5.Register)
	if err != nil {
		return nil, fmt.Errorf("open baseline connection: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// checkpointedSize moves the WAL into the file and returns the size of both.
func checkpointedSize(ctx context.Context, db *sql.DB, path string) (int64, error) {
	var busy, logFrames, moved int
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &moved); err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("database size: %w", err)
		}
		size += fi.Size()
	}
	return size, nil
}

// plainBaseline is the comparison memdesk has to beat: one FTS5 table, unicode61, ranked by
// bm25. CJK has no spaces for unicode61 to split on, so texts and queries go in as eval's
// baseline tokens (words, and character bigrams for CJK), as in `eval --baseline`.
type plainBaseline struct {
	search func(ctx context.Context, q string) error
	drop   func(ctx context.Context) error
}

func newPlainBaseline(ctx context.Context, db *sql.DB, texts []string) (*plainBaseline, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE bench_plain USING fts5(content, tokenize='unicode61')`); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO bench_plain(content) VALUES (?)`)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	for _, t := range texts {
		if _, err := ins.ExecContext(ctx, strings.Join(eval.Tokens(t), " ")); err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	// ORDER BY rank is bm25 here, and lets FTS5 sort without calling it from SQL per row.
	stmt, err := db.PrepareContext(ctx, `SELECT rowid, content FROM bench_plain WHERE bench_plain MATCH ? ORDER BY rank LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	b := &plainBaseline{}
	b.search = func(ctx context.Context, q string) error {
		expr := plainMatch(q)
		if expr == "" {
			return nil
		}
		rows, err := stmt.QueryContext(ctx, expr, benchK)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var content string
			if err := rows.Scan(&id, &content); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	b.drop = func(ctx context.Context) error {
		stmt.Close()
		if _, err := db.ExecContext(ctx, `DROP TABLE bench_plain`); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		return nil
	}
	return b, nil
}

// plainMatch is the OR of q's distinct baseline tokens, each quoted.
func plainMatch(q string) string {
	seen := map[string]bool{}
	var terms []string
	for _, t := range eval.Tokens(q) {
		if !seen[t] {
			seen[t] = true
			terms = append(terms, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}

// resetPeakRSS starts a new peak-RSS measurement: garbage from the previous size is
// returned to the OS, then Linux's high-water mark is reset (clear_refs 5). Elsewhere it
// does nothing, and peakRSSMB falls back to the runtime's own count.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	f.WriteString("5")
	f.Close()
}

// peakRSSMB is VmHWM from /proc/self/status, else the memory the Go runtime holds from the
// OS (SQLite's memory included: the driver runs it inside Go).
func peakRSSMB() float64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
					return kb / 1024
				}
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.Sys) / (1 << 20)
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printBench prints one column per corpus size.
func printBench(w io.Writer, run benchRun, results []benchResult) {
	fmt.Fprintf(w, "memdesk bench: seed %d, k %d, %d CPUs", run.seed, benchK, runtime.NumCPU())
	if run.loadBefore != "" {
		fmt.Fprintf(w, ", load average %s before, %s after", run.loadBefore, run.loadAfter)
	}
	fmt.Fprintln(w)
	if len(results) > 0 {
		fmt.Fprintf(w, "%d timed queries per arm (%d-query mix repeated); times in ms\n", results[0].Queries, len(synth.Queries()))
	}
	fmt.Fprintln(w)
	// Figures align right; names are padded to one width first so they read left-aligned.
	const nameWidth = 24
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	row := func(name string, cell func(r benchResult) string) {
		fmt.Fprintf(tw, "%-*s\t", nameWidth, name)
		for _, r := range results {
			fmt.Fprint(tw, cell(r)+"\t")
		}
		fmt.Fprintln(tw)
	}
	ms3 := func(l eval.Latency) string { return fmt.Sprintf("%.2f / %.2f / %.2f", l.P50, l.P95, l.P99) }
	row("facts", func(r benchResult) string { return grouped(r.Facts) })
	row("documents (chunks)", func(r benchResult) string { return fmt.Sprintf("%d (%d)", r.Documents, r.Chunks) })
	row("ingest facts/s", func(r benchResult) string { return grouped(int(r.IngestFactsPerS + 0.5)) })
	row("entity extractor load", func(r benchResult) string { return fmt.Sprintf("%.0f", r.EntitiesLoadMS) })
	row("open to first answer", func(r benchResult) string { return fmt.Sprintf("%.1f", r.FirstAnswerMS) })
	row("recall p50 / p95 / p99", func(r benchResult) string { return ms3(r.RecallMS) })
	row("  lexical leg only", func(r benchResult) string { return ms3(r.LegsMS.FTS) })
	row("  added by entity leg", func(r benchResult) string { return ms3(r.LegsMS.Entity) })
	row("FTS5 BM25 p50 / p95", func(r benchResult) string {
		return fmt.Sprintf("%.2f / %.2f", r.BaselineFTS5MS.P50, r.BaselineFTS5MS.P95)
	})
	row("p95 memdesk / baseline", func(r benchResult) string { return fmt.Sprintf("%.1fx", r.RatioP95) })
	row("peak RSS MB", func(r benchResult) string { return fmt.Sprintf("%.0f", r.RSSMB) })
	row("DB MB (x raw text)", func(r benchResult) string {
		x := 0.0
		if r.RawTextBytes > 0 {
			x = float64(r.DBBytes) / float64(r.RawTextBytes)
		}
		return fmt.Sprintf("%.2f (%.1fx)", float64(r.DBBytes)/(1<<20), x)
	})
	row("raw text MB", func(r benchResult) string { return fmt.Sprintf("%.2f", float64(r.RawTextBytes)/(1<<20)) })
	tw.Flush()
}

// grouped writes n with thousands separators: 100,000.
func grouped(n int) string {
	if n < 0 {
		return "-" + grouped(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
