package modelboot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// Embed returns one L2-normalised vector per text, in order: the document
// side, for texts that are stored and searched. A model with an input template
// gets each text after its document prefix (see [TemplateFor]).
//
// It fails fast with [ErrOffline] or [ErrNotReady] unless the state is
// ready. Texts are cut to the model's input window (see [TruncateToWindow])
// and sent in requests of at most MaxBatch inputs, sized to keep the model
// busy for about BatchRequestTime each, up to BatchConcurrency at a time, each
// bounded by EmbedTimeout. A request waits to start while an [Boot.EmbedQuery]
// is in flight, so a query never queues behind more than the requests already
// sent. When the server rejects a request with 400 or 500, the inputs
// are retried one at a time so that one bad input does not sink the rest; an
// input the server still finds too long is retried at half its length.
//
// When only some inputs fail, Embed returns len(texts) vectors, nil at each
// failed input, and a *[BatchError] naming them: an empty text or a
// zero-norm vector is [ErrZeroVector] (no semantic evidence), a vector of an
// unexpected width is [ErrDimsChanged]. Any other error means no vectors:
// ctx's error, [ErrOffline], [ErrModelMissing], or a timeout
// (context.DeadlineExceeded).
func (b *Boot) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	st := b.State()
	switch st.Phase {
	case PhaseReady:
	case PhaseOffline:
		return nil, fmt.Errorf("embed: %w", ErrOffline)
	default:
		return nil, fmt.Errorf("embed: semantic %s: %w", st, ErrNotReady)
	}
	out := make([][]float32, len(texts))
	failed, err := b.embedDocuments(ctx, st, texts, out)
	if err != nil {
		b.noteServerError(ctx, err)
		return nil, err
	}
	if len(failed) == len(texts) && len(texts) > 0 {
		// Every input refused: a server error per input (Ollama answers 500 for one bad
		// input, and for all of them when the runner is gone) counts like a failed call.
		b.noteServerError(ctx, failed[0].Err)
	} else {
		b.embedFailures.Store(0)
	}
	if len(failed) > 0 {
		slices.SortFunc(failed, func(a, b InputError) int { return a.Index - b.Index })
		return out, &BatchError{Failed: failed}
	}
	return out, nil
}

// EmbedQuery returns the L2-normalised vector of one search query: the query
// side, worded with the model's query prefix (see [TemplateFor]), to be
// compared with vectors from [Boot.Embed]. Its errors are Embed's; a query that
// embeds to the zero vector (or is empty) is [ErrZeroVector].
func (b *Boot) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	st := b.State()
	switch st.Phase {
	case PhaseReady:
	case PhaseOffline:
		return nil, fmt.Errorf("embed query: %w", ErrOffline)
	default:
		return nil, fmt.Errorf("embed query: semantic %s: %w", st, ErrNotReady)
	}
	defer b.queries.enter()()
	out := make([][]float32, 1)
	var failed []InputError
	if err := b.embedBatch(ctx, st, b.template.QueryPrefix, []string{text}, 0, out, &failed); err != nil {
		b.noteServerError(ctx, err)
		return nil, err
	}
	if len(failed) > 0 {
		b.noteServerError(ctx, failed[0].Err)
		return nil, fmt.Errorf("embed query: %w", failed[0].Err)
	}
	b.embedFailures.Store(0)
	return out[0], nil
}

// embedDocuments embeds texts into out in paced requests, BatchConcurrency at a time, each
// started only while no query is in flight, and returns the inputs that failed. An error
// fails the whole call and stops the requests not yet answered.
func (b *Boot) embedDocuments(ctx context.Context, st State, texts []string, out [][]float32) ([]InputError, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu     sync.Mutex
		next   int // the first text no request has taken
		failed []InputError
		first  error
	)
	// take reserves the next request's texts, sized now: the pace may have changed while
	// this worker waited.
	take := func() (lo, hi int, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(texts) || first != nil {
			return 0, 0, false
		}
		lo = next
		next = min(lo+evenShare(len(texts)-lo, b.pace.size(b.set.BatchRequestTime, b.set.MaxBatch)), len(texts))
		return lo, next, true
	}
	stop := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
			cancel()
		}
	}
	var wg sync.WaitGroup
	for range b.set.BatchConcurrency {
		wg.Go(func() {
			for {
				if err := b.queries.wait(ctx); err != nil {
					stop(fmt.Errorf("embed: %w", err))
					return
				}
				lo, hi, ok := take()
				if !ok {
					return
				}
				var f []InputError
				start := time.Now()
				if err := b.embedBatch(ctx, st, b.template.DocumentPrefix, texts[lo:hi], lo, out, &f); err != nil {
					stop(err)
					return
				}
				b.pace.observe(hi-lo, time.Since(start))
				mu.Lock()
				failed = append(failed, f...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed, first
}

// evenShare is the size of the next request when left texts go in requests of at most size:
// as many requests as that takes, of equal size, since a short last request costs the
// server's whole per-request overhead for a few inputs (and misleads the pace).
func evenShare(left, size int) int {
	requests := (left + size - 1) / size
	return (left + requests - 1) / requests
}

// embedBatch embeds texts (at offset lo of the caller's list), each after
// prefix, into out, appending per-input failures to failed. An error fails
// the whole call.
func (b *Boot) embedBatch(ctx context.Context, st State, prefix string, texts []string, lo int, out [][]float32, failed *[]InputError) error {
	inputs := make([]string, 0, len(texts))
	at := make([]int, 0, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			*failed = append(*failed, InputError{Index: lo + i, Err: fmt.Errorf("empty text: %w", ErrZeroVector)})
			continue
		}
		// The prefix counts against the window too; the cut falls on the text's end.
		t, _ = TruncateToWindow(prefix+t, st.ContextLength)
		inputs = append(inputs, t)
		at = append(at, lo+i)
	}
	keep := func(j int, v []float32) {
		if err := b.accept(st, v); err != nil {
			*failed = append(*failed, InputError{Index: at[j], Err: err})
			return
		}
		out[at[j]] = v
	}
	if len(inputs) > 1 {
		vecs, err := b.embedRequest(ctx, b.set.EmbedTimeout, inputs)
		if err == nil {
			for j, v := range vecs {
				keep(j, v)
			}
			return nil
		}
		if !inputSpecific(err) {
			return b.callError(ctx, err)
		}
		b.log.Debug("embed batch rejected; retrying its inputs one by one", "inputs", len(inputs), "err", err)
	}
	for j, in := range inputs {
		v, err := b.embedOne(ctx, in)
		if err != nil {
			if !inputSpecific(err) {
				return b.callError(ctx, err)
			}
			*failed = append(*failed, InputError{Index: at[j], Err: err})
			continue
		}
		keep(j, v)
	}
	return nil
}

// maxHalvings bounds how often embedOne shortens a text the server calls too
// long; three halvings keep an eighth, past which the window estimate is not
// the problem.
const maxHalvings = 3

// embedOne embeds a single text, shortening it when the server answers that
// it exceeds the context length: Ollama 0.17.4 does so for some inputs past
// the window despite truncating by default.
func (b *Boot) embedOne(ctx context.Context, text string) ([]float32, error) {
	for halvings := 0; ; halvings++ {
		vecs, err := b.embedRequest(ctx, b.set.EmbedTimeout, []string{text})
		if err == nil {
			return vecs[0], nil
		}
		if halvings == maxHalvings || !tooLong(err) {
			return nil, err
		}
		r := []rune(text)
		text = string(r[:len(r)/2])
	}
}

// embedRequest makes one /api/embed call and checks it returned a vector
// per input.
func (b *Boot) embedRequest(ctx context.Context, timeout time.Duration, inputs []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	truncate := true
	req := &api.EmbedRequest{Model: b.set.Model, Input: inputs, Truncate: &truncate}
	if b.set.KeepAlive != 0 {
		req.KeepAlive = &api.Duration{Duration: b.set.KeepAlive}
	}
	resp, err := b.client.Embed(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(inputs) {
		return nil, &countError{got: len(resp.Embeddings), want: len(inputs)}
	}
	return resp.Embeddings, nil
}

// accept checks v against the recorded width and normalises it in place.
func (b *Boot) accept(st State, v []float32) error {
	if len(v) != st.Dims {
		// Let Run measure again: the model may have changed under its name.
		b.oddWidth.Store(int64(len(v)))
		b.rewarm.Store(true)
		b.Recheck()
		return &DimsError{Got: len(v), Want: st.Dims}
	}
	return normalize(v)
}

// normalize scales v to unit length in place. The server normalises too,
// but the representation promises "l2" whatever the server version does.
func normalize(v []float32) error {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return errors.New("embedding has non-finite values")
	}
	if sum < 1e-18 { // below float32 resolution of a unit vector's entries
		return ErrZeroVector
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// answerError words a broken answer for the user; the cause stays reachable with errors.As.
type answerError struct{ err error }

func (e answerError) Error() string { return reason(e.err) }
func (e answerError) Unwrap() error { return e.err }

// countError is an embed answer with another number of vectors than inputs.
type countError struct{ got, want int }

func (e *countError) Error() string {
	return fmt.Sprintf("the server's answer is not a valid answer (%d vectors for %d inputs)", e.got, e.want)
}

// noteServerError counts an Embed call the server answered with an error or with a broken
// answer (not the caller's cancellation or deadline, not an unreachable server: those have
// their own states), and after failingEmbeds in a row asks Run to say so.
func (b *Boot) noteServerError(ctx context.Context, err error) {
	var status api.StatusError
	if ctx.Err() != nil || !errors.As(err, &status) && !brokenAnswer(err) {
		return
	}
	if b.embedFailures.Add(1) >= failingEmbeds {
		why := reason(err)
		b.brokenEmbed.Store(&why)
		b.Recheck()
	}
}

// callError wraps an error that fails a whole Embed call, and asks Run to
// check the server when the error may mean it is gone or changed.
func (b *Boot) callError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("embed: %w", err)
	case isStatus(err, http.StatusNotFound):
		b.Recheck()
		return fmt.Errorf("embed: %w: %s", ErrModelMissing, reason(err))
	case errors.Is(err, context.DeadlineExceeded):
		b.Recheck()
		return fmt.Errorf("embed: no answer within %s: %w", b.set.EmbedTimeout, err)
	case brokenAnswer(err):
		// The health check tells a server that went away from one that breaks its answers.
		b.Recheck()
		return fmt.Errorf("embed: %w", answerError{err})
	case unreachable(err):
		b.Recheck()
		return fmt.Errorf("embed: %w: %w", ErrOffline, err)
	}
	return fmt.Errorf("embed: %w", err)
}

// inputSpecific reports whether a rejected request may have failed because
// of one of its inputs, so that retrying them one by one can save the rest.
func inputSpecific(err error) bool {
	var status api.StatusError
	if !errors.As(err, &status) {
		return false
	}
	switch status.StatusCode {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusInternalServerError:
		return true
	}
	return false
}

// tooLong matches Ollama's "the input length exceeds the context length" and
// its "input exceeds maximum context length" relatives.
func tooLong(err error) bool {
	var status api.StatusError
	return errors.As(err, &status) && status.StatusCode == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(status.ErrorMessage), "context length")
}
