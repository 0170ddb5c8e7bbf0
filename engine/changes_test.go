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

// TestChangeWatchIgnoresUpkeep: what the engine writes for itself (a model's calibration,
// vectors) is not news for the window; a memory, a pair kept both and a folder are.
func TestChangeWatchIgnoresUpkeep(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memdesk.db")
	window, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open (window): %v", err)
	}
	defer window.Close()
	other, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open (other): %v", err)
	}
	defer other.Close()
	a := remember(t, other, "", "the gate is green")
	b := remember(t, other, "", "the gate is red")

	w, err := window.watchChanges(ctx)
	if err != nil {
		t.Fatalf("watchChanges: %v", err)
	}
	defer w.close()
	steps := []struct {
		name  string
		write func() error
		news  bool
	}{
		{"nothing written", func() error { return nil }, false},
		{"a calibration", func() error { return other.st.PutCalibration(ctx, "model-x", `{"noise":0.1}`) }, false},
		{"a memory", func() error {
			_, err := other.Remember(ctx, RememberRequest{Text: "the shed is blue"})
			return err
		}, true},
		{"a pair kept both", func() error { return other.DismissContradiction(ctx, a, b) }, true},
		{"a forgotten memory", func() error {
			_, err := other.Remember(ctx, RememberRequest{Action: ActionForget, ID: a})
			return err
		}, true},
	}
	for _, s := range steps {
		if err := s.write(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got, err := w.look(ctx)
		if err != nil {
			t.Fatalf("look after %s: %v", s.name, err)
		}
		if got != s.news {
			t.Errorf("after %s, look = %v, want %v", s.name, got, s.news)
		}
	}
}
