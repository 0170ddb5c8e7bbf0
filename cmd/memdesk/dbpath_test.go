//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabasePathCLI: memdesk opens only what is its database. A --db in a folder that does
// not exist (a typo) is refused and nothing is created; a new file in an existing folder is
// created and said so on stderr; an empty file or a file that is not SQLite is refused with
// an error naming it, and left as it was (no -wal or -shm beside it); the default path is
// created silently (issue 15, items 12 and 13).
func TestDatabasePathCLI(t *testing.T) {
	bin := memdeskBinary(t)
	base := newMemdeskRun(t, bin)
	dir := t.TempDir()
	at := func(path string) memdeskRun { r := base; r.db = path; return r }

	t.Run("missing folder", func(t *testing.T) {
		typo := filepath.Join(dir, "Documnets", "memdesk")
		code, _, stderr := at(filepath.Join(typo, "memdesk.db")).human(t, "stats")
		if code != 1 || !strings.Contains(string(stderr), "folder does not exist: "+typo) {
			t.Errorf("exit %d, stderr %q; want 1 naming the missing folder %s", code, stderr, typo)
		}
		if _, err := os.Stat(filepath.Join(dir, "Documnets")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the mistyped folder was created (stat: %v)", err)
		}
	})
	t.Run("new file in an existing folder", func(t *testing.T) {
		path := filepath.Join(dir, "new.db")
		code, _, stderr := at(path).human(t, "stats")
		if want := "memdesk: created new database at " + path + "\n"; code != 0 || string(stderr) != want {
			t.Errorf("first run: exit %d, stderr %q; want 0, %q", code, stderr, want)
		}
		code, _, stderr = at(path).human(t, "stats")
		if code != 0 || len(stderr) != 0 {
			t.Errorf("second run: exit %d, stderr %q; want 0 and nothing", code, stderr)
		}
	})
	refusals := []struct {
		name, file, content, says string
	}{
		{"zero-length file", "empty.db", "", " is an empty file, not a memdesk database"},
		{"text file", "notes.txt", "eggs, milk\n", " is not a memdesk database (it is not an SQLite file)"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			writeFile(t, path, []byte(tc.content))
			for _, args := range [][]string{{"stats"}, {"list"}, {"remember", "a fact"}} {
				code, _, stderr := at(path).human(t, args...)
				if want := "memdesk: " + path + tc.says; code != 1 || !strings.HasPrefix(string(stderr), want) {
					t.Errorf("%s: exit %d, stderr %q; want 1 and %q", args[0], code, stderr, want)
				}
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != tc.content {
				t.Errorf("file now holds %q (%v), want %q", got, err, tc.content)
			}
			for _, suffix := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(path + suffix); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s%s was created beside it (stat: %v)", path, suffix, err)
				}
			}
		})
	}
	t.Run("default path", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "home")
		r := base.withEnv("HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "MEMDESK_DB=")
		cmd, _, stderr := r.command("stats")
		cmd.Args = []string{bin, "stats"} // no --db
		if err := cmd.Run(); err != nil || stderr.Len() != 0 {
			t.Errorf("stats on the default path: %v, stderr %q; want success and nothing on stderr", err, stderr)
		}
		if _, err := os.Stat(filepath.Join(home, ".local", "share", "memdesk", "memdesk.db")); err != nil {
			t.Errorf("default database not created: %v", err)
		}
	})
}

// TestNumberFlagsCLI: a negative count is a usage error (exit 2), as other usage errors are;
// a --filter longer than LIKE's pattern limit is an ordinary filter.
func TestNumberFlagsCLI(t *testing.T) {
	r := newMemdeskRun(t, memdeskBinary(t))
	r.human(t, "remember", "the puffin nests in burrows")
	for _, args := range [][]string{
		{"recall", "-k", "-3", "puffin"},
		{"recall", "-k=-1", "puffin"},
		{"list", "--limit", "-1"},
	} {
		code, stdout, stderr := r.human(t, args...)
		if code != 2 || len(stdout) != 0 || !strings.Contains(string(stderr), "Run 'memdesk help' for usage.") {
			t.Errorf("memdesk %q: exit %d, stdout %q, stderr %q; want a usage error (2)", args, code, stdout, stderr)
		}
	}
	for _, filter := range []string{strings.Repeat("x", 60000), strings.Repeat("%", 60000)} {
		if code, stdout, stderr := r.human(t, "list", "--filter", filter); code != 0 || !strings.Contains(string(stdout), "no memory holds") || len(stdout) > 200 {
			t.Errorf("list --filter of %d bytes: exit %d, stdout %q, stderr %q; want 0 and one short line saying no memory holds it", len(filter), code, stdout, stderr)
		}
	}
}
