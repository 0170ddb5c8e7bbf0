package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCrashDuringBackup kills `admin backup` at seeded random moments, from its start to
// past its end. A backup's name must hold a whole, sound copy or not exist: VACUUM INTO once
// wrote the name itself, and a kill left a 0-byte or headless file there in 104 of 146 runs.
// Whatever a killed backup leaves is in its hidden work folder, readable by the user alone.
// The database itself stays sound.
func TestCrashDuringBackup(t *testing.T) {
	wantKills := killsWanted(40, 6)
	bin := memdeskBinary(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0xbac0))

	r := newMemdeskRun(t, bin)
	var imp importResult
	r.mustJSON(t, &imp, "kb", "add", writeImportCorpus(t, 300))
	out := t.TempDir()

	// A clean backup: how long the whole process takes, start to exit.
	start := time.Now()
	var clean adminResult
	r.mustJSON(t, &clean, "admin", "backup", "--to", filepath.Join(out, "clean.db"))
	whole := time.Since(start)
	wantFacts := backupCounts(t, filepath.Join(out, "clean.db"))

	kills, whole0, complete := 0, 0, 0
	for i := 0; kills < wantKills; i++ {
		if i >= wantKills*4 {
			t.Fatalf("only %d of %d kills landed in %d runs", kills, wantKills, i)
		}
		dest := filepath.Join(out, fmt.Sprintf("b-%03d.db", i))
		cmd, _, stderr := r.command("admin", "backup", "--to", dest)
		delay := time.Duration(rng.Int64N(int64(whole) + 1))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(delay):
			_ = cmd.Process.Kill()
			err = <-done
		}
		killed := diedOfSIGKILL(err)
		if err != nil && !killed {
			t.Fatalf("backup %d exited with %v (not a kill)\nstderr: %s", i, err, stderr)
		}
		if killed {
			kills++
		}
		fi, serr := os.Lstat(dest)
		switch {
		case errors.Is(serr, fs.ErrNotExist):
			if !killed {
				t.Fatalf("backup %d finished but %s does not exist", i, dest)
			}
			whole0++
		case serr != nil:
			t.Fatal(serr)
		default:
			complete++
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("backup %d (killed %v): %s is %v, want 0600", i, killed, dest, fi.Mode())
			}
			if got := backupCounts(t, dest); got != wantFacts {
				t.Errorf("backup %d (killed %v): %s holds %s, want what a clean backup holds (%s)", i, killed, dest, got, wantFacts)
			}
		}
		// Nothing but whole copies and hidden work folders is ever left beside them.
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".memdesk-backup-") {
				if info, err := e.Info(); err != nil || info.Mode().Perm() != 0o700 {
					t.Errorf("work folder %s left with mode %v (%v), want 0700", name, info.Mode(), err)
				}
				continue
			}
			if !strings.HasSuffix(name, ".db") {
				t.Errorf("backup %d left %s beside the copies", i, name)
			}
		}
	}
	r.checkIntegrity(t)
	t.Logf("seed %d: %d kills over a backup of %v; %d names absent, %d whole copies", seed, kills, whole.Round(time.Millisecond), whole0, complete)
}

// backupCounts opens a backup read-only, checks it is sound, and says what it holds.
func backupCounts(t *testing.T, path string) string {
	t.Helper()
	db := openForCheck(t, path+"?mode=ro")
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("%s: integrity %q, %v", path, check, err)
	}
	var docs, chunks int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)`).Scan(&docs, &chunks); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fmt.Sprintf("%d documents, %d chunks", docs, chunks)
}
