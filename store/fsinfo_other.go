//go:build !linux && !darwin && !windows

package store

func freeBytes(string) (uint64, bool) { return 0, false }

// writable is true where the permissions cannot be asked ahead: a refused write still says
// so, as a write error.
func writable(string) bool { return true }
