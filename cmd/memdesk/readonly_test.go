//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestReadOnlyDatabaseAsNobody (issue 27, item 12): a database this user cannot write (a
// backup on read-only media, a file another user owns) can still be read: recall, list and
// export work, a change is refused in words that say what to do, and nothing is written
// beside it. Where the file cannot be read consistently without writing (a -wal left
// unmerged, or a writer holding it open now) the refusal says so. Every command used to fail
// on opening the -wal.
func TestReadOnlyDatabaseAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot make a database this user may not write")
	}
	const nobody = 65534
	bin := memdeskBinary(t)
	dir, err := os.MkdirTemp("", "memdesk-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ownBin := filepath.Join(dir, "memdesk")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, ownBin, data)
	if err := os.Chmod(ownBin, 0o755); err != nil {
		t.Fatal(err)
	}
	// nobody's own folder, for the export and its home.
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(out, nobody, nobody); err != nil {
		t.Skipf("cannot hand a folder to nobody: %v", err)
	}
	run := func(db string, args ...string) (stdout, stderr string, err error) {
		cmd := exec.Command(ownBin, append([]string{"--db", db}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+filepath.Join(out, "home"), "XDG_CONFIG_HOME="+filepath.Join(out, "home", ".config"),
			"XDG_DATA_HOME="+filepath.Join(out, "home", ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(out, "home", ".cache"),
			"XDG_RUNTIME_DIR="+out, "MEMDESK_CONFIG="+filepath.Join(out, "none.toml"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err = cmd.Run()
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			t.Skipf("cannot run a process as nobody here: %v", err)
		}
		return o.String(), e.String(), err
	}
	ctx := context.Background()
	remember := func(e *engine.Engine, text string) {
		t.Helper()
		if _, err := e.Remember(ctx, engine.RememberRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("closed cleanly", func(t *testing.T) {
		db := filepath.Join(dir, "closed.db")
		e, err := engine.Open(ctx, db, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		remember(e, "the kayak paddle hangs in the garage")
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(db, 0o644); err != nil {
			t.Fatal(err)
		}
		before, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}

		stdout, stderr, err := run(db, "recall", "kayak")
		if err != nil || !strings.Contains(stdout, "kayak paddle") {
			t.Errorf("recall on a read-only database: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		}
		if !strings.Contains(stderr, "read-only") {
			t.Errorf("recall did not say the database is open read-only: %s", stderr)
		}
		if stdout, stderr, err := run(db, "list"); err != nil || !strings.Contains(stdout, "kayak paddle") {
			t.Errorf("list on a read-only database: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		}
		export := filepath.Join(out, "export.md")
		if _, stderr, err := run(db, "memories", "export", "--to", export); err != nil {
			t.Errorf("export from a read-only database: %v\nstderr: %s", err, stderr)
		} else if got, _ := os.ReadFile(export); !strings.Contains(string(got), "kayak paddle") {
			t.Errorf("the export holds %q, want the memory", got)
		}
		_, stderr, err = run(db, "remember", "the canoe is red")
		if err == nil || !strings.Contains(stderr, "read-only") || !strings.Contains(stderr, "copy the database") {
			t.Errorf("remember on a read-only database: %v, stderr %q; want a refusal saying what to do", err, stderr)
		}
		after, err := os.ReadFile(db)
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("the read-only database changed (%v)", err)
		}
		for _, side := range []string{"-wal", "-shm"} {
			if _, err := os.Lstat(db + side); err == nil {
				t.Errorf("%s was made beside the read-only database", side)
			}
		}
	})

	t.Run("a writer holds it open", func(t *testing.T) {
		db := filepath.Join(dir, "live.db")
		e, err := engine.Open(ctx, db, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		remember(e, "the raft is green")
		for _, p := range []string{db, db + "-wal", db + "-shm"} {
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, stderr, err := run(db, "recall", "raft")
		if err == nil || !strings.Contains(stderr, "open for writing now") {
			t.Errorf("recall while a writer of another user holds it: %v, stderr %q; want a refusal naming the writer", err, stderr)
		}

		// A copy of the file and its -wal without the -shm: changes only a writer can merge.
		left := filepath.Join(dir, "left.db")
		for _, side := range []string{"", "-wal"} {
			b, err := os.ReadFile(db + side)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, left+side, b)
			if err := os.Chmod(left+side, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, stderr, err = run(left, "recall", "raft")
		if err == nil || !strings.Contains(stderr, "-wal") {
			t.Errorf("recall of a database with an unmerged -wal: %v, stderr %q; want a refusal naming the -wal", err, stderr)
		}
	})
}
