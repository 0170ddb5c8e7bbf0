//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteReplacesOnlyRegularFiles: a FIFO, a symbolic link and a folder at the target are
// refused and left as they were; nothing is written beside them (issue 27: a FIFO or a device
// became a plain file).
func TestWriteReplacesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real.md")
	if err := os.WriteFile(real, []byte("someone's notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, says string
		mode       os.FileMode
	}{
		{fifo, "not a regular file", os.ModeNamedPipe},
		{link, "symbolic link", os.ModeSymlink},
		{folder, "is a folder", os.ModeDir},
	} {
		err := Write(tc.path, func(w io.Writer) error { _, err := io.WriteString(w, "export"); return err })
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Write(%s) = %v, want a refusal saying %q", tc.path, err, tc.says)
		}
		if fi, err := os.Lstat(tc.path); err != nil || fi.Mode().Type() != tc.mode {
			t.Errorf("%s after the refusal: %v, %v; want it as it was", tc.path, fi.Mode(), err)
		}
	}
	if data, err := os.ReadFile(real); err != nil || string(data) != "someone's notes" {
		t.Errorf("the link's target holds %q, %v; want it untouched", data, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
}
