package modelboot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// ready starts a Boot on srv and waits until it is ready.
func ready(t *testing.T, srv *ollamatest.Server, set Settings) *Boot {
	t.Helper()
	b := start(t, srv, set)
	waitFor(t, b, "ready", phaseIs(PhaseReady))
	return b
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func sameVector(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5 {
			return false
		}
	}
	return true
}

func TestEmbed(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	set := fastSettings(srv)
	set.MaxBatch = 3
	set.KeepAlive = 10 * time.Minute
	b := ready(t, srv, set)
	before := srv.Requests("/api/embed")

	texts := []string{"my manager likes a simple style", "老王喜欢简约风格", "one", "two", "three", "four", "five"}
	vecs, err := b.Embed(t.Context(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if want := ollamatest.Embedding(texts[i], 16); !sameVector(v, want) {
			t.Errorf("vector %d (%q) = %v, want %v", i, texts[i], v, want)
		}
		if n := norm(v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has norm %v, want 1", i, n)
		}
	}
	if got := srv.Requests("/api/embed") - before; got != 3 {
		t.Errorf("%d embed requests for 7 texts in batches of 3, want 3", got)
	}
	if got := string(srv.LastEmbed().KeepAlive); got != `"10m0s"` {
		t.Errorf("keep_alive sent as %s, want \"10m0s\"", got)
	}
	if vecs, err := b.Embed(t.Context(), nil); err != nil || len(vecs) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want no vectors, nil", vecs, err)
	}
}

func TestEmbedBeforeRunIsNotReady(t *testing.T) {
	b, err := New(Settings{Model: tinyModel}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Embed(t.Context(), []string{"x"})
	if !errors.Is(err, ErrNotReady) {
		t.Errorf("Embed before Run: %v, want ErrNotReady", err)
	}
	if !strings.Contains(err.Error(), "starting") {
		t.Errorf("error %q does not say the state", err)
	}
}

func TestEmbedIsolatesRejectedInput(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	srv.RejectInputsContaining("POISON")
	b := ready(t, srv, fastSettings(srv))

	texts := []string{"alpha", "beta POISON", "gamma", "delta"}
	vecs, err := b.Embed(t.Context(), texts)
	var be *BatchError
	if !errors.As(err, &be) {
		t.Fatalf("Embed: %v, want a *BatchError", err)
	}
	if len(be.Failed) != 1 || be.Failed[0].Index != 1 {
		t.Fatalf("failed inputs %v, want only input 1", be.Failed)
	}
	var status api.StatusError
	if !errors.As(err, &status) || status.StatusCode != http.StatusBadRequest {
		t.Errorf("input error %v, want the server's 400", be.Failed[0].Err)
	}
	for i, v := range vecs {
		if (v == nil) != (i == 1) {
			t.Errorf("vector %d nil = %v, want nil only for the rejected input", i, v == nil)
		}
	}
}

func TestEmbedServerError500(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := ready(t, srv, fastSettings(srv))
	srv.SetStatus("/api/embed", http.StatusInternalServerError, "llama runner process has terminated")

	vecs, err := b.Embed(t.Context(), []string{"a", "b"})
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failed) != 2 {
		t.Fatalf("Embed: %v, want a *BatchError with both inputs", err)
	}
	if vecs[0] != nil || vecs[1] != nil {
		t.Errorf("vectors %v, want none", vecs)
	}
	if !strings.Contains(err.Error(), "llama runner process has terminated") {
		t.Errorf("error %q lacks the server's message", err)
	}
}

func TestEmbedCutsToWindow(t *testing.T) {
	srv := newServer(t, tinyWith(func(m *ollamatest.Model) { m.ContextLength = 64 }))
	b := ready(t, srv, fastSettings(srv))
	before := srv.Requests("/api/embed")

	long := strings.Repeat("word ", 1000)
	vecs, err := b.Embed(t.Context(), []string{"short", long})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if vecs[1] == nil {
		t.Fatal("no vector for the long input")
	}
	if got := srv.Requests("/api/embed") - before; got != 1 {
		t.Errorf("%d requests, want 1: the long input should have been cut before sending", got)
	}
	sent := srv.LastEmbed().Inputs[1]
	if n := len(ollamatest.Tokens(sent)) + 2; n > 64 {
		t.Errorf("sent %d tokens to a 64-token window", n)
	}
}

// The server declares a larger window than it accepts, as Ollama 0.17.4
// sometimes does: the batch fails with 400, the long input is isolated and
// halved until it fits, and the others keep their vectors.
func TestEmbedHalvesInputTheServerCallsTooLong(t *testing.T) {
	srv := newServer(t, tinyWith(func(m *ollamatest.Model) { m.ContextLength, m.EnforcedContext = 512, 100 }))
	b := ready(t, srv, fastSettings(srv))

	long := strings.Repeat("lorem ipsum ", 150) // 300 tokens: past 100, within the declared 512 by estimate
	vecs, err := b.Embed(t.Context(), []string{"first", long, "third"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	for i, v := range vecs {
		if v == nil {
			t.Errorf("vector %d missing", i)
		}
	}
	if !sameVector(vecs[0], ollamatest.Embedding("first", 16)) {
		t.Error("vector 0 is not the embedding of its text")
	}
}

func TestEmbedGivesUpOnInputTooLongEvenHalved(t *testing.T) {
	srv := newServer(t, tinyWith(func(m *ollamatest.Model) { m.ContextLength, m.EnforcedContext = 4096, 12 }))
	b := ready(t, srv, fastSettings(srv))

	_, err := b.Embed(t.Context(), []string{strings.Repeat("many words here ", 200)})
	var status api.StatusError
	if !errors.As(err, &status) || status.ErrorMessage != ollamatest.MsgTooLong {
		t.Errorf("Embed: %v, want the server's %q", err, ollamatest.MsgTooLong)
	}
}

func TestEmbedDimsChanged(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	set := fastSettings(srv)
	set.HealthInterval = time.Hour // only Embed's report triggers the re-warm
	b := ready(t, srv, set)

	srv.SetDims(tinyModel, 8)
	vecs, err := b.Embed(t.Context(), []string{"a", "b"})
	if !errors.Is(err, ErrDimsChanged) {
		t.Fatalf("Embed: %v, want ErrDimsChanged", err)
	}
	var de *DimsError
	if !errors.As(err, &de) || de.Got != 8 || de.Want != 16 {
		t.Errorf("dims error %v, want got 8 want 16", de)
	}
	if vecs[0] != nil || vecs[1] != nil {
		t.Errorf("vectors of the wrong width returned: %v", vecs)
	}
	waitFor(t, b, "ready at 8 dims", func(s State) bool { return s.Phase == PhaseReady && s.Dims == 8 })
	if got := b.Representation().Dims; got != 8 {
		t.Errorf("representation dims %d, want 8", got)
	}
	if _, err := b.Embed(t.Context(), []string{"a"}); err != nil {
		t.Errorf("Embed after re-warm: %v", err)
	}
}

// TestEmbedLateOddWidthAfterAChangeStaysReady: a call that began before the model changed
// width compares its answer with the old width, and may report it after the re-warm has
// measured the new one. That answer has the width the model now has: the model stays ready,
// not failed for "8 dimensions for some texts and 8 for others".
func TestEmbedLateOddWidthAfterAChangeStaysReady(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	set := fastSettings(srv)
	set.HealthInterval = time.Hour // only Embed's report triggers the re-warm
	b := ready(t, srv, set)
	before := b.State()

	srv.SetDims(tinyModel, 8)
	if _, err := b.Embed(t.Context(), []string{"a"}); !errors.Is(err, ErrDimsChanged) {
		t.Fatalf("Embed: %v, want ErrDimsChanged", err)
	}
	waitFor(t, b, "ready at 8 dims", func(s State) bool { return s.Phase == PhaseReady && s.Dims == 8 })

	// The late answer of a call that read the state before the change.
	if err := b.accept(before, make([]float32, 8)); !errors.As(err, new(*DimsError)) {
		t.Fatalf("accept(old state, 8 dims) = %v, want a DimsError", err)
	}
	st := waitFor(t, b, "the re-warm the late answer asked for", func(s State) bool {
		return b.oddWidth.Load() == 0 && !b.rewarm.Load() && (s.Phase == PhaseReady || s.Phase == PhaseFailed)
	})
	if st.Phase != PhaseReady || st.Dims != 8 {
		t.Errorf("state after the late answer: %v; want ready at 8 dims", st)
	}
}

// TestEmbedWidthsAtRandomIsNotReady (issue 27, item 12): a server whose warm-up vector has
// the recorded width but whose other answers have another is not a model that changed: the
// state says it failed, naming both widths, instead of going back to ready.
func TestEmbedWidthsAtRandomIsNotReady(t *testing.T) {
	srv := newServer(t, tinyWith(func(m *ollamatest.Model) {
		m.Embed = func(text string) []float32 {
			if text == warmupText {
				return ollamatest.Embedding(text, 16)
			}
			return ollamatest.Embedding(text, 8)
		}
	}))
	set := fastSettings(srv)
	set.HealthInterval = time.Hour // only Embed's report triggers the re-warm
	set.MinBackoff, set.MaxBackoff = time.Hour, time.Hour
	b := ready(t, srv, set)

	if _, err := b.Embed(t.Context(), []string{"a"}); !errors.Is(err, ErrDimsChanged) {
		t.Fatalf("Embed: %v, want ErrDimsChanged", err)
	}
	st := waitFor(t, b, "failed", phaseIs(PhaseFailed))
	if !strings.Contains(st.Reason, "8 dimensions") || !strings.Contains(st.Reason, "16") {
		t.Errorf("reason %q, want both widths named", st.Reason)
	}
}

func TestEmbedZeroVector(t *testing.T) {
	// A GloVe-like model: only known English words embed.
	vocab := strings.Fields("memdesk checks that the embedding model is ready my manager likes simple style")
	srv := newServer(t, tinyWith(func(m *ollamatest.Model) { m.Vocabulary = vocab }))
	b := ready(t, srv, fastSettings(srv))

	texts := []string{"my manager likes simple style", "老王喜欢简约风格", "   ", ""}
	vecs, err := b.Embed(t.Context(), texts)
	if !errors.Is(err, ErrZeroVector) {
		t.Fatalf("Embed: %v, want ErrZeroVector", err)
	}
	var be *BatchError
	errors.As(err, &be)
	var failed []int
	for _, f := range be.Failed {
		failed = append(failed, f.Index)
	}
	if fmt.Sprint(failed) != "[1 2 3]" {
		t.Errorf("failed inputs %v, want [1 2 3]", failed)
	}
	if vecs[0] == nil || math.Abs(norm(vecs[0])-1) > 1e-5 {
		t.Errorf("vector 0 = %v, want a unit vector", vecs[0])
	}
}

func TestEmbedTimeout(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	set := fastSettings(srv)
	set.EmbedTimeout = 20 * time.Millisecond
	b := ready(t, srv, set)
	srv.SetDelay("/api/embed", time.Hour)

	_, err := b.Embed(t.Context(), []string{"a", "b"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Embed on a slow server: %v, want context.DeadlineExceeded", err)
	}
}

func TestEmbedCancelled(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := ready(t, srv, fastSettings(srv))
	srv.SetDelay("/api/embed", time.Hour)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := b.Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled ctx: %v, want context.Canceled", err)
	}
}

func TestEmbedServerGoneWhileReady(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	set := fastSettings(srv)
	set.HealthInterval = time.Hour // only Embed's report notices
	b := ready(t, srv, set)

	srv.Down()
	if _, err := b.Embed(t.Context(), []string{"a"}); !errors.Is(err, ErrOffline) {
		t.Errorf("Embed against a stopped server: %v, want ErrOffline", err)
	}
	waitFor(t, b, "offline", phaseIs(PhaseOffline))
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name    string
		in      []float32
		want    []float32
		wantErr error
	}{
		{"unit", []float32{1, 0}, []float32{1, 0}, nil},
		{"scaled", []float32{3, 4}, []float32{0.6, 0.8}, nil},
		{"zero", []float32{0, 0, 0}, nil, ErrZeroVector},
		{"tiny", []float32{1e-30, 0}, nil, ErrZeroVector},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := append([]float32(nil), tt.in...)
			err := normalize(v)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("normalize(%v) error %v, want %v", tt.in, err, tt.wantErr)
			}
			if err == nil && !sameVector(v, tt.want) {
				t.Errorf("normalize(%v) = %v, want %v", tt.in, v, tt.want)
			}
		})
	}
	if err := normalize([]float32{float32(math.Inf(1)), 1}); err == nil {
		t.Error("normalize accepted an infinite value")
	}
}

func TestRepresentationString(t *testing.T) {
	r := Representation{Backend: "ollama", Model: "bge-m3:latest", Digest: "sha256:790764642607aabbccdd",
		Dims: 1024, Pooling: "cls", Normalization: "l2", InputWindow: 8192}
	if got, want := r.String(), "ollama/bge-m3:latest@790764642607/1024/cls/l2/8192"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func BenchmarkEmbedBatch(b *testing.B) {
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: tinyModel, Dims: 384, ContextLength: 512, Pooling: "mean"})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	boot, err := New(Settings{Host: srv.Host(), Model: tinyModel}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan error, 1)
	go func() { done <- boot.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for boot.State().Phase != PhaseReady {
		if st := boot.State(); st.Phase == PhaseFailed {
			b.Fatalf("boot failed: %s", st)
		}
		time.Sleep(time.Millisecond)
	}
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = fmt.Sprintf("fact %d: the quarterly report is due on friday and my manager prefers a short summary with numbers", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := boot.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}
