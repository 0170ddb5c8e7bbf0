package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memdesk/memdesk/engine/devsync"
	"github.com/memdesk/memdesk/store"
)

// ErrSyncOff: sync between devices was never set up for this database.
var ErrSyncOff = store.ErrSyncOff

// SyncStatus is what `memdesk sync status` and the Sync section of Settings show.
type SyncStatus = devsync.Status

// SyncReport says what one round of sync did.
type SyncReport struct {
	Exported int                     `json:"exported"`
	Read     int                     `json:"read"`
	Applied  int                     `json:"applied"`
	Problems []devsync.ProblemStatus `json:"problems,omitempty"`
}

func syncReport(r devsync.Report) SyncReport {
	return SyncReport{Exported: r.Exported, Read: r.Read, Applied: r.Applied, Problems: devsync.ProblemsOf(r.Problems)}
}

// newSyncer is the engine's syncer: replayed texts are stored as a local write stores them,
// with their hash, entities and statements.
func (e *Engine) newSyncer() *devsync.Syncer {
	return devsync.New(e.st, devsync.Options{Logger: e.log, Now: e.opts.SyncClock, Poll: e.opts.SyncPoll,
		Derive: func(text string) store.NewFact {
			return store.NewFact{Content: text, Hash: contentHash(text), Entities: e.extractEntities(text), Triples: extractTriples(text)}
		}})
}

// SyncInit sets up sync with the folder dir: this database gets its device id (kept for
// good), everything it holds is logged for the other devices, and what they wrote is
// replayed.
func (e *Engine) SyncInit(ctx context.Context, dir string) (SyncReport, error) {
	if dir == "" {
		return SyncReport{}, fmt.Errorf("%w: sync init needs the folder your sync tool shares between your devices", ErrBadRequest)
	}
	rep, err := e.sync.Init(ctx, dir)
	e.afterReplay(rep)
	return syncReport(rep), err
}

// SyncNow exports this device's changes and replays the other devices'.
func (e *Engine) SyncNow(ctx context.Context) (SyncReport, error) {
	rep, err := e.sync.Now(ctx)
	e.afterReplay(rep)
	return syncReport(rep), err
}

// SyncStatus reports this device, the devices seen, what is pending, conflicts and
// problems; ErrSyncOff when sync is not set up.
func (e *Engine) SyncStatus(ctx context.Context) (SyncStatus, error) {
	return e.sync.Status(ctx)
}

// exportSync appends a local change to this device's log right after it is committed, so
// the sync engine can send it at once and a short-lived CLI process leaves nothing behind.
// Failing here loses nothing: the change is in the database, and the next export (any
// process's, or Run's) appends it.
func (e *Engine) exportSync(ctx context.Context) {
	if _, err := e.sync.Export(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, ErrSyncOff) {
		e.log.Warn("sync: the change is saved but not yet in the sync folder; it is written there on the next sync", "err", err)
	}
}

// afterReplay starts the follow-up work of replayed memories: entities of those written
// while the extractor was not loaded.
func (e *Engine) afterReplay(rep devsync.Report) {
	if len(rep.Facts) > 0 {
		e.wantSweepOf(rep.Facts...)
		e.wantCompaction()
	}
}

// runSync keeps sync going while ctx lives (Run's part for long-lived processes).
func (e *Engine) runSync(ctx context.Context) {
	if err := e.sync.Run(ctx, e.afterReplay); err != nil && ctx.Err() == nil {
		e.log.Warn("sync stopped", "err", err)
	}
}

// syncPairs are the memories sync kept both versions of, as contradiction pairs: the same
// Keep new / Keep old / Keep both resolve them, and each resolution is itself synced.
func (e *Engine) syncPairs(ctx context.Context, seen map[[2]int64]bool) ([]ContradictionPair, error) {
	pairs, err := e.st.SyncPairs(ctx)
	if err != nil {
		return nil, err
	}
	var out []ContradictionPair
	for _, p := range pairs {
		k := orderedPair(p.FactID, p.OtherID)
		if seen[k] {
			continue
		}
		seen[k] = true
		a, err := e.st.Fact(ctx, k[0])
		if err != nil {
			return nil, err
		}
		b, err := e.st.Fact(ctx, k[1])
		if err != nil {
			return nil, err
		}
		out = append(out, ContradictionPair{A: factView(a), B: factView(b), Kind: "sync", Reason: p.Detail})
	}
	return out, nil
}

// syncPollDefault is how often a long-lived process looks at the sync folder.
const syncPollDefault = 2 * time.Second

// SyncChanges returns every change of the sync log this database holds, in clock order
// (tests and diagnostics).
func (e *Engine) SyncChanges(ctx context.Context) ([]store.SyncChange, error) {
	return e.st.SyncChanges(ctx)
}
