package modelboot

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventually waits until ok holds, up to waitBound: a condition, not a timing. It may run
// on any goroutine, so it reports with Errorf and returns false on timeout.
func eventually(t *testing.T, what string, ok func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for !ok() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// TestQueryOvertakesBatch: on a server that computes inputs one at a time in arrival order
// (as Ollama's runner does), a query sent while a long batch is being embedded waits only for
// the inputs of the requests already sent, never for the whole batch, and no batch request
// starts while it is in flight.
func TestQueryOvertakesBatch(t *testing.T) {
	const (
		maxBatch    = 4
		concurrency = 2
		query       = "who likes a simple style"
	)
	srv := newServer(t, tinyWith(nil))
	var (
		release  = make(chan struct{})
		held     = make(chan struct{})
		holdOnce sync.Once
		freeOnce sync.Once
		mu       sync.Mutex
		batchIn  int      // batch inputs whose turn came
		behind   []string // what was queued behind the query when its turn came
		sawQuery bool
		b        *Boot
	)
	free := func() { freeOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the server closes: a held handler would keep Close waiting
	srv.SetSerial(true, func(in string) {
		switch {
		case strings.HasPrefix(in, "batch text"):
			mu.Lock()
			batchIn++
			n := batchIn
			mu.Unlock()
			switch n {
			case 1: // hold the runner until the query is queued
				holdOnce.Do(func() { close(held); <-release })
			case concurrency * maxBatch:
				// The last input ahead of the query: the worker whose request was
				// answered first is back for more. It must wait for the query, not send
				// a request that would queue behind it (and then be what a second query
				// waits for).
				eventually(t, "a batch request held back, or sent behind the query", func() bool {
					return b.queries.held() > 0 || len(srv.Queue()) > 2
				})
			}
		case in == query:
			mu.Lock()
			behind, sawQuery = srv.Queue()[1:], true
			mu.Unlock()
		}
	})
	set := fastSettings(srv)
	set.MaxBatch, set.BatchConcurrency = maxBatch, concurrency
	b = ready(t, srv, set)

	texts := make([]string, 24)
	for i := range texts {
		texts[i] = fmt.Sprintf("batch text %d", i)
	}
	batchDone := make(chan error, 1)
	go func() {
		vecs, err := b.Embed(t.Context(), texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
		}
		batchDone <- err
	}()
	<-held
	// Both workers' first requests are queued at the runner before the query comes.
	if !eventually(t, "two batch requests queued", func() bool { return len(srv.Queue()) == concurrency*maxBatch }) {
		return
	}
	queryDone := make(chan error, 1)
	go func() {
		_, err := b.EmbedQuery(t.Context(), query)
		queryDone <- err
	}()
	if !eventually(t, "the query queued", func() bool { return slices.Contains(srv.Queue(), query) }) {
		return
	}
	free()
	if err := <-queryDone; err != nil {
		t.Fatalf("EmbedQuery: %v", err)
	}
	if err := <-batchDone; err != nil {
		t.Fatalf("Embed: %v", err)
	}

	computed := srv.Computed()
	at := slices.Index(computed, query)
	before := 0
	for _, in := range computed[:max(at, 0)] {
		if strings.HasPrefix(in, "batch text") {
			before++
		}
	}
	if at < 0 || before > concurrency*maxBatch {
		t.Errorf("the query was computed after %d batch inputs (at %d of %v), want at most %d: the requests already sent",
			before, at, computed, concurrency*maxBatch)
	}
	mu.Lock()
	defer mu.Unlock()
	if !sawQuery || len(behind) != 0 {
		t.Errorf("when the query's turn came, %q were queued behind it; want none (batch requests wait for the query)", behind)
	}
	if got := len(computed) - 2; got != len(texts) { // minus the warm-up and the query
		t.Errorf("the runner computed %d batch inputs, want %d", got, len(texts))
	}
}

func TestPaceSizesRequestsToTheTarget(t *testing.T) {
	var p pace
	if got := p.size(200*time.Millisecond, 512); got != firstBatch {
		t.Errorf("size before any request = %d, want %d", got, firstBatch)
	}
	if got := p.size(200*time.Millisecond, 3); got != 3 {
		t.Errorf("size before any request, capped at 3 = %d, want 3", got)
	}
	// A server with 30ms per request and 1ms per input: the size settles where a request
	// takes about the target.
	for range 40 {
		n := p.size(200*time.Millisecond, 512)
		p.observe(n, 30*time.Millisecond+time.Duration(n)*time.Millisecond)
	}
	if got := p.size(200*time.Millisecond, 512); got < 150 || got > 190 {
		t.Errorf("settled size = %d, want about 170 (200ms = 30ms + 170 x 1ms)", got)
	}
	for range 40 {
		p.observe(1, time.Second) // a model slower than the target: one input per request
	}
	if got := p.size(200*time.Millisecond, 512); got != 1 {
		t.Errorf("size for a model slower than the target = %d, want 1", got)
	}
}

func TestQueryLane(t *testing.T) {
	var l queryLane
	if err := l.wait(t.Context()); err != nil {
		t.Fatalf("wait on an empty lane: %v", err)
	}
	leaveA, leaveB := l.enter(), l.enter()
	waited := make(chan error, 1)
	go func() { waited <- l.wait(t.Context()) }()
	leaveA()
	leaveA() // a second call is harmless
	select {
	case err := <-waited:
		t.Fatalf("wait returned (%v) with a query still in flight", err)
	default:
	}
	leaveB()
	if err := <-waited; err != nil {
		t.Fatalf("wait after the last query left: %v", err)
	}
}
