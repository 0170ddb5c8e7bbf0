// Package atomicfile writes a file whole or not at all.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file beside it, renamed over path once complete: a
// failed or interrupted write leaves the old file, never half a new one. The file is
// readable by its owner only, as memdesk's database is.
//
// Only a regular file is replaced. A rename puts a plain file in place of whatever path
// names: a symbolic link, a FIFO another program reads, a device (as root, --to /dev/full
// replaced the system's /dev/full). Those, and a folder, are refused with what they are.
func Write(path string, write func(io.Writer) error) (err error) {
	if err := replaceable(path); err != nil {
		return err
	}
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

// replaceable reports why path may not be replaced by a new file; nil when nothing is there
// or a regular file is.
func replaceable(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a folder: name a file in it", path)
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: name the file it points to, or a new one", path)
	default:
		return fmt.Errorf("%s is not a regular file (a pipe, socket or device), and writing would replace it: name a file", path)
	}
}
