package devsync_test

import (
	"context"
	"slices"
	"testing"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/devsynctest"
)

// TestDuplicateComesBackWhenItsCopyLeaves: two devices write the same memory while apart.
// Each then keeps its own copy active and the other's superseded as a duplicate: which copy
// depends on the order the changes came in. When one device forgets its copy, the other
// copy must show again on both, or the device that forgot shows neither while the other
// shows one (TestConvergeOverSyncthing found it: 315 active memories on one device, 316 on
// the other).
func TestDuplicateComesBackWhenItsCopyLeaves(t *testing.T) {
	for _, forgetter := range []string{"a", "b"} {
		t.Run("forgotten on "+forgetter, func(t *testing.T) {
			ctx := context.Background()
			folder := t.TempDir() // both devices' logs in one folder: a sync engine that has caught up
			a := devsynctest.Open(ctx, t, "a", t.TempDir(), folder, nil)
			b := devsynctest.Open(ctx, t, "b", t.TempDir(), folder, nil)
			const text = "the spare key is under the blue flowerpot"
			ids := map[string]int64{}
			for _, d := range []*devsynctest.Device{a, b} {
				res, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: text})
				if err != nil {
					t.Fatal(err)
				}
				ids[d.Name] = res.FactID
			}
			exchange := func() {
				t.Helper()
				for range 2 {
					for _, d := range []*devsynctest.Device{a, b} {
						if _, err := d.Engine.SyncNow(ctx); err != nil {
							t.Fatalf("device %s: sync: %v", d.Name, err)
						}
					}
				}
			}
			exchange()
			want := []string{"default\x00" + text}
			for _, d := range []*devsynctest.Device{a, b} {
				if got := devsynctest.ActiveMemories(ctx, t, d); !slices.Equal(got, want) {
					t.Fatalf("after the exchange device %s shows %q, want one copy", d.Name, got)
				}
			}
			d := map[string]*devsynctest.Device{"a": a, "b": b}[forgetter]
			if _, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionForget, ID: ids[forgetter]}); err != nil {
				t.Fatal(err)
			}
			exchange()
			for _, d := range []*devsynctest.Device{a, b} {
				if got := devsynctest.ActiveMemories(ctx, t, d); !slices.Equal(got, want) {
					t.Errorf("after device %s forgot its copy, device %s shows %q, want the other copy", forgetter, d.Name, got)
				}
			}
		})
	}
}
