package devsync_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/devsynctest"
)

// simClock is a device's wall clock: the real one moved by an offset a test sets, so a week
// passes without waiting.
type simClock struct{ offset atomic.Int64 }

func (c *simClock) now() time.Time       { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *simClock) add(d time.Duration)  { c.offset.Add(int64(d)) }
func newClock(d time.Duration) *simClock { c := &simClock{}; c.add(d); return c }

// findActive returns the id of the active memory with text on d.
func findActive(ctx context.Context, t *testing.T, d *devsynctest.Device, text string) int64 {
	t.Helper()
	res, err := d.Engine.List(ctx, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Facts {
		if f.Text == text {
			return f.ID
		}
	}
	t.Fatalf("device %s has no active memory %q", d.Name, text)
	return 0
}

// TestSkewedClocks: with one device's clock a day behind and the other's a day ahead, each
// edit made after seeing the previous one wins, and no conflict is reported: the hybrid
// clock follows what a device has seen, not its wall clock.
func TestSkewedClocks(t *testing.T) {
	for _, skew := range []time.Duration{24 * time.Hour, -24 * time.Hour} {
		t.Run(fmt.Sprint(skew), func(t *testing.T) {
			ctx := context.Background()
			folder := t.TempDir() // one folder: the transport is the file system itself
			a := devsynctest.Open(ctx, t, "a", t.TempDir(), folder, newClock(-skew).now)
			b := devsynctest.Open(ctx, t, "b", t.TempDir(), folder, newClock(skew).now)
			text := "version 0 of the plan"
			if _, err := a.Engine.Remember(ctx, engine.RememberRequest{Text: text}); err != nil {
				t.Fatal(err)
			}
			devsynctest.SyncBoth(ctx, t, a, b)
			for i := 1; i <= 12; i++ {
				d := []*devsynctest.Device{a, b}[i%2]
				next := fmt.Sprintf("version %d of the plan", i)
				if _, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: findActive(ctx, t, d, text), Text: next}); err != nil {
					t.Fatal(err)
				}
				text = next
				devsynctest.SyncBoth(ctx, t, a, b)
			}
			for _, d := range []*devsynctest.Device{a, b} {
				if got := devsynctest.ActiveMemories(ctx, t, d); !slices.Equal(got, []string{"default\x00" + text}) {
					t.Errorf("device %s holds %q, want only the last edit %q", d.Name, got, text)
				}
				st, err := d.Engine.SyncStatus(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(st.Conflicts) > 0 {
					t.Errorf("device %s reports conflicts %+v of edits made one after the other", d.Name, st.Conflicts)
				}
			}
			// Each change's clock is after the clock of the version it was made on.
			changes, err := a.Engine.SyncChanges(ctx)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]int{}
			for i, c := range changes {
				byID[c.ID] = i
			}
			for _, c := range changes {
				if i, ok := byID[c.Base]; ok && !changes[i].Before(c) {
					t.Errorf("change %s (clock %d.%d) orders before its base %s (clock %d.%d)", c.ID, c.Wall, c.Ctr, c.Base, changes[i].Wall, changes[i].Ctr)
				}
			}
		})
	}
}

// TestOfflineForAWeek: a device that writes for a week without the other (simulated
// clocks) converges with it on return, conflicts kept.
func TestOfflineForAWeek(t *testing.T) {
	ctx := context.Background()
	ca, cb := newClock(0), newClock(0)
	fa, fb := t.TempDir(), t.TempDir()
	tr := newCopyTransport(t, 3)
	tr.a, tr.b = fa, fb
	a := devsynctest.Open(ctx, t, "a", t.TempDir(), fa, ca.now)
	b := devsynctest.Open(ctx, t, "b", t.TempDir(), fb, cb.now)
	var shared []string
	for i := range 10 {
		text := fmt.Sprintf("shared memory %d", i)
		shared = append(shared, text)
		if _, err := a.Engine.Remember(ctx, engine.RememberRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	devsynctest.SyncBoth(ctx, t, a, b)
	// b goes offline for a week; both write every 6 hours, each editing its own copy.
	mine := map[string][]string{"a": slices.Clone(shared), "b": slices.Clone(shared)}
	for i := range 28 {
		ca.add(6 * time.Hour)
		cb.add(6 * time.Hour)
		for _, d := range []*devsynctest.Device{a, b} {
			var err error
			switch i % 4 {
			case 0:
				_, err = d.Engine.Remember(ctx, engine.RememberRequest{Text: fmt.Sprintf("day %d on %s", i/4, d.Name)})
			case 1, 2:
				texts := mine[d.Name]
				k := (i / 2) % len(texts)
				next := fmt.Sprintf("%s, edited on %s at hour %d", texts[k], d.Name, i*6)
				_, err = d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: findActive(ctx, t, d, texts[k]), Text: next})
				texts[k] = next
			case 3:
				devsynctest.SyncBoth(ctx, t, d) // replays nothing new: the other is away
			}
			if err != nil {
				t.Fatalf("device %s, hour %d: %v", d.Name, i*6, err)
			}
		}
	}
	for range 2 {
		if err := tr.Settle(ctx); err != nil {
			t.Fatal(err)
		}
		devsynctest.SyncBoth(ctx, t, a, b)
	}
	devsynctest.CheckConverged(ctx, t, a, b)
	// Both devices edited the same memories while apart: every text each wrote last is
	// an active memory on both.
	for _, d := range []*devsynctest.Device{a, b} {
		for _, other := range []*devsynctest.Device{a, b} {
			for _, text := range mine[other.Name] {
				findActive(ctx, t, d, text)
			}
		}
	}
}
