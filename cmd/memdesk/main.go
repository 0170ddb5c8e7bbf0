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
// is the entity extractor's dictionary and language models (~120 MB) and, in the window, the
// fonts (~35 MB): loaded once and never freed, yet each collection lets the heap grow by
// gcPercent of them in garbage. At Go's default (100) a 100k-fact store took 440 MB resident;
// at 50, 403-415 MB; at 25, 337-340 MB (`memdesk bench`), and the window over 64k chunks
// 386-398 MB instead of 450-470 after two dozen searches. Collections are more frequent, but
// each allocates little once the models are in: see doc/performance.md for the cost.
const gcPercent = 25

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.LookupEnv)
	stop()
	os.Exit(code)
}
