package devsync_test

import (
	"fmt"
	"testing"

	"github.com/memdesk/memdesk/engine/devsync/devsynctest"
)

func TestConvergeSeedsTmp(t *testing.T) {
	for seed := uint64(2); seed < 10; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			devsynctest.Converge(t, newCopyTransport(t, seed), devsynctest.Options{Writes: 600, Seed: seed, Round: int(seed * 4)})
		})
	}
}
