package modelboot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
)

// warmupText is embedded once to load the model and measure its width. It
// holds common English words so that bag-of-words models give a non-zero
// vector, though a zero vector would still tell the width.
const warmupText = "memdesk checks that the embedding model is ready"

// pullStallTimeout cancels a pull that sends no progress for this long; a
// pull as such has no deadline, a multi-gigabyte model may take an hour.
const pullStallTimeout = 2 * time.Minute

// Boot brings an Ollama embedding model up and keeps track of it. Its
// methods are safe for concurrent use; Run may run once at a time.
type Boot struct {
	set      Settings
	template InputTemplate // how set.Model wants its inputs worded
	log      *slog.Logger
	client   *api.Client
	http     *http.Client
	ownHTTP  bool // http is ours: close its idle connections when Run ends

	hub    stateHub
	wake   chan struct{} // Recheck: one pending wake-up is enough
	rewarm atomic.Bool   // Embed saw a width change; measure again
	// oddWidth is the width of the last vector Embed refused as of another width than the
	// warm-up measured (0: none since the last warm-up): when the next warm-up measures the
	// old width again, the server answers widths at random, and the state must not say ready.
	oddWidth atomic.Int64
	running  atomic.Bool
	// embedFailures counts Embed calls in a row that the server answered with an error;
	// brokenEmbed is the last one's reason once they reach failingEmbeds.
	embedFailures atomic.Int32
	brokenEmbed   atomic.Pointer[string]

	queries queryLane // EmbedQuery calls in flight: batch requests let them go first
	pace    pace      // sizes Embed's requests
}

// failingEmbeds is how many Embed calls in a row the server must fail (answering, with an
// error such as HTTP 500) before the state stops saying ready: one may be a hiccup, several
// mean the model cannot embed now, whatever the health check (which does not embed) says.
const failingEmbeds = 3

// New checks s and returns a Boot in the starting phase. It starts no
// goroutines and makes no calls; [Boot.Run] does the work.
func New(s Settings, log *slog.Logger) (*Boot, error) {
	s = s.withDefaults()
	base, err := hostURL(s.Host)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc, own := s.HTTPClient, false
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		own = true
	}
	b := &Boot{
		set:      s,
		template: TemplateFor(s.Model),
		log:      log.With("ollama", base.String(), "model", s.Model),
		client:   api.NewClient(base, hc),
		http:     hc,
		ownHTTP:  own,
		wake:     make(chan struct{}, 1),
	}
	b.hub.cur = State{Phase: PhaseStarting, Model: s.Model, Pooling: Undeclared}
	return b, nil
}

// State returns the current state.
func (b *Boot) State() State { return b.hub.get() }

// Subscribe returns a channel of state changes, starting with the current
// state, and a func that unsubscribes and closes the channel. The channel
// holds only the latest unread state: a slow reader misses intermediate
// states, never the last one, and never blocks the bootstrap.
func (b *Boot) Subscribe() (<-chan State, func()) { return b.hub.subscribe() }

// Recheck asks Run to probe the server now rather than at its next backoff
// or health tick: the GUI's retry button, or a caller that saw an embed fail.
// It never blocks.
func (b *Boot) Recheck() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Run brings the model up and keeps it up until ctx is done, then returns
// nil. It reaches the server with capped exponential backoff, pulls the model
// when the server lacks it, warms it, and while ready checks every
// HealthInterval (or at once after [Boot.Recheck]) that server and model are
// still there, going back to offline and recovering when they are not.
// Every call it makes is bounded by ctx. Run starts no goroutine that
// outlives it. It returns an error only if another Run is active.
func (b *Boot) Run(ctx context.Context) error {
	if !b.running.CompareAndSwap(false, true) {
		return errors.New("modelboot: Run is already running")
	}
	defer b.running.Store(false)
	if b.ownHTTP {
		defer b.http.CloseIdleConnections()
	}
	failures := 0
	for {
		err := b.bootstrap(ctx, true)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			failures++
			delay := backoff(b.set.MinBackoff, b.set.MaxBackoff, failures)
			b.log.Debug("ollama bootstrap will retry", "in", delay, "attempt", failures, "err", err)
			if !b.pause(ctx, delay) {
				return nil
			}
			continue
		}
		failures = 0
		b.watch(ctx)
		if ctx.Err() != nil {
			return nil
		}
	}
}

// backoff is the delay before retry number n (1-based): lo doubled n-1
// times, capped at hi.
func backoff(lo, hi time.Duration, n int) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(d, hi)
}

// pause waits d, or less after a Recheck; false when ctx is done.
func (b *Boot) pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-b.wake:
	}
	return true
}

// Check makes one attempt, bounded by ctx, to bring the model to ready, for a
// command that runs once and cannot wait for [Boot.Run]: reach the server,
// find the model, warm it with one tiny embed. It never pulls: a model the
// server lacks ends failed, "not installed", with [ErrModelMissing]. It returns
// nil when the state is ready; otherwise the state says why not, or stays
// where it was when ctx ended first. It must not run while Run does. A Boot
// used without Run should have CloseIdleConnections called when done.
func (b *Boot) Check(ctx context.Context) error {
	if !b.running.CompareAndSwap(false, true) {
		return errors.New("modelboot: Check while Run is running")
	}
	defer b.running.Store(false)
	return b.bootstrap(ctx, false)
}

// CloseIdleConnections closes the idle connections of the Boot's own
// transport (not of a Settings.HTTPClient): Run does it when it returns, a
// Boot used only with Check needs it done by its owner.
func (b *Boot) CloseIdleConnections() {
	if b.ownHTTP {
		b.http.CloseIdleConnections()
	}
}

// notInstalled is the reason a Check gives for a model the server lacks.
const notInstalled = "not installed"

// bootstrap takes the model from wherever it is to ready, pulling it when the
// server lacks it and pull is set. It returns nil when ready; otherwise it has
// already published offline or failed.
func (b *Boot) bootstrap(ctx context.Context, pull bool) error {
	before := b.hub.get()
	version, err := b.version(ctx)
	if err != nil {
		return b.fail(ctx, "reach server", err)
	}
	show, err := b.show(ctx)
	if isStatus(err, http.StatusNotFound) && !pull {
		if ctx.Err() == nil {
			b.setPhase(PhaseFailed, notInstalled)
		}
		return fmt.Errorf("show %s: %w: %s", b.set.Model, ErrModelMissing, reason(err))
	}
	if isStatus(err, http.StatusNotFound) {
		if err := b.pull(ctx); err != nil {
			return b.fail(ctx, "pull "+b.set.Model, err)
		}
		show, err = b.show(ctx)
	}
	if err != nil {
		return b.fail(ctx, "show "+b.set.Model, err)
	}
	name, digest, err := b.listed(ctx)
	if err != nil {
		return b.fail(ctx, "list models", err)
	}
	if name == "" {
		name = b.set.Model
	}
	ctxLen, pooling := modelInfo(show.ModelInfo)
	st := State{Phase: PhaseWarming, Model: name, Digest: digest, ContextLength: ctxLen, Pooling: pooling}
	b.setState(st)

	b.rewarm.Store(false)
	b.embedFailures.Store(0)
	b.brokenEmbed.Store(nil)
	vecs, err := b.warm(ctx, st)
	if err != nil {
		return b.fail(ctx, "warm up", err)
	}
	if len(vecs[0]) == 0 {
		return b.fail(ctx, "warm up", errors.New("the model returned an empty vector; is it an embedding model?"))
	}
	if odd := b.oddWidth.Swap(0); odd != 0 && int(odd) != len(vecs[0]) && before.Dims == len(vecs[0]) {
		// Not a new model: the same one answered the warm-up at the width it had, and
		// another text at another width. Run tries again with backoff. An odd width equal
		// to the warm-up's is no such sign: a call that began before the model changed
		// compared its new-width answer with the old width after the re-warm had measured
		// the new one.
		return b.fail(ctx, "embed", fmt.Errorf("the server answers vectors of %d dimensions for some texts and %d for others; its answers cannot be used", odd, before.Dims))
	}
	st.Phase, st.Dims = PhaseReady, len(vecs[0])
	b.setState(st)
	b.log.Info("ollama embedding model ready", "server_version", version, "digest", digest,
		"dims", st.Dims, "context_length", ctxLen, "pooling", pooling)
	if before.Dims != 0 && before.Dims != st.Dims {
		b.log.Warn("ollama embedding width changed; vectors made before are in another space",
			"was", before.Dims, "now", st.Dims)
	}
	return nil
}

// warm embeds the warm-up text in attempts of WarmAttemptTimeout until one answers, an
// attempt fails otherwise than by its deadline, or WarmTimeout has passed. Between attempts
// the state stays warming and says how long the model has not answered.
func (b *Boot) warm(ctx context.Context, st State) ([][]float32, error) {
	start := time.Now()
	for {
		left := b.set.WarmTimeout - time.Since(start)
		vecs, err := b.embedRequest(ctx, min(b.set.WarmAttemptTimeout, left), []string{warmupText})
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) ||
			time.Since(start) >= b.set.WarmTimeout {
			return vecs, err
		}
		st.Reason = fmt.Sprintf("no answer yet after %s", time.Since(start).Round(time.Second))
		b.setState(st)
	}
}

// watch health-checks a ready model until the check fails or ctx is done.
func (b *Boot) watch(ctx context.Context) {
	tick := time.NewTicker(b.set.HealthInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-b.wake:
		}
		if b.rewarm.Load() {
			b.setPhase(PhaseWarming, "embedding width changed")
			return
		}
		if why := b.brokenEmbed.Swap(nil); why != nil {
			// Run warms the model again with backoff: ready once an embed works.
			b.setPhase(PhaseFailed, "embed: "+*why)
			return
		}
		if _, err := b.version(ctx); err != nil {
			b.fail(ctx, "health check", err)
			return
		}
		name, digest, err := b.listed(ctx)
		if err != nil {
			b.fail(ctx, "health check", err)
			return
		}
		cur := b.hub.get()
		switch {
		case name == "" && cur.Digest != "":
			b.setPhase(PhaseFailed, "model no longer on the server")
			return
		case name != "" && digest != cur.Digest:
			// The model was replaced under the same name: another space.
			b.log.Warn("ollama model changed on the server", "was", cur.Digest, "now", digest)
			b.setPhase(PhaseWarming, "")
			return
		}
	}
}

// fail publishes offline when err says the server cannot be reached, failed
// otherwise, and returns err. A cancelled Run publishes nothing.
func (b *Boot) fail(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if unreachable(err) && !brokenAnswer(err) {
		b.setPhase(PhaseOffline, reason(err))
	} else {
		b.setPhase(PhaseFailed, what+": "+reason(err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// setPhase moves to phase p, keeping the model fields of the current state.
func (b *Boot) setPhase(p Phase, why string) {
	st := b.hub.get()
	st.Phase, st.Reason, st.Percent = p, why, 0
	b.setState(st)
}

func (b *Boot) setState(st State) {
	prev, changed := b.hub.set(st)
	if !changed {
		return
	}
	switch {
	case prev.Phase == st.Phase:
		b.log.Debug("ollama state", "state", st.String())
	case st.Phase == PhaseOffline || st.Phase == PhaseFailed:
		b.log.Warn("ollama state", "state", string(st.Phase), "was", string(prev.Phase), "reason", st.Reason)
	default:
		b.log.Info("ollama state", "state", st.String(), "was", string(prev.Phase))
	}
}

func (b *Boot) version(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, b.set.ProbeTimeout)
	defer cancel()
	return b.client.Version(ctx)
}

func (b *Boot) show(ctx context.Context) (*api.ShowResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, b.set.ProbeTimeout)
	defer cancel()
	return b.client.Show(ctx, &api.ShowRequest{Model: b.set.Model})
}

// listed finds the model in /api/tags, the only place its digest is given.
// An empty name means the server does not list it.
func (b *Boot) listed(ctx context.Context) (name, digest string, err error) {
	ctx, cancel := context.WithTimeout(ctx, b.set.ProbeTimeout)
	defer cancel()
	list, err := b.client.List(ctx)
	if err != nil {
		return "", "", err
	}
	want := canonicalModel(b.set.Model)
	for _, m := range list.Models {
		if canonicalModel(m.Name) == want || canonicalModel(m.Model) == want {
			return m.Name, m.Digest, nil
		}
	}
	return "", "", nil
}

// canonicalModel lets "bge-m3" match the "bge-m3:latest" the server lists:
// Ollama names are case-insensitive and the tag defaults to latest.
func canonicalModel(name string) string {
	name = strings.ToLower(strings.TrimPrefix(name, "registry.ollama.ai/library/"))
	if i := strings.LastIndexByte(name, '/'); !strings.Contains(name[i+1:], ":") {
		name += ":latest"
	}
	return name
}

// pull downloads the model, publishing pulling n%.
func (b *Boot) pull(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errStalled := fmt.Errorf("no progress for %s", pullStallTimeout)
	stall := time.AfterFunc(pullStallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()

	st := b.hub.get()
	st.Phase, st.Reason, st.Percent = PhasePulling, "", 0
	b.setState(st)
	b.log.Info("pulling ollama model")

	type layer struct{ completed, total int64 }
	layers := map[string]layer{}
	succeeded := false
	err := b.client.Pull(ctx, &api.PullRequest{Model: b.set.Model}, func(p api.ProgressResponse) error {
		stall.Reset(pullStallTimeout)
		if p.Status == "success" {
			succeeded = true
		}
		if p.Digest == "" || p.Total <= 0 {
			return nil
		}
		layers[p.Digest] = layer{min(p.Completed, p.Total), p.Total}
		var done, total int64
		for _, l := range layers {
			done, total = done+l.completed, total+l.total
		}
		// Layers announce their size only when their download starts, so
		// the ratio can drop; a progress bar should not.
		if pct := math.Floor(100 * float64(done) / float64(total)); pct > st.Percent {
			st.Percent = pct
			b.setState(st)
		}
		return nil
	})
	if cause := context.Cause(ctx); errors.Is(cause, errStalled) {
		return cause
	}
	if err != nil {
		return err
	}
	if !succeeded {
		// The client stops quietly when the stream breaks off. Whether that means the
		// server is gone (offline) or only the download broke (failed, retried with
		// backoff) is for the server to say.
		if _, err := b.version(ctx); err != nil {
			return err
		}
		return errPullBrokeOff
	}
	return nil
}

// errPullBrokeOff is a pull whose progress stream ended before "success" while the server
// still answers: the server did not fail the pull, the download stream broke.
var errPullBrokeOff = errors.New("the download broke off before it finished")

// modelInfo reads the input window and pooling from a show response's
// model_info, keyed by the architecture it names.
func modelInfo(info map[string]any) (contextLength int, pooling string) {
	pooling = Undeclared
	arch, _ := info["general.architecture"].(string)
	if arch == "" {
		return 0, pooling
	}
	if v, ok := info[arch+".context_length"].(float64); ok && v > 0 {
		contextLength = int(v)
	}
	if v, ok := info[arch+".pooling_type"].(float64); ok {
		// llama.cpp's enum llama_pooling_type, which GGUF files store.
		switch v {
		case 0:
			pooling = "none"
		case 1:
			pooling = "mean"
		case 2:
			pooling = "cls"
		case 3:
			pooling = "last"
		case 4:
			pooling = "rank"
		}
	}
	return contextLength, pooling
}

// unreachable tells "cannot talk to the server" (offline) from "the server
// said no" (failed).
func unreachable(err error) bool {
	var status api.StatusError
	if errors.As(err, &status) {
		return false
	}
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF)
}

// brokenAnswer reports whether the server took the request and then failed to answer it:
// the answer broke off (a runner that crashed, a proxy that timed out) or was not the JSON
// asked for. The server is there, so this is a failure, not offline; when the whole server
// went away, the next probe finds it unreachable. A request that got no answer at all (the
// HTTP client's *url.Error: refused, reset before the status line, a pooled connection the
// server had closed) is not a broken answer but a server that may be gone.
func brokenAnswer(err error) bool {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return false
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var count *countError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.As(err, &syntax) || errors.As(err, &typ) || errors.As(err, &count)
}

func isStatus(err error, code int) bool {
	var status api.StatusError
	return errors.As(err, &status) && status.StatusCode == code
}

// reason is err as a short status line: the server's message, or the network
// error without the request URL.
func reason(err error) string {
	var status api.StatusError
	if errors.As(err, &status) && status.ErrorMessage != "" {
		return status.ErrorMessage
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	case brokenAnswer(err) && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)):
		return "the server cut off its answer"
	case errors.As(err, &syntax):
		return "the server's answer is not a valid answer (" + syntax.Error() + ")"
	case errors.As(err, &typ):
		return "the server's answer is not a valid answer (" + typ.Error() + ")"
	}
	return err.Error()
}
