package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// Document is one imported file.
type Document struct {
	ID         int64
	Space      string
	Path       string
	Title      string
	Format     string
	Hash       string
	Bytes      int64
	ImportedAt time.Time
	// Written is when the text was written, as its own content says; zero when unknown.
	Written time.Time
	Chunks  int // number of chunks; filled by ListDocuments
	// Copies are the other paths whose files have the same bytes, by path.
	Copies []string
}

// Chunk is one searchable piece of a document, with the span it came from.
type Chunk struct {
	ID        int64
	DocID     int64
	Ordinal   int
	Text      string
	Heading   string
	ByteStart int
	ByteEnd   int
	LineStart int // for a PDF, lines of the page
	LineEnd   int
	Page      int // 1-based PDF page; 0 for other formats
}

// DocumentInput is a parsed file ready to be stored.
type DocumentInput struct {
	Space  string
	Path   string
	Title  string
	Format string
	Hash   string
	Bytes  int64
	// Written is when the text was written, as its own content says; zero when unknown.
	Written time.Time
	Chunks  []Chunk // ID and DocID are ignored
	Links   []Link  // DocID is ignored
	// Aliases are the other names links may give the document, as LinkTargets is asked
	// for them (the caller folds their case).
	Aliases []string
}

// Import outcomes.
const (
	ImportAdded     = "added"
	ImportUpdated   = "updated"
	ImportUnchanged = "unchanged"
)

// PutDocument stores a document and its chunks: a new path is added, a changed file replaces
// all its chunks, and an unchanged hash writes nothing. A file whose bytes another document
// of the space already holds is recorded as a copy of it (ImportDuplicate, id of that
// document) and indexed no second time; a copy whose file changed splits off as a document of
// its own. A reader never sees a document with half of its chunks. A small document is one
// transaction; a big one is written in pieces out of sight (see staged.go), so other writers
// never wait on it for long.
func (s *Store) PutDocument(ctx context.Context, in DocumentInput) (id int64, outcome string, err error) {
	staged := len(in.Chunks) > stagedChunks
	var retired int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		h, found, err := holderOf(ctx, tx, in.Space, in.Path)
		if err != nil {
			return err
		}
		if found && h.hash == in.Hash {
			id, outcome = h.docID, ImportUnchanged
			return nil
		}
		twin, err := twinOf(ctx, tx, in.Space, in.Hash)
		if err != nil {
			return err
		}
		if twin != 0 {
			if found {
				if retired, err = detachPath(ctx, tx, in.Space, in.Path, h); err != nil {
					return err
				}
			}
			id, outcome = twin, ImportDuplicate
			return addCopy(ctx, tx, in.Space, in.Path, twin)
		}
		if staged {
			return nil // written in pieces below
		}
		if found && !h.copy {
			shared, err := hasCopies(ctx, tx, h.docID)
			if err != nil {
				return err
			}
			if !shared {
				// The path's own document changed and no other path holds it: replace in place.
				id, outcome = h.docID, ImportUpdated
				if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE doc_id = ?`, id); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx,
					`UPDATE documents SET title = ?, format = ?, hash = ?, bytes = ?, written_at = ?, imported_at = ? WHERE id = ?`,
					in.Title, in.Format, in.Hash, in.Bytes, writtenMillis(in.Written), nowMillis(), id); err != nil {
					return err
				}
				if err := insertChunks(ctx, tx, id, in.Chunks); err != nil {
					return err
				}
				return replaceLinks(ctx, tx, id, in)
			}
		}
		outcome = ImportAdded
		if found {
			// One of several paths of a document changed: it splits off, the others keep theirs.
			outcome = ImportUpdated
			if retired, err = detachPath(ctx, tx, in.Space, in.Path, h); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx,
			`INSERT INTO documents(space, path, title, format, hash, bytes, written_at, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			in.Space, in.Path, in.Title, in.Format, in.Hash, in.Bytes, writtenMillis(in.Written), nowMillis())
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := insertChunks(ctx, tx, id, in.Chunks); err != nil {
			return err
		}
		return replaceLinks(ctx, tx, id, in)
	})
	if err == nil && retired != 0 {
		// The path is in its new place; the version it left is out of sight. Removing it is
		// tidying, and a failure here only leaves rows the next import clears.
		_ = s.removeInPieces(ctx, retired)
	}
	if err == nil && staged && outcome == "" {
		id, outcome, err = s.putDocumentStaged(ctx, in)
	}
	if err != nil {
		return 0, "", fmt.Errorf("store document %q: %w", in.Path, err)
	}
	return id, outcome, nil
}

func insertChunks(ctx context.Context, tx *sql.Tx, docID int64, chunks []Chunk) error {
	stmt, err := tx.PrepareContext(ctx,
		`INSERT INTO chunks(doc_id, ordinal, text, heading, byte_start, byte_end, line_start, line_end, page, wlen)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, memdesk_wlen(?3))`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, c := range chunks {
		if _, err := stmt.ExecContext(ctx, docID, c.Ordinal, c.Text, c.Heading,
			c.ByteStart, c.ByteEnd, c.LineStart, c.LineEnd, c.Page); err != nil {
			return fmt.Errorf("chunk %d: %w", c.Ordinal, err)
		}
	}
	return nil
}

const documentColumns = `d.id, d.space, d.path, d.title, d.format, d.hash, d.bytes, d.imported_at, d.written_at`

// documentTime is the time date filters and the newest-first order read for a document: when
// it was written where its content says, else when it was imported.
const documentTime = `COALESCE(d.written_at, d.imported_at)`

func scanDocument(r rowScanner, extra ...any) (Document, error) {
	var d Document
	var imported int64
	var written sql.NullInt64
	dest := append([]any{&d.ID, &d.Space, &d.Path, &d.Title, &d.Format, &d.Hash, &d.Bytes, &imported, &written}, extra...)
	if err := r.Scan(dest...); err != nil {
		return Document{}, err
	}
	d.ImportedAt = time.UnixMilli(imported)
	if written.Valid {
		d.Written = time.UnixMilli(written.Int64)
	}
	return d, nil
}

// writtenMillis is a document's written time as stored: NULL when unknown.
func writtenMillis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// DocumentHash returns the id and content hash of the document at path in space; an empty
// hash (and no error) when there is none.
func (s *Store) DocumentHash(ctx context.Context, space, path string) (id int64, hash string, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT id, hash FROM documents WHERE space = ? AND path = ?`, space, path).Scan(&id, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("read document %q: %w", path, err)
	}
	return id, hash, nil
}

// Document returns one document by id.
func (s *Store) Document(ctx context.Context, id int64) (Document, error) {
	var d Document
	var chunks int
	row := s.db.QueryRowContext(ctx, `SELECT `+documentColumns+`, (SELECT count(*) FROM chunks WHERE doc_id = d.id)
		FROM documents d WHERE d.id = ? AND `+notReserved, id)
	d, err := scanDocument(row, &chunks)
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, fmt.Errorf("document %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Document{}, fmt.Errorf("read document %d: %w", id, err)
	}
	d.Chunks = chunks
	copies, err := s.CopiesOf(ctx, []int64{id})
	if err != nil {
		return Document{}, err
	}
	d.Copies = copies[id]
	return d, nil
}

// ListDocuments returns the documents of space (every space when empty), by path.
func (s *Store) ListDocuments(ctx context.Context, space string) ([]Document, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+documentColumns+`, (SELECT count(*) FROM chunks WHERE doc_id = d.id)
		FROM documents d WHERE (? = '' AND `+notReserved+`) OR d.space = ? ORDER BY d.path, d.id`, space, space)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		var chunks int
		d, err := scanDocument(rows, &chunks)
		if err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		d.Chunks = chunks
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	copies, err := s.copiesInSpace(ctx, space)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Copies = copies[out[i].ID]
	}
	return out, nil
}

// DeleteDocument removes a document, all its paths and its chunks (the file on disk is
// untouched); RemovePath takes out one path and keeps a document other paths hold. The
// document leaves every list and search in one short transaction; its chunks are then
// removed in pieces, so a big document never holds other writers up.
func (s *Store) DeleteDocument(ctx context.Context, id int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE documents SET space = ? WHERE id = ? AND `+
			`substr(space, 1, 1) != char(1)`, reservedSpace(retiredSpace), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM document_paths WHERE doc_id = ?`, id)
		return err
	})
	if err == nil {
		err = s.removeInPieces(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	return nil
}

// Chunks returns a document's chunks in order.
func (s *Store) Chunks(ctx context.Context, docID int64) ([]Chunk, error) {
	return s.scanChunks(ctx, docID, `SELECT `+chunkColumns+` FROM chunks WHERE doc_id = ? ORDER BY ordinal`, docID)
}

// TimelineDocuments returns up to limit documents of space ("" for every space) whose text
// says when it was written (a chat conversation, a note with a date), written before the
// cursor (nil: from the newest), newest first; of two written in the same millisecond the
// higher id first. Documents without that date stay out: their import is not an event of
// the day. Chunks and copies are not read: the timeline shows the document, not its text.
// It reads one index range, however many documents there are.
func (s *Store) TimelineDocuments(ctx context.Context, space string, before *TimelineCursor, limit int) ([]Document, error) {
	q, args := timelineDocumentsQuery(space, before, limit)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read the dated documents of the timeline: %w", err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("read the dated documents of the timeline: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the dated documents of the timeline: %w", err)
	}
	return out, nil
}

// timelineDocumentsQuery is TimelineDocuments' statement and its arguments.
func timelineDocumentsQuery(space string, before *TimelineCursor, limit int) (string, []any) {
	q := `SELECT ` + documentColumns + ` FROM documents d INDEXED BY documents_timeline WHERE d.written_at IS NOT NULL AND ` + notReserved
	var args []any
	if space != "" {
		q += ` AND d.space = ?`
		args = append(args, space)
	}
	if before != nil {
		// A document comes after the facts of its millisecond: after a fact, every
		// document of that millisecond is still to come.
		id := before.ID
		if !before.Document {
			id = math.MaxInt64
		}
		q += ` AND (d.written_at, d.id) < (?, ?)`
		args = append(args, before.CreatedAt.UnixMilli(), id)
	}
	q += ` ORDER BY d.written_at DESC, d.id DESC LIMIT ?`
	return q, append(args, limit)
}
