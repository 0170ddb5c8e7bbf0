package modelboot

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitBound bounds every wait for a state; tests assert what happens, never
// how fast.
const waitBound = 2 * time.Minute

const tinyModel = "tiny"

func tinyWith(mod func(*ollamatest.Model)) ollamatest.Model {
	m := ollamatest.Model{Name: tinyModel, Dims: 16, ContextLength: 512, Pooling: "cls"}
	if mod != nil {
		mod(&m)
	}
	return m
}

func newServer(t *testing.T, models ...ollamatest.Model) *ollamatest.Server {
	t.Helper()
	srv, err := ollamatest.NewServer(models...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// fastSettings retries and health-checks often so that tests move along.
func fastSettings(srv *ollamatest.Server) Settings {
	return Settings{
		Host:           srv.Host(),
		Model:          tinyModel,
		ProbeTimeout:   2 * time.Second,
		EmbedTimeout:   5 * time.Second,
		MinBackoff:     5 * time.Millisecond,
		MaxBackoff:     50 * time.Millisecond,
		HealthInterval: 20 * time.Millisecond,
	}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// start runs b.Run until the test ends, then stops it, closes srv and checks
// that no goroutine was left behind.
func start(t *testing.T, srv *ollamatest.Server, set Settings) *Boot {
	t.Helper()
	b, err := New(set, testLogger(t))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
		case <-time.After(waitBound):
			t.Errorf("Run did not return within %s of cancel", waitBound)
		}
		srv.Close()
	})
	return b
}

func waitFor(t *testing.T, b *Boot, what string, ok func(State) bool) State {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		st := b.State()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("state is %q (%+v), still waiting for %s", st, st, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func phaseIs(p Phase) func(State) bool { return func(s State) bool { return s.Phase == p } }

// recorder collects every state a subscriber reads.
type recorder struct {
	mu     sync.Mutex
	states []State
	stop   func()
	done   chan struct{}
}

func record(b *Boot) *recorder {
	ch, stop := b.Subscribe()
	r := &recorder{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for s := range ch {
			r.mu.Lock()
			r.states = append(r.states, s)
			r.mu.Unlock()
		}
	}()
	return r
}

// finish unsubscribes, waits for the reader and returns what it saw.
func (r *recorder) finish() []State {
	r.stop()
	<-r.done
	return r.states
}

func TestBootReachesReady(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := start(t, srv, fastSettings(srv))

	got := waitFor(t, b, "ready", phaseIs(PhaseReady))
	want := State{Phase: PhaseReady, Model: "tiny:latest", Digest: srv.Digest(tinyModel), Dims: 16, ContextLength: 512, Pooling: "cls"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if got.String() != "ready" {
		t.Errorf("String() = %q, want %q", got.String(), "ready")
	}
	wantRep := Representation{Backend: "ollama", Model: "tiny:latest", Digest: srv.Digest(tinyModel), Dims: 16,
		Pooling: "cls", Normalization: "l2", InputWindow: 512}
	if diff := cmp.Diff(wantRep, b.Representation()); diff != "" {
		t.Errorf("Representation (-want +got):\n%s", diff)
	}
	if n := srv.Requests("/api/pull"); n != 0 {
		t.Errorf("pulled %d times, want 0: the model was there", n)
	}
}

func TestBootUndeclaredModelInfo(t *testing.T) {
	srv := newServer(t, tinyWith(func(m *ollamatest.Model) { m.Pooling, m.NoContextLength = "", true }))
	b := start(t, srv, fastSettings(srv))

	waitFor(t, b, "ready", phaseIs(PhaseReady))
	rep := b.Representation()
	if rep.Pooling != Undeclared || rep.InputWindow != 0 {
		t.Errorf("pooling %q, window %d; want %q, 0", rep.Pooling, rep.InputWindow, Undeclared)
	}
	wantPrefix := "ollama/tiny:latest@" + srv.Digest(tinyModel)[:12] + "/16/undeclared/l2/undeclared"
	if rep.String() != wantPrefix {
		t.Errorf("String() = %q, want %q", rep.String(), wantPrefix)
	}
}

func TestBootPullsMissingModel(t *testing.T) {
	srv := newServer(t)
	srv.AddPullable(tinyWith(nil))
	// Hold the pull halfway until the test has seen it there.
	release := make(chan struct{})
	srv.SetPullHook(func(step, steps int) {
		if step == steps/2+1 {
			<-release
		}
	})
	b := start(t, srv, fastSettings(srv))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before start's cleanup
	rec := record(b)

	mid := waitFor(t, b, "pulling past 0%", func(s State) bool { return s.Phase == PhasePulling && s.Percent > 0 })
	if mid.Percent >= 100 || !strings.HasPrefix(mid.String(), "pulling ") || !strings.HasSuffix(mid.String(), "%") {
		t.Errorf("mid-pull state %q, want \"pulling n%%\" with n < 100", mid)
	}
	once.Do(func() { close(release) })
	waitFor(t, b, "ready", phaseIs(PhaseReady))
	states := rec.finish()

	var pcts []float64
	for _, s := range states {
		if s.Phase == PhasePulling {
			pcts = append(pcts, s.Percent)
		}
	}
	if len(pcts) == 0 {
		t.Fatalf("subscriber saw no pulling state in %v", states)
	}
	for i := 1; i < len(pcts); i++ {
		if pcts[i] < pcts[i-1] {
			t.Errorf("pull percent went down: %v", pcts)
		}
	}
	if last := states[len(states)-1]; last.Phase != PhaseReady {
		t.Errorf("last state seen %q, want ready", last)
	}
}

func TestBootPullFailsThenRetrySucceeds(t *testing.T) {
	srv := newServer(t)
	srv.AddPullable(tinyWith(nil))
	srv.FailPulls(1)
	set := fastSettings(srv)
	set.MinBackoff, set.MaxBackoff = time.Hour, time.Hour // only Recheck retries
	b := start(t, srv, set)

	failed := waitFor(t, b, "failed", phaseIs(PhaseFailed))
	if !strings.Contains(failed.Reason, "max retries exceeded") {
		t.Errorf("reason %q, want the server's error", failed.Reason)
	}
	if !strings.HasPrefix(failed.String(), "failed: pull tiny: ") {
		t.Errorf("String() = %q, want \"failed: pull tiny: ...\"", failed.String())
	}
	if _, err := b.Embed(t.Context(), []string{"x"}); !errors.Is(err, ErrNotReady) {
		t.Errorf("Embed while failed: %v, want ErrNotReady", err)
	}
	b.Recheck()
	waitFor(t, b, "ready after retry", phaseIs(PhaseReady))
	if n := srv.Requests("/api/pull"); n != 2 {
		t.Errorf("pulled %d times, want 2", n)
	}
}

func TestBootModelUnknownToRegistryFails(t *testing.T) {
	srv := newServer(t)
	b := start(t, srv, fastSettings(srv))
	st := waitFor(t, b, "failed", phaseIs(PhaseFailed))
	if !strings.Contains(st.Reason, "file does not exist") {
		t.Errorf("reason %q, want the registry's answer", st.Reason)
	}
}

func TestBootOfflineUntilServerComesUp(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	srv.Down()
	b := start(t, srv, fastSettings(srv))

	st := waitFor(t, b, "offline", phaseIs(PhaseOffline))
	if !strings.Contains(st.Reason, "refused") {
		t.Errorf("offline reason %q, want connection refused", st.Reason)
	}
	if _, err := b.Embed(t.Context(), []string{"x"}); !errors.Is(err, ErrOffline) {
		t.Errorf("Embed while offline: %v, want ErrOffline", err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "ready once the server is up", phaseIs(PhaseReady))
}

func TestBootServerDiesWhileReady(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := start(t, srv, fastSettings(srv))
	waitFor(t, b, "ready", phaseIs(PhaseReady))

	srv.Down()
	off := waitFor(t, b, "offline", phaseIs(PhaseOffline))
	if off.Model != "tiny:latest" || off.Dims != 16 {
		t.Errorf("offline state %+v lost the model fields", off)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, "ready again", phaseIs(PhaseReady))
	if _, err := b.Embed(t.Context(), []string{"back again"}); err != nil {
		t.Errorf("Embed after recovery: %v", err)
	}
}

func TestBootSlowServerIsOffline(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	srv.SetDelay("/api/version", time.Hour)
	set := fastSettings(srv)
	set.ProbeTimeout = 20 * time.Millisecond
	b := start(t, srv, set)

	st := waitFor(t, b, "offline", phaseIs(PhaseOffline))
	if st.Reason != "no answer in time" {
		t.Errorf("reason %q, want %q", st.Reason, "no answer in time")
	}
	srv.SetDelay("/api/version", 0)
	waitFor(t, b, "ready", phaseIs(PhaseReady))
}

func TestBootNotAnEmbeddingModelFails(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	srv.SetStatus("/api/embed", 400, `"tiny" does not support embeddings`)
	b := start(t, srv, fastSettings(srv))
	st := waitFor(t, b, "failed", phaseIs(PhaseFailed))
	if want := `warm up: "tiny" does not support embeddings`; st.Reason != want {
		t.Errorf("reason %q, want %q", st.Reason, want)
	}
}

func TestBootNoticesModelReplaced(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := start(t, srv, fastSettings(srv))
	first := waitFor(t, b, "ready", phaseIs(PhaseReady))

	srv.AddModel(tinyWith(func(m *ollamatest.Model) { m.Dims = 24 }))
	second := waitFor(t, b, "ready on the new digest", func(s State) bool {
		return s.Phase == PhaseReady && s.Digest != first.Digest
	})
	if second.Digest != srv.Digest(tinyModel) || second.Dims != 24 {
		t.Errorf("after replace: digest %.12s dims %d; want %.12s 24", second.Digest, second.Dims, srv.Digest(tinyModel))
	}
}

func TestBootModelRemovedWhileReady(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	set := fastSettings(srv)
	set.HealthInterval = time.Hour // only Embed's recheck notices
	b := start(t, srv, set)
	waitFor(t, b, "ready", phaseIs(PhaseReady))

	srv.RemoveModel(tinyModel)
	if _, err := b.Embed(t.Context(), []string{"hello"}); !errors.Is(err, ErrModelMissing) {
		t.Errorf("Embed after rm: %v, want ErrModelMissing", err)
	}
	// The server's registry does not have it either.
	waitFor(t, b, "failed", phaseIs(PhaseFailed))
}

func TestSubscribe(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b, err := New(fastSettings(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	slow, stopSlow := b.Subscribe()
	rec := record(b)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	waitFor(t, b, "ready", phaseIs(PhaseReady))
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	srv.Close()

	// A reader that never read holds only the latest state.
	if got := <-slow; got.Phase != PhaseReady {
		t.Errorf("slow subscriber's only state %q, want ready", got)
	}
	select {
	case s := <-slow:
		t.Errorf("slow subscriber has a second state %q", s)
	default:
	}
	stopSlow()
	stopSlow() // idempotent
	if _, open := <-slow; open {
		t.Error("channel still open after unsubscribe")
	}

	states := rec.finish()
	if len(states) < 2 || states[0].Phase != PhaseStarting || states[len(states)-1].Phase != PhaseReady {
		t.Errorf("states seen %v, want starting first and ready last", states)
	}
	for i := 1; i < len(states); i++ {
		if states[i] == states[i-1] {
			t.Errorf("state %q published twice in a row", states[i])
		}
	}
	goleak.VerifyNone(t)
}

func TestRunTwice(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := start(t, srv, fastSettings(srv))
	waitFor(t, b, "ready", phaseIs(PhaseReady))
	if err := b.Run(t.Context()); err == nil {
		t.Error("second concurrent Run returned nil, want an error")
	}
}

func TestNewRejectsBadHost(t *testing.T) {
	for _, host := range []string{"ftp://x:1", "127.0.0.1:99999", "localhost:port"} {
		if _, err := New(Settings{Host: host}, nil); err == nil {
			t.Errorf("New(Host %q) = nil error, want one", host)
		}
	}
}

func TestHostURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"127.0.0.1:11435", "http://127.0.0.1:11435"},
		{"example.org", "http://example.org:11434"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080"},
		{"[::]:11434", "http://[::1]:11434"},
		{"[::1]", "http://[::1]:11434"},
		{"http://gpu.lan", "http://gpu.lan:80"},
		{"https://gpu.lan/ollama", "https://gpu.lan:443/ollama"},
		{" http://10.0.0.2:11434 ", "http://10.0.0.2:11434"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := hostURL(tt.in)
			if err != nil {
				t.Fatalf("hostURL(%q): %v", tt.in, err)
			}
			if got := u.String(); got != tt.want {
				t.Errorf("hostURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	lo, hi := 500*time.Millisecond, 30*time.Second
	tests := []struct {
		n    int
		want time.Duration
	}{
		{1, 500 * time.Millisecond}, {2, time.Second}, {3, 2 * time.Second}, {7, 30 * time.Second}, {1000, 30 * time.Second},
	}
	for _, tt := range tests {
		if got := backoff(lo, hi, tt.n); got != tt.want {
			t.Errorf("backoff(%d) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

func TestStateString(t *testing.T) {
	tests := []struct {
		st   State
		want string
	}{
		{State{Phase: PhaseStarting}, "starting"},
		{State{Phase: PhaseOffline, Reason: "connection refused"}, "offline"},
		{State{Phase: PhasePulling, Percent: 42.9}, "pulling 42%"},
		{State{Phase: PhaseWarming}, "warming"},
		{State{Phase: PhaseReady}, "ready"},
		{State{Phase: PhaseFailed, Reason: "pull bge-m3: no space left"}, "failed: pull bge-m3: no space left"},
		{State{Phase: PhaseFailed}, "failed"},
	}
	for _, tt := range tests {
		if got := tt.st.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.st, got, tt.want)
		}
	}
}

func TestModelInfo(t *testing.T) {
	tests := []struct {
		name        string
		info        map[string]any
		wantCtx     int
		wantPooling string
	}{
		{"bert cls", map[string]any{"general.architecture": "bert", "bert.context_length": 8192.0, "bert.pooling_type": 2.0}, 8192, "cls"},
		{"qwen3 last", map[string]any{"general.architecture": "qwen3", "qwen3.context_length": 32768.0, "qwen3.pooling_type": 3.0}, 32768, "last"},
		{"no pooling", map[string]any{"general.architecture": "nomic-bert", "nomic-bert.context_length": 2048.0}, 2048, Undeclared},
		{"unknown pooling", map[string]any{"general.architecture": "bert", "bert.pooling_type": 9.0}, 0, Undeclared},
		{"no architecture", map[string]any{"bert.context_length": 512.0}, 0, Undeclared},
		{"nil", nil, 0, Undeclared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctxLen, pooling := modelInfo(tt.info)
			if ctxLen != tt.wantCtx || pooling != tt.wantPooling {
				t.Errorf("modelInfo = %d, %q; want %d, %q", ctxLen, pooling, tt.wantCtx, tt.wantPooling)
			}
		})
	}
}

func TestCanonicalModel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bge-m3", "bge-m3:latest"},
		{"BGE-M3:latest", "bge-m3:latest"},
		{"qwen3-embedding:0.6b", "qwen3-embedding:0.6b"},
		{"registry.ollama.ai/library/bge-m3:latest", "bge-m3:latest"},
		{"host:5000/me/model", "host:5000/me/model:latest"},
	}
	for _, tt := range tests {
		if got := canonicalModel(tt.in); got != tt.want {
			t.Errorf("canonicalModel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBootPullBreaksOff(t *testing.T) {
	tests := []struct {
		name      string
		breakPull func(srv *ollamatest.Server)
		want      Phase
		reason    string
	}{
		{
			name:      "stream cut, server up",
			breakPull: func(srv *ollamatest.Server) { srv.CutPulls(1) },
			want:      PhaseFailed,
			reason:    "pull tiny: the download broke off before it finished",
		},
		{
			name: "server dies mid-pull",
			breakPull: func(srv *ollamatest.Server) {
				srv.SetPullHook(func(step, steps int) {
					if step == steps/2 {
						srv.Down()
					}
				})
			},
			want:   PhaseOffline,
			reason: "refused",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			srv.AddPullable(tinyWith(nil))
			tt.breakPull(srv)
			set := fastSettings(srv)
			set.MinBackoff, set.MaxBackoff = time.Hour, time.Hour // only Recheck retries
			b := start(t, srv, set)

			st := waitFor(t, b, string(tt.want), phaseIs(tt.want))
			if !strings.Contains(st.Reason, tt.reason) {
				t.Errorf("state %q, reason %q; want the reason to contain %q", st, st.Reason, tt.reason)
			}
			srv.SetPullHook(nil)
			if err := srv.Up(); err != nil {
				t.Fatal(err)
			}
			b.Recheck()
			waitFor(t, b, "ready after the next pull", phaseIs(PhaseReady))
		})
	}
}

// TestBootEmbedsKeepFailing: a server whose health check passes but whose every embed
// answers 500 is not "ready": after failingEmbeds failed calls the state says why, Run keeps
// trying to warm the model, and the first embed that works makes it ready again.
func TestBootEmbedsKeepFailing(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := start(t, srv, fastSettings(srv))
	waitFor(t, b, "ready", phaseIs(PhaseReady))

	srv.FailAfter("/api/embed", 0, 0, http.StatusInternalServerError, "llama runner process has terminated")
	for i := range failingEmbeds - 1 {
		if _, err := b.Embed(context.Background(), []string{"a text"}); err == nil {
			t.Fatalf("embed %d succeeded against a failing server", i)
		}
	}
	if st := b.State(); st.Phase != PhaseReady {
		t.Errorf("after %d failed embeds the state is %q; one failure short of the limit should leave it ready", failingEmbeds-1, st)
	}
	b.Embed(context.Background(), []string{"a text"})
	st := waitFor(t, b, "failed", phaseIs(PhaseFailed))
	if !strings.Contains(st.Reason, "llama runner process has terminated") {
		t.Errorf("state %q does not say why", st)
	}

	srv.SetStatus("/api/embed", 0, "")
	waitFor(t, b, "ready again", phaseIs(PhaseReady))
	if _, err := b.Embed(context.Background(), []string{"a text"}); err != nil {
		t.Errorf("embed after recovery: %v", err)
	}
}

// TestBootEmbedsAnswerBroken: a server whose health check passes but whose every embed
// answers something that is not an answer (a garbled body, a connection cut mid-answer)
// is not "ready" and not "offline": after failingEmbeds failed calls the state says failed
// and why, and the first embed that works again makes it ready.
func TestBootEmbedsAnswerBroken(t *testing.T) {
	for _, tc := range []struct {
		name   string
		broken ollamatest.Broken
		reason string
	}{
		{"garbled", ollamatest.Garbled, "not a valid answer"},
		{"cut", ollamatest.Cut, "cut off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tinyWith(nil))
			b := start(t, srv, fastSettings(srv))
			waitFor(t, b, "ready", phaseIs(PhaseReady))

			srv.SetBroken("/api/embed", tc.broken)
			for i := range failingEmbeds {
				if _, err := b.Embed(context.Background(), []string{"a text"}); err == nil {
					t.Fatalf("embed %d succeeded against a broken server", i)
				} else if errors.Is(err, ErrOffline) {
					t.Errorf("embed %d: %v; the server answers its health check, it is not offline", i, err)
				}
			}
			st := waitFor(t, b, "failed", phaseIs(PhaseFailed))
			if !strings.Contains(st.Reason, tc.reason) {
				t.Errorf("state %q does not say the answer was %s", st, tc.reason)
			}
			// Run warms the model again, and the warm-up embed is broken too: the state stays
			// failed (never offline, never ready) until the server heals.
			for range 3 {
				before := srv.Requests("/api/embed")
				waitFor(t, b, "another warm-up attempt", func(State) bool { return srv.Requests("/api/embed") > before })
				if st := b.State(); st.Phase == PhaseOffline || st.Phase == PhaseReady {
					t.Fatalf("while every embed is %s, the state is %q", tc.name, st)
				}
			}

			srv.SetBroken("/api/embed", ollamatest.Whole)
			waitFor(t, b, "ready again", phaseIs(PhaseReady))
			if _, err := b.Embed(context.Background(), []string{"a text"}); err != nil {
				t.Errorf("embed after recovery: %v", err)
			}
		})
	}
}

// TestBootWarmUpHangHeals: a warm-up embed that hangs is retried in short attempts, so a
// server that answers again is ready within one attempt, not after the whole warm-up
// budget; while it hangs the state is warming and says for how long.
func TestBootWarmUpHangHeals(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	srv.SetDelay("/api/embed", time.Hour)
	set := fastSettings(srv)
	set.WarmTimeout = time.Hour
	set.WarmAttemptTimeout = 50 * time.Millisecond
	b := start(t, srv, set)
	waitFor(t, b, "a warm-up attempt to time out", func(st State) bool {
		return st.Phase == PhaseWarming && strings.Contains(st.Reason, "no answer yet")
	})
	srv.SetDelay("/api/embed", 0)
	// The bound is waitBound (minutes), far under the hour of warm-up budget the old single
	// attempt would have waited out.
	waitFor(t, b, "ready once the server answers", phaseIs(PhaseReady))
}
