//go:build windows

package store

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockedAtBirth: a locked file can be renamed here (see lockImport).
const lockedAtBirth = false

// errLocked means another process holds the lock.
var errLocked = errors.New("locked by another process")

// tryLockFile takes an exclusive lock on f without waiting; it is released when f is closed
// or the process ends.
func tryLockFile(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}
