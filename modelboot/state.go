package modelboot

import (
	"strconv"
	"sync"
)

// Phase is where the bootstrap stands.
type Phase string

const (
	// PhaseStarting: Run has not reached the server yet.
	PhaseStarting Phase = "starting"
	// PhaseOffline: the server cannot be reached; Run keeps retrying.
	PhaseOffline Phase = "offline"
	// PhasePulling: the model is being downloaded; State.Percent says how far.
	PhasePulling Phase = "pulling"
	// PhaseWarming: the model is present and being loaded by a probe embed.
	PhaseWarming Phase = "warming"
	// PhaseReady: Embed works.
	PhaseReady Phase = "ready"
	// PhaseFailed: the server answers but the model cannot be made ready
	// (pull refused, not an embedding model, ...); Run retries with backoff.
	PhaseFailed Phase = "failed"
)

// Undeclared stands for a property the server does not state. A
// representation field is never guessed.
const Undeclared = "undeclared"

// State is a snapshot of the bootstrap. The model fields are filled from
// the last successful show and warm-up and kept while offline, so a UI can
// still name the model.
type State struct {
	Phase   Phase
	Percent float64 // pulling progress, 0..100, never decreasing within one pull
	Reason  string  // why offline or failed
	Model   string  // the model as the server names it, e.g. "bge-m3:latest"
	Digest  string  // from /api/tags; empty when not listed
	Dims    int     // vector width measured at warm-up
	// ContextLength is the model's input window in tokens, from the show
	// response's model_info "<arch>.context_length"; 0 when not declared.
	ContextLength int
	// Pooling is model_info "<arch>.pooling_type" by name ("mean", "cls",
	// "last", "none", "rank"), or [Undeclared].
	Pooling string
}

// String renders the state for a status line: "offline", "pulling 42%",
// "warming", "ready", "failed: <reason>".
func (s State) String() string {
	switch s.Phase {
	case PhasePulling:
		return "pulling " + strconv.Itoa(int(s.Percent)) + "%"
	case PhaseFailed:
		if s.Reason != "" {
			return "failed: " + s.Reason
		}
	}
	return string(s.Phase)
}

// stateHub holds the current state and fans changes out to subscribers.
// Each subscriber has a one-slot channel that always holds the latest state
// not yet read, so publishing never blocks on a slow reader.
type stateHub struct {
	mu   sync.Mutex
	cur  State
	next int
	subs map[int]chan State
}

func (h *stateHub) get() State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur
}

// set stores s and publishes it when it differs from the current state; it
// reports the previous state and whether anything changed.
func (h *stateHub) set(s State) (prev State, changed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	prev = h.cur
	if s == prev {
		return prev, false
	}
	h.cur = s
	for _, ch := range h.subs {
		offerLatest(ch, s)
	}
	return prev, true
}

// offerLatest puts s in ch, replacing an unread older state. Only the hub
// sends on ch, under its lock, so after draining there is room.
func offerLatest(ch chan State, s State) {
	select {
	case ch <- s:
	default:
		select {
		case <-ch:
		default:
		}
		ch <- s
	}
}

func (h *stateHub) subscribe() (<-chan State, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = make(map[int]chan State)
	}
	id := h.next
	h.next++
	ch := make(chan State, 1)
	ch <- h.cur
	h.subs[id] = ch
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.subs, id)
			close(ch)
		})
	}
}

// NotInstalled reports whether s is a [Boot.Check] that found the server without the model.
func (s State) NotInstalled() bool { return s.Phase == PhaseFailed && s.Reason == notInstalled }
