//go:build unix

package engine

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine/ingest"
)

// TestWatchSurvivesAFIFO: a named pipe made in a watched folder is skipped, and files saved
// after it are still imported. Opening a FIFO to read waits for a writer; the watch used to
// wait in that open for good, deaf to Ctrl-C (issue 27).
func TestWatchSurvivesAFIFO(t *testing.T) {
	e := openTestEngine(t)
	dir := t.TempDir()
	stop, _ := watching(t, e, dir)
	if err := syscall.Mkfifo(filepath.Join(dir, "p.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "after.md"), "The pelican notes came after the pipe.\n")
	waitFor(t, "a file saved after the FIFO searchable", func() bool { return len(knowledgeHits(t, e, "pelican")) == 1 })
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("the watch did not stop within 30 s of its cancellation")
	}
}

// TestReadFileWithinRefusesAFIFO: a file swapped for a FIFO between the walk and the open is
// refused at once, not waited on.
func TestReadFileWithinRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "notes.md")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	p := ingest.NewParser(t.TempDir())
	done := make(chan error, 1)
	go func() {
		_, err := p.ReadFileWithin(context.Background(), dir, pipe, ingest.Limits{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ingest.ErrUnsupported) {
			t.Errorf("ReadFileWithin on a FIFO: %v, want ErrUnsupported", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ReadFileWithin still waits on a FIFO after 30 s")
	}
}
