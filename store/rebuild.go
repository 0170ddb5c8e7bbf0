package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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
	var done []string
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
