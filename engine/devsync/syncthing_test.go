package devsync_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memdesk/memdesk/internal/devsynctest"
	"github.com/memdesk/memdesk/internal/syncthingtest"
)

// syncthingTransport is two real Syncthing instances on 127.0.0.1 sharing the devices' sync
// folders: the set-up the README gives a person with two machines.
type syncthingTransport struct {
	a, b       *syncthingtest.Instance
	dirA, dirB string
}

const syncthingFolder = "memdesk"

func (s *syncthingTransport) Folders() (string, string) { return s.dirA, s.dirB }

// Settle rescans both folders and waits until each side has all the other wrote.
func (s *syncthingTransport) Settle(ctx context.Context) error {
	return syncthingtest.Settle(ctx, s.a, s.b, syncthingFolder)
}

// TestConvergeOverSyncthing is issue 30's test: 1,000 random writes spread over two devices
// (concurrent edits of the same memories and forget-vs-edit races among them), carried by
// two real Syncthing instances that talk to each other and nothing else. Both databases end
// with the same active memories, and every acknowledged write is present or reported as a
// conflict (devsynctest.Converge).
func TestConvergeOverSyncthing(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own folders: it overlaps the others
	root := t.TempDir()
	tr := &syncthingTransport{
		a:    syncthingtest.Start(t, filepath.Join(root, "home-a")),
		b:    syncthingtest.Start(t, filepath.Join(root, "home-b")),
		dirA: filepath.Join(root, "sync-a"),
		dirB: filepath.Join(root, "sync-b"),
	}
	syncthingtest.Share(t, tr.a, tr.b, syncthingFolder, tr.dirA, tr.dirB)
	// A round of 100 writes between exchanges: each exchange is a rescan and a wait of about
	// half a second, and races happen within a round whatever its length.
	devsynctest.Converge(t, tr, devsynctest.Options{Writes: 1000, Seed: 2, Round: 100})
	// Everything the two instances opened while they carried the scenario: loopback only.
	syncthingtest.AssertLoopbackOnly(t, tr.a)
	syncthingtest.AssertLoopbackOnly(t, tr.b)
	if dials := append(tr.a.RefusedDials(), tr.b.RefusedDials()...); len(dials) > 0 {
		t.Errorf("syncthing tried to reach beyond this machine: %v", dials)
	}
}
