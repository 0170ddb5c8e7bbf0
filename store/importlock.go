package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
func (s *Store) lockImport(token string) (*importLock, error) {
	path := s.importLockPath(token)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create import lock: %w", err)
	}
	switch err := tryLockFile(f); {
	case errors.Is(err, errNoFileLock):
		f.Close()
		os.Remove(path)
		return nil, nil
	case err != nil:
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("lock import: %w", err)
	}
	return &importLock{f: f, path: path}, nil
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
