package main

import (
	"context"
	"errors"
	"flag"
	"runtime"

	"fyne.io/fyne/v2/app"

	"github.com/memdesk/memdesk/ui"
)

// appID names memdesk to the desktop (preferences, notifications); it matches FyneApp.toml.
const appID = "io.github.memdesk"

// gui opens the desktop app on the configured database and returns when its window closes
// or ctx is cancelled. The engine is closed only after the window's work has stopped.
func (c *cli) gui(ctx context.Context, args []string) (err error) {
	fs := flag.NewFlagSet("gui", flag.ContinueOnError)
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("gui: takes no arguments, got %q", joinArgs(pos))
	}
	if !hasDisplay(c.lookup) {
		return errors.New("gui: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); use the commands in 'memdesk help' instead")
	}
	e, closeEngine, err := c.openLongLived(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeEngine(); err == nil {
			err = cerr
		}
	}()
	return ui.Run(ctx, app.NewWithID(appID), ui.Options{Backend: e, Logger: c.log,
		Semantic: ui.SemanticFunc(e.SemanticState), ConfigPath: c.cfg.Path, TestOllama: c.testOllama})
}

// hasDisplay reports whether a window can be shown: always on macOS and Windows, and on
// other systems when an X11 or Wayland display is named.
func hasDisplay(lookup func(string) (string, bool)) bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	for _, name := range []string{"DISPLAY", "WAYLAND_DISPLAY"} {
		if v, ok := lookup(name); ok && v != "" {
			return true
		}
	}
	return false
}
