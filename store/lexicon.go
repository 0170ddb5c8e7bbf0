package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// The reads behind the engine's in-memory copy of the word index (engine/lexicon): every
// owner's scoring facts once, the postings of one term, and what changed since a sequence
// number. The engine scores; the store only reads.

// Owner is what bm25 and the filters need to know of a fact or chunk, without its text.
type Owner struct {
	ID        int64
	Space     string
	CreatedAt time.Time
	// Words is the owner's length in index terms; TextLen its text's length in bytes.
	Words   int
	TextLen int
	// Live is false for a fact that is not active and for a chunk of a document that is not
	// in a person's space (staged or retired): neither may be found.
	Live bool
	// Entities are the ids of its entity names (EntityNameIDs), nil while pending and for a
	// chunk, which carries none (schemaChunksNoEntities).
	Entities []int64
}

// ownerSelect reads the owners of kind, without their text; the caller appends the WHERE.
func ownerSelect(kind string) string {
	if kind == KindChunk {
		return `SELECT c.id, d.space, ` + documentTime + `, c.wlen, length(CAST(c.text AS BLOB)), ` + notReserved + `, NULL
			FROM chunks c JOIN documents d ON d.id = c.doc_id`
	}
	return `SELECT f.id, f.space, f.created_at, f.wlen, length(CAST(f.content AS BLOB)), f.status = 'active', f.entity_ids FROM facts f`
}

func scanOwners(rows *sql.Rows, fn func(Owner)) error {
	defer rows.Close()
	for rows.Next() {
		var o Owner
		var created int64
		var ents []byte
		if err := rows.Scan(&o.ID, &o.Space, &created, &o.Words, &o.TextLen, &o.Live, &ents); err != nil {
			return err
		}
		o.CreatedAt = time.UnixMilli(created)
		o.Entities = DecodeIDs(ents)
		fn(o)
	}
	return rows.Err()
}

// wholeScan marks the statements that read a whole table on purpose: the one load of an
// in-memory copy per process. The recall-path plan test lets them scan and nothing else.
const wholeScan = "/* whole scan: one load per process */ "

// LiveOwners calls fn with every live owner of kind, in id order, and returns the change
// sequence the read is consistent with: changes after it are not in what fn saw.
func (s *Store) LiveOwners(ctx context.Context, kind string, fn func(Owner)) (seq int64, err error) {
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq); err != nil {
			return err
		}
		where := ` WHERE f.status = 'active' ORDER BY f.id`
		if kind == KindChunk {
			where = ` WHERE ` + notReserved + ` ORDER BY c.id`
		}
		rows, err := tx.QueryContext(ctx, wholeScan+ownerSelect(kind)+where)
		if err != nil {
			return err
		}
		return scanOwners(rows, fn)
	})
	if err != nil {
		return 0, fmt.Errorf("read %s owners: %w", kind, err)
	}
	return seq, nil
}

// OwnersByID returns the current state of the given owners of kind with their text; an id
// that no longer exists is missing from the result.
func (s *Store) OwnersByID(ctx context.Context, kind string, ids []int64) (map[int64]Owner, map[int64]string, error) {
	owners, texts := map[int64]Owner{}, map[int64]string{}
	if len(ids) == 0 {
		return owners, texts, nil
	}
	q := `SELECT f.content, f.id, f.space, f.created_at, f.wlen, length(CAST(f.content AS BLOB)), f.status = 'active', f.entity_ids
		FROM facts f WHERE f.id IN (SELECT value FROM json_each(?))`
	if kind == KindChunk {
		q = `SELECT c.text, c.id, d.space, ` + documentTime + `, c.wlen, length(CAST(c.text AS BLOB)), ` + notReserved + `, NULL
			FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`
	}
	rows, err := s.db.QueryContext(ctx, q, int64sJSON(ids))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s owners: %w", kind, err)
	}
	defer rows.Close()
	for rows.Next() {
		var o Owner
		var text string
		var created int64
		var ents []byte
		if err := rows.Scan(&text, &o.ID, &o.Space, &created, &o.Words, &o.TextLen, &o.Live, &ents); err != nil {
			return nil, nil, fmt.Errorf("read %s owners: %w", kind, err)
		}
		o.CreatedAt = time.UnixMilli(created)
		o.Entities = DecodeIDs(ents)
		owners[o.ID], texts[o.ID] = o, text
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read %s owners: %w", kind, err)
	}
	return owners, texts, nil
}

// DocumentChunkIDs returns the ids of a document's chunks.
func (s *Store) DocumentChunkIDs(ctx context.Context, docID int64) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM chunks WHERE doc_id = ? ORDER BY id`, docID)
	if err != nil {
		return nil, fmt.Errorf("read chunks of document %d: %w", docID, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("read chunks of document %d: %w", docID, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// TermOwners returns, for each term from through to (inclusive, as the index orders terms:
// by bytes), the owners of kind whose word index holds it, in id order, live or not: the
// caller knows which owners are live. from == to asks for one term. It reads the index's own
// postings lists and never scores.
func (s *Store) TermOwners(ctx context.Context, kind, from, to string) (map[string][]int64, error) {
	t := "facts_words_instance"
	if kind == KindChunk {
		t = "chunks_words_instance"
	}
	// A common word's list is thousands of rows, one per occurrence. Read through
	// database/sql, each row's trip through the driver cost more than SQLite's own work (10
	// ms for 12k rows, a cold search's whole budget); stepping the statement on the raw
	// connection takes 4.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("read postings of %q: %w", from, err)
	}
	defer conn.Close()
	out := map[string][]int64{}
	err = conn.Raw(func(dc any) error {
		raw, ok := dc.(interface{ Raw() *sqlite3.Conn })
		if !ok {
			return errors.New("the SQLite driver gives no connection of its own")
		}
		c := raw.Raw()
		defer c.SetInterrupt(c.SetInterrupt(ctx))
		st, _, err := c.Prepare(`SELECT term, doc FROM ` + t + ` WHERE term >= ? AND term <= ?`)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := errors.Join(st.BindText(1, from), st.BindText(2, to)); err != nil {
			return err
		}
		var term string
		var ids []int64
		for st.Step() {
			// The rows come in term order: the text is copied once per term, not per row.
			if b := st.ColumnRawText(0); string(b) != term {
				if ids != nil {
					out[term] = ids
				}
				term, ids = string(b), nil
			}
			ids = append(ids, st.ColumnInt64(1))
		}
		if ids != nil {
			out[term] = ids
		}
		return st.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read postings of %q: %w", from, err)
	}
	return out, nil
}

// wordsRowTable is the vocabulary table (fts5vocab row: term, owners holding it) of kind's
// word index.
func wordsRowTable(kind string) string {
	if kind == KindChunk {
		return "chunks_words_row"
	}
	return "facts_words_row"
}

// CommonTerms returns up to limit terms of kind's word index held by the most owners, most
// first, for which marker(term) is false (the caller's own markers, such as occurrence
// counts). It reads every term of the index once: a background job's query, not recall's.
func (s *Store) CommonTerms(ctx context.Context, kind string, limit int, marker func(string) bool) ([]string, error) {
	t := wordsRowTable(kind)
	rows, err := s.db.QueryContext(ctx, `SELECT term FROM `+t+` ORDER BY doc DESC`)
	if err != nil {
		return nil, fmt.Errorf("read the common terms: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() && len(out) < limit {
		var term string
		if err := rows.Scan(&term); err != nil {
			return nil, fmt.Errorf("read the common terms: %w", err)
		}
		if !marker(term) {
			out = append(out, term)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the common terms: %w", err)
	}
	return out, nil
}

// EachTerm calls fn with every term of kind's word index for which marker(term) is false,
// in the index's order, and returns the change-log position the terms are as of. A whole
// scan of the vocabulary (0.1-0.3 s at 100k texts), for a job that builds a summary of it.
func (s *Store) EachTerm(ctx context.Context, kind string, marker func(string) bool, fn func(term string)) (int64, error) {
	t := wordsRowTable(kind)
	var seq int64
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT term FROM `+t)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var term string
			if err := rows.Scan(&term); err != nil {
				return err
			}
			if !marker(term) {
				fn(term)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return 0, fmt.Errorf("read the vocabulary: %w", err)
	}
	return seq, nil
}

// TermCounts returns how many owners of kind hold each of terms in the word index; a term
// none holds is absent from the map.
func (s *Store) TermCounts(ctx context.Context, kind string, terms []string) (map[string]int, error) {
	t := wordsRowTable(kind)
	out := map[string]int{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		// One lookup per term: the vocabulary table answers term = ? from the index, while
		// an IN list would make it read every term.
		stmt, err := tx.PrepareContext(ctx, `SELECT doc FROM `+t+` WHERE term = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, term := range terms {
			var n int
			switch err := stmt.QueryRowContext(ctx, term).Scan(&n); {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return err
			default:
				out[term] = n
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count the texts holding %d terms: %w", len(terms), err)
	}
	return out, nil
}

// Change is one row of the change log: a fact, chunk or document (every chunk of it) that was
// written.
type Change struct {
	Seq  int64
	Kind string // KindFact, KindChunk or "document"
	ID   int64
}

// ErrChangesPruned: the change log no longer reaches back to the asked sequence; the caller
// reloads whole.
var ErrChangesPruned = errors.New("change log pruned")

// ChangesSince returns up to limit changes after seq, oldest first. It returns
// ErrChangesPruned when changes after seq were pruned away.
func (s *Store) ChangesSince(ctx context.Context, seq int64, limit int) ([]Change, error) {
	var out []Change
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var pruned int64
		err := tx.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'changes_pruned'`).Scan(&pruned)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if pruned > seq {
			return ErrChangesPruned
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, kind, owner_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c Change
			if err := rows.Scan(&c.Seq, &c.Kind, &c.ID); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	if errors.Is(err, ErrChangesPruned) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read the change log: %w", err)
	}
	return out, nil
}

// LastChange is the newest change's sequence number (0 for none): one index lookup, cheap
// enough to ask before every recall.
func (s *Store) LastChange(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the change log: %w", err)
	}
	return seq, nil
}

// changesKept is how many change rows pruning keeps unless Options.ChangesKept says: a
// process that falls further behind than that reloads its in-memory indexes whole, which
// costs less than reading that many changes one by one.
const changesKept = 20000

// PruneChanges removes all but the newest changesKept rows of the change log and of the
// vector change log, and records how far it pruned each: a reader that had seen less than
// that must reload whole.
func (s *Store) PruneChanges(ctx context.Context) error {
	if err := s.pruneLog(ctx, "changes", "changes_pruned"); err != nil {
		return fmt.Errorf("prune the change log: %w", err)
	}
	if err := s.pruneLog(ctx, "vector_changes", "vector_changes_pruned"); err != nil {
		return fmt.Errorf("prune the vector change log: %w", err)
	}
	return nil
}

// pruneLog prunes one change log (a table with a seq column) and records the cut in meta
// under prunedKey. Both names are constants of this package, never input.
func (s *Store) pruneLog(ctx context.Context, table, prunedKey string) error {
	var oldest, last int64
	// Two statements: SQLite reads min() or max() alone off the end of the rowid tree, both
	// in one statement by a scan of the whole log (100k rows: 10 ms of every process's start).
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(min(seq), 0) FROM `+table).Scan(&oldest); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM `+table).Scan(&last); err != nil {
		return err
	}
	keep := int64(changesKept)
	if s.opts.ChangesKept > 0 {
		keep = int64(s.opts.ChangesKept)
	}
	cut := last - keep
	if cut <= 0 || oldest > cut {
		return nil // no write lock taken when there is nothing to prune
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE seq <= ?`, cut); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, prunedKey, cut)
		return err
	})
}

// readTx runs fn in one read transaction: every statement sees the same snapshot.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// LexiconCopy returns the word index's saved copy of its owner tables, nil when there is
// none.
func (s *Store) LexiconCopy(ctx context.Context) ([]byte, error) {
	var body []byte
	err := s.db.QueryRowContext(ctx, `SELECT body FROM lexicon_copy WHERE id = 1`).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the word index's saved owner tables: %w", err)
	}
	return body, nil
}

// SetLexiconCopy saves the word index's copy of its owner tables in place of the last one.
func (s *Store) SetLexiconCopy(ctx context.Context, body []byte) error {
	if s.ReadOnly() {
		return nil // a cache: a store this user cannot write goes without
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO lexicon_copy(id, body) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body`, body)
		return err
	})
	if err != nil {
		return fmt.Errorf("save the word index's owner tables: %w", err)
	}
	return nil
}
