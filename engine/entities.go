package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/internal/residency"
	"github.com/memdesk/memdesk/store"
)

// DefaultSweepBudget is how many rows one entity sweep pass re-extracts.
const DefaultSweepBudget = 2000

// LoadEntities loads the entity extractor (a Chinese dictionary and a language detector:
// seconds and ~100+ MB). Until it is loaded, writes are stamped pending and recall runs
// without the entity leg. Safe to call more than once and from any goroutine.
func (e *Engine) LoadEntities(ctx context.Context) error {
	if e.ents.Load() != nil {
		return nil
	}
	// The dictionary and the language models load in library calls that cannot be
	// interrupted: over a second each on a busy machine, and a process stopping (the MCP
	// server after its client left, the app on quit) waited for them before it could exit,
	// long enough for an MCP client to kill it. The load runs apart and is abandoned on
	// cancellation: it touches nothing but its own memory, ends by itself, and its result
	// is dropped. This is the one goroutine nobody waits for, because waiting was the bug.
	type loaded struct {
		x   *entity.Extractor
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		x, err := entity.New(context.WithoutCancel(ctx))
		if err == nil {
			e.releaseModelPages()
			// Decoding the models left about as much garbage as they hold: hand it back now,
			// once, rather than let the heap keep it until the scavenger comes round (the
			// window's resident set after start-up: 368 -> 317-328 MiB over 64k chunks).
			debug.FreeOSMemory()
		}
		done <- loaded{x, err}
	}()
	select {
	case l := <-done:
		if l.err != nil {
			return fmt.Errorf("load entity extractor: %w", l.err)
		}
		e.ents.CompareAndSwap(nil, l.x)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("load entity extractor: %w", ctx.Err())
	}
}

// releaseModelPages gives back the executable's pages the extractor's models were parsed
// from (about 45 MB resident, never read again): the largest part of the process's memory
// that is not its heap.
func (e *Engine) releaseModelPages() {
	r, err := residency.ReleaseExecutableData()
	if err != nil {
		e.log.Debug("could not release the executable's data pages", "err", err)
		return
	}
	e.log.Debug("released the executable's data pages", "resident_before_mb", r.ResidentBefore>>20, "resident_after_mb", r.ResidentAfter>>20)
}

// extractEntities returns text's entities stamped with the rules version, or nil (pending)
// while the extractor is not loaded. The caller wakes Run's sweep (wantSweepOf) once the fact
// is written, not before: a sweep woken here ran before the write committed, found nothing
// pending, and the fact stayed pending until the next write or start (a test waiting for its
// names failed 1 run in 15). Without Run, the next long-lived process sweeps it.
func (e *Engine) extractEntities(text string) *store.Entities {
	x := e.ents.Load()
	if x == nil {
		return nil
	}
	return &store.Entities{Version: entity.RulesVersion, Names: x.Extract(text)}
}

// wantSweepOf wakes Run's entity sweep when a fact just written is pending (its entities nil:
// extractEntities had no extractor). Call it after the write has committed.
func (e *Engine) wantSweepOf(facts ...store.NewFact) {
	for _, f := range facts {
		if f.Entities == nil {
			e.wantEntitySweep()
			return
		}
	}
}

// SweepReport says what one entity sweep pass did.
type SweepReport struct {
	Rebuilt  int `json:"rebuilt"`
	Deferred int `json:"deferred"` // still stale after this pass
	Skipped  int `json:"skipped"`  // 1 when another pass was already running
}

// SweepEntities re-extracts up to budget facts whose entities are pending or were made by
// another rules version, each in its own short transaction so writers never wait long. A
// fact that fails is logged and left for the next pass. An overlapping call returns at once
// with Skipped = 1. Knowledge chunks carry no entities: the leg added nothing there.
func (e *Engine) SweepEntities(ctx context.Context, budget int) (SweepReport, error) {
	x := e.ents.Load()
	if x == nil {
		return SweepReport{}, errors.New("entity sweep: the entity extractor is not loaded yet")
	}
	if !e.sweeping.CompareAndSwap(false, true) {
		return SweepReport{Skipped: 1}, nil
	}
	defer e.sweeping.Store(false)
	if budget <= 0 {
		budget = DefaultSweepBudget
	}
	owners, total, err := e.st.StaleEntities(ctx, entity.RulesVersion, budget)
	if err != nil {
		return SweepReport{}, err
	}
	rep := SweepReport{Deferred: total}
	for _, o := range owners {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		names := x.Extract(o.Text)
		err := waitOutBusy(ctx, func() error {
			return e.st.SetEntities(ctx, o.ID, o.Text, store.Entities{Version: entity.RulesVersion, Names: names})
		})
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			if !errors.Is(err, store.ErrChanged) {
				e.log.Warn("entity sweep: fact left for the next pass", "id", o.ID, "err", err)
			}
			continue
		}
		rep.Rebuilt++
		rep.Deferred--
	}
	return rep, nil
}

// busyRetries bounds how often background work tries a write again after "database is
// locked"; with busyBackoff doubling from 100 ms to 2 s, about 25 s past the busy timeout
// of every try.
const (
	busyRetries    = 8
	busyBackoffMin = 100 * time.Millisecond
	busyBackoffMax = 2 * time.Second
)

// waitOutBusy runs write, and while it fails because another process holds the write lock
// past the busy timeout (a big import, a burst of writers), waits and runs it again. The
// busy timeout is sized for a person's own write, who is told; background work (the entity
// sweep) has no one to tell and can wait its turn. SQLite's busy handler is not a queue:
// under a stream of writers a waiting one can miss every opening.
func waitOutBusy(ctx context.Context, write func() error) error {
	delay := busyBackoffMin
	for try := 0; ; try++ {
		err := write()
		if err == nil || !store.IsBusy(err) || try == busyRetries {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(2*delay, busyBackoffMax)
	}
}
