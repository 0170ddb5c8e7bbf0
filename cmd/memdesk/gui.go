package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2/app"
	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"

	"github.com/memdesk/memdesk/internal/hotkey"
	"github.com/memdesk/memdesk/internal/instance"
	"github.com/memdesk/memdesk/ui"
)

// appID names memdesk to the desktop (preferences, notifications); it matches FyneApp.toml.
const appID = "io.github.memdesk"

// gui opens the desktop app on the configured database and returns when it quits or ctx is
// cancelled; with quick, the app opens with its quick window up. When an app already runs
// on this database, it is asked to show its main or quick window instead. The engine is
// closed only after the window's work has stopped.
func (c *cli) gui(ctx context.Context, args []string, quick bool) (err error) {
	name := "gui"
	if quick {
		name = "quick"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var foreground bool
	if quick {
		fs.BoolVar(&foreground, "foreground", false, "run the app in this process instead of starting it in the background")
	}
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("%s: takes no arguments, got %q", name, joinArgs(pos))
	}
	if !hasDisplay(c.lookup) {
		return fmt.Errorf("%s: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); use the commands in 'memdesk help' instead", name)
	}
	dbPath, err := c.dbPath()
	if err != nil {
		return err
	}
	if quick && !foreground {
		return c.quickInBackground(ctx, dbPath)
	}
	ln, err := c.takeInstance(ctx, dbPath, quick)
	if errors.Is(err, instance.ErrRunning) {
		switch {
		case quick: // run from a shortcut, where no one reads stderr
		case c.json:
			writeJSON(c.err, map[string]any{"notice": "already running; its window is brought up", "path": dbPath})
		default:
			fmt.Fprintln(c.err, "memdesk: already running on this database; its window is brought up")
		}
		return nil
	}
	if err != nil {
		return err
	}

	e, closeEngine, err := c.openLongLived(ctx)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	defer func() {
		if cerr := closeEngine(); err == nil {
			err = cerr
		}
	}()
	keys, noKey := c.hotkeys()
	a := app.NewWithID(appID)
	// Fyne's lang package takes the window's language only from the environment's locale,
	// so the language chosen in Settings goes there, before the window's words are loaded.
	if l := ui.LanguageOverride(a); l != "" {
		if err := os.Setenv("LANGUAGE", l); err != nil {
			c.log.Warn("the language chosen in Settings cannot be applied", "err", err)
		}
	}
	u := ui.New(a, ui.Options{Backend: e, Logger: c.log,
		Semantic: ui.SemanticFunc(e.SemanticState), Background: e, ConfigPath: c.cfg.Path, TestOllama: c.testOllama,
		Hotkeys: keys, NoHotkeyWhy: noKey, TrayLikely: c.trayLikely(ctx)})
	if ln != nil {
		serveCtx, stopServing := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			err := ln.Serve(serveCtx, func(cmd instance.Command) {
				c.log.Debug("instance: command from another memdesk", "command", string(cmd))
				switch cmd {
				case instance.Quick:
					u.ShowQuick()
				case instance.Show:
					u.ShowMain()
				}
			})
			if err != nil {
				c.log.Warn("no longer answering other memdesk commands", "err", err)
			}
		})
		defer func() { stopServing(); wg.Wait() }()
	}
	return u.Run(ctx, quick)
}

// quickStartWait is how long `memdesk quick` watches the app it started: one that fails at
// once (a config it cannot read, a database it cannot open) has said so by then, and a
// shortcut's command still returns well within a second.
const quickStartWait = 300 * time.Millisecond

// quickInBackground is `memdesk quick` as a shortcut runs it: it returns at once. A running
// app is asked for its quick window; with none, the app is started in a process of its own,
// with its quick window up, and this one returns without waiting for it.
func (c *cli) quickInBackground(ctx context.Context, dbPath string) error {
	if dir, ok := c.runtimeDir(); ok {
		err := instance.Send(ctx, instance.SocketPath(dir, dbPath), instance.Quick)
		if err == nil {
			return nil
		}
		if !errors.Is(err, instance.ErrNotRunning) {
			return fmt.Errorf("memdesk is already running on %s but did not answer: %w", dbPath, err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("quick: cannot find memdesk's own program to start the app: %w", err)
	}
	args := []string{"--db", dbPath}
	if c.cfgFlag != "" {
		args = append(args, "--config", c.cfgFlag)
	}
	if c.verbose {
		args = append(args, "-v")
	}
	args = append(args, "quick", "--foreground")
	stderr, where, closeLog, err := c.appLog()
	if err != nil {
		return err
	}
	defer closeLog()
	cmd := exec.Command(exe, args...)
	cmd.Stderr = stderr
	// Its own session: the app outlives this command and the terminal or launcher it ran in.
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("quick: start the app: %w", err)
	}
	c.log.Debug("quick: the app was started in the background", "pid", cmd.Process.Pid, "log", where)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("quick: the app stopped as it started (%v); its log is %s", err, where)
		}
		return nil // it found an app started meanwhile and handed it the command
	case <-time.After(quickStartWait):
		return nil
	}
}

// appLog is where an app started in the background writes its log: this command's own
// stderr when that is a file (a redirect), which outlives this command as a pipe or a
// terminal would not, else app.log in memdesk's cache folder, started afresh. done closes
// what appLog opened.
func (c *cli) appLog() (log *os.File, where string, done func(), err error) {
	if f, ok := c.err.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return f, f.Name(), func() {}, nil
		}
	}
	dir := c.cacheDir()
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", nil, fmt.Errorf("quick: make a folder for the app's log: %w", err)
	}
	where = filepath.Join(dir, "app.log")
	f, err := os.OpenFile(where, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, "", nil, fmt.Errorf("quick: open the app's log: %w", err)
	}
	return f, where, func() { f.Close() }, nil
}

// takeInstance takes the socket through which `memdesk quick` and a second `memdesk gui`
// reach this app. When an app already runs on the database it hands that app the command
// and returns instance.ErrRunning. A socket that cannot be made is not fatal: the app runs
// without it, and says so in the log.
func (c *cli) takeInstance(ctx context.Context, dbPath string, quick bool) (*instance.Listener, error) {
	dir, ok := c.runtimeDir()
	if !ok {
		c.log.Warn("no private runtime folder: `memdesk quick` cannot reach this app", "fix", "set XDG_RUNTIME_DIR")
		return nil, nil
	}
	path := instance.SocketPath(dir, dbPath)
	ln, err := instance.Listen(path)
	if !errors.Is(err, instance.ErrRunning) {
		if err != nil {
			c.log.Warn("`memdesk quick` cannot reach this app", "err", err)
			return nil, nil
		}
		c.log.Debug("instance: listening", "socket", path)
		return ln, nil
	}
	cmd := instance.Show
	if quick {
		cmd = instance.Quick
	}
	if err := instance.Send(ctx, path, cmd); err != nil {
		return nil, fmt.Errorf("memdesk is already running on %s but did not answer: %w", dbPath, err)
	}
	c.log.Debug("instance: the running app was asked", "command", string(cmd))
	return nil, instance.ErrRunning
}

// runtimeDir is the user's private folder for the instance socket: $XDG_RUNTIME_DIR/memdesk,
// else memdesk-<uid> in the temporary folder (the instance package checks it is private).
func (c *cli) runtimeDir() (string, bool) {
	if v, ok := c.lookup("XDG_RUNTIME_DIR"); ok && filepath.IsAbs(v) {
		return filepath.Join(v, "memdesk"), true
	}
	if runtime.GOOS == "windows" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", false
		}
		return filepath.Join(dir, "memdesk", "run"), true
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("memdesk-%d", os.Geteuid())), true
}

// hotkeys is what grabs the global shortcut on this desktop, or why nothing can.
func (c *cli) hotkeys() (ui.Hotkeys, string) {
	if v, _ := c.lookup("WAYLAND_DISPLAY"); v != "" {
		return nil, "this is a Wayland session, where apps cannot grab keys for themselves"
	}
	if v, _ := c.lookup("XDG_SESSION_TYPE"); strings.EqualFold(v, "wayland") {
		return nil, "this is a Wayland session, where apps cannot grab keys for themselves"
	}
	switch runtime.GOOS {
	case "darwin", "windows":
		return nil, "memdesk grabs keys only on X11 so far"
	}
	display, _ := c.lookup("DISPLAY")
	if display == "" {
		return nil, "there is no X11 display (DISPLAY is unset)"
	}
	// xgb logs to stderr (a missing ~/.Xauthority, which is normal under Xvfb); its lines
	// belong in memdesk's log at debug level. Set once here, before any connection.
	xgb.Logger = slog.NewLogLogger(c.log.Handler(), slog.LevelDebug)
	return hotkey.X11{Display: display, Log: c.log}, ""
}

// trayLikely reports whether a system tray will show memdesk's icon: macOS and Windows
// always have one; on Linux a desktop shows it when a StatusNotifier host runs on the
// session bus (KDE, XFCE, Cinnamon, GNOME with the AppIndicator extension; not plain GNOME).
// Without one, hiding the window on close would leave nothing on screen to bring it back.
func (c *cli) trayLikely(ctx context.Context) bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	if v, _ := c.lookup("DBUS_SESSION_BUS_ADDRESS"); v == "" {
		return false // and fyne.io/systray would panic at quit without a bus
	}
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		c.log.Debug("no session bus: no tray icon", "err", err)
		return false
	}
	defer conn.Close()
	var has bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	if err != nil {
		c.log.Debug("could not ask the session bus for a tray", "err", err)
		return false
	}
	c.log.Debug("system tray", "available", has)
	return has
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
