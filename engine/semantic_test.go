package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/probes"
	"github.com/memdesk/memdesk/modelboot"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
	"github.com/memdesk/memdesk/store"
)

// fakeEmbedder maps known texts to chosen vectors, so a test decides what is "about" what.
// An unknown text fails (nil entry); a text mapped to an empty vector is a zero vector.
type fakeEmbedder struct {
	mu    sync.Mutex
	fp    string
	down  bool
	vecs  map[string][]float32
	calls map[string]int
}

func newFakeEmbedder(fp string, vecs map[string][]float32) *fakeEmbedder {
	return &fakeEmbedder{fp: fp, vecs: vecs, calls: map[string]int{}}
}

func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, errors.New("embed: ollama offline")
	}
	out := make([][]float32, len(texts))
	var failed int
	for i, t := range texts {
		f.calls[t]++
		v, ok := f.vecs[t]
		if !ok {
			failed++
			continue
		}
		out[i] = append([]float32{}, v...)
	}
	if failed > 0 {
		return out, errors.New("some inputs failed")
	}
	return out, nil
}

// EmbedQuery embeds the query as one text: the fake has no query side of its own.
func (f *fakeEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return embedOneText(ctx, f, text)
}

// embedOneText is a fake's EmbedQuery through its own Embed, so a fake that overrides Embed
// (slow, cancelling) behaves the same on the query side.
func embedOneText(ctx context.Context, emb interface {
	Embed(context.Context, []string) ([][]float32, error)
}, text string) ([]float32, error) {
	vecs, err := emb.Embed(ctx, []string{text})
	if len(vecs) != 1 || vecs[0] == nil {
		if err == nil {
			err = errors.New("no vector returned")
		}
		return nil, err
	}
	return vecs[0], nil
}

func (f *fakeEmbedder) Fingerprint() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fp
}

func (f *fakeEmbedder) Ready() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.down
}

func (f *fakeEmbedder) state() string {
	if f.Ready() {
		return "ready"
	}
	return "offline"
}

func (f *fakeEmbedder) set(fn func(f *fakeEmbedder)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func openSemanticEngine(t *testing.T, emb Embedder, state func() string) *Engine {
	t.Helper()
	e, err := Open(context.Background(), filepath.Join(t.TempDir(), "memdesk.db"),
		Options{Embedder: emb, SemanticState: state})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

const (
	manager  = "老王喜欢简约风格"
	build    = "the build server runs on port 8080"
	question = "what does my manager like"
)

func semanticVectors() map[string][]float32 {
	return map[string][]float32{
		manager:  {1, 0, 0, 0},
		build:    {0, 0, 1, 0},
		question: {0.9, 0.3, 0, 0.1}, // cosine ≈ 0.94 with manager, 0 with build
	}
}

func mustEmbedPending(t *testing.T, e *Engine) EmbedReport {
	t.Helper()
	rep, err := e.EmbedPending(context.Background(), 0)
	if err != nil {
		t.Fatalf("EmbedPending: %v", err)
	}
	return rep
}

func TestSemanticLegFindsWhatSharesNoWords(t *testing.T) {
	emb := newFakeEmbedder("fake/a@1/4", semanticVectors())
	e := openSemanticEngine(t, emb, emb.state)
	want := remember(t, e, "", manager)
	remember(t, e, "", build)

	if rep := mustEmbedPending(t, e); rep != (EmbedReport{Embedded: 2}) {
		t.Errorf("EmbedPending = %+v, want 2 embedded, none remaining", rep)
	}
	res, err := e.Recall(context.Background(), RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != want {
		t.Fatalf("hits = %+v, want only fact %d", res.Hits, want)
	}
	h := res.Hits[0]
	if h.Legs.FTS != 0 || h.Legs.Semantic < 0.9 || !strings.Contains(h.Why, "semantic 0.9") {
		t.Errorf("hit legs = %+v, why %q; want a semantic-only hit of cosine ≈ 0.94", h.Legs, h.Why)
	}
	if res.Semantic != "ready" {
		t.Errorf("Semantic = %q, want ready", res.Semantic)
	}
}

func TestSemanticFloor(t *testing.T) {
	vecs := semanticVectors()
	vecs["something unrelated"] = []float32{0.3, 0.95, 0, 0} // cosine ≈ 0.30 with manager
	vecs["near the loose floor"] = []float32{0.45, 0.89, 0, 0}
	emb := newFakeEmbedder("fake/a@1/4", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	id := remember(t, e, "", manager)
	mustEmbedPending(t, e)

	t.Run("low cosine is dropped", func(t *testing.T) {
		res, err := e.Recall(context.Background(), RecallRequest{Query: "something unrelated"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 {
			t.Errorf("hits = %+v, want none: a vector leg must not always return neighbours", res.Hits)
		}
	})
	t.Run("the relaxed retry uses the loose floor", func(t *testing.T) {
		// cosine ≈ 0.45: under the strict 0.5, over the loose 0.425.
		res, err := e.Recall(context.Background(), RecallRequest{Query: "near the loose floor"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Hits[0].ID != id || !res.Relaxed {
			t.Errorf("hits = %+v relaxed %v, want fact %d under the loose floor", res.Hits, res.Relaxed, id)
		}
	})
}

func TestSemanticZeroVectorIsNoEvidence(t *testing.T) {
	vecs := semanticVectors()
	vecs["zzz qqq"] = []float32{}
	vecs["xxyyzz"] = []float32{0, 0, 0, 0}
	emb := newFakeEmbedder("fake/a@1/4", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	remember(t, e, "", manager)
	remember(t, e, "", "zzz qqq")

	if rep := mustEmbedPending(t, e); rep != (EmbedReport{Embedded: 1, Zero: 1}) {
		t.Errorf("EmbedPending = %+v, want 1 embedded and 1 zero", rep)
	}
	if rep := mustEmbedPending(t, e); rep != (EmbedReport{}) {
		t.Errorf("second EmbedPending = %+v, want nothing to do: a zero vector is recorded, not retried", rep)
	}
	if n := emb.calls["zzz qqq"]; n != 1 {
		t.Errorf("the zero-vector text was embedded %d times, want 1", n)
	}
	// A query that embeds to zero runs without the semantic leg, and divides by nothing.
	res, err := e.Recall(context.Background(), RecallRequest{Query: "xxyyzz"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("hits = %+v, want none", res.Hits)
	}
}

func TestEmbedPendingIsBoundedAndSkipsFailures(t *testing.T) {
	vecs := map[string][]float32{}
	for _, s := range []string{"one", "two", "four", "five"} {
		vecs["fact "+s] = []float32{1, 1, 0}
	}
	emb := newFakeEmbedder("fake/a@1/3", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	for _, s := range []string{"one", "two", "three", "four", "five"} {
		remember(t, e, "", "fact "+s) // "fact three" fails to embed
	}
	ctx := context.Background()
	rep, err := e.EmbedPending(ctx, 2)
	if err != nil || rep != (EmbedReport{Embedded: 2, Remaining: 3}) {
		t.Errorf("first pass = %+v, %v; want 2 embedded, 3 remaining", rep, err)
	}
	rep, err = e.EmbedPending(ctx, 10)
	if err != nil || rep != (EmbedReport{Embedded: 2, Failed: 1, Remaining: 1}) {
		t.Errorf("second pass = %+v, %v; want 2 embedded, 1 failed and remaining", rep, err)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "vectors-fix", All: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"reembedded": 0, "evicted": 0, "failed": 1, "remaining": 1}, res.Counts); diff != "" || res.OK {
		t.Errorf("vectors-fix --all counts (-want +got):\n%s (ok %v); want it to stop on a failing text", diff, res.OK)
	}
}

func TestModelSwapDiagnoseFixRecall(t *testing.T) {
	emb := newFakeEmbedder("fake/a@1/4", semanticVectors())
	e := openSemanticEngine(t, emb, emb.state)
	ctx := context.Background()
	managerID := remember(t, e, "", manager)
	buildID := remember(t, e, "", build)
	mustEmbedPending(t, e)

	// Model B puts the question next to the build fact instead: if recall mixed spaces or
	// kept model A's vectors, it would still answer with the manager fact.
	emb.set(func(f *fakeEmbedder) {
		f.fp = "fake/b@2/3"
		f.vecs = map[string][]float32{manager: {1, 0, 0}, build: {0, 1, 0}, question: {0.1, 0.99, 0}}
	})
	diag, err := e.Admin(ctx, AdminRequest{Action: "vectors-diagnose"})
	if err != nil {
		t.Fatal(err)
	}
	if diag.OK || diag.Counts["space_stale"] != 2 || diag.Counts["stale"] != 2 || diag.Counts["legacy"] != 0 {
		t.Errorf("diagnose after the swap = %+v, want 2 stale, 2 space_stale", diag)
	}
	if res, _ := e.Recall(ctx, RecallRequest{Query: question}); len(res.Hits) != 0 {
		t.Errorf("recall before the fix = %+v, want nothing: model A's vectors are another space", res.Hits)
	}

	var progress [][2]int
	fix, err := e.Admin(ctx, AdminRequest{Action: "vectors-fix", All: true, Budget: 1,
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"reembedded": 2, "evicted": 0, "failed": 0, "remaining": 0}, fix.Counts); diff != "" || !fix.OK {
		t.Errorf("vectors-fix counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int{{1, 2}, {2, 2}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	diag, _ = e.Admin(ctx, AdminRequest{Action: "vectors-diagnose"})
	if !diag.OK || diag.Counts["current"] != 2 {
		t.Errorf("diagnose after the fix = %+v, want clean", diag)
	}
	res, err := e.Recall(ctx, RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != buildID {
		t.Errorf("recall after the fix = %+v, want only fact %d (not %d) from model B's space", res.Hits, buildID, managerID)
	}
}

func TestRecallAnswersWhenEmbedderIsDown(t *testing.T) {
	vecs := semanticVectors()
	vecs["build server port"] = []float32{0, 0, 1, 0}
	emb := newFakeEmbedder("fake/a@1/4", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	id := remember(t, e, "", build)
	mustEmbedPending(t, e)
	emb.set(func(f *fakeEmbedder) { f.down = true })

	res, err := e.Recall(context.Background(), RecallRequest{Query: "build server port"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != id || res.Hits[0].Legs.Semantic != 0 {
		t.Errorf("hits = %+v, want fact %d from the lexical leg alone", res.Hits, id)
	}
	if res.Semantic != "offline" {
		t.Errorf("Semantic = %q, want offline", res.Semantic)
	}
	if _, err := e.Admin(context.Background(), AdminRequest{Action: "vectors-fix"}); !errors.Is(err, ErrSemanticOff) {
		t.Errorf("vectors-fix while offline: err = %v, want ErrSemanticOff", err)
	}
}

func TestSemanticLegNeverReordersOtherLegs(t *testing.T) {
	// Both facts match the words and the lexical leg prefers the short one; the model finds
	// the other one much closer. The semantic leg is a supporter: it reports its cosine on
	// the hit but leaves the lexical order alone (a weak model must never subtract).
	const (
		short = "docker deploy"
		long  = "deploy the billing app with docker compose on friday"
		query = "deploy with docker"
	)
	emb := newFakeEmbedder("fake/a@1/3", map[string][]float32{short: {0, 1, 0}, long: {1, 0, 0}, query: {0.99, 0.1, 0}})
	e := openSemanticEngine(t, emb, emb.state)
	shortID := remember(t, e, "", short)
	longID := remember(t, e, "", long)
	emb.set(func(f *fakeEmbedder) { f.down = true })
	if got := recallIDs(t, e, RecallRequest{Query: query}); len(got) != 2 || got[0] != shortID {
		t.Fatalf("lexical ids = %v, want %d first (the premise of this test)", got, shortID)
	}
	emb.set(func(f *fakeEmbedder) { f.down = false })
	mustEmbedPending(t, e)
	res, err := e.Recall(context.Background(), RecallRequest{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].ID != shortID || res.Hits[1].ID != longID {
		t.Fatalf("fused hits = %+v, want the lexical order %d, %d", res.Hits, shortID, longID)
	}
	if h := res.Hits[1]; h.Legs.Semantic < 0.9 || h.SemanticOnly || !strings.Contains(h.Why, "semantic") {
		t.Errorf("hit %+v: want its cosine reported in legs and why, and not marked semantic-only", h)
	}
}

// TestSemanticOverOllama runs the production path: a real modelboot.Boot against the fake
// Ollama server. The server's embedding is a bag of pseudo-random token vectors, so texts
// sharing words are close and a text with no vocabulary word embeds to zero.
func TestSemanticOverOllama(t *testing.T) {
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "tiny", Dims: 32, Pooling: "mean",
		Vocabulary: []string{"manager", "likes", "minimal", "style", "boss", "build", "port"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	boot, err := modelboot.New(modelboot.Settings{Host: srv.Host(), Model: "tiny", MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 50 * time.Millisecond, HealthInterval: time.Hour}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- boot.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitPhase(t, boot, modelboot.PhaseReady)

	emb := modelboot.Retrieval{Boot: boot}
	e := openSemanticEngine(t, emb, func() string { return boot.State().String() })
	id := remember(t, e, "", "manager likes minimal style")
	remember(t, e, "", "build port")
	remember(t, e, "", "老王") // no vocabulary word: the zero vector
	rep := mustEmbedPending(t, e)
	if rep != (EmbedReport{Embedded: 2, Zero: 1}) {
		t.Errorf("EmbedPending = %+v, want 2 embedded and 1 zero", rep)
	}
	d, err := e.DiagnoseVectors(ctx)
	if err != nil || !strings.HasPrefix(d.Fingerprint, "v1/ollama/tiny:latest@") || d.Stale != 0 {
		t.Errorf("DiagnoseVectors = %+v, %v; want a clean v1 ollama space", d, err)
	}

	// "boss" shares no word with the fact, so only the semantic leg can find it; the
	// deterministic model gives "boss minimal style" most of the fact's tokens.
	res, err := e.Recall(ctx, RecallRequest{Query: "minimal style boss"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != id || res.Hits[0].Legs.Semantic == 0 {
		t.Errorf("hits = %+v, want fact %d with a semantic score", res.Hits, id)
	}

	// The server dies: the state turns offline and recall answers on the other legs.
	srv.Down()
	boot.Recheck()
	waitPhase(t, boot, modelboot.PhaseOffline)
	res, err = e.Recall(ctx, RecallRequest{Query: "minimal style boss"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Semantic != "offline" || len(res.Hits) == 0 || res.Hits[0].Legs.Semantic != 0 {
		t.Errorf("recall while offline = %+v, want lexical hits and semantic offline", res)
	}
}

func waitPhase(t *testing.T, b *modelboot.Boot, want modelboot.Phase) {
	t.Helper()
	states, unsubscribe := b.Subscribe()
	defer unsubscribe()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case st := <-states:
			if st.Phase == want {
				return
			}
		case <-timeout:
			t.Fatalf("state = %v after 10s, want %s", b.State(), want)
		}
	}
}

func TestRunCatchesUpVectorsAndStops(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the entity extractor (seconds)")
	}
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	emb := newFakeEmbedder("fake/a@1/4", semanticVectors())
	e, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), Options{Entities: x, Embedder: emb, SemanticState: emb.state})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	remember(t, e, "", manager)
	remember(t, e, "", build)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := e.DiagnoseVectors(context.Background())
		if err == nil && d.Stale == 0 && d.Current == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vectors after 10s of Run = %+v, %v; want 2 current", d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

// cancellingEmbedder cancels its caller's context on its third call (the first measures the
// model, the second embeds the first page), as a crash or a closed window would stop a pass
// in the middle.
type cancellingEmbedder struct {
	*fakeEmbedder
	cancel context.CancelFunc
	n      int
}

func (c *cancellingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.n++; c.n == 3 {
		c.cancel()
		return nil, ctx.Err()
	}
	return c.fakeEmbedder.Embed(ctx, texts)
}

func (c *cancellingEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return embedOneText(ctx, c, text)
}

func TestEmbedPendingResumesAfterCancel(t *testing.T) {
	vecs := map[string][]float32{}
	var texts []string
	for i := range 40 {
		text := fmt.Sprintf("fact number %d", i)
		texts = append(texts, text)
		vecs[text] = []float32{1, float32(i), 0}
	}
	fake := newFakeEmbedder("fake/a@1/3", vecs)
	ctx, cancel := context.WithCancel(context.Background())
	emb := &cancellingEmbedder{fakeEmbedder: fake, cancel: cancel}
	e := openSemanticEngine(t, emb, fake.state)
	const page = 16
	e.embedPage = page
	for _, text := range texts {
		remember(t, e, "", text)
	}
	if _, err := e.EmbedPending(ctx, 100); !errors.Is(err, context.Canceled) {
		t.Fatalf("EmbedPending = %v, want it cancelled in its second batch", err)
	}
	d, _ := e.DiagnoseVectors(context.Background())
	if d.Current != page || d.Stale != 40-page {
		t.Errorf("after the cancelled pass = %+v, want the first page of %d kept", d, page)
	}
	rep, err := e.EmbedPending(context.Background(), 100)
	if err != nil || rep != (EmbedReport{Embedded: 40 - page}) {
		t.Errorf("resumed pass = %+v, %v; want the other %d embedded", rep, err, 40-page)
	}
	for text, n := range fake.calls {
		if n != 1 {
			t.Errorf("%q embedded %d times, want once", text, n)
		}
	}
}

func TestSemanticOnlyHitsDoNotBlockTheRelaxedRetry(t *testing.T) {
	const (
		lexical = "notes on the python interpreter"
		meaning = "which release of the snake language we run"
		query   = "python version"
	)
	emb := newFakeEmbedder("fake/a@1/3", map[string][]float32{lexical: {0, 1, 0}, meaning: {1, 0, 0}, query: {0.98, 0.2, 0}})
	e := openSemanticEngine(t, emb, emb.state)
	lexID := remember(t, e, "", lexical)
	meaningID := remember(t, e, "", meaning)
	mustEmbedPending(t, e)
	res, err := e.Recall(context.Background(), RecallRequest{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	// The semantic leg's find does not keep the lexical leg from answering (strictly or in
	// its relaxed retry), and the lexical answer comes first.
	if len(res.Hits) != 2 || res.Hits[0].ID != lexID || res.Hits[1].ID != meaningID || !res.Hits[1].SemanticOnly {
		t.Errorf("hits = %+v (relaxed %v); want %d (lexical) then %d (semantic only)", res.Hits, res.Relaxed, lexID, meaningID)
	}
}

func TestCalibrate(t *testing.T) {
	const dims = 128
	basis := func(i int) []float32 {
		v := make([]float32, dims)
		v[i] = 1
		return v
	}
	// Noise probes: orthogonal, except probe 1 at cosine 0.8 with probe 0.
	noise := func(n int) [][]float32 {
		var out [][]float32
		for i := range n {
			out = append(out, basis(i))
		}
		if n > 1 {
			out[1] = make([]float32, dims)
			out[1][0], out[1][1] = 0.8, 0.6
		}
		return out
	}
	// pairs are n paraphrase pairs, told at cosine cos; the first zero of them embed to zero.
	pairs := func(cos float32, n, zero int) [][]float32 {
		var out [][]float32
		for i := range n {
			if i < zero {
				out = append(out, make([]float32, dims), make([]float32, dims))
				continue
			}
			b := make([]float32, dims)
			b[100], b[101] = cos, float32(math.Sqrt(float64(1-cos*cos)))
			out = append(out, basis(100), b)
		}
		return out
	}
	tests := []struct {
		name              string
		noise, paraphrase [][]float32
		noiseFloor        float64
		strength          float64
		role              string
	}{
		{"paraphrases told from noise: the model leads", noise(36), pairs(0.95, 24, 0), 0.8, 1, "leading"},
		{"paraphrases no closer than noise: no say", noise(36), pairs(0.8, 24, 0), noSemantics, 0, "no say"},
		{"too few pairs to judge", noise(36), pairs(0.5, minParaphraseProbes-1, 0), 0.8, 0, "supporting"},
		{"too few probes to measure", noise(minNoiseProbes - 1), pairs(0.95, 24, 0), 0, 0, "supporting"},
		{"zero and missing vectors are no evidence", append(noise(36), nil, []float32{}, make([]float32, dims)), pairs(0.95, 24, 0), 0.8, 1, "leading"},
		// A model blind to one language (GloVe's Chinese embeds to zero) tells the pairs it
		// can embed, but cannot lead a bilingual store.
		{"one language blind: supports", noise(36), pairs(0.95, 24, 12), 0.8, 0.5, "supporting"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := calibrate(tc.noise, tc.paraphrase)
			if math.Abs(got.Noise-tc.noiseFloor) > 1e-6 || math.Abs(got.Strength-tc.strength) > 1e-6 || got.Role() != tc.role {
				t.Errorf("calibrate = noise %v strength %v role %s, want %v, %v, %s (%+v)",
					got.Noise, got.Strength, got.Role(), tc.noiseFloor, tc.strength, tc.role, got)
			}
		})
	}
}

func TestSemanticFloorIsCalibratedPerModel(t *testing.T) {
	// A model whose unrelated probes reach cosine 0.8 with each other: a cosine of 0.7 is
	// noise for it even though it clears the configured 0.5.
	vecs := map[string][]float32{}
	const dims = 100
	unit := func(parts map[int]float32) []float32 {
		v := make([]float32, dims)
		for i, x := range parts {
			v[i] = x
		}
		return v
	}
	for i, p := range probes.Noise() {
		vecs[p] = unit(map[int]float32{i: 1})
	}
	vecs[probes.Noise()[1]] = unit(map[int]float32{0: 0.8, 1: 0.6})
	// Two thirds of the paraphrases are told apart: a model that supports, not one that leads.
	for i, p := range probes.Paraphrases() {
		vecs[p[0]] = unit(map[int]float32{40 + i: 1})
		if i%3 == 0 {
			vecs[p[1]] = unit(map[int]float32{70 + i: 1})
		} else {
			vecs[p[1]] = unit(map[int]float32{40 + i: 1})
		}
	}
	const (
		fact  = "the team offsite is in Lisbon"
		near  = "where do we travel for the retreat"
		noisy = "how tall is the eiffel tower"
	)
	vecs[fact] = unit(map[int]float32{95: 1})
	vecs[near] = unit(map[int]float32{95: 0.9, 96: 0.436})  // cosine 0.9
	vecs[noisy] = unit(map[int]float32{95: 0.7, 97: 0.714}) // cosine 0.7
	emb := newFakeEmbedder("fake/calibrated@1/100", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	id := remember(t, e, "", fact)
	mustEmbedPending(t, e)

	res, err := e.Recall(context.Background(), RecallRequest{Query: near})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != id || !res.Hits[0].SemanticOnly {
		t.Errorf("%q = %+v, want fact %d from the semantic leg", near, res.Hits, id)
	}
	if got := res.Floors.MinSemanticSimilarity; math.Abs(got-0.8) > 1e-6 {
		t.Errorf("semantic floor applied = %v, want the model's noise floor 0.8", got)
	}
	res, err = e.Recall(context.Background(), RecallRequest{Query: noisy})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("%q = %+v, want nothing: cosine 0.7 is below this model's noise", noisy, res.Hits)
	}
	for _, p := range probes.Noise() {
		if n := emb.calls[p]; n != 1 {
			t.Errorf("probe %q embedded %d times, want once per vector space", p, n)
		}
	}
}

// TestCalibrationIsStoredPerSpace: a space's model is measured once and the measurement
// lives in the database: another process (a new engine on the same file) uses it without
// embedding a probe, and reports the role it earned.
func TestCalibrationIsStoredPerSpace(t *testing.T) {
	const dims = 128
	vecs := map[string][]float32{}
	for i, p := range probes.Noise() {
		vecs[p] = make([]float32, dims)
		vecs[p][i] = 1
	}
	for i, p := range probes.Paraphrases() {
		v := make([]float32, dims)
		v[64+i] = 1
		vecs[p[0]], vecs[p[1]] = v, v
	}
	vecs[manager] = make([]float32, dims)
	vecs[manager][120] = 1
	vecs[question] = make([]float32, dims)
	vecs[question][120], vecs[question][121] = 0.9, 0.436
	path := filepath.Join(t.TempDir(), "memdesk.db")
	open := func(emb *fakeEmbedder) *Engine {
		t.Helper()
		e, err := Open(context.Background(), path, Options{Embedder: emb, SemanticState: emb.state})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	first := newFakeEmbedder("fake/stored@1/128", vecs)
	e := open(first)
	id := remember(t, e, "", manager)
	mustEmbedPending(t, e)
	res, err := e.Recall(context.Background(), RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != id || res.Floors.SemanticRole != "leading" {
		t.Fatalf("recall = %+v, floors %+v; want fact %d found by a leading semantic leg", res.Hits, res.Floors, id)
	}
	if st, err := e.Stats(context.Background()); err != nil || st.SemanticRole != "leading" || !strings.Contains(st.RoleWhy, "told 24 of 24") {
		t.Errorf("Stats = %+v, %v; want role leading and why it leads", st, err)
	}
	diag, err := e.Admin(context.Background(), AdminRequest{Action: "vectors-diagnose"})
	if details := strings.Join(diag.Details, "\n"); err != nil || !strings.Contains(details, "semantic role: leading") ||
		!strings.Contains(details, "strength 1.00 (lead from 0.75)") {
		t.Errorf("vectors-diagnose = %q, %v; want the role and what it was decided from", details, err)
	}
	e.Close()

	second := newFakeEmbedder("fake/stored@1/128", vecs)
	e = open(second)
	defer e.Close()
	if _, err := e.Recall(context.Background(), RecallRequest{Query: question}); err != nil {
		t.Fatal(err)
	}
	for _, p := range probes.Noise() {
		if n := second.calls[p]; n != 0 {
			t.Fatalf("probe %q embedded %d times by the second engine, want 0: the measurement is stored", p, n)
		}
	}
	if role, _ := e.SemanticRole(context.Background()); role != "leading" {
		t.Errorf("SemanticRole after reopening = %q, want leading", role)
	}
}

// gatedEmbedder holds back the calibration probes until open is closed.
type gatedEmbedder struct {
	*fakeEmbedder
	open chan struct{}
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 0 && texts[0] == probes.Noise()[0] {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.fakeEmbedder.Embed(ctx, texts)
}

// TestRecallNeverWaitsForTheMeasurement: where Run keeps the semantic leg going, a recall
// asked while the model is still being measured answers at once on the other legs and
// says so; once the measurement is done, the leg joins.
func TestRecallNeverWaitsForTheMeasurement(t *testing.T) {
	vecs := semanticVectors()
	gated := &gatedEmbedder{fakeEmbedder: newFakeEmbedder("fake/gated@1/4", vecs), open: make(chan struct{})}
	e := openSemanticEngine(t, gated, gated.state)
	id := remember(t, e, "", manager)
	// The fact's vector is stored before the measurement ends, as an earlier pass or
	// another process would have left it (EmbedPending itself waits for the measurement):
	// a recall that used the leg unmeasured would find the fact by it.
	v := slices.Clone(vecs[manager])
	normalizeVector(v)
	if _, err := e.st.PutVectors(context.Background(), e.fingerprint(), []store.Vector{{Kind: store.KindFact, ID: id, Text: manager, Vec: v}}); err != nil {
		t.Fatal(err)
	}
	e.semanticRunning.Store(true) // as Run does
	res, err := e.Recall(context.Background(), RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || !strings.Contains(strings.Join(res.Notes, " "), "still being measured") {
		t.Fatalf("recall during the measurement = %+v, notes %q; want no semantic hit and a note", res.Hits, res.Notes)
	}
	close(gated.open)
	deadline := time.Now().Add(time.Minute)
	for {
		res, err = e.Recall(context.Background(), RecallRequest{Query: question})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 1 && res.Hits[0].ID == id {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the probes embedded, recall = %+v, notes %q; want fact %d", res.Hits, res.Notes, id)
		}
		runtime.Gosched()
	}
}

// TestCloseEndsAMeasurement: closing the engine stops a model measurement in flight and
// waits for it, so it never writes to the closed store.
func TestCloseEndsAMeasurement(t *testing.T) {
	gated := &gatedEmbedder{fakeEmbedder: newFakeEmbedder("fake/gated@1/4", semanticVectors()), open: make(chan struct{})}
	e, err := Open(context.Background(), filepath.Join(t.TempDir(), "memdesk.db"), Options{Embedder: gated, SemanticState: gated.state})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.calibrationOf(context.Background(), e.fingerprint(), 0); ok {
		t.Fatal("measured although the probes are held back")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e.calib.mu.Lock()
	defer e.calib.mu.Unlock()
	if len(e.calib.inflight) != 0 {
		t.Errorf("a measurement is still in flight after Close: %v", e.calib.inflight)
	}
}
