//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// lockedAtBirth: a locked file can be renamed here (see lockImport).
const lockedAtBirth = true

// errLocked means another process holds the lock.
var errLocked = errors.New("locked by another process")

// tryLockFile takes an exclusive lock on f without waiting; it is released when f is closed
// or the process ends.
func tryLockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		default:
			return err
		}
	}
}
