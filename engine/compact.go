package engine

import (
	"context"
	"fmt"

	"github.com/memdesk/memdesk/store"
)

// Compaction keeps the file near the size of what it holds. Every write transaction leaves
// the full-text indexes one more segment, and FTS5's automerge bounds how many segments
// there are, not the space they take: over 50k chunks imported a file at a time the file was
// 88 MB, 65 MB once the segments were merged and the freed pages given back
// (doc/performance.md).

// compactPages bounds one merge step per index: about 2 MB written, at most 0.16 s over a
// 50k-chunk store on the development machine, so a writer waits at most that long.
const compactPages = 500

// releasePages bounds one step of giving free pages back to the file system (8 MB).
const releasePages = 2048

// The indexes are merged once the writes since the last merge reach compactShare of what
// the store holds, and at least compactMinWrites: each merge rewrites the whole index, so
// merging after every tenth of growth rewrites each row a bounded number of times however
// large the store becomes, and a store of a few notes is not merged after each one.
const (
	compactShare     = 0.1
	compactMinWrites = 256
)

// CompactReport is what a compaction did.
type CompactReport struct {
	// Passes is how many bounded merge passes had work to do.
	Passes int
	// FreedBytes is how much the file gave back to the file system.
	FreedBytes int64
	// Vacuumed says the whole file was rewritten (a store from before incremental vacuum).
	Vacuumed bool
}

// compactSearch merges the full-text indexes' segments in bounded passes, then gives the
// pages that freed back to the file system in bounded steps. With full, a store that cannot
// give pages back in steps (made before this version) is rewritten whole by VACUUM, which
// also lets it from then on. Cancelling ctx stops between steps; what was merged stays merged.
// w is what was written since the last compaction, read by the caller: the change log's
// position it holds is recorded as compacted.
func (e *Engine) compactSearch(ctx context.Context, w store.SearchWrites, full bool) (CompactReport, error) {
	var rep CompactReport
	for {
		worked, err := e.st.CompactSearch(ctx, compactPages)
		if err != nil {
			return rep, err
		}
		if !worked {
			break
		}
		rep.Passes++
	}
	freeBefore, bytesBefore, err := e.st.FreePages(ctx)
	if err != nil {
		return rep, err
	}
	left := freeBefore
	for left > 0 {
		now, err := e.st.ReleaseFreePages(ctx, releasePages)
		if err != nil {
			return rep, err
		}
		if now >= left {
			break // this store keeps its free pages for later writes
		}
		left = now
	}
	if freeBefore > 0 {
		rep.FreedBytes = bytesBefore - bytesBefore*left/freeBefore
	}
	if full && left > 0 {
		if err := e.st.Vacuum(ctx); err != nil {
			return rep, err
		}
		rep.Vacuumed, rep.FreedBytes = true, bytesBefore
	}
	if err := e.st.MarkCompacted(ctx, w.Seq); err != nil {
		return rep, err
	}
	if err := e.st.Checkpoint(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}

// compactIfDue compacts when enough was written since the last time (compactShare); a
// failure is logged, since the data is safe and the next write tries again.
func (e *Engine) compactIfDue(ctx context.Context) {
	w, err := e.st.SearchWritesSinceCompaction(ctx)
	if err != nil {
		e.log.Warn("could not tell whether the search index needs compacting", "err", err)
		return
	}
	if float64(w.Since) < max(compactMinWrites, compactShare*float64(w.Live)) {
		return
	}
	rep, err := e.compactSearch(ctx, w, false)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("compacting the search index stopped; the next import resumes it", "err", err)
		}
		return
	}
	e.log.Info("compacted the search index", "passes", rep.Passes, "freed_bytes", rep.FreedBytes)
}

// wantCompaction wakes Run's compaction after writes; it never blocks.
func (e *Engine) wantCompaction() { wake(e.compactWanted) }

// compactWhenWanted compacts, when due, once at start and after each wake, until ctx ends.
func (e *Engine) compactWhenWanted(ctx context.Context) {
	for {
		e.compactIfDue(ctx)
		e.saveLexiconCopy(ctx)
		select {
		case <-ctx.Done():
			return
		case <-e.compactWanted:
		}
	}
}

// compactAdmin is the repair: merge the indexes and give the free space back now, whatever
// was written since the last time, rewriting the file of a store from before this version.
func (e *Engine) compactAdmin(ctx context.Context, _ AdminRequest) (AdminResult, error) {
	// The database's own size, not the file's: right after the merge the write-ahead log
	// holds it all again until the readers of the moment let it be folded in.
	before, err := e.st.DatabaseBytes(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	w, err := e.st.SearchWritesSinceCompaction(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	rep, err := e.compactSearch(ctx, w, true)
	if err != nil {
		return AdminResult{}, err
	}
	after, err := e.st.DatabaseBytes(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	detail := fmt.Sprintf("search indexes merged in %d passes; the database is %.1f MB (was %.1f MB)",
		rep.Passes, float64(after)/(1<<20), float64(before)/(1<<20))
	if rep.Vacuumed {
		detail += "; it was rewritten whole once, so later compactions shrink it in steps"
	}
	return AdminResult{Action: "compact", OK: true, Details: []string{detail},
		Counts: map[string]int{"passes": rep.Passes, "freed_bytes": int(rep.FreedBytes),
			"file_bytes_before": int(before), "file_bytes_after": int(after)}}, nil
}
