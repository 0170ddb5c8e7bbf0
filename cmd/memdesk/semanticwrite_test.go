package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/probes"
	"github.com/memdesk/memdesk/internal/simembed"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// withModel is r speaking to host with model.
func (r memdeskRun) withModel(host, model string) memdeskRun {
	r.env = append(append([]string(nil), r.env...), "MEMDESK_OLLAMA_HOST="+host, "MEMDESK_OLLAMA_MODEL="+model)
	return r
}

// simulatedServer serves a strong simulated model (internal/simembed) that knows the probe
// paraphrases and the pairs given, over Ollama's wire format. perText, when set, is how long
// the model takes per text: a slow CPU model.
func simulatedServer(t *testing.T, perText time.Duration, pairs ...[2]string) (host string, texts *atomic.Int64) {
	t.Helper()
	m := simembed.New(simembed.Config{Dims: 64, Quality: 0.9, Baseline: 0.3})
	for _, p := range probes.Paraphrases() {
		m.AddParaphrase(p[0], p[1])
	}
	for _, p := range pairs {
		m.AddParaphrase(p[0], p[1])
	}
	texts = new(atomic.Int64)
	var closing atomic.Bool
	embed := func(text string) []float32 {
		texts.Add(1)
		if perText > 0 && !closing.Load() {
			time.Sleep(perText)
		}
		return m.Embed(text)
	}
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "sim", Dims: 64, ContextLength: 8192, Pooling: "mean", Embed: embed})
	if err != nil {
		t.Fatal(err)
	}
	// A request the client gave up on still runs its sleeps: skip them so Close does not
	// wait for a 100-text request a command left behind.
	t.Cleanup(func() { closing.Store(true); srv.Close() })
	return srv.Host(), texts
}

// TestRememberThenRecallByMeaning: with the model ready, `memdesk remember X` embeds X, and
// `memdesk recall Y`, where Y shares no word with X, finds X by meaning alone: two one-shot
// processes, no long-lived one.
func TestRememberThenRecallByMeaning(t *testing.T) {
	const (
		fact     = "The quarterly budget review moved to Thursday afternoon"
		question = "when is the finance meeting now"
	)
	host, _ := simulatedServer(t, 0, [2]string{fact, question})
	r := newMemdeskRun(t, memdeskBinary(t)).withModel(host, "sim")
	for _, other := range []string{"lunch is at noon in the canteen", "the build server runs on port 8080", "老王喜欢简约风格"} {
		var res rememberOutput
		r.mustJSON(t, &res, "remember", other)
	}
	var rem rememberOutput
	r.mustJSON(t, &rem, "remember", fact)
	if rem.Vectors == nil || rem.Vectors.Embedded != 1 || rem.Vectors.Left != 0 {
		t.Fatalf("remember with the model ready: vectors %+v, want the fact embedded", rem.Vectors)
	}

	var res engine.RecallResult
	r.mustJSON(t, &res, "recall", question)
	found := false
	for _, h := range res.Hits {
		if h.ID == rem.FactID {
			found = true
			if h.Legs.FTS != 0 || h.Legs.Entity != 0 || h.Legs.Semantic <= 0 {
				t.Errorf("the fact was found with legs %+v, want by meaning alone", h.Legs)
			}
		}
	}
	if !found {
		t.Errorf("recall %q = %+v (notes %q, semantic %q), want fact %d found by meaning", question, res.Hits, res.Notes, res.Semantic, rem.FactID)
	}
	if res.Semantic != "ready" {
		t.Errorf("recall's semantic state %q, want ready: every fact was embedded when written", res.Semantic)
	}
}

// TestSlowModelNeverStallsTheCLI: with a model at 0.3 s per text (84 probe texts take 25 s to
// measure, 100 imported texts 30 s to embed), no one-shot command waits on it beyond its
// 1 s budget: each answers, says what it left, and leaves the slow work to the background.
func TestSlowModelNeverStallsTheCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary a dozen times")
	}
	host, texts := simulatedServer(t, 300*time.Millisecond)
	r := newMemdeskRun(t, memdeskBinary(t)).withModel(host, "sim")
	notes := t.TempDir()
	for i := range 100 {
		text := fmt.Sprintf("# Note %d\n\nThe meeting number %d is about topic %d and its minutes.\n", i, i, i*7)
		if err := os.WriteFile(filepath.Join(notes, fmt.Sprintf("note%03d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A command that waited for the model would take 25-30 s here (the measurement, the
	// import's embedding); the bound leaves room for a loaded machine, not for that.
	const bound = 10 * time.Second
	timed := func(v any, args ...string) (int, string) {
		t.Helper()
		cmd, stdout, stderr := r.command(args...)
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		t.Logf("memdesk %s: %v", strings.Join(args, " "), took.Round(time.Millisecond))
		if took > bound {
			t.Errorf("memdesk %s took %v, want well under %v: it waited on the model", strings.Join(args, " "), took, bound)
		}
		if v != nil {
			if jerr := json.Unmarshal(stdout.Bytes(), v); jerr != nil {
				t.Fatalf("memdesk %s: %v, decode %q: %v (stderr %s)", strings.Join(args, " "), err, stdout, jerr, stderr)
			}
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}

	var kb kbAddOutput
	if code, stderr := timed(&kb, "kb", "add", notes); code != 0 {
		t.Fatalf("kb add: exit %d: %s", code, stderr)
	}
	if kb.Added != 100 || kb.Vectors == nil || kb.Vectors.Left == 0 || !strings.Contains(kb.Vectors.Note, "in the background") {
		t.Errorf("kb add of 100 notes: added %d, vectors %+v; want most left to the background, and said so", kb.Added, kb.Vectors)
	}
	var rem rememberOutput
	if code, stderr := timed(&rem, "remember", "the deploy freeze starts on Friday"); code != 0 {
		t.Fatalf("remember: exit %d: %s", code, stderr)
	}
	var res engine.RecallResult
	if code, stderr := timed(&res, "recall", "meeting minutes"); code != 0 {
		t.Fatalf("recall: exit %d: %s", code, stderr)
	}
	if len(res.Hits) == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "semantic leg skipped: the embedding model has not been measured yet") {
		t.Errorf("recall: %d hits, notes %q; want the lexical answer and why the model was left out", len(res.Hits), res.Notes)
	}
	var st engine.Stats
	if code, stderr := timed(&st, "stats"); code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	if !strings.Contains(st.Semantic, "have no vector in this model's space yet") {
		t.Errorf("stats: semantic %q, want it to say texts have no vector yet", st.Semantic)
	}
	var diag engine.AdminResult
	if code, _ := timed(&diag, "admin", "vectors-diagnose"); code != 1 || diag.Counts["stale"] == 0 {
		t.Errorf("vectors-diagnose: exit %d, counts %v; want exit 1 with the stale texts counted", code, diag.Counts)
	}
	// What the model was asked, in all: a warm-up text per command, the remembered fact, a
	// page of the import, the probes of two measurements started and the query: each cut off
	// by its command's budget. Far less than the 84 probes + 100 notes a waiting CLI needs
	// twice over, and no command waited for them.
	t.Logf("texts the model was sent: %d", texts.Load())
}
