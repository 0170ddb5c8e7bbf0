package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/internal/residency"
	"github.com/memdesk/memdesk/store"
)

// Entity-leg constants; how the leg scores and which entities anchor a query live in
// package rank (entity.go).
const (
	// entityCandidateLimit bounds the owners one anchor lookup returns per source.
	entityCandidateLimit = 500
	// DefaultSweepBudget is how many rows one entity sweep pass re-extracts.
	DefaultSweepBudget = 2000
)

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
// while the extractor is not loaded.
func (e *Engine) extractEntities(text string) *store.Entities {
	x := e.ents.Load()
	if x == nil {
		return nil
	}
	return &store.Entities{Version: entity.RulesVersion, Names: x.Extract(text)}
}

// entitySearch finds the owners of kind carrying the query's anchors, from the in-memory
// entity postings.
func entitySearch(ctx context.Context, lex lexicon.Fresh, kind, space string, queryEntities []string) (lexicon.EntityResult, error) {
	if len(queryEntities) == 0 {
		return lexicon.EntityResult{}, nil
	}
	return lex.EntitySearch(ctx, kind, space, queryEntities, func(df map[string]int, n int) []string {
		return rank.Anchors(queryEntities, df, n)
	}, entityCandidateLimit)
}

// entityLeg scores what entitySearch found and adds the candidates the lexical leg did not
// find to g.
func entityLeg(g *gathered, kind string, queryEntities []string, found lexicon.EntityResult) (map[rank.Key]rank.EntityEvidence, map[string]int) {
	if len(queryEntities) == 0 {
		return nil, nil
	}
	out := make(map[rank.Key]rank.EntityEvidence, len(found.Matches))
	w := len(queryEntities)
	for _, m := range found.Matches {
		if score := rank.AnchoredJaccard(len(m.Shared), m.Total, w); score > 0 {
			key := rank.Key{Kind: kind, ID: m.ID}
			out[key] = rank.EntityEvidence{Score: score, Shared: len(m.Shared), W: w, Anchors: m.Shared}
			if _, ok := g.source.Candidates[key]; !ok {
				g.source.Candidates[key] = rank.Candidate{CreatedAt: m.CreatedAt, TextLen: m.TextLen}
			}
		}
	}
	return out, found.DF
}

// queryEntities are the entity names the store holds that the query spells (entity.Spans,
// entity.Known). The extractor reads stored texts; a query is read by what they were found
// to be about, which needs nothing loaded: every process finds a question's entities alike,
// from its first recall.
func queryEntities(ctx context.Context, lex lexicon.Fresh, text string) ([]string, error) {
	spans := entity.Spans(text)
	if len(spans) == 0 {
		return nil, nil
	}
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	known, err := lex.KnownNames(ctx, names)
	if err != nil {
		return nil, err
	}
	return entity.Known(spans, func(name string) bool { return known[name] }), nil
}

// SweepReport says what one entity sweep pass did.
type SweepReport struct {
	Rebuilt  int `json:"rebuilt"`
	Deferred int `json:"deferred"` // still stale after this pass
	Skipped  int `json:"skipped"`  // 1 when another pass was already running
}

// SweepEntities re-extracts up to budget facts and chunks whose entities are pending or
// were made by another rules version, each in its own short transaction so writers never
// wait long. A row that fails is logged and left for the next pass. An overlapping call
// returns at once with Skipped = 1.
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
	var rep SweepReport
	for _, kind := range []string{store.KindFact, store.KindChunk} {
		owners, total, err := e.st.StaleEntities(ctx, kind, entity.RulesVersion, budget-rep.Rebuilt)
		if err != nil {
			return rep, err
		}
		rep.Deferred += total
		for _, o := range owners {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			names := x.Extract(o.Text)
			err := waitOutBusy(ctx, func() error {
				return e.st.SetEntities(ctx, kind, o.ID, o.Text, store.Entities{Version: entity.RulesVersion, Names: names})
			})
			if err != nil {
				if ctx.Err() != nil {
					return rep, ctx.Err()
				}
				if !errors.Is(err, store.ErrChanged) {
					e.log.Warn("entity sweep: row left for the next pass", "kind", kind, "id", o.ID, "err", err)
				}
				continue
			}
			rep.Rebuilt++
			rep.Deferred--
		}
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
