package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/synthbench"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
	"github.com/memdesk/memdesk/store"
)

// vecbenchDir, when set, keeps the benchmark's store there and reuses it on the next run:
// building 100k facts with 1024-d vectors takes minutes, the thing measured a fraction of a
// second.
var vecbenchDir = flag.String("vecbench.dir", "", "keep (and reuse) BenchmarkOneShotVectors' store in this folder")

// BenchmarkOneShotVectors starts the real binary, as a person's shell does, for a one-shot
// `recall` with the semantic leg, `stats` and `admin vectors-diagnose` over a store of 100k
// facts with 1024-d vectors (10k under -short), and reports each process's wall time and
// peak RSS. The query is embedded by the in-process Ollama server and the model's
// calibration is stored before the timed runs, so what is measured is the process, its
// store and its vectors, not the model.
func BenchmarkOneShotVectors(b *testing.B) {
	n, dims := 100_000, 1024
	if testing.Short() {
		n = 2_000
	}
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "bench", Dims: dims})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	bin := memdeskBinary(b)
	r := newMemdeskRun(b, bin).withEnv("MEMDESK_OLLAMA_HOST="+srv.Host(), "MEMDESK_OLLAMA_MODEL=bench")
	if *vecbenchDir != "" && !testing.Short() {
		r.db = filepath.Join(*vecbenchDir, fmt.Sprintf("vectors-%d-%d.db", n, dims))
	}
	if _, err := os.Stat(r.db); err != nil {
		buildVectorStore(b, r, n, dims)
	}

	// The calibration is measured and stored by the first semantic recall; the question
	// must also reach the semantic leg (not answered by the lexical legs alone).
	var first engine.RecallResult
	r.mustJSON(b, &first, "recall", "--k", "10", "what does the team deploy on friday")
	if first.Semantic != "ready" || strings.Contains(strings.Join(first.Notes, "\n"), "semantic leg skipped") {
		b.Fatalf("the first recall did not run the semantic leg: semantic %q, notes %q", first.Semantic, first.Notes)
	}

	commands := []struct {
		name string
		args []string
	}{
		{"recall", []string{"recall", "--k", "10", "what does the team deploy on friday"}},
		{"stats", []string{"stats"}},
		{"vectors-diagnose", []string{"admin", "vectors-diagnose"}},
	}
	for _, c := range commands {
		b.Run(c.name, func(b *testing.B) {
			var wall time.Duration
			var rss int64
			for range b.N {
				// Linux starts a child's peak RSS at its parent's (the exec replaces a memory
				// shared with this process): reset this process's peak first, so the figure is
				// the child's own, or this process's resident size if that is larger.
				resetPeakRSS()
				cmd, stdout, stderr := r.command(c.args...)
				start := time.Now()
				err := cmd.Run()
				wall += time.Since(start)
				if _, exit := err.(*exec.ExitError); err != nil && !(exit && c.name == "vectors-diagnose") {
					b.Fatalf("memdesk %s: %v\n%s%s", strings.Join(c.args, " "), err, stdout, stderr)
				}
				if !json.Valid(stdout.Bytes()) {
					b.Fatalf("memdesk %s: not JSON: %s%s", strings.Join(c.args, " "), stdout, stderr)
				}
				rss = max(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
			}
			b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/op")
			b.ReportMetric(float64(rss)/1024, "peak-rss-MB")
		})
	}
}

// buildVectorStore fills r's database with n synthetic facts and, written straight through
// the store, a random unit vector of dims for each in the space the server's model makes.
func buildVectorStore(b *testing.B, r memdeskRun, n, dims int) {
	b.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, r.db, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	facts, _ := synthbench.Corpus(1, n)
	if err := synthbench.RememberFacts(ctx, e, facts, nil); err != nil {
		b.Fatal(err)
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	fp := vectorSpaceOf(b, r)

	st, err := store.Open(ctx, r.db, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	db, err := openPlain(r.db)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id, content FROM facts WHERE status = 'active' ORDER BY id`)
	if err != nil {
		b.Fatal(err)
	}
	var owners []store.Vector
	for rows.Next() {
		var v store.Vector
		if err := rows.Scan(&v.ID, &v.Text); err != nil {
			b.Fatal(err)
		}
		v.Kind = store.KindFact
		owners = append(owners, v)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(dims)))
	for start := 0; start < len(owners); start += 2048 {
		batch := owners[start:min(start+2048, len(owners))]
		for i := range batch {
			batch[i].Vec = randomUnit(rng, dims)
		}
		if _, err := st.PutVectors(ctx, fp, batch); err != nil {
			b.Fatal(err)
		}
		for i := range batch {
			batch[i].Vec = nil
		}
	}
}

// vectorSpaceOf asks the binary which vector space its model makes: the fingerprint
// vectors-diagnose names.
func vectorSpaceOf(b *testing.B, r memdeskRun) string {
	b.Helper()
	cmd, stdout, stderr := r.command("admin", "vectors-diagnose")
	cmd.Run() // exits 1: every fact lacks a vector
	var res engine.AdminResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		b.Fatalf("vectors-diagnose: %v\n%s%s", err, stdout, stderr)
	}
	for _, d := range res.Details {
		if fp, ok := strings.CutPrefix(d, "vector space "); ok {
			return fp
		}
	}
	b.Fatalf("vectors-diagnose names no vector space: %q", res.Details)
	return ""
}

func randomUnit(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}
