package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// kbWatch keeps folders in sync until interrupted: the folders named, or with none named,
// every folder watched before (of --space, or of every space).
func (c *cli) kbWatch(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("kb watch", flag.ContinueOnError)
	space := fs.String("space", "", "space to keep the folders in")
	roots, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		var reqs []engine.WatchRequest
		for _, r := range roots {
			reqs = append(reqs, engine.WatchRequest{Root: r, Space: *space})
		}
		if len(roots) == 0 {
			watched, err := e.KBWatched(ctx, *space)
			if err != nil {
				return err
			}
			if len(watched) == 0 {
				return usagef("kb watch: name a folder to keep in sync, e.g. memdesk kb watch ~/notes")
			}
			for _, w := range watched {
				reqs = append(reqs, engine.WatchRequest{Root: w.Root, Space: w.Space})
			}
		}
		// Lines from several folders' goroutines must not interleave.
		var mu sync.Mutex
		printEvent := func(ev engine.WatchEvent) {
			mu.Lock()
			defer mu.Unlock()
			_ = c.emit(ev, func(w io.Writer) { printWatchEvent(w, ev) })
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errs := make([]error, len(reqs))
		var wg sync.WaitGroup
		for i, req := range reqs {
			req.Events = printEvent
			root := req.Root
			req.Ready = func() {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(c.err, "watching %s; press Ctrl-C to stop\n", display.Line(root))
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if errs[i] = e.Watch(ctx, req); errs[i] != nil {
					cancel() // one folder that cannot be watched stops them all: say so now
				}
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
}

func printWatchEvent(w io.Writer, ev engine.WatchEvent) {
	switch ev.Outcome {
	case engine.ImportSkipped, engine.ImportFailed:
		fmt.Fprintf(w, "%s %s: %s\n", ev.Outcome, display.Line(ev.Path), display.Line(ev.Reason))
	default:
		fmt.Fprintf(w, "%s %s (document %d)\n", ev.Outcome, display.Line(ev.Path), ev.DocID)
	}
}

// kbUnwatch forgets a watched folder; its documents stay.
func (c *cli) kbUnwatch(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("kb unwatch", flag.ContinueOnError)
	space := fs.String("space", "", "space the folder is kept in")
	roots, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(roots) != 1 {
		return usagef("kb unwatch: name one watched folder (memdesk kb list shows them)")
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if err := e.KBUnwatch(ctx, *space, roots[0]); err != nil {
			return err
		}
		return c.emit(map[string]any{"root": roots[0], "status": "unwatched"}, func(w io.Writer) {
			fmt.Fprintf(w, "%s is no longer kept in sync (its documents stay; remove them with kb rm)\n", display.Line(roots[0]))
		})
	})
}
