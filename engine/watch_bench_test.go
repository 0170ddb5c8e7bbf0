package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWatchStartUnchanged measures a watch's start over a folder of 500 notes that
// changed nothing since the last watch: watching every folder and the rescan, which should
// pass every file over on its size and time without reading it.
func BenchmarkWatchStartUnchanged(b *testing.B) {
	e := openTestEngine(b)
	dir := b.TempDir()
	for i := range 500 {
		writeBenchFile(b, filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("note%03d.md", i)),
			fmt.Sprintf("# Note %d\n\nThe note about topic%d and widget%d.\n", i, i, i%7))
	}
	watchOnce := func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := e.Watch(ctx, WatchRequest{Root: dir, Ready: cancel}); err != nil {
			b.Fatal(err)
		}
	}
	watchOnce() // the first start imports everything
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		watchOnce()
	}
}

func writeBenchFile(b *testing.B, path, text string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}
