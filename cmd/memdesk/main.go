// Command memdesk keeps a person's memories and knowledge on their own machine and finds
// them again. With no command it opens the desktop app; the commands are the same
// operations for terminals and scripts, and `memdesk mcp` serves AI agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	_ "github.com/memdesk/memdesk/cmd/memdesk/internal/quietlocale" // before Fyne's init: see its doc
)

// gcPercent is the garbage collector's target unless GOGC says otherwise. Most of the heap
// is the entity extractor's dictionary and language models (~120 MB), loaded once and never
// freed: at Go's default (100) the heap may grow by as much again in garbage before a
// collection, which took a 100k-fact store to 440 MB resident; at 50 it stays near 330 MB,
// for ingest within noise of the default (6,500 vs 6,450 facts/s) and recall 1.6 -> 2.4 ms.
const gcPercent = 50

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.LookupEnv)
	stop()
	os.Exit(code)
}
