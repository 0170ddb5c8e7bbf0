package modelboot

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Why lanes: Ollama hands the inputs of every request to the model runner as they arrive and
// the runner (OLLAMA_NUM_PARALLEL=1 by default) works through them in that order, so a
// query's one input waits behind every batch input that reached the server before it. Two
// things bound that wait: batch requests are sized to take about BatchRequestTime of model
// time each (pace), and while a query is in flight no new batch request starts (queryLane),
// so a query waits for at most the BatchConcurrency requests already sent (and those of
// other Embed calls running at the same time).

// queryLane counts the queries in flight; batch requests wait for it to be empty. Its zero
// value is an empty lane.
type queryLane struct {
	mu      sync.Mutex
	active  int
	clear   chan struct{} // closed when active drops to zero; nil while no query ever waited
	waiting int           // batch requests held back now (tests watch it)
}

// enter marks a query in flight until the returned func is called (once).
func (l *queryLane) enter() (leave func()) {
	l.mu.Lock()
	if l.active == 0 {
		l.clear = make(chan struct{})
	}
	l.active++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.active--; l.active == 0 {
				close(l.clear)
			}
		})
	}
}

// wait returns once no query is in flight, or with ctx's error.
func (l *queryLane) wait(ctx context.Context) error {
	l.mu.Lock()
	if l.active == 0 {
		l.mu.Unlock()
		return ctx.Err()
	}
	clear := l.clear
	l.waiting++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
	}()
	select {
	case <-clear:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// held is how many batch requests are waiting for the lane to clear.
func (l *queryLane) held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}

// pace sizes batch requests: the next request carries as many inputs as the last one's cost
// per input (its time over its inputs, so a server's per-request overhead counts too) fits
// in the target time. Going by the last request alone lets the size grow from firstBatch to
// a fast model's best in a few requests, and shrink at once when the model slows down,
// which is when a query would otherwise wait. Its zero value knows nothing yet.
type pace struct {
	perInput atomic.Int64 // nanoseconds; 0 until a request was timed
}

// firstBatch is the size of batch requests before one was timed: the size every request
// had before pacing, so a process's first request (often its only one: a one-shot recall
// measuring the model's noise with 40 probes) costs no more round trips than it did, and a
// slow model makes a query wait no longer than it did, once per process.
const firstBatch = 32

// size is how many inputs the next batch request should carry, from 1 to most.
func (p *pace) size(target time.Duration, most int) int {
	per := p.perInput.Load()
	if per <= 0 {
		return min(firstBatch, most)
	}
	return max(1, min(most, int(int64(target)/per)))
}

// observe records that a request of n inputs took d.
func (p *pace) observe(n int, d time.Duration) {
	if n > 0 && d > 0 {
		p.perInput.Store(max(int64(d)/int64(n), 1))
	}
}
