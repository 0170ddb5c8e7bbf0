//go:build !unix && !windows

package store

import (
	"errors"
	"os"
)

// lockedAtBirth: a locked file can be renamed here (see lockImport).
const lockedAtBirth = false

// errLocked means another process holds the lock.
var errLocked = errors.New("locked by another process")

func tryLockFile(*os.File) error { return errNoFileLock }
