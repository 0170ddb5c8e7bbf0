package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"
)

// ErrDiskFull is matched (errors.Is) by the error of a write that failed because the disk
// holding the database is full.
var ErrDiskFull = errors.New("disk full")

// DiskError is a write that failed on the disk itself, worded for the person who has to act:
// which disk, what to do, and that what was acknowledged before is safe (SQLite rolls the
// failed transaction back, and every earlier commit is in the database or its WAL).
type DiskError struct {
	Path string // the database file
	Full bool   // out of space, rather than another I/O failure
	Err  error
}

func (e *DiskError) Error() string {
	if e.Full {
		return fmt.Sprintf("the disk holding %s is full: free space and run again; nothing acknowledged was lost (%v)", e.Path, e.Err)
	}
	return fmt.Sprintf("the disk holding %s failed a write (%v): check that it is connected and has free space, then run again; nothing acknowledged was lost", e.Path, e.Err)
}

func (e *DiskError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDiskFull) true for a full disk.
func (e *DiskError) Is(target error) bool { return target == ErrDiskFull && e.Full }

// lowSpace is the free space under which a failed write is taken for a full disk: the write
// that failed was rolled back, so a little space may be free again by the time we look.
const lowSpace = 64 << 20

// diskError turns SQLite's "database or disk is full" and "disk I/O error" into a DiskError;
// other errors pass unchanged. The driver reports ENOSPC as SQLITE_FULL only when it sees the
// bare errno; most often it arrives as a plain SQLITE_IOERR ("disk I/O error", the errno
// lost), so an I/O error on a disk with little space left counts as a full disk too.
func (s *Store) diskError(err error) error {
	var de *DiskError
	switch {
	case err == nil || errors.As(err, &de):
		return err
	case errors.Is(err, sqlite3.READONLY):
		return fmt.Errorf("%w (%w)", s.readOnlyError(), err)
	case errors.Is(err, sqlite3.FULL), errors.Is(err, syscall.ENOSPC):
		return &DiskError{Path: s.path, Full: true, Err: err}
	case errors.Is(err, sqlite3.IOERR):
		free, known := freeBytes(filepath.Dir(s.path))
		return &DiskError{Path: s.path, Full: known && free < lowSpace, Err: err}
	}
	return err
}
