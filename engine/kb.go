package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/ingest"
	"github.com/memdesk/memdesk/store"
)

// ImportProgress reports an import's advance after each file.
type ImportProgress struct {
	FilesDone  int    `json:"files_done"`
	FilesTotal int    `json:"files_total"`
	BytesDone  int64  `json:"bytes_done"`
	BytesTotal int64  `json:"bytes_total"`
	Path       string `json:"path"` // the file just finished
}

// KBAddRequest imports files and folders (recursively) into a space.
type KBAddRequest struct {
	Paths []string `json:"paths"`
	Space string   `json:"space,omitempty"`
	// Progress, when set, is called after each file from the importing goroutine.
	Progress func(ImportProgress) `json:"-"`
}

// Import outcomes per file.
const (
	ImportAdded     = store.ImportAdded
	ImportUpdated   = store.ImportUpdated
	ImportUnchanged = store.ImportUnchanged
	// ImportDuplicate: the file's bytes are already another document's; the path is recorded
	// as a copy of it (DocID) and not indexed again.
	ImportDuplicate = store.ImportDuplicate
	ImportSkipped   = "skipped"
	ImportFailed    = "failed"
)

// ImportedFile is what happened to one file.
type ImportedFile struct {
	Path    string `json:"path"`
	DocID   int64  `json:"doc_id,omitempty"`
	Outcome string `json:"outcome"`
	Chunks  int    `json:"chunks,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Encoding names the legacy encoding the file was decoded from ("GB18030",
	// "windows-1252"), so a person can check the text came out right; empty for UTF-8.
	Encoding string `json:"encoding,omitempty"`
	// Conversations is how many conversations a chat export holds, each imported as a
	// document of its own (DocID is then 0 and Chunks their sum); 0 for any other file.
	Conversations int `json:"conversations,omitempty"`
	// Conflicts are gathered into KBAddResult.Conflicts.
	Conflicts []KBConflict `json:"-"`
	// storeErr is why the store refused the file, when it did.
	storeErr error
}

// KBAddResult sums up an import.
type KBAddResult struct {
	Added     int            `json:"added"`
	Updated   int            `json:"updated"`
	Unchanged int            `json:"unchanged"`
	Duplicate int            `json:"duplicate"`
	Skipped   int            `json:"skipped"`
	Failed    int            `json:"failed"`
	Files     []ImportedFile `json:"files"`
	// Conflicts are sentences of the imported documents that contradict or restate active
	// memories of the same space: what a person importing a document should look at.
	Conflicts []KBConflict `json:"conflicts"`
}

func (r *KBAddResult) record(f ImportedFile) {
	switch f.Outcome {
	case ImportAdded:
		r.Added++
	case ImportUpdated:
		r.Updated++
	case ImportUnchanged:
		r.Unchanged++
	case ImportDuplicate:
		r.Duplicate++
	case ImportSkipped:
		r.Skipped++
	default:
		r.Failed++
	}
	r.Conflicts = append(r.Conflicts, f.Conflicts...)
	f.Conflicts = nil
	r.Files = append(r.Files, f)
}

// KBAdd imports documents. Each file is stored whole or not at all, so a cancelled or
// crashed import keeps every file it finished and none half-done. On cancellation it returns
// what it did so far together with the context's error.
func (e *Engine) KBAdd(ctx context.Context, req KBAddRequest) (KBAddResult, error) {
	res := KBAddResult{Files: []ImportedFile{}, Conflicts: []KBConflict{}}
	defer e.wantEmbedding() // Run's catch-up embeds the new chunks without waiting for its poll
	if len(req.Paths) == 0 {
		return res, fmt.Errorf("%w: name at least one file or folder to import", ErrBadRequest)
	}
	space, err := validSpace(req.Space)
	if err != nil {
		return res, err
	}
	// What a crashed import left is reclaimed before this one adds to the store.
	if err := e.st.RemoveAbandoned(ctx); err != nil {
		return res, fmt.Errorf("import: clear what an interrupted import left: %w", err)
	}
	cands, skipped, err := ingest.Discover(ctx, req.Paths, e.opts.Import)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	for _, s := range skipped {
		res.record(ImportedFile{Path: s.Path, Outcome: ImportSkipped, Reason: s.Reason})
	}
	var total int64
	for _, c := range cands {
		total += c.Size
	}
	progress := ImportProgress{FilesTotal: len(cands), BytesTotal: total}
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("import cancelled after %d of %d files (finished files are kept): %w",
				progress.FilesDone, progress.FilesTotal, err)
		}
		f := e.importFile(ctx, space, c.Root, c.Path)
		if f.Outcome == ImportFailed && ctx.Err() != nil {
			// The file was not stored because we were cancelled, not because it is bad.
			return res, fmt.Errorf("import cancelled after %d of %d files (finished files are kept): %w",
				progress.FilesDone, progress.FilesTotal, ctx.Err())
		}
		res.record(f)
		if de := (*store.DiskError)(nil); errors.As(f.storeErr, &de) {
			// Every file after this one would fail the same way; say so once and stop.
			return res, fmt.Errorf("import stopped after %d of %d files: %w", progress.FilesDone, progress.FilesTotal, f.storeErr)
		}
		progress.FilesDone++
		progress.BytesDone += c.Size
		progress.Path = c.Path
		if req.Progress != nil {
			req.Progress(progress)
		}
	}
	if res.Added+res.Updated > 0 {
		// A large import leaves the indexes in many segments; a one-shot CLI import has no
		// Run to compact them later.
		e.compactIfDue(ctx)
	}
	e.log.Info("import finished", "added", res.Added, "updated", res.Updated,
		"unchanged", res.Unchanged, "duplicate", res.Duplicate, "skipped", res.Skipped, "failed", res.Failed, "conflicts", len(res.Conflicts))
	return res, nil
}

// importFile parses and stores one file, read without leaving root (see ingest.OpenWithin);
// problems with the file become its outcome.
func (e *Engine) importFile(ctx context.Context, space, root, path string) ImportedFile {
	doc, err := e.parser.ReadFileWithin(ctx, root, path, e.opts.Import)
	if err != nil {
		outcome := ImportFailed
		if isSkippable(err) {
			outcome = ImportSkipped
		}
		return ImportedFile{Path: path, Outcome: outcome, Reason: err.Error()}
	}
	if doc.Conversations != nil {
		return e.importConversations(ctx, space, path, doc.Conversations)
	}
	return e.storeDocument(ctx, space, doc)
}

// storeDocument stores one parsed document at its path.
func (e *Engine) storeDocument(ctx context.Context, space string, doc ingest.Document) ImportedFile {
	path := doc.Path
	// An unchanged file is answered before it is written: PutDocument checks the hash again
	// inside its transaction, so a file changed in between is still stored.
	if id, hash, err := e.st.DocumentHash(ctx, space, path); err == nil && hash == doc.Hash {
		return ImportedFile{Path: path, DocID: id, Outcome: ImportUnchanged, Chunks: len(doc.Chunks)}
	}
	in := store.DocumentInput{Space: space, Path: path, Title: doc.Title, Format: doc.Format,
		Hash: doc.Hash, Bytes: int64(len(doc.Text)), Written: doc.Dated}
	for _, c := range doc.Chunks {
		in.Chunks = append(in.Chunks, store.Chunk{Ordinal: c.Ordinal, Text: c.Text, Heading: c.Heading,
			ByteStart: c.ByteStart, ByteEnd: c.ByteEnd, LineStart: c.LineStart, LineEnd: c.LineEnd,
			Page: c.Page})
	}
	for _, l := range doc.Links {
		in.Links = append(in.Links, store.Link{Target: l.Target, Heading: l.Heading, Block: l.Block, Label: l.Label,
			Embed: l.Embed, ByteStart: l.ByteStart, ByteEnd: l.ByteEnd, Line: l.Line})
	}
	for _, a := range doc.Aliases {
		// Folded as KBLinks folds the names it looks up.
		in.Aliases = append(in.Aliases, strings.ToLower(a))
	}
	id, outcome, err := e.st.PutDocument(ctx, in)
	if err != nil {
		e.log.Warn("import failed", "path", path, "err", err)
		return ImportedFile{Path: path, Outcome: ImportFailed, Reason: err.Error(), storeErr: err}
	}
	f := ImportedFile{Path: path, DocID: id, Outcome: outcome, Chunks: len(doc.Chunks)}
	if doc.Encoding != ingest.UTF8 {
		f.Encoding = doc.Encoding
	}
	if outcome != ImportUnchanged && outcome != ImportDuplicate {
		var err error
		if f.Conflicts, err = e.documentConflicts(ctx, space, path, in.Chunks); err != nil {
			// The document is stored; only the report is short. Say so rather than fail it.
			e.log.Warn("conflict report incomplete", "path", path, "err", err)
		}
	}
	return f
}

// importConversations stores each conversation of the chat export at path as a document of
// its own, at a path under the file's, and takes out the conversations an earlier import of
// the file stored that it no longer holds (deleted in the chat app since). Each conversation
// is stored whole or not at all, as a file is; the export was read whole before the first is
// stored, so a damaged export stores none. The file's outcome sums theirs: unchanged when
// every conversation is, added when the file had none stored before, updated otherwise.
func (e *Engine) importConversations(ctx context.Context, space, path string, convs []ingest.Document) ImportedFile {
	held, err := e.conversationsOf(ctx, space, path)
	if err != nil {
		return ImportedFile{Path: path, Outcome: ImportFailed, Reason: err.Error(), storeErr: err}
	}
	// A file imported as text before memdesk read chat exports is one document at the file's
	// own path; its conversations replace it.
	asText, _, err := e.st.DocumentHash(ctx, space, path)
	if err != nil {
		return ImportedFile{Path: path, Outcome: ImportFailed, Reason: err.Error(), storeErr: err}
	}
	file := ImportedFile{Path: path, Outcome: ImportUnchanged, Conversations: len(convs)}
	if len(held) == 0 && asText == 0 {
		file.Outcome = ImportAdded
	}
	changed := false
	for _, c := range convs {
		f := e.storeDocument(ctx, space, c)
		if f.Outcome == ImportFailed {
			// The conversations stored so far are whole; the next import finishes the rest.
			f.Path, f.DocID, f.Conversations = path, 0, len(convs)
			f.Reason = fmt.Sprintf("conversation %q: %s", c.Title, f.Reason)
			return f
		}
		file.Chunks += f.Chunks
		file.Conflicts = append(file.Conflicts, f.Conflicts...)
		changed = changed || f.Outcome != ImportUnchanged
		delete(held, c.Path)
	}
	if asText != 0 {
		held[path] = asText
	}
	for p := range held {
		if _, _, err := e.st.RemovePath(ctx, space, p); err != nil && !errors.Is(err, store.ErrNotFound) {
			return ImportedFile{Path: path, Outcome: ImportFailed, Reason: err.Error(), storeErr: err, Conversations: len(convs)}
		}
		changed = true
	}
	if changed && file.Outcome == ImportUnchanged {
		file.Outcome = ImportUpdated
	}
	return file
}

// conversationsOf returns the paths of space under the chat export at path: its
// conversations, by path, with the documents that hold them.
func (e *Engine) conversationsOf(ctx context.Context, space, path string) (map[string]int64, error) {
	under, err := e.st.PathsUnder(ctx, space, path)
	if err != nil {
		return nil, err
	}
	for p := range under {
		if ingest.ConversationFile(p) != path {
			delete(under, p)
		}
	}
	return under, nil
}

// isSkippable tells files that are not documents (skipped) from documents that broke (failed).
func isSkippable(err error) bool {
	for _, target := range []error{ingest.ErrUnsupported, ingest.ErrTooLarge, ingest.ErrBinary, ingest.ErrGenerated,
		ingest.ErrNoText, ingest.ErrOutsideRoot} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// DocumentView is an imported document as the surfaces show it.
type DocumentView struct {
	ID         int64     `json:"id"`
	Path       string    `json:"path"`
	Title      string    `json:"title"`
	Chunks     int       `json:"chunks"`
	Space      string    `json:"space"`
	Format     string    `json:"format"`
	Bytes      int64     `json:"bytes"`
	ImportedAt time.Time `json:"imported_at"`
	// Written is when the text was written, as its own content says (a chat conversation's
	// start); nil when it does not say. Date filters read it before ImportedAt.
	Written *time.Time `json:"written,omitempty"`
	// File is the file on disk that holds the document: Path itself, or for a conversation of
	// a chat export the export, since Path names the conversation under it.
	File string `json:"file"`
	// Copies are the other paths whose files have the same bytes, by path.
	Copies []string `json:"copies,omitempty"`
}

// WatchedFolder is a folder kept in sync with a space (see Engine.Watch).
type WatchedFolder struct {
	Root    string    `json:"root"`
	Space   string    `json:"space"`
	AddedAt time.Time `json:"added_at"`
}

// KBListResult lists documents by path, and the watched folders.
type KBListResult struct {
	Documents []DocumentView  `json:"documents"`
	Watched   []WatchedFolder `json:"watched"`
}

// KBList lists the documents of a space ("" for every space).
func (e *Engine) KBList(ctx context.Context, space string) (KBListResult, error) {
	docs, err := e.st.ListDocuments(ctx, space)
	if err != nil {
		return KBListResult{}, err
	}
	out := KBListResult{Documents: make([]DocumentView, 0, len(docs))}
	for _, d := range docs {
		out.Documents = append(out.Documents, documentView(d))
	}
	if out.Watched, err = e.KBWatched(ctx, space); err != nil {
		return KBListResult{}, err
	}
	return out, nil
}

// KBWatched lists the watched folders of a space ("" for every space).
func (e *Engine) KBWatched(ctx context.Context, space string) ([]WatchedFolder, error) {
	roots, err := e.st.WatchedRoots(ctx, space)
	if err != nil {
		return nil, err
	}
	out := make([]WatchedFolder, 0, len(roots))
	for _, r := range roots {
		out = append(out, WatchedFolder{Root: r.Root, Space: r.Space, AddedAt: r.AddedAt.UTC()})
	}
	return out, nil
}

func documentView(d store.Document) DocumentView {
	v := DocumentView{ID: d.ID, Path: d.Path, Title: d.Title, Chunks: d.Chunks, Space: d.Space,
		Format: d.Format, Bytes: d.Bytes, ImportedAt: d.ImportedAt.UTC(), File: documentFile(d), Copies: d.Copies}
	if !d.Written.IsZero() {
		w := d.Written.UTC()
		v.Written = &w
	}
	return v
}

// documentFile is the file on disk a document was read from.
func documentFile(d store.Document) string {
	if ingest.IsConversation(d.Format) {
		return ingest.ConversationFile(d.Path)
	}
	return d.Path
}

// KBRemove removes a document, every path of it and its chunks from memdesk; the files on
// disk are untouched and can be imported again.
func (e *Engine) KBRemove(ctx context.Context, docID int64) error {
	defer e.wantCompaction() // a removal leaves its deletes in the indexes as segments too
	return e.st.DeleteDocument(ctx, docID)
}

// KBRemovePathResult says what removing one path did.
type KBRemovePathResult struct {
	Path  string `json:"path"`
	DocID int64  `json:"doc_id"`
	// Removed is true when that was the document's last path, so the document left too;
	// false when another copy still holds it.
	Removed bool `json:"removed"`
	// Conversations is how many conversations left with a chat export's path (DocID is then
	// 0); Removed says whether any of their documents left with them.
	Conversations int `json:"conversations,omitempty"`
}

// KBRemovePath takes one path out of a space ("" means "default"): the document stays while
// another of its copies holds it. The path is matched as stored (absolute, links resolved),
// so a relative or linked path is resolved first.
func (e *Engine) KBRemovePath(ctx context.Context, space, path string) (KBRemovePathResult, error) {
	space, err := validSpace(space)
	if err != nil {
		return KBRemovePathResult{}, err
	}
	defer e.wantCompaction()
	abs, err := filepath.Abs(path)
	if err != nil {
		return KBRemovePathResult{}, fmt.Errorf("%w: resolve %q: %v", ErrBadRequest, path, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	id, gone, err := e.st.RemovePath(ctx, space, abs)
	if errors.Is(err, store.ErrNotFound) {
		return e.removeConversations(ctx, space, abs, err)
	}
	if err != nil {
		return KBRemovePathResult{}, err
	}
	return KBRemovePathResult{Path: abs, DocID: id, Removed: gone}, nil
}

// removeConversations takes out the conversations of the chat export at path, which no
// document holds itself; notFound is the error when it holds none either. A folder's path
// is left alone: its files are removed one by one, as before.
func (e *Engine) removeConversations(ctx context.Context, space, path string, notFound error) (KBRemovePathResult, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return KBRemovePathResult{}, notFound
	}
	convs, err := e.conversationsOf(ctx, space, path)
	if err != nil {
		return KBRemovePathResult{}, err
	}
	if len(convs) == 0 {
		return KBRemovePathResult{}, notFound
	}
	for p, id := range convs {
		// A folder that is gone holds files at such paths too; those are not this request's.
		d, err := e.st.Document(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return KBRemovePathResult{}, err
		}
		if err == nil && !ingest.IsConversation(d.Format) {
			delete(convs, p)
		}
	}
	if len(convs) == 0 {
		return KBRemovePathResult{}, notFound
	}
	res := KBRemovePathResult{Path: path}
	for p := range convs {
		_, gone, err := e.st.RemovePath(ctx, space, p)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return res, fmt.Errorf("remove the conversations of %s (%d of %d removed): %w", path, res.Conversations, len(convs), err)
		}
		res.Conversations++
		res.Removed = res.Removed || gone
	}
	return res, nil
}

// KBReimport reads a document's file again: unchanged is a no-op, changed replaces its chunks.
func (e *Engine) KBReimport(ctx context.Context, docID int64) (ImportedFile, error) {
	d, err := e.st.Document(ctx, docID)
	if err != nil {
		return ImportedFile{}, err
	}
	// A conversation is read again from its export, with the export's other conversations.
	d.Path = documentFile(d)
	// Imports store resolved paths, so a path that resolves elsewhere now had a symbolic link
	// swapped in after the import: following it could read any file this process can (as
	// root, /etc/shadow), and would then serve it to agents.
	real, err := filepath.EvalSymlinks(d.Path)
	if err != nil {
		return ImportedFile{}, fmt.Errorf("re-import document %d: %w; if the file moved, import it again from its new place and remove this one with `kb rm %d`", docID, err, docID)
	}
	if real != d.Path {
		f := ImportedFile{Path: d.Path, DocID: docID, Outcome: ImportSkipped,
			Reason: "symbolic link leads outside the folder you chose: " + real}
		if ingest.WithinRoot(filepath.Dir(d.Path), real) {
			f.Reason = "the file is now a symbolic link to " + real + "; import that file itself if you mean it"
		}
		return f, fmt.Errorf("re-import %s: %s", d.Path, f.Reason)
	}
	// The check above and the read are separate steps; the read itself (OpenWithin) refuses
	// a link swapped in between them.
	f := e.importFile(ctx, d.Space, filepath.Dir(d.Path), d.Path)
	if f.Outcome == ImportFailed || f.Outcome == ImportSkipped {
		return f, fmt.Errorf("re-import %s: %s", d.Path, f.Reason)
	}
	return f, nil
}

// ChunkView is one chunk of a document.
type ChunkView struct {
	ID        int64  `json:"id"`
	Ordinal   int    `json:"ordinal"`
	Text      string `json:"text"`
	Heading   string `json:"heading,omitempty"`
	Page      int    `json:"page,omitempty"` // 1-based PDF page; the lines are of that page
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
}

// KBChunks returns a document's chunks in order.
func (e *Engine) KBChunks(ctx context.Context, docID int64) ([]ChunkView, error) {
	if _, err := e.st.Document(ctx, docID); err != nil {
		return nil, err
	}
	chunks, err := e.st.Chunks(ctx, docID)
	if err != nil {
		return nil, err
	}
	out := make([]ChunkView, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, chunkView(c))
	}
	return out, nil
}

func chunkView(c store.Chunk) ChunkView {
	return ChunkView{ID: c.ID, Ordinal: c.Ordinal, Text: c.Text, Heading: c.Heading,
		Page: c.Page, LineStart: c.LineStart, LineEnd: c.LineEnd}
}

// Conversation reports whether the document is one conversation of a chat export (its Path
// then names the conversation under the export file), not a file of its own.
func (d DocumentView) Conversation() bool { return ingest.IsConversation(d.Format) }
