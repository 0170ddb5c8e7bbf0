package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWatchChangesSeesAnotherEnginesWrite: two engines on one file stand for the window and
// the CLI. A memory the second writes must reach the first's watcher.
func TestWatchChangesSeesAnotherEnginesWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memdesk.db")
	ctx := context.Background()
	window, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open (window): %v", err)
	}
	defer window.Close()
	cli, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open (cli): %v", err)
	}
	defer cli.Close()

	signals := make(chan struct{}, 1)
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var watchErr error
	wg.Go(func() {
		watchErr = window.WatchChanges(wctx, 20*time.Millisecond, func() {
			select {
			case signals <- struct{}{}:
			default:
			}
		})
	})

	// The watcher reads its starting version on its own goroutine, so a write made before
	// that read is part of its baseline: write again until one is seen, within a deadline
	// generous for a loaded CI machine.
	deadline := time.Now().Add(time.Minute)
	seen := false
	for i := 0; !seen && time.Now().Before(deadline); i++ {
		remember(t, cli, "", fmt.Sprintf("the CLI wrote memory %d", i))
		select {
		case <-signals:
			seen = true
		case <-time.After(2 * time.Second):
		}
	}
	stop()
	wg.Wait()
	if watchErr != nil {
		t.Fatalf("WatchChanges = %v, want nil after its context ended", watchErr)
	}
	if !seen {
		t.Fatal("the window's watcher never saw the CLI's writes")
	}
	got, err := window.List(ctx, ListRequest{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got.Facts) == 0 {
		t.Error("the window lists no memories after the signal, want the CLI's")
	}
}

// TestWatchChangesEndsWithItsContext: the owner cancels and waits; the call returns nil and
// gives its connection back, so Close does not find it held.
func TestWatchChangesEndsWithItsContext(t *testing.T) {
	e := openTestEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.WatchChanges(ctx, 0, func() {}) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("WatchChanges = %v, want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("WatchChanges did not return within a minute of its context ending")
	}
}
