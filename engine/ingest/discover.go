package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Candidate is a file an import should read.
type Candidate struct {
	// Path is absolute, cleaned and resolved: symbolic links followed, so it names the file
	// itself, and a later read can tell whether a link was swapped in since.
	Path string
	// Root is the resolved folder the file was found in (the file's own folder for a file
	// named directly): OpenWithin never reads outside it.
	Root string
	Size int64
}

// Skipped is a file or folder an import leaves out, with a reason a person can act on.
type Skipped struct {
	Path   string
	Reason string
}

// Discover expands files and folders, recursively, into the files an import should read,
// sorted by path. The content decides what is a document, not the name: every file is
// looked at (its first few kilobytes), so an extension-less README or a .go file is found,
// and a binary file (an image, an archive, a program) is listed as skipped with what it is.
// Hidden entries inside folders (.git, .cache) are passed over silently: they are tools'
// state, not a person's documents, and listing their thousands of files would bury the
// report.
// Symbolic links inside a folder are followed only while they stay inside it: a link that
// leads out (to /etc/passwd, to another folder) is skipped with its target as the reason,
// since an import of a folder must never publish what lies beyond it. A path named directly
// is followed wherever it leads (the person chose it), and its resolved path recorded. Each
// real folder is read once so link loops end, and a file reached twice is listed once. Only a
// named path that does not exist, or cancellation, is an error; everything else that cannot
// be read is reported in the skipped list.
func Discover(ctx context.Context, paths []string, lim Limits) ([]Candidate, []Skipped, error) {
	d := discovery{lim: lim.withDefaults(), seenFiles: map[string]bool{}, seenDirs: map[string]bool{}}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("discover files: %w", err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, fmt.Errorf("resolve %q: %w", p, err)
		}
		info, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("%q does not exist; check the path and try again: %w", p, err)
		case err != nil:
			d.skip(abs, "cannot read: "+reason(err))
		case info.IsDir():
			root, err := filepath.EvalSymlinks(abs)
			if err != nil {
				d.skip(abs, "cannot read folder: "+reason(err))
				continue
			}
			if err := d.walk(ctx, abs, root); err != nil {
				return nil, nil, err
			}
		default:
			real, err := filepath.EvalSymlinks(abs)
			if err != nil {
				d.skip(abs, "cannot read: "+reason(err))
				continue
			}
			d.file(abs, real, filepath.Dir(real), info)
		}
	}
	sort.Slice(d.found, func(i, j int) bool { return d.found[i].Path < d.found[j].Path })
	sort.Slice(d.skipped, func(i, j int) bool { return d.skipped[i].Path < d.skipped[j].Path })
	return d.found, d.skipped, nil
}

type discovery struct {
	lim       Limits
	found     []Candidate
	skipped   []Skipped
	seenFiles map[string]bool // real paths, so a file named twice or reached by a link counts once
	seenDirs  map[string]bool // real paths, so a link back up the tree cannot loop
	head      []byte          // one buffer for the start of every file, which decides its format
}

func (d *discovery) skip(path, why string) {
	d.skipped = append(d.skipped, Skipped{Path: path, Reason: why})
}

// walk visits the folder tree under root (realRoot resolved) with an explicit stack, so a
// deep tree costs no goroutine stack.
func (d *discovery) walk(ctx context.Context, root, realRoot string) error {
	stack := []string{root}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			d.skip(dir, "cannot read folder: "+reason(err))
			continue
		}
		if !WithinRoot(realRoot, real) {
			// Entries are checked before they are stacked; this catches a folder swapped
			// for a link in between.
			d.skip(dir, outsideReason(real))
			continue
		}
		if d.seenDirs[real] {
			continue
		}
		d.seenDirs[real] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			d.skip(dir, "cannot read folder: "+reason(err))
			continue
		}
		for _, e := range entries {
			// Checked per entry: a folder can hold many thousands of files, each opened below.
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("discover files in %q: %w", root, err)
			}
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			// Stat follows links; a DirEntry's own type would only say "symlink".
			info, err := os.Stat(path)
			if err != nil {
				d.skip(path, "cannot read: "+reason(err))
				continue
			}
			realPath := filepath.Join(real, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				if realPath, err = filepath.EvalSymlinks(path); err != nil {
					d.skip(path, "cannot read: "+reason(err))
					continue
				}
				if !WithinRoot(realRoot, realPath) {
					d.skip(path, outsideReason(realPath))
					continue
				}
			}
			if info.IsDir() {
				stack = append(stack, path)
				continue
			}
			d.file(path, realPath, realRoot, info)
		}
	}
	return nil
}

// file records one document file, found as path and resolved to real under root, or the
// reason it cannot be imported.
func (d *discovery) file(path, real, root string, info fs.FileInfo) {
	if d.seenFiles[real] {
		return
	}
	d.seenFiles[real] = true
	switch {
	case !info.Mode().IsRegular():
		d.skip(path, "not a regular file")
	case info.Size() > d.lim.MaxFileBytes:
		d.skip(path, fmt.Sprintf("file too large (%s > limit %s)", byteSize(info.Size()), byteSize(d.lim.MaxFileBytes)))
	default:
		// Opening is the one reliable test of read permission (ACLs, root, network mounts).
		f, err := OpenWithin(root, real)
		if err != nil {
			d.skip(path, "cannot read: "+reason(err))
			return
		}
		defer f.Close()
		if d.head == nil {
			d.head = make([]byte, sniffBytes)
		}
		n, err := io.ReadFull(f, d.head)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			d.skip(path, "cannot read: "+reason(err))
			return
		}
		if _, err := DetectFormat(real, d.head[:n]); err != nil {
			d.skip(path, err.Error())
			return
		}
		d.found = append(d.found, Candidate{Path: real, Root: root, Size: info.Size()})
	}
}

// reason turns an error into a short phrase for the skipped list: the path is already
// shown next to it, so the *PathError's own copy of the path would only repeat it.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
