//go:build linux || darwin

package store

import "golang.org/x/sys/unix"

// freeBytes is the space left for this user on the file system holding dir.
func freeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}

// writable reports whether this process may write path (a file, or a folder's entries): not
// when the permissions say no or the file system is mounted read-only.
func writable(path string) bool { return unix.Access(path, unix.W_OK) == nil }
