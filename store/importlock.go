package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// How another process tells a live big import from one whose process died (staged.go):
//
// Each staged import holds an OS file lock (flock on Unix, LockFileEx on Windows) on a file of
// its own beside the database, named by the import's token, from before its first row is
// written until it is done. The kernel drops the lock the moment the process ends, kill -9
// included, so "can I take the lock?" answers "is its writer alive?" exactly and at once: what
// a crash left is reclaimed by the very next open or import, however young, and a live import
// in another process is never touched, however slow (a laptop asleep mid-import, a writer
// waiting out a busy peer). A heartbeat timestamp could answer only "has it written lately?",
// which forces a choice between leaving a crash's rows for a while and destroying a slow
// import; a pid with its start time is reused, and is not portable to read. Where no file lock
// is available, the age of the import's last piece (abandonedAfter) still decides.

// errNoFileLock means this platform gives memdesk no file lock: liveness falls back to age.
var errNoFileLock = errors.New("file locks not available")

// importLockPath is the lock file of the staged import with token.
func (s *Store) importLockPath(token string) string {
	return s.path + "-import-" + token + ".lock"
}

// importLock is held by a live staged import.
type importLock struct {
	f    *os.File
	path string
}

// lockImport creates and locks the lock file of token. A nil lock with a nil error means the
// platform has no file locks.
//
// Where a locked file can be renamed (Unix), the lock is taken on a file under a name of its
// own and only then renamed into place, so a lock file under its final name is locked from
// birth and an unlocked one always means a dead writer. Elsewhere a lock file is created in
// place, and for a moment it exists unlocked: an orphan sweep spares young ones.
func (s *Store) lockImport(token string) (*importLock, error) {
	path := s.importLockPath(token)
	name := path
	if lockedAtBirth {
		name = path + lockBirthSuffix
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create import lock: %w", err)
	}
	switch err := tryLockFile(f); {
	case errors.Is(err, errNoFileLock):
		f.Close()
		os.Remove(name)
		return nil, nil
	case err != nil:
		f.Close()
		os.Remove(name)
		return nil, fmt.Errorf("lock import: %w", err)
	}
	if name != path {
		if err := os.Rename(name, path); err != nil {
			f.Close()
			os.Remove(name)
			return nil, fmt.Errorf("lock import: %w", err)
		}
	}
	return &importLock{f: f, path: path}, nil
}

// lockBirthSuffix names a lock file before it is locked and renamed into place.
const lockBirthSuffix = ".new"

// orphanLockAge is how old an unlocked lock file must be before the orphan sweep removes it
// where it may be one a live import has created and not yet locked.
const orphanLockAge = time.Minute

// removeOrphanLocks deletes the lock files of imports whose writer died before its first
// staged row (a kill between taking the lock and writing), which no staged document names
// and RemoveAbandoned would otherwise never find. A file still locked is a live import's.
func (s *Store) removeOrphanLocks() {
	names, _ := filepath.Glob(s.importLockPath("*"))
	births, _ := filepath.Glob(s.importLockPath("*") + lockBirthSuffix)
	for _, name := range append(names, births...) {
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		young := time.Since(fi.ModTime()) < orphanLockAge
		if young && (!lockedAtBirth || strings.HasSuffix(name, lockBirthSuffix)) {
			continue // perhaps created a moment ago and about to be locked
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		dead := tryLockFile(f) == nil
		f.Close() // before the removal, which Windows needs; tokens are never reused
		if dead {
			os.Remove(name)
		}
	}
}

// release ends the import: the lock file goes (closed first, which Windows needs to delete it).
func (l *importLock) release() {
	if l == nil {
		return
	}
	l.f.Close()
	os.Remove(l.path)
}

// importAlive reports whether the staged import of token still has a live writer. It answers
// errNoFileLock where the platform cannot tell. A missing lock file means a dead writer: a
// live one creates its lock before its first row.
func (s *Store) importAlive(token string) (bool, error) {
	path := s.importLockPath(token)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check import lock: %w", err)
	}
	defer f.Close()
	switch err := tryLockFile(f); {
	case errors.Is(err, errLocked):
		return true, nil
	case err != nil:
		return false, err
	}
	return false, nil
}

// removeImportLock deletes a dead import's lock file, once its rows are gone.
func (s *Store) removeImportLock(token string) {
	os.Remove(s.importLockPath(token))
}
