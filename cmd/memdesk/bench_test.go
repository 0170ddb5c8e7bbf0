package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runCLI runs memdesk as main does, with a config file of defaults in a temporary directory
// and no other environment.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	cache := sharedCacheHome(t)
	lookup := func(name string) (string, bool) {
		switch name {
		case "MEMDESK_CONFIG":
			return cfg, true
		case "XDG_CACHE_HOME":
			return cache, true
		}
		return "", false
	}
	var out, errOut bytes.Buffer
	code = run(ctx, args, streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup)
	return code, out.String(), errOut.String()
}

// cliOn returns a runner of in-process CLI commands on db that fails the test on a non-zero
// exit and returns stdout.
func cliOn(t *testing.T, ctx context.Context, db string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, ctx, append([]string{"--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("memdesk %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
}

// TestBenchJSON runs the real bench at a tiny size and checks the report's shape and that
// its figures are sane; it asserts nothing about speed.
func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the entity extractor (seconds, hundreds of MB)")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // scratch databases land here, and must be gone after
	code, stdout, stderr := runCLI(t, t.Context(), "--json", "bench", "--facts", "300", "--queries", "20")
	if code != 0 {
		t.Fatalf("bench exited %d, want 0; stderr:\n%s", code, stderr)
	}

	// Every documented key, present: decoding into a map keeps what a struct would hide.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatalf("bench --json with one size: %v; want one JSON object, got:\n%s", err, stdout)
	}
	wantKeys := []string{"baseline_fts5_ms", "chunks", "db_bytes", "documents", "entities_load_ms", "facts",
		"first_answer_ms", "ingest_facts_per_s", "legs_ms", "queries", "ratio_p95", "raw_text_bytes",
		"recall_ms", "rss_mb"}
	if diff := cmp.Diff(wantKeys, slices.Sorted(maps.Keys(raw))); diff != "" {
		t.Errorf("report keys (-want +got):\n%s", diff)
	}
	if got := string(raw["legs_ms"]); !strings.Contains(got, `"semantic":null`) {
		t.Errorf("legs_ms = %s, want semantic null", got)
	}

	var r benchResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Facts != 300 {
		t.Errorf("facts %d, want 300", r.Facts)
	}
	if r.Queries < 20 {
		t.Errorf("%d timed queries, want at least 20", r.Queries)
	}
	for name, v := range map[string]float64{
		"ingest_facts_per_s": r.IngestFactsPerS, "rss_mb": r.RSSMB, "first_answer_ms": r.FirstAnswerMS,
		"entities_load_ms": r.EntitiesLoadMS, "ratio_p95": r.RatioP95,
		"db_bytes": float64(r.DBBytes), "raw_text_bytes": float64(r.RawTextBytes),
		"documents": float64(r.Documents), "chunks": float64(r.Chunks),
		"recall_ms.p50": r.RecallMS.P50, "legs_ms.fts.p50": r.LegsMS.FTS.P50,
		"baseline_fts5_ms.p50": r.BaselineFTS5MS.P50,
	} {
		if v <= 0 {
			t.Errorf("%s = %v, want > 0", name, v)
		}
	}
	// legs_ms.entity is a difference of two timings and may be negative; it is still ordered.
	for name, l := range map[string][]float64{
		"recall_ms":        {r.RecallMS.P50, r.RecallMS.P95, r.RecallMS.P99},
		"legs_ms.fts":      {r.LegsMS.FTS.P50, r.LegsMS.FTS.P95, r.LegsMS.FTS.P99},
		"legs_ms.entity":   {r.LegsMS.Entity.P50, r.LegsMS.Entity.P95, r.LegsMS.Entity.P99},
		"baseline_fts5_ms": {r.BaselineFTS5MS.P50, r.BaselineFTS5MS.P95},
	} {
		if !slices.IsSorted(l) {
			t.Errorf("%s percentiles %v, want non-decreasing", name, l)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(tmp, "memdesk-bench-*")); len(leftovers) > 0 {
		t.Errorf("scratch directories left behind: %v", leftovers)
	}
}

func TestBenchUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"zero facts", []string{"bench", "--facts", "0"}, "want positive fact counts"},
		{"not a number", []string{"bench", "--facts", "10k"}, "want positive fact counts"},
		{"empty size", []string{"bench", "--facts", "100,,200"}, "want positive fact counts"},
		{"zero queries", []string{"bench", "--facts", "100", "--queries", "0"}, "--queries must be positive"},
		{"stray argument", []string{"bench", "100"}, `unexpected argument "100"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, t.Context(), tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestBenchParseSizes(t *testing.T) {
	got, err := parseSizes("10000, 100_000,300000")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{10000, 100000, 300000}, got); diff != "" {
		t.Errorf("parseSizes (-want +got):\n%s", diff)
	}
}

func TestBenchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	t.Setenv("TMPDIR", t.TempDir())
	code, _, stderr := runCLI(t, ctx, "bench", "--facts", "100")
	if code != 1 || !strings.Contains(stderr, "context canceled") {
		t.Errorf("cancelled bench: exit %d, stderr %q; want exit 1 and the cancellation", code, stderr)
	}
}

func TestPrintBench(t *testing.T) {
	r := benchResult{Facts: 100000, Documents: 100, Chunks: 520, Queries: 210, IngestFactsPerS: 1234.4,
		DBBytes: 3 << 20, RawTextBytes: 1 << 20, RatioP95: 4}
	r.RecallMS.P50, r.RecallMS.P95, r.RecallMS.P99 = 1, 2, 3
	var out bytes.Buffer
	printBench(&out, benchRun{seed: 1, loadBefore: "1.00 0.50 0.25", loadAfter: "2.00 1.00 0.50"}, []benchResult{r})
	for _, want := range []string{"load average 1.00 0.50 0.25 before", "100,000", "100 (520)", "1,234",
		"1.00 / 2.00 / 3.00", "4.0x", "3.00 (3.0x)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("human report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBenchGrouped(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 123456789: "123,456,789", -1234: "-1,234"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
