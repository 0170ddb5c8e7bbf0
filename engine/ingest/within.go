package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot is returned when a file's path, once its symbolic links are resolved, is not
// under the folder an import was given.
var ErrOutsideRoot = errors.New("outside the folder you chose")

// WithinRoot reports whether path is root or lies under it. Both must be absolute, cleaned
// and already resolved (filepath.EvalSymlinks): it compares names only, so it cannot be
// fooled by a link, and never touches the disk. "/data/notes-old" is not under "/data/notes".
func WithinRoot(root, path string) bool {
	if root == "" || path == "" || !filepath.IsAbs(root) || !filepath.IsAbs(path) {
		return false
	}
	root, path = filepath.Clean(root), filepath.Clean(path)
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}

// outsideReason is the skipped-list reason for a link that leads out of the chosen folder.
func outsideReason(target string) string {
	return "symbolic link leads outside the folder you chose: " + target
}

// OpenWithin opens the file at path for reading without leaving root: path and root must be
// resolved (no symbolic links), path under root. The open goes through os.Root, which walks
// each name below root with openat and refuses a link that leads out, so a link swapped in
// after path was checked cannot redirect the read (the check and the open are one step). The
// opened file must then be the very file path names now (os.SameFile on the open descriptor
// and a fresh Lstat), so a file or folder swapped in the meantime is refused, not read.
func OpenWithin(root, path string) (*os.File, error) {
	if !WithinRoot(root, path) {
		return nil, fmt.Errorf("%q: %w", path, ErrOutsideRoot)
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", path, ErrOutsideRoot)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The root itself was opened by name: make sure it is still the folder that was checked.
	rootInfo, err := r.Stat(".")
	if err != nil {
		return nil, err
	}
	if err := sameAsNamed(rootInfo, root); err != nil {
		return nil, err
	}
	f, err := r.OpenFile(rel, readFlags, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
			return nil, fmt.Errorf("%q: %w", path, ErrOutsideRoot)
		}
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = sameAsNamed(info, path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sameAsNamed checks that opened (the Stat of an open descriptor) is the file name refers to
// now, itself and not through a symbolic link.
func sameAsNamed(opened fs.FileInfo, name string) error {
	named, err := os.Lstat(name)
	if err != nil {
		return err
	}
	if named.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(name); err == nil {
			return fmt.Errorf("%q became a symbolic link to %q after it was checked: %w", name, target, ErrOutsideRoot)
		}
		return fmt.Errorf("%q became a symbolic link after it was checked: %w", name, ErrOutsideRoot)
	}
	if !os.SameFile(opened, named) {
		return fmt.Errorf("%q was replaced while it was being opened; run the import again: %w", name, ErrOutsideRoot)
	}
	return nil
}
