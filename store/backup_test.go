//go:build unix

package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// backupTestStore opens a store whose onVacuum runs as VACUUM INTO starts (from SQLite's
// statement trace), holding a document of 200 chunks: a copy of many pages, made in a
// fraction of a second (2,000 chunks took 8 s a store under -race, for no test that needs it).
func backupTestStore(t *testing.T, onVacuum func()) *Store {
	t.Helper()
	var mu sync.Mutex
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "memdesk.db"), Options{
		Words: wordsForTest,
		TraceSQL: func(sql string) {
			if strings.HasPrefix(sql, "VACUUM INTO") {
				mu.Lock()
				defer mu.Unlock()
				onVacuum()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	in := bigDocument("/notes/big.txt", "h", 200, strings.Repeat("ledger ", 100))
	if _, _, err := s.PutDocument(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBackupIsUserOnlyThroughout backs up under umask 0, where a file SQLite creates itself
// is 0666. While VACUUM INTO writes, the copy is in a folder only the user can enter, and the
// backup's own name does not exist yet; it appears once, whole and 0600.
func TestBackupIsUserOnlyThroughout(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy.db")
	var atStart []string
	s := backupTestStore(t, func() {
		if _, err := os.Lstat(dest); err == nil {
			atStart = append(atStart, "copy.db exists as VACUUM INTO starts")
		}
		matches, _ := filepath.Glob(filepath.Join(dir, backupWorkPrefix+"*"))
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil || fi.Mode().Perm() != 0o700 {
				atStart = append(atStart, fmt.Sprintf("work folder %s: %v, %v; want 0700", m, fi.Mode(), err))
			}
		}
		if len(matches) != 1 {
			atStart = append(atStart, fmt.Sprintf("%d work folders, want 1", len(matches)))
		}
	})

	// Watch the name while the copy is written; every mode it ever shows is recorded.
	seen := map[fs.FileMode]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if fi, err := os.Stat(dest); err == nil {
				seen[fi.Mode().Perm()] = true
			}
		}
	}()
	size, err := s.Backup(context.Background(), dest)
	close(stop)
	wg.Wait()
	if err != nil || size <= 0 {
		t.Fatalf("Backup = %d, %v", size, err)
	}
	for _, problem := range atStart {
		t.Error(problem)
	}
	for mode := range seen {
		if mode != 0o600 {
			t.Errorf("backup file was %v at some moment, want only 0600", mode)
		}
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != size {
		t.Errorf("backup file after: %v, %v; want mode 0600 and %d bytes", fi, err, size)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries after the backup, want only the copy", len(entries))
	}
}

// TestBackupRemovesWhatAKilledOneLeft: the folder of a backup killed midway is hidden, holds
// no backup's name, and the next backup into that folder removes it once it is stale.
func TestBackupRemovesWhatAKilledOneLeft(t *testing.T) {
	s := backupTestStore(t, func() {})
	dir := t.TempDir()
	stale := filepath.Join(dir, backupWorkPrefix+"123")
	fresh := filepath.Join(dir, backupWorkPrefix+"456")
	for _, d := range []string{stale, fresh} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "copy.db"), []byte("half a copy"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{filepath.Join(stale, "copy.db"), stale} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Backup(context.Background(), filepath.Join(dir, "copy.db")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a stale backup folder survives the next backup: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a folder written just now (a backup still running) was removed: %v", err)
	}
}

// TestFailedBackupLeavesNothing fails backups in different ways: none may leave a file.
func TestFailedBackupLeavesNothing(t *testing.T) {
	t.Run("interrupted while writing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := backupTestStore(t, cancel)
		dir := t.TempDir()
		dest := filepath.Join(dir, "copy.db")
		if _, err := s.Backup(ctx, dest); err == nil {
			t.Fatal("Backup interrupted as VACUUM INTO starts: no error")
		}
		assertEmptyDir(t, dir)
	})
	t.Run("folder not writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only folders")
		}
		s := backupTestStore(t, func() {})
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o700)
		if _, err := s.Backup(context.Background(), filepath.Join(dir, "copy.db")); err == nil {
			t.Fatal("Backup into a read-only folder: no error")
		}
		assertEmptyDir(t, dir)
	})
	t.Run("missing folder is refused, not created", func(t *testing.T) {
		s := backupTestStore(t, func() {})
		missing := filepath.Join(t.TempDir(), "typo", "copy.db")
		if _, err := s.Backup(context.Background(), missing); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("Backup into a missing folder: %v, want a refusal naming it", err)
		}
		if _, err := os.Stat(filepath.Dir(missing)); err == nil {
			t.Error("the missing folder was created")
		}
	})
	t.Run("existing file is refused and untouched", func(t *testing.T) {
		s := backupTestStore(t, func() {})
		dest := filepath.Join(t.TempDir(), "copy.db")
		for _, content := range []string{"", "someone's file"} {
			if err := os.WriteFile(dest, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.Backup(context.Background(), dest)
			if err == nil || !strings.Contains(err.Error(), "exists") {
				t.Errorf("Backup over a file holding %q: %v, want a refusal", content, err)
			}
			if got, rerr := os.ReadFile(dest); rerr != nil || string(got) != content {
				t.Errorf("the existing file after the refusal holds %q, %v; want %q", got, rerr, content)
			}
		}
	})
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		info, _ := e.Info()
		names = append(names, fmt.Sprintf("%s (%v, %d bytes)", e.Name(), info.Mode(), info.Size()))
	}
	if len(names) != 0 {
		t.Errorf("a failed backup left %s", strings.Join(names, ", "))
	}
}
