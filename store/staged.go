package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// A big document is written in many short transactions, not one: indexing tens of thousands
// of chunks takes tens of seconds, and one transaction that long would make every other
// writer (the app, an agent over MCP, a script) fail with "database is locked" once its busy
// timeout ran out. Until its last chunk is in, the document lives in a staging space, a
// space name no person can type (it starts with U+0001; spaces are printable) and so no recall or list asks for;
// one short transaction then moves it into its space, retiring the version it replaces the
// same way, and the retired version is removed in short transactions after. A reader sees
// the old document or the new one, whole, never a mix; a crash leaves only rows in those
// reserved spaces, which the next import clears.
const (
	// stagedChunks is the chunk count above which a document is written in pieces, and the
	// size of each piece.
	stagedChunks = 256
	// stagingSpace and retiredSpace prefix the reserved spaces.
	stagingSpace = "\x01staging:"
	retiredSpace = "\x01retired:"
	// abandonedAfter is how long a staging document may go without a new piece before an
	// import in another process counts it abandoned (its writer crashed) and removes it.
	abandonedAfter = time.Hour
)

// notReserved is the SQL condition that a document (aliased d) is in a person's space, not in
// a staging or retired one.
const notReserved = `substr(d.space, 1, 1) != char(1)`

func reservedSpace(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// putDocumentStaged is PutDocument for a document with more than stagedChunks chunks.
func (s *Store) putDocumentStaged(ctx context.Context, in DocumentInput) (id int64, outcome string, err error) {
	var existing int64
	var oldHash string
	err = s.db.QueryRowContext(ctx, `SELECT id, hash FROM documents WHERE space = ? AND path = ?`,
		in.Space, in.Path).Scan(&existing, &oldHash)
	switch {
	case err == nil && oldHash == in.Hash:
		return existing, ImportUnchanged, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return 0, "", err
	}
	if err := s.RemoveAbandoned(ctx); err != nil {
		return 0, "", err
	}

	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO documents(space, path, title, format, hash, bytes, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			reservedSpace(stagingSpace), in.Path, in.Title, in.Format, in.Hash, in.Bytes, nowMillis())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, "", err
	}
	for start := 0; start < len(in.Chunks); start += stagedChunks {
		end := min(start+stagedChunks, len(in.Chunks))
		err := s.write(ctx, func(tx *sql.Tx) error {
			if err := insertChunks(ctx, tx, id, in.Chunks[start:end]); err != nil {
				return err
			}
			// The heartbeat that tells a live import from an abandoned one.
			_, err := tx.ExecContext(ctx, `UPDATE documents SET imported_at = ? WHERE id = ?`, nowMillis(), id)
			return err
		})
		if err != nil {
			// Cancelled or failed: take the pieces back out (without ctx, which may be done).
			if rerr := s.removeInPieces(context.WithoutCancel(ctx), id); rerr != nil {
				err = errors.Join(err, rerr)
			}
			return 0, "", err
		}
	}

	retired := int64(0)
	err = s.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM documents WHERE space = ? AND path = ?`,
			in.Space, in.Path).Scan(&retired)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			outcome = ImportAdded
		case err != nil:
			return err
		default:
			outcome = ImportUpdated
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET space = ? WHERE id = ?`,
				reservedSpace(retiredSpace), retired); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE documents SET space = ?, imported_at = ? WHERE id = ?`,
			in.Space, nowMillis(), id)
		return err
	})
	if err != nil {
		if rerr := s.removeInPieces(context.WithoutCancel(ctx), id); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return 0, "", err
	}
	if retired != 0 {
		// The new version is in; the old one is out of sight. Removing it is tidying, and a
		// failure here only leaves rows the next import clears.
		if err := s.removeInPieces(ctx, retired); err != nil {
			return id, outcome, nil
		}
	}
	return id, outcome, nil
}

// removeInPieces deletes a document's chunks (the triggers take their index entries and
// vectors) stagedChunks at a time, then the document row.
func (s *Store) removeInPieces(ctx context.Context, docID int64) error {
	for {
		var n int64
		err := s.write(ctx, func(tx *sql.Tx) error {
			const piece = `SELECT id FROM chunks WHERE doc_id = ? ORDER BY id LIMIT ?`
			res, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE id IN (`+piece+`)`, docID, stagedChunks)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return fmt.Errorf("remove document %d: %w", docID, err)
		}
		if n == 0 {
			break
		}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, docID)
		return err
	})
}

// RemoveAbandoned removes what interrupted imports left behind: retired versions, and staging
// documents no writer has added to for abandonedAfter.
func (s *Store) RemoveAbandoned(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM documents
		WHERE substr(space, 1, length(?)) = ? OR (substr(space, 1, length(?)) = ? AND imported_at < ?)`,
		retiredSpace, retiredSpace, stagingSpace, stagingSpace, time.Now().Add(-abandonedAfter).UnixMilli())
	if err != nil {
		return fmt.Errorf("find abandoned imports: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("find abandoned imports: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if err := s.removeInPieces(ctx, id); err != nil {
			return err
		}
	}
	return nil
}
