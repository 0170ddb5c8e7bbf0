package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// IsCorrupt reports whether err is SQLite's "database disk image is malformed": a damaged
// page of the file or of a full-text index.
func IsCorrupt(err error) bool { return errors.Is(err, sqlite3.CORRUPT) }

// fullTextIndexes are the full-text indexes and the statement that refills each from the
// stored text, as its triggers would have: every index is contentless, so the text it was
// made from lives only in facts and chunks.
var fullTextIndexes = []struct{ name, refill string }{
	{"facts_fts", `INSERT INTO facts_fts(rowid, content) SELECT id, memdesk_substrings(content) FROM facts WHERE status = 'active'`},
	{"chunks_fts", `INSERT INTO chunks_fts(rowid, text) SELECT id, memdesk_substrings(text) FROM chunks`},
	{"facts_words", `INSERT INTO facts_words(rowid, words) SELECT id, memdesk_words(content) FROM facts WHERE status = 'active'`},
	{"chunks_words", `INSERT INTO chunks_words(rowid, words) SELECT id, memdesk_words(text) FROM chunks`},
}

// RebuildIndexes rebuilds every full-text index from the stored text, one index per
// transaction: interrupted, an index is as it was and running again finishes the work;
// readers see the old index or the new one. An index too damaged to empty is dropped and
// created again from its own definition. It returns a line per index rebuilt.
func (s *Store) RebuildIndexes(ctx context.Context, progress func(done, total int)) ([]string, error) {
	// The b-tree indexes first: refilling a full-text index reads facts through them.
	done, err := s.rebuildTreeIndexes(ctx)
	if err != nil {
		return done, err
	}
	for i, ix := range fullTextIndexes {
		err := s.write(ctx, func(tx *sql.Tx) error {
			// Names are this package's constants, never user text.
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %[1]s(%[1]s) VALUES ('delete-all')`, ix.name)); err != nil {
				if !IsCorrupt(err) {
					return err
				}
				if rerr := recreate(ctx, tx, ix.name); rerr != nil {
					return fmt.Errorf("the index is too damaged to empty (%v), and making it anew failed: %w", err, rerr)
				}
			}
			_, err := tx.ExecContext(ctx, ix.refill)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("rebuild full-text index %s: %w", ix.name, err)
		}
		done = append(done, fmt.Sprintf("full-text index %s rebuilt from the stored text", ix.name))
		if progress != nil {
			progress(i+1, len(fullTextIndexes))
		}
	}
	return done, nil
}

// rebuildTreeIndexes rebuilds the ordinary indexes (dedupe, lookups) with REINDEX. An index
// with a damaged page can be neither rebuilt nor dropped: SQLite reads it to free its pages
// and fails. Its entry is then removed from the schema, it is created again from its own
// definition, all in one transaction, and VACUUM writes the file anew without the
// orphaned pages. Indexes hold no data of their own, so nothing stored is touched.
func (s *Store) rebuildTreeIndexes(ctx context.Context) ([]string, error) {
	type index struct{ name, ddl string }
	var indexes []index
	rows, err := s.db.QueryContext(ctx, `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list the indexes: %w", err)
	}
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.name, &ix.ddl); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list the indexes: %w", err)
		}
		indexes = append(indexes, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the indexes: %w", err)
	}
	var done []string
	var damaged []index
	for _, ix := range indexes {
		// Names come from the schema and are quoted; never user text.
		err := s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `REINDEX "`+strings.ReplaceAll(ix.name, `"`, `""`)+`"`)
			return err
		})
		switch {
		case err == nil:
			done = append(done, "index "+ix.name+" rebuilt")
		case IsCorrupt(err):
			damaged = append(damaged, ix)
		default:
			return done, fmt.Errorf("rebuild index %s: %w", ix.name, err)
		}
	}
	if len(damaged) == 0 {
		return done, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return done, err
	}
	defer conn.Close()
	err = func() (err error) {
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
			}
		}()
		if _, err := conn.ExecContext(ctx, `PRAGMA writable_schema = ON`); err != nil {
			return err
		}
		for _, ix := range damaged {
			if _, err := conn.ExecContext(ctx, `DELETE FROM sqlite_schema WHERE type = 'index' AND name = ?`, ix.name); err != nil {
				return err
			}
		}
		if _, err := conn.ExecContext(ctx, `PRAGMA writable_schema = RESET`); err != nil {
			return err
		}
		for _, ix := range damaged {
			if _, err := conn.ExecContext(ctx, ix.ddl); err != nil {
				return fmt.Errorf("create %s again: %w", ix.name, err)
			}
		}
		_, err = conn.ExecContext(ctx, `COMMIT`)
		return err
	}()
	if err != nil {
		return done, fmt.Errorf("make the damaged indexes anew: %w", s.diskError(err))
	}
	// The damaged index's pages belong to nothing now: VACUUM leaves them out of the file.
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
		return done, fmt.Errorf("the damaged indexes are made anew; writing the file without their old pages failed (run this again): %w", s.diskError(err))
	}
	for _, ix := range damaged {
		done = append(done, "index "+ix.name+" was damaged: made anew from its definition")
	}
	return done, nil
}

// recreate drops the virtual table name and creates it again from the definition SQLite
// keeps for it; the triggers that fill it live on facts and chunks and stay.
func recreate(ctx context.Context, tx *sql.Tx, name string) error {
	var ddl string
	if err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&ddl); err != nil {
		return fmt.Errorf("read the definition of %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE `+name); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create %s again: %w", name, err)
	}
	return nil
}

// MarkEntitiesStale stamps every fact's entities as made by no rules version, so the
// bounded entity sweep extracts them all again. The names themselves stay until replaced:
// the entity leg keeps answering meanwhile.
func (s *Store) MarkEntitiesStale(ctx context.Context) (int, error) {
	var n int
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE facts SET entity_rules = 0 WHERE entity_rules != 0`)
		if err != nil {
			return err
		}
		m, _ := r.RowsAffected()
		n = int(m)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("mark entity rows for re-extraction: %w", err)
	}
	return n, nil
}
