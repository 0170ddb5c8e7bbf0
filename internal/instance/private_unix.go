//go:build unix

package instance

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// privateDir makes dir (mode 0700) or checks that the one there is a real folder, owned by
// this user, that no one else may enter: another user who made it first could otherwise
// read commands or stand in for the app.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the runtime folder %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check the runtime folder %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("the runtime folder %s is not a folder (a link?); remove it", dir)
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("the runtime folder %s belongs to another user; remove it", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("the runtime folder %s is open to other users (mode %v); run chmod 700 on it", dir, fi.Mode().Perm())
	}
	return nil
}

// lockFile holds an exclusive lock on path until unlock is called (or the process ends,
// when the system drops it), waiting for another holder, which holds it only while it
// takes the socket.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
