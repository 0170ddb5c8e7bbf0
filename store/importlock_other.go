//go:build !unix && !windows

package store

import (
	"errors"
	"os"
)

// errLocked means another process holds the lock.
var errLocked = errors.New("locked by another process")

func tryLockFile(*os.File) error { return errNoFileLock }
