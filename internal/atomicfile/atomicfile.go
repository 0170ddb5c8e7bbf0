// Package atomicfile writes a file whole or not at all.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file beside it, renamed over path once complete: a
// failed or interrupted write leaves the old file, never half a new one. The file is
// readable by its owner only, as memdesk's database is.
func Write(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
