package engine

import (
	"context"
	"fmt"
	"time"
)

// DefaultChangePoll is how often WatchChanges looks when its caller does not say: often
// enough that a memory the CLI writes shows in an open window well within a second, and
// each look is one PRAGMA on an idle connection (microseconds).
const DefaultChangePoll = 300 * time.Millisecond

// WatchChanges calls changed after a commit to the database by any other connection: another
// process (the CLI, the MCP server, a second window) or this engine's own writes, which run on
// other connections of its pool. It looks every `every` (0 means DefaultChangePoll), so every
// commit in one interval comes as one call, and a long import by any process as one call per
// interval; telling its own writes apart is left to the caller, which knows what it wrote.
// changed runs on the watching goroutine: it should hand the news on and return.
//
// WatchChanges blocks until ctx ends, then returns nil; its owner cancels ctx and waits for it
// before closing the engine. It fails only when it cannot start watching.
func (e *Engine) WatchChanges(ctx context.Context, every time.Duration, changed func()) error {
	if every <= 0 {
		every = DefaultChangePoll
	}
	probe, err := e.st.OpenVersionProbe(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("watch for changes by other programs: %w", err)
	}
	defer probe.Close()
	last, err := probe.DataVersion(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("watch for changes by other programs: %w", err)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		v, err := probe.DataVersion(ctx)
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
		if v != last {
			last = v
			changed()
		}
	}
}
