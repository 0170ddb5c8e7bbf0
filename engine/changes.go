package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/memdesk/memdesk/store"
)

// DefaultChangePoll is how often WatchChanges looks when its caller does not say: often
// enough that a memory the CLI writes shows in an open window well within a second, and
// each look is one PRAGMA on an idle connection (microseconds).
const DefaultChangePoll = 300 * time.Millisecond

// WatchChanges calls changed after another connection commits a change to what a person
// sees: a memory, a document, a pair kept both, a folder kept in sync. The writer may be
// another process (the CLI, the MCP server, a second window) or this engine itself, whose
// writes run on other connections of its pool; telling its own writes apart is left to the
// caller, which knows what it wrote. The engine's upkeep (vectors, model calibrations) does
// not count: while Ollama catches up on a big store the window would otherwise re-read
// everything once a second for minutes. Entity sweeps do count (store.ContentMark).
//
// It looks every `every` (0 means DefaultChangePoll), so every commit in one interval comes
// as one call, and a long import by any process as one call per interval. changed runs on
// the watching goroutine: it should hand the news on and return.
//
// WatchChanges blocks until ctx ends, then returns nil; its owner cancels ctx and waits for it
// before closing the engine. It fails only when it cannot start watching.
func (e *Engine) WatchChanges(ctx context.Context, every time.Duration, changed func()) error {
	if every <= 0 {
		every = DefaultChangePoll
	}
	w, err := e.watchChanges(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("watch for changes by other programs: %w", err)
	}
	defer w.close()
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		seen, err := w.look(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			// A failed look (a disk error, a busy file system) is retried at the next tick;
			// it is logged once per streak, not every 300 ms.
			if !failing {
				e.log.Warn("looking for changes by other programs failed; trying again", "err", err)
			}
			failing = true
			continue
		}
		failing = false
		if seen {
			changed()
		}
	}
}

// changeWatch is what WatchChanges has seen so far, on a connection of its own.
type changeWatch struct {
	probe   *store.VersionProbe
	version int64
	mark    store.ContentMark
}

// watchChanges starts a watch from the database as it is now.
func (e *Engine) watchChanges(ctx context.Context) (*changeWatch, error) {
	probe, err := e.st.OpenVersionProbe(ctx)
	if err != nil {
		return nil, err
	}
	w := &changeWatch{probe: probe}
	if w.version, err = probe.DataVersion(ctx); err == nil {
		w.mark, err = probe.ContentMark(ctx)
	}
	if err != nil {
		probe.Close()
		return nil, err
	}
	return w, nil
}

// look reports whether what a person sees changed since the last look.
func (w *changeWatch) look(ctx context.Context) (bool, error) {
	// data_version is the cheap question asked every tick; the mark is read only when
	// something was committed.
	v, err := w.probe.DataVersion(ctx)
	if err != nil || v == w.version {
		return false, err
	}
	m, err := w.probe.ContentMark(ctx)
	if err != nil {
		return false, err
	}
	w.version = v
	if m == w.mark {
		return false, nil
	}
	w.mark = m
	return true, nil
}

func (w *changeWatch) close() { w.probe.Close() }
