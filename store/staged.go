package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
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
// reserved spaces, which the next open or import clears (importlock.go says how it tells a
// crashed import from a live one in another process).
const (
	// stagedChunks is the chunk count above which a document is written in pieces, and the
	// size of each piece.
	stagedChunks = 256
	// stagingSpace and retiredSpace prefix the reserved spaces.
	stagingSpace = "\x01staging:"
	retiredSpace = "\x01retired:"
	// abandonedAfter is, only where the platform has no file locks, how long a staging
	// document may go without a new piece before it counts as abandoned.
	abandonedAfter = time.Hour
)

// notReserved is the SQL condition that a document (aliased d) is in a person's space, not in
// a staging or retired one.
const notReserved = `substr(d.space, 1, 1) != char(1)`

func reservedSpace(prefix string) string {
	return prefix + importToken()
}

// importToken names one staged import: its staging space and its lock file.
func importToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// putDocumentStaged is PutDocument for a document with more than stagedChunks chunks.
func (s *Store) putDocumentStaged(ctx context.Context, in DocumentInput) (id int64, outcome string, err error) {
	// PutDocument has found the file unchanged or a copy of another when it is either.
	if err := s.RemoveAbandoned(ctx); err != nil {
		return 0, "", err
	}

	// The lock comes before the first row, so no other process can see the row unlocked.
	token := importToken()
	lock, err := s.lockImport(token)
	if err != nil {
		return 0, "", err
	}
	defer lock.release()
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO documents(space, path, title, format, hash, bytes, written_at, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			stagingSpace+token, in.Path, in.Title, in.Format, in.Hash, in.Bytes, writtenMillis(in.Written), nowMillis())
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		return replaceLinks(ctx, tx, id, in)
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
			// The heartbeat that tells a live import from an abandoned one where there are
			// no file locks.
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
		h, found, err := holderOf(ctx, tx, in.Space, in.Path)
		if err != nil {
			return err
		}
		outcome = ImportAdded
		if found {
			// The version the path held is retired, or, when other paths still hold it, the
			// path just leaves it.
			outcome = ImportUpdated
			if retired, err = detachPath(ctx, tx, in.Space, in.Path, h); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE documents SET space = ?, imported_at = ? WHERE id = ? AND space = ?`,
			in.Space, nowMillis(), id, stagingSpace+token)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			// Only a lock file removed by hand lets another process reclaim a live import.
			return errors.Join(err, fmt.Errorf("staged document %d was removed while it was written; import it again", id))
		}
		return nil
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
		if _, err := tx.ExecContext(ctx, `DELETE FROM document_paths WHERE doc_id = ?`, docID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, docID)
		return err
	})
}

// RemoveAbandoned removes what interrupted imports and removals left behind, whatever its
// age: retired versions, and staging documents whose writer is gone (its import lock is
// free). A staging document whose writer still runs, in this process or another, is left
// alone. Open and every import call it.
func (s *Store) RemoveAbandoned(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, space, imported_at FROM documents d WHERE NOT (`+notReserved+`)`)
	if err != nil {
		return fmt.Errorf("find abandoned imports: %w", err)
	}
	type reserved struct {
		id       int64
		space    string
		imported int64
	}
	var found []reserved
	for rows.Next() {
		var r reserved
		if err := rows.Scan(&r.id, &r.space, &r.imported); err != nil {
			rows.Close()
			return fmt.Errorf("find abandoned imports: %w", err)
		}
		found = append(found, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find abandoned imports: %w", err)
	}
	for _, r := range found {
		token, staging := strings.CutPrefix(r.space, stagingSpace)
		if staging {
			alive, err := s.importAlive(token)
			if errors.Is(err, errNoFileLock) {
				alive, err = time.Since(time.UnixMilli(r.imported)) < abandonedAfter, nil
			}
			if err != nil {
				return fmt.Errorf("check import %d: %w", r.id, err)
			}
			if alive {
				continue
			}
			// Retired first, and only if it is still this staging document: its writer may
			// have finished (and freed its lock) since the list above was read.
			var moved int64
			err = s.write(ctx, func(tx *sql.Tx) error {
				res, err := tx.ExecContext(ctx, `UPDATE documents SET space = ? WHERE id = ? AND space = ?`,
					reservedSpace(retiredSpace), r.id, r.space)
				if err != nil {
					return err
				}
				moved, err = res.RowsAffected()
				return err
			})
			if err != nil {
				return fmt.Errorf("reclaim import %d: %w", r.id, err)
			}
			if moved == 0 {
				continue
			}
		}
		if err := s.removeInPieces(ctx, r.id); err != nil {
			return err
		}
		if staging {
			s.removeImportLock(token)
		}
	}
	s.removeOrphanLocks()
	return nil
}
