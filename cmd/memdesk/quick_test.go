//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memdesk/memdesk/internal/instance"
)

// TestQuickForwardsToTheRunningApp: with an app listening on the database's socket,
// `memdesk quick` and `memdesk gui` hand it their command and exit 0, opening neither a
// window nor the database (no display is needed beyond DISPLAY being named).
func TestQuickForwardsToTheRunningApp(t *testing.T) {
	runDir, err := os.MkdirTemp("", "mdq") // short: a socket path is limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runDir) })
	dir := t.TempDir()
	db := filepath.Join(dir, "never-opened.db")
	env := map[string]string{"MEMDESK_CONFIG": filepath.Join(dir, "config.toml"), "DISPLAY": ":424242", "XDG_RUNTIME_DIR": runDir}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }

	ln, err := instance.Listen(instance.SocketPath(filepath.Join(runDir, "memdesk"), db))
	if err != nil {
		t.Fatalf("the stand-in app could not listen: %v", err)
	}
	var mu sync.Mutex
	var got []instance.Command
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ln.Serve(ctx, func(c instance.Command) { mu.Lock(); got = append(got, c); mu.Unlock() })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	for _, cmd := range []string{"quick", "gui"} {
		var out, stderr bytes.Buffer
		code := run(t.Context(), []string{"--db", db, cmd}, streams{in: strings.NewReader(""), out: &out, err: &stderr}, lookup)
		if code != 0 {
			t.Fatalf("memdesk %s: exit %d, stderr %q; want 0", cmd, code, stderr.String())
		}
		if said := strings.Contains(stderr.String(), "already running"); said != (cmd == "gui") {
			t.Errorf("memdesk %s: stderr %q (gui says it found the app; quick, run from a shortcut, is silent)", cmd, stderr.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != instance.Quick || got[1] != instance.Show {
		t.Errorf("the running app received %q, want [quick show]", got)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the database was opened by the forwarding command (stat: %v)", err)
	}
}

func TestQuickWithoutDisplaySaysSo(t *testing.T) {
	var out, stderr bytes.Buffer
	lookup := func(name string) (string, bool) {
		if name == "MEMDESK_CONFIG" {
			return filepath.Join(t.TempDir(), "config.toml"), true
		}
		return "", false
	}
	code := run(t.Context(), []string{"--db", filepath.Join(t.TempDir(), "m.db"), "quick"}, streams{in: strings.NewReader(""), out: &out, err: &stderr}, lookup)
	if code != 1 || !strings.Contains(stderr.String(), "quick: no display") {
		t.Errorf("exit %d, stderr %q; want 1 and the no-display message", code, stderr.String())
	}
}

// TestAppLogOutlivesTheCommand: the app `memdesk quick` starts logs to the command's stderr
// only when that is a file; a pipe (whose reader goes when the command returns, and whose
// closing would kill the app at its next log line) gives way to app.log, private, in the
// cache folder.
func TestAppLogOutlivesTheCommand(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }

	file, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	c := &cli{streams: streams{err: file}, lookup: lookup}
	got, where, done, err := c.appLog()
	if err != nil {
		t.Fatal(err)
	}
	done()
	if got != file || where != file.Name() {
		t.Errorf("with stderr a file, appLog = %v at %q; want that file", got, where)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c = &cli{streams: streams{err: w}, lookup: lookup}
	got, where, done, err = c.appLog()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if want := filepath.Join(dir, "cache", "memdesk", "app.log"); where != want || got == w {
		t.Fatalf("with stderr a pipe, appLog writes to %q; want %q", where, want)
	}
	fi, err := os.Stat(where)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("app.log has mode %v; want 0600", fi.Mode().Perm())
	}
}
