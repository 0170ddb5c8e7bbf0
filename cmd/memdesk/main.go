// Command memdesk keeps a person's memories and knowledge on their own machine and finds
// them again. With no command it opens the desktop app; the commands are the same
// operations for terminals and scripts, and `memdesk mcp` serves AI agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/memdesk/memdesk/cmd/memdesk/internal/quietlocale" // before Fyne's init: see its doc
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.LookupEnv)
	stop()
	os.Exit(code)
}
