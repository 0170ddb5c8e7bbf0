package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// textModel embeds every text (probes included) deterministically from its words, as
// ollamatest's models do; seed makes another model of the same width. gate, when set, holds
// every Embed call until it is closed: a model slower than any bound.
type textModel struct {
	fp   string
	seed string
	gate chan struct{}

	mu    sync.Mutex
	texts int // texts embedded
}

func (m *textModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if m.gate != nil {
		select {
		case <-m.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	m.mu.Lock()
	m.texts += len(texts)
	m.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = ollamatest.Embedding(m.seed+t, 16)
	}
	return out, nil
}

func (m *textModel) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return embedOneText(ctx, m, text)
}

func (m *textModel) Fingerprint() string { return m.fp }
func (m *textModel) Ready() bool         { return true }

func (m *textModel) embedded() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.texts
}

func openWithModel(t *testing.T, path string, emb Embedder, budget time.Duration) *Engine {
	t.Helper()
	e, err := Open(t.Context(), path, Options{Embedder: emb, SemanticState: func() string { return "ready" }, SemanticBudget: budget})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestEmbedWritten: what a write stored is embedded at once, facts and a document's chunks,
// and a fact already embedded is not embedded again.
func TestEmbedWritten(t *testing.T) {
	m := &textModel{fp: "fake/words@1/16"}
	e := openWithModel(t, filepath.Join(t.TempDir(), "m.db"), m, 0)
	id := remember(t, e, "", "the build server runs on port 8080")
	remember(t, e, "", "lunch is at noon") // not named: left to the catch-up
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Deploy\n\nRoll back with the previous tag.\n\n# Lunch\n\nThe canteen opens at noon.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kb, err := e.KBAdd(t.Context(), KBAddRequest{Paths: []string{dir}})
	if err != nil || len(kb.Files) != 1 || kb.Files[0].DocID == 0 {
		t.Fatalf("KBAdd = %+v, %v", kb, err)
	}
	got, err := e.EmbedWritten(t.Context(), Written{Facts: []int64{id}, Documents: []int64{kb.Files[0].DocID}})
	want := WriteEmbedding{Embedded: 1 + kb.Files[0].Chunks}
	if err != nil || got != want {
		t.Fatalf("EmbedWritten = %+v, %v; want %+v", got, err, want)
	}
	d, err := e.DiagnoseVectors(t.Context())
	if err != nil || d.Current != want.Embedded || d.Stale != 1 {
		t.Errorf("after EmbedWritten: %+v, %v; want %d current and the unnamed fact stale", d.VectorDiagnosis, err, want.Embedded)
	}
	before := m.embedded()
	if got, err := e.EmbedWritten(t.Context(), Written{Facts: []int64{id}}); err != nil || got != (WriteEmbedding{}) || m.embedded() != before {
		t.Errorf("EmbedWritten of an embedded fact = %+v, %v, %d texts sent; want nothing to do", got, err, m.embedded()-before)
	}
}

// TestEmbedWrittenLeavesTheRest: a model that does not answer within the caller's deadline
// leaves the write to the catch-up, and the caller gets its answer when the deadline ends.
func TestEmbedWrittenLeavesTheRest(t *testing.T) {
	m := &textModel{fp: "fake/words@1/16", gate: make(chan struct{})}
	defer close(m.gate)
	e := openWithModel(t, filepath.Join(t.TempDir(), "m.db"), m, 0)
	id := remember(t, e, "", "the build server runs on port 8080")
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	got, err := e.EmbedWritten(ctx, Written{Facts: []int64{id}})
	if err != nil || got != (WriteEmbedding{Left: 1}) {
		t.Errorf("EmbedWritten with a model that never answers = %+v, %v; want 1 left", got, err)
	}
}

// TestOneShotRecallDoesNotWaitForTheMeasurement: in a process without Run, a model that
// cannot be measured within the budget is skipped with a note saying who measures it; the
// recall answers on the other legs without waiting for the model.
func TestOneShotRecallDoesNotWaitForTheMeasurement(t *testing.T) {
	m := &textModel{fp: "fake/words@1/16", gate: make(chan struct{})}
	defer close(m.gate) // only after the recall returned: it must not need the model
	e := openWithModel(t, filepath.Join(t.TempDir(), "m.db"), m, 20*time.Millisecond)
	remember(t, e, "", "the build server runs on port 8080")
	res, err := e.Recall(t.Context(), RecallRequest{Query: "build server"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Errorf("hits = %d, want the lexical one", len(res.Hits))
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"semantic leg skipped", "not been measured yet", "memdesk mcp"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q, want %q in them", notes, want)
		}
	}
}

// TestSameModelAdoptsItsVectors: a model that makes the same vectors as a stored space's
// under another fingerprint (a renamed copy) takes that space's vectors over: nothing is
// embedded again. Another model of the same width is not taken for it.
func TestSameModelAdoptsItsVectors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	texts := []string{"the build server runs on port 8080", "lunch is at noon", "we deploy on fridays"}
	first := &textModel{fp: "ollama/tiny:latest@aaa/16"}
	e := openWithModel(t, path, first, 0)
	for _, text := range texts {
		remember(t, e, "", text)
	}
	if rep, err := e.EmbedPending(t.Context(), 0); err != nil || rep.Embedded != len(texts) {
		t.Fatalf("first EmbedPending = %+v, %v", rep, err)
	}
	e.Close()

	renamed := &textModel{fp: "ollama/tiny-copy:latest@bbb/16"}
	e = openWithModel(t, path, renamed, 0)
	rep, err := e.EmbedPending(t.Context(), 0)
	if err != nil || rep.Embedded != 0 || rep.Remaining != 0 {
		t.Errorf("EmbedPending with the renamed model = %+v, %v; want nothing embedded, nothing left", rep, err)
	}
	if d, err := e.DiagnoseVectors(t.Context()); err != nil || d.Current != len(texts) || d.SpaceStale != 0 {
		t.Errorf("after the renamed model's catch-up: %+v, %v; want every vector current", d.VectorDiagnosis, err)
	}
	e.Close()

	other := &textModel{fp: "ollama/other:latest@ccc/16", seed: "other model: "}
	e = openWithModel(t, path, other, 0)
	if rep, err := e.EmbedPending(t.Context(), 0); err != nil || rep.Embedded != len(texts) {
		t.Errorf("EmbedPending with another model = %+v, %v; want all %d embedded again", rep, err, len(texts))
	}
}

// TestStateSaysEmbeddingUntilTheVectorsAre: under Run, the state is "embedding n of N" while
// texts have no vector, and "ready" once they all do.
func TestStateSaysEmbeddingUntilTheVectorsAre(t *testing.T) {
	m := &textModel{fp: "fake/words@1/16", gate: make(chan struct{})}
	e := openWithModel(t, filepath.Join(t.TempDir(), "m.db"), m, 0)
	for _, text := range []string{"the build server runs on port 8080", "lunch is at noon"} {
		remember(t, e, "", text)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "Run to start", e.semanticRunning.Load)
	if got := e.SemanticState(); got == "ready" {
		t.Errorf("state before any vector = %q, want not ready", got)
	}
	d, err := e.DiagnoseVectors(t.Context()) // counts, as Run's first look does
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.SemanticState(), "embedding 0 of 2"; d.Current != 0 || got != want {
		t.Errorf("state with 0 of 2 vectors = %q, want %q", got, want)
	}
	close(m.gate) // the model answers: Run measures it and embeds both
	waitFor(t, "the state to say ready once both texts have vectors", func() bool { return e.SemanticState() == "ready" })
	if d, err := e.DiagnoseVectors(t.Context()); err != nil || d.Stale != 0 {
		t.Errorf("ready with %+v, %v", d.VectorDiagnosis, err)
	}
}
