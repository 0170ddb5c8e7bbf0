package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// A document is held by its own path (documents.path) and by any number of copies: other
// paths of the same space whose files have the same bytes (document_paths). The functions
// here keep that true as paths come, change and go: a path always belongs to at most one
// document, a document lives while any path holds it, and when its own path goes one of its
// copies takes its place.

// ImportDuplicate is the outcome for a file whose bytes another document already holds: the
// path is recorded as a copy of that document and nothing is indexed again.
const ImportDuplicate = "duplicate"

// queryer is what the holders below read through: the store's pool or a write transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// pathHolder is the document a path belongs to, and whether the path is one of its copies
// (false: it is the document's own path).
type pathHolder struct {
	docID int64
	hash  string
	copy  bool
}

// holderOf finds the document that path belongs to in space; found is false when none does.
func holderOf(ctx context.Context, q queryer, space, path string) (h pathHolder, found bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT id, hash, 0 FROM documents WHERE space = ?1 AND path = ?2
		UNION ALL
		SELECT d.id, d.hash, 1 FROM document_paths p JOIN documents d ON d.id = p.doc_id WHERE p.space = ?1 AND p.path = ?2
		LIMIT 1`, space, path).Scan(&h.docID, &h.hash, &h.copy)
	if errors.Is(err, sql.ErrNoRows) {
		return pathHolder{}, false, nil
	}
	return h, err == nil, err
}

// twinOf returns the document of space whose file has hash (0 when there is none).
func twinOf(ctx context.Context, tx *sql.Tx, space, hash string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM documents WHERE space = ? AND hash = ? ORDER BY id LIMIT 1`,
		space, hash).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

func hasCopies(ctx context.Context, tx *sql.Tx, docID int64) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM document_paths WHERE doc_id = ?`, docID).Scan(&n)
	return n > 0, err
}

func addCopy(ctx context.Context, tx *sql.Tx, space, path string, docID int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO document_paths(space, path, doc_id, added_at) VALUES (?, ?, ?, ?)`,
		space, path, docID, nowMillis())
	return err
}

// detachPath takes path away from the document h that holds it. A copy just goes; the
// document's own path hands its place to the first of its copies; a document no other path
// holds leaves every list and search here, and its id is returned so the caller removes its
// rows (removeInPieces) once the transaction is in.
func detachPath(ctx context.Context, tx *sql.Tx, space, path string, h pathHolder) (retired int64, err error) {
	if h.copy {
		_, err := tx.ExecContext(ctx, `DELETE FROM document_paths WHERE space = ? AND path = ?`, space, path)
		return 0, err
	}
	var heir string
	err = tx.QueryRowContext(ctx, `SELECT path FROM document_paths WHERE doc_id = ? ORDER BY path LIMIT 1`, h.docID).Scan(&heir)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err := tx.ExecContext(ctx, `UPDATE documents SET space = ? WHERE id = ?`, reservedSpace(retiredSpace), h.docID)
		return h.docID, err
	case err != nil:
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM document_paths WHERE space = ? AND path = ?`, space, heir); err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE documents SET path = ? WHERE id = ?`, heir, h.docID)
	return 0, err
}

// RemovePath takes one path out of memdesk (the file on disk is untouched). The document
// stays while another of its paths holds it; gone reports whether this was its last path,
// so the document itself left.
func (s *Store) RemovePath(ctx context.Context, space, path string) (docID int64, gone bool, err error) {
	var retired int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		h, found, err := holderOf(ctx, tx, space, path)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		docID = h.docID
		retired, err = detachPath(ctx, tx, space, path, h)
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM file_stamps WHERE space = ? AND path = ?`, space, path)
		}
		return err
	})
	if err == nil && retired != 0 {
		err = s.removeInPieces(ctx, retired)
	}
	if err != nil {
		return 0, false, fmt.Errorf("remove %q: %w", path, err)
	}
	return docID, retired != 0, nil
}

// CopiesOf returns the copies' paths of each of docIDs that has any, by path.
func (s *Store) CopiesOf(ctx context.Context, docIDs []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(docIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(docIDs))
	for i, id := range docIDs {
		args[i] = id
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(docIDs)), ",")
	return s.copies(ctx, out, `SELECT doc_id, path FROM document_paths WHERE doc_id IN (`+marks+`) ORDER BY doc_id, path`, args...)
}

// copies adds the (doc_id, path) rows query selects to out, by document.
func (s *Store) copies(ctx context.Context, out map[int64][]string, query string, args ...any) (map[int64][]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read copies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var path string
		if err := rows.Scan(&id, &path); err != nil {
			return nil, fmt.Errorf("read copies: %w", err)
		}
		out[id] = append(out[id], path)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read copies: %w", err)
	}
	return out, nil
}

// copiesInSpace is CopiesOf for every document of space (every space when empty).
func (s *Store) copiesInSpace(ctx context.Context, space string) (map[int64][]string, error) {
	return s.copies(ctx, map[int64][]string{}, `SELECT doc_id, path FROM document_paths WHERE ?1 = '' OR space = ?1 ORDER BY doc_id, path`, space)
}

// PathsUnder returns every path of space under root (own paths and copies) with the
// document that holds it.
func (s *Store) PathsUnder(ctx context.Context, space, root string) (map[string]int64, error) {
	prefix := underPrefix(root)
	rows, err := s.db.QueryContext(ctx, `SELECT path, id FROM documents WHERE space = ?1 AND substr(path, 1, length(?2)) = ?2
		UNION ALL SELECT path, doc_id FROM document_paths WHERE space = ?1 AND substr(path, 1, length(?2)) = ?2`, space, prefix)
	if err != nil {
		return nil, fmt.Errorf("list paths under %q: %w", root, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var path string
		var id int64
		if err := rows.Scan(&path, &id); err != nil {
			return nil, fmt.Errorf("list paths under %q: %w", root, err)
		}
		out[path] = id
	}
	return out, rows.Err()
}

// underPrefix is what every path under root starts with.
func underPrefix(root string) string {
	sep := string(filepath.Separator)
	return strings.TrimSuffix(root, sep) + sep
}
