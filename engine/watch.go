package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/memdesk/memdesk/engine/ingest"
	"github.com/memdesk/memdesk/store"
)

// ImportRemoved is a watch's outcome for a path whose file went: the path left memdesk (and
// its document with it, unless another copy still holds that).
const ImportRemoved = "removed"

// defaultDebounce is how long a path must be quiet before a watch reads it: an editor's save
// is often several writes (truncate, write, rename), and reading between them would import a
// half-written file only to import it again a moment later.
const defaultDebounce = 500 * time.Millisecond

// WatchEvent is what a watch did with one path.
type WatchEvent struct {
	Path    string `json:"path"`
	Outcome string `json:"outcome"` // an Import* outcome, or ImportRemoved
	DocID   int64  `json:"doc_id,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// WatchRequest keeps one folder in sync with a space.
type WatchRequest struct {
	Root  string `json:"root"`
	Space string `json:"space,omitempty"`
	// Debounce is how long a path must be quiet before it is read (0: 500 ms).
	Debounce time.Duration `json:"-"`
	// Events, when set, is called from the watching goroutine for every path synced, those
	// of the rescan on start included; a nothing-changed file of the rescan is not reported.
	Events func(WatchEvent) `json:"-"`
	// Ready, when set, is called once every folder is watched and the rescan is done.
	Ready func() `json:"-"`
}

// Watch keeps a folder in sync with a space until ctx is cancelled, then returns nil. It
// records the folder as watched (KBList shows it; KBUnwatch forgets it), reads again what
// changed while nothing was watching (size and modification time first, the content hash
// after), then follows every folder under it, new ones as they appear: a saved file is
// imported as KBAdd would (whole or not at all), a deleted one leaves memdesk. Symbolic
// links are followed only while they stay inside the folder, as in KBAdd. Only a folder that
// cannot be watched at all is an error; a file that cannot be read is reported as an event.
func (e *Engine) Watch(ctx context.Context, req WatchRequest) error {
	space, err := validSpace(req.Space)
	if err != nil {
		return err
	}
	root, err := resolveWatchRoot(req.Root)
	if err != nil {
		return err
	}
	if err := e.st.AddWatchedRoot(ctx, space, root); err != nil {
		return err
	}
	if err := e.st.RemoveAbandoned(ctx); err != nil {
		return fmt.Errorf("watch %s: clear what an interrupted import left: %w", root, err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	defer fw.Close()
	w := &folderWatch{e: e, space: space, root: root, fw: fw, events: req.Events, pending: map[string]time.Time{}}
	// Folders are watched before the rescan reads them, so a file saved during the rescan is
	// seen by one or the other.
	if err := w.addTree(root); err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	if err := w.rescan(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("watch %s: %w", root, err)
	}
	if req.Ready != nil {
		req.Ready()
	}
	debounce := req.Debounce
	if debounce <= 0 {
		debounce = defaultDebounce
	}
	tick := time.NewTicker(max(debounce/5, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if ev.Op == fsnotify.Chmod {
				continue // no content change; some editors and indexers touch modes constantly
			}
			if w.ignored(ev.Name) {
				continue
			}
			w.pending[ev.Name] = time.Now().Add(debounce)
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			e.log.Warn("watch error", "root", root, "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Changes were lost: only reading the folder again finds them.
				if err := w.rescan(ctx); err != nil && ctx.Err() == nil {
					e.log.Warn("rescan after overflow failed", "root", root, "err", err)
				}
			}
		case now := <-tick.C:
			var due []string
			for p, at := range w.pending {
				if !now.Before(at) {
					due = append(due, p)
				}
			}
			sort.Strings(due)
			for _, p := range due {
				delete(w.pending, p)
				if ctx.Err() != nil {
					return nil
				}
				w.sync(ctx, p)
			}
		}
	}
}

// KBUnwatch forgets a watched folder; the documents imported from it stay. A running watch
// of it is stopped by cancelling its context.
func (e *Engine) KBUnwatch(ctx context.Context, space, root string) error {
	space, err := validSpace(space)
	if err != nil {
		return err
	}
	resolved, err := resolveWatchRoot(root)
	if err != nil {
		// The folder may be gone; forget it by the name it was watched as.
		resolved = filepath.Clean(root)
	}
	return e.st.RemoveWatchedRoot(ctx, space, resolved)
}

func resolveWatchRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("%w: resolve %q: %v", ErrBadRequest, root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%w: %q cannot be watched; check the path and try again: %v", ErrBadRequest, root, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%w: %q cannot be watched: %v", ErrBadRequest, root, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%w: %q is a file; watch the folder it is in", ErrBadRequest, root)
	}
	return real, nil
}

// folderWatch is one running Watch; only its goroutine touches it.
type folderWatch struct {
	e       *Engine
	space   string
	root    string // resolved
	fw      *fsnotify.Watcher
	events  func(WatchEvent)
	pending map[string]time.Time // path -> when it has been quiet long enough to read
}

func (w *folderWatch) report(ev WatchEvent) {
	if w.events != nil {
		w.events(ev)
	}
}

// ignored says whether a path is no business of the watch: outside the folder, or hidden (as
// an import of the folder passes hidden entries over).
func (w *folderWatch) ignored(path string) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return true
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// addTree watches dir and every folder under it. Linked folders are not followed: one that
// stays inside the root is watched under its own name, and one that leads out is never read.
func (w *folderWatch) addTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			w.e.log.Warn("watch: cannot read folder", "path", path, "err", err)
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if path != w.root && w.ignored(path) {
			return filepath.SkipDir
		}
		if err := w.fw.Add(path); err != nil {
			if path == dir {
				return err
			}
			w.e.log.Warn("watch: cannot watch folder", "path", path, "err", err)
		}
		return nil
	})
}

func stampOf(info fs.FileInfo) store.FileStamp {
	return store.FileStamp{Size: info.Size(), ModTime: info.ModTime().UnixNano()}
}

// rescan brings the space in step with the folder as it is now: files whose size or time
// changed since their last sync, and files no document holds, are imported (the hash then
// tells a touched file from a changed one); paths whose files are gone leave.
func (w *folderWatch) rescan(ctx context.Context) error {
	cands, _, err := ingest.Discover(ctx, []string{w.root}, w.e.opts.Import)
	if err != nil {
		return err
	}
	held, err := w.e.st.PathsUnder(ctx, w.space, w.root)
	if err != nil {
		return err
	}
	stamps, err := w.e.st.FileStamps(ctx, w.space, w.root)
	if err != nil {
		return err
	}
	// A chat export's conversations are held under the file's path (ingest.ConversationFile):
	// the file counts as held through them, and they stay while the file does.
	heldFiles := make(map[string]bool, len(held))
	for p := range held {
		heldFiles[p] = true
		heldFiles[ingest.ConversationFile(p)] = true
	}
	present := map[string]bool{}
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !ingest.WithinRoot(w.root, c.Path) {
			continue
		}
		present[c.Path] = true
		info, err := os.Stat(c.Path)
		if err != nil {
			continue // gone since Discover; its event follows
		}
		if heldFiles[c.Path] && stamps[c.Path] == stampOf(info) {
			continue
		}
		w.importPath(ctx, c.Path, info)
	}
	for path := range held {
		// Only a file is present, never a folder: a path whose parent is present is a
		// conversation of that file, and its import just now took out the stale ones.
		if !present[path] && !present[ingest.ConversationFile(path)] {
			w.remove(ctx, path)
		}
	}
	return nil
}

// sync brings one path the watch was told about in step: a new folder is watched and read,
// a file imported, a path that is gone (or no longer a document inside the folder) removed.
func (w *folderWatch) sync(ctx context.Context, path string) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		w.removeTree(ctx, path)
		return
	}
	if err != nil {
		w.report(WatchEvent{Path: path, Outcome: ImportFailed, Reason: err.Error()})
		return
	}
	if info.IsDir() {
		w.syncFolder(ctx, path)
		return
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || real != path {
		// A file swapped for a link (or a dangling one): what was stored for this path is not
		// what the path holds now.
		w.remove(ctx, path)
		if err != nil {
			return
		}
		if !ingest.WithinRoot(w.root, real) {
			w.report(WatchEvent{Path: path, Outcome: ImportSkipped, Reason: "symbolic link leads outside the folder you chose: " + real})
			return
		}
		if info, err = os.Stat(real); err != nil || info.IsDir() {
			return
		}
	}
	w.importPath(ctx, real, info)
}

// syncFolder watches a folder that appeared and imports what it already holds: files moved
// in with it, or saved before its watch was added.
func (w *folderWatch) syncFolder(ctx context.Context, dir string) {
	if err := w.addTree(dir); err != nil {
		w.report(WatchEvent{Path: dir, Outcome: ImportFailed, Reason: "cannot watch folder: " + err.Error()})
		return
	}
	cands, _, err := ingest.Discover(ctx, []string{dir}, w.e.opts.Import)
	if err != nil {
		return
	}
	for _, c := range cands {
		if !ingest.WithinRoot(w.root, c.Path) {
			continue
		}
		if info, err := os.Stat(c.Path); err == nil {
			w.importPath(ctx, c.Path, info)
		}
	}
}

// importPath imports one resolved file under the root, as KBAdd does, and records its stamp
// once it is stored. The stamp is taken before the read: a file changed during the read then
// differs from its stamp and is read again by the next rescan.
func (w *folderWatch) importPath(ctx context.Context, path string, info fs.FileInfo) {
	f := w.e.importFile(ctx, w.space, w.root, path)
	w.e.wantCompaction()
	w.report(WatchEvent{Path: path, Outcome: f.Outcome, DocID: f.DocID, Reason: f.Reason})
	switch f.Outcome {
	case ImportAdded, ImportUpdated, ImportUnchanged, ImportDuplicate:
		if err := w.e.st.SetFileStamp(ctx, w.space, path, stampOf(info)); err != nil {
			w.e.log.Warn("watch: stamp not recorded", "path", path, "err", err)
		}
	case ImportSkipped:
		// No longer a document memdesk reads (too large, binary, a link out): what was stored
		// for this path is not what it holds now, a chat export's conversations under it
		// included. A failed read keeps it until the next try.
		w.removeTree(ctx, path)
	}
}

// removeTree takes out a path that is gone, and, since a gone folder says nothing of what it
// held, every path under it.
func (w *folderWatch) removeTree(ctx context.Context, path string) {
	w.remove(ctx, path)
	under, err := w.e.st.PathsUnder(ctx, w.space, path)
	if err != nil {
		w.e.log.Warn("watch: cannot list removed folder", "path", path, "err", err)
		return
	}
	paths := make([]string, 0, len(under))
	for p := range under {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		w.remove(ctx, p)
	}
}

func (w *folderWatch) remove(ctx context.Context, path string) {
	defer w.e.wantCompaction()
	id, _, err := w.e.st.RemovePath(ctx, w.space, path)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return
	case err != nil:
		w.report(WatchEvent{Path: path, Outcome: ImportFailed, Reason: err.Error()})
		return
	}
	w.report(WatchEvent{Path: path, Outcome: ImportRemoved, DocID: id})
}
