package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
)

// TestSyncSection: Settings shows sync as `memdesk sync status` does; Sync now reads what
// another device wrote, and the status line says when it wrote.
func TestSyncSection(t *testing.T) {
	ctx := context.Background()
	folder := t.TempDir()
	h := newHarness(t, Options{}, nil).start()
	p := h.u.settings.sync
	if p == nil {
		t.Fatal("no Sync section over an engine that can sync")
	}
	h.waitFor("the not-set-up hint", func() bool { return strings.HasPrefix(p.status.Text, "Not set up") })
	if !p.now.Disabled() {
		t.Error("Sync now is enabled while sync is not set up")
	}

	other, err := engine.Open(ctx, filepath.Join(t.TempDir(), "other.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.SyncInit(ctx, folder); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Remember(ctx, engine.RememberRequest{Text: "written on the other device"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.SyncInit(ctx, folder); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Remember(ctx, engine.RememberRequest{Text: "written there after"}); err != nil {
		t.Fatal(err)
	}
	h.u.refreshStats()
	h.waitFor("the sync status", func() bool { return strings.HasPrefix(p.status.Text, "This device: ") })
	otherStatus, err := other.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.status.Text, otherStatus.Device+": ") || !strings.Contains(p.status.Text, "Pending: 0 changes to write") ||
		!strings.Contains(p.status.Text, "of other devices' logs to read") {
		t.Errorf("sync status reads %q, want the other device %s and what is pending", p.status.Text, otherStatus.Device)
	}
	test.Tap(p.now)
	h.waitFor("the second memory after Sync now", func() bool {
		res, err := h.eng.List(ctx, engine.ListRequest{})
		return err == nil && len(res.Facts) == 2
	})
	h.waitFor("the status line naming the other device's write", func() bool {
		return strings.Contains(h.u.status.counts.Text, "another device wrote at")
	})
}
