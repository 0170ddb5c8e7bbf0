package ollamatest

import (
	"context"
	"sync"
)

// runner is the serial model runner of SetSerial: Ollama hands every input of a request to
// its model runner when the request arrives, and the runner (OLLAMA_NUM_PARALLEL=1, the
// default) computes one input at a time in arrival order. Each input holds a ticket; the
// ticket being served computes, the others wait for their turn.
type runner struct {
	mu       sync.Mutex
	turn     *sync.Cond
	hook     func(input string)
	issued   int            // tickets handed out
	serving  int            // the ticket whose turn it is
	gone     map[int]bool   // tickets whose request ended before their turn
	inputs   map[int]string // what each waiting ticket will compute
	computed []string
}

func newRunner(hook func(string)) *runner {
	r := &runner{hook: hook, gone: map[int]bool{}, inputs: map[int]string{}}
	r.turn = sync.NewCond(&r.mu)
	return r
}

// enqueue queues a request's inputs together and returns the first one's ticket.
func (r *runner) enqueue(inputs []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.issued
	for i, in := range inputs {
		r.inputs[first+i] = in
	}
	r.issued += len(inputs)
	return first
}

// compute waits for ticket t's turn and takes it (the embedding itself costs nothing here:
// the hook stands for the model's time); false when ctx ended first (the caller abandons
// its tickets).
func (r *runner) compute(ctx context.Context, t int) bool {
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.turn.Broadcast()
	})
	defer stop()
	r.mu.Lock()
	for r.serving != t && ctx.Err() == nil {
		r.turn.Wait()
	}
	if ctx.Err() != nil {
		r.mu.Unlock()
		return false
	}
	in := r.inputs[t]
	r.mu.Unlock()
	if r.hook != nil {
		r.hook(in)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.inputs, t)
	r.computed = append(r.computed, in)
	r.advance(t + 1)
	return true
}

// abandon gives up tickets [from, to) that were not computed.
func (r *runner) abandon(from, to int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for t := max(from, r.serving); t < to; t++ {
		r.gone[t] = true
		delete(r.inputs, t)
	}
	r.advance(r.serving)
}

// advance serves ticket t, or the first one after it whose request is still there.
func (r *runner) advance(t int) {
	for r.gone[t] {
		delete(r.gone, t)
		t++
	}
	r.serving = t
	r.turn.Broadcast()
}

// queue is the inputs waiting for their turn or being computed, in order.
func (r *runner) queue() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for t := r.serving; t < r.issued; t++ {
		if in, ok := r.inputs[t]; ok {
			out = append(out, in)
		}
	}
	return out
}

func (r *runner) done() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.computed...)
}
