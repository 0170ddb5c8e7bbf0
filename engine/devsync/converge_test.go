package devsync_test

import (
	"testing"

	"github.com/memdesk/memdesk/internal/devsynctest"
)

// TestConvergeCopyFolders is the 1,000-write scenario over the copy transport, which also
// shows the devices torn, half-copied logs between exchanges.
func TestConvergeCopyFolders(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own folders: it overlaps the others
	devsynctest.Converge(t, newCopyTransport(t, 1), devsynctest.Options{Writes: 1000, Seed: 1})
}
