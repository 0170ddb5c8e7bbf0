package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// Entities are one owner's extracted entities and the extraction-rules version that made
// them. A nil *Entities on a write means "not extracted yet": the owner is stamped pending
// (version 0) and the entity sweep completes it.
type Entities struct {
	Version int
	Names   []string
}

// ownerTable maps an owner kind to its table; only these constants reach SQL text.
func ownerTable(kind string) string {
	if kind == KindChunk {
		return "chunks"
	}
	return "facts"
}

// putEntities replaces a fact's entities and stamps it, inside tx; in interns the names. A nil
// ents stamps the fact pending (version 0, no entities).
func putEntities(ctx context.Context, tx *sql.Tx, in *interner, id int64, ents *Entities) error {
	c, err := in.columns(ctx, ents)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE facts SET entity_rules = ?, entity_ids = ?, entity_count = ? WHERE id = ?`,
		c.rules, c.ids, c.count, id)
	return err
}

// entityColumns are an owner's entity columns as written: the rules stamp (0: pending), the
// name ids' blob (nil: none) and their count.
type entityColumns struct {
	rules int
	ids   []byte
	count int
}

// columns interns ents' names and returns the owner's entity columns.
func (in *interner) columns(ctx context.Context, ents *Entities) (entityColumns, error) {
	if ents == nil {
		return entityColumns{}, nil
	}
	ids, err := in.ids(ctx, ents.Names)
	if err != nil {
		return entityColumns{}, err
	}
	return entityColumns{rules: ents.Version, ids: EncodeIDs(ids), count: len(ids)}, nil
}

// interner gives entity names their ids inside one write transaction, adding the names it has
// not seen. Ids are never reused (names are never deleted), but one seen in a transaction that
// rolls back is gone, so the cache lives no longer than the transaction.
type interner struct {
	tx             *sql.Tx
	sel, next, ins *sql.Stmt
	known          map[string]int64
}

func newInterner(tx *sql.Tx) *interner { return &interner{tx: tx, known: map[string]int64{}} }

// ids returns the ids of names, in order, repeats dropped.
func (in *interner) ids(ctx context.Context, names []string) ([]int64, error) {
	out := make([]int64, 0, len(names))
	seen := make(map[int64]bool, len(names))
	for _, name := range names {
		id, err := in.id(ctx, name)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

func (in *interner) id(ctx context.Context, name string) (int64, error) {
	if id, ok := in.known[name]; ok {
		return id, nil
	}
	var err error
	if in.sel == nil {
		if in.sel, err = in.tx.PrepareContext(ctx, `SELECT id FROM entity_names WHERE name = ?`); err != nil {
			return 0, err
		}
		// The table is keyed by name alone (each name stored once), so the next id is a
		// counter of its own, taken inside the writer's transaction.
		if in.next, err = in.tx.PrepareContext(ctx, `UPDATE meta SET value = CAST(value AS INTEGER) + 1
			WHERE key = 'entity_next_id' RETURNING CAST(value AS INTEGER) - 1`); err != nil {
			return 0, err
		}
		if in.ins, err = in.tx.PrepareContext(ctx, `INSERT INTO entity_names(name, id) VALUES (?, ?)`); err != nil {
			return 0, err
		}
	}
	var id int64
	err = in.sel.QueryRowContext(ctx, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		if err = in.next.QueryRowContext(ctx).Scan(&id); err != nil {
			return 0, fmt.Errorf("number a new entity name: %w", err)
		}
		_, err = in.ins.ExecContext(ctx, name, id)
	}
	if err != nil {
		return 0, err
	}
	in.known[name] = id
	return id, nil
}

// close closes what id prepared. Each is checked: when the second prepare fails (its
// context cancelled as the app quits) the first is there and the second is not.
func (in *interner) close() {
	for _, st := range []*sql.Stmt{in.sel, in.next, in.ins} {
		if st != nil {
			st.Close()
		}
	}
}

// EncodeIDs is the blob form of a list of ids: uvarints.
func EncodeIDs(ids []int64) []byte {
	b := make([]byte, 0, len(ids)*3)
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return b
}

// DecodeIDs reads a blob written by EncodeIDs; a truncated tail is ignored.
func DecodeIDs(b []byte) []int64 {
	var out []int64
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		out = append(out, int64(v))
		b = b[n:]
	}
	return out
}

// EntityNameIDs returns the ids of the names the store has ever stored (a name it has not is
// missing from the result: no owner carries it).
func (s *Store) EntityNameIDs(ctx context.Context, names []string) (map[string]int64, error) {
	out := make(map[string]int64, len(names))
	if len(names) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT name, id FROM entity_names WHERE name IN (SELECT value FROM json_each(?))`, stringsJSON(names))
	if err != nil {
		return nil, fmt.Errorf("read entity names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			return nil, fmt.Errorf("read entity names: %w", err)
		}
		out[name] = id
	}
	return out, rows.Err()
}

// EntityNames returns the names of ids. The names are keyed by name alone, so it reads them
// all: for tests and diagnostics, never a recall.
func (s *Store) EntityNames(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, name FROM entity_names WHERE id IN (SELECT value FROM json_each(?))`, int64sJSON(ids))
	if err != nil {
		return nil, fmt.Errorf("read entity names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("read entity names: %w", err)
		}
		out[id] = name
	}
	return out, rows.Err()
}

// StaleOwner is a fact whose entities or statements were made by another rules version (or
// never).
type StaleOwner struct {
	ID   int64
	Text string
}

// StaleEntities returns up to limit active facts whose entities were not made by rules
// version, and how many there are in all. Forgotten facts are left alone until they are
// restored. Knowledge chunks carry no entities (schemaChunksNoEntities).
func (s *Store) StaleEntities(ctx context.Context, version, limit int) ([]StaleOwner, int, error) {
	out, total, err := s.staleFacts(ctx, "entity_rules", version, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read stale entities: %w", err)
	}
	return out, total, nil
}

// staleFacts returns up to limit active facts whose stamp column is not version, in id order,
// and how many there are in all. stamp is a column name from this package, never user text.
func (s *Store) staleFacts(ctx context.Context, stamp string, version, limit int) ([]StaleOwner, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE `+stamp+` != ? AND status = 'active'`, version).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, content FROM facts WHERE `+stamp+` != ? AND status = 'active' ORDER BY id LIMIT ?`, version, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []StaleOwner
	for rows.Next() {
		var o StaleOwner
		if err := rows.Scan(&o.ID, &o.Text); err != nil {
			return nil, 0, err
		}
		out = append(out, o)
	}
	return out, total, rows.Err()
}

// ErrChanged is returned when a row changed between being read and being written back.
var ErrChanged = errors.New("changed meanwhile")

// SetEntities writes a fact's entities in its own short transaction, but only if its text is
// still text: a concurrent edit wins, and the sweep picks the fact up again.
func (s *Store) SetEntities(ctx context.Context, id int64, text string, ents Entities) error {
	err := s.writeIfUnchanged(ctx, id, text, func(tx *sql.Tx) error {
		in := newInterner(tx)
		defer in.close()
		return putEntities(ctx, tx, in, id, &ents)
	})
	if err != nil {
		return fmt.Errorf("store entities of fact %d: %w", id, err)
	}
	return nil
}

// writeIfUnchanged runs put in one write transaction if the fact's content is still text, and
// returns ErrChanged otherwise (edited or gone since it was read).
func (s *Store) writeIfUnchanged(ctx context.Context, id int64, text string, put func(tx *sql.Tx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var same bool
		err := tx.QueryRowContext(ctx, `SELECT content = ? FROM facts WHERE id = ?`, text, id).Scan(&same)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !same {
			return ErrChanged
		}
		if err != nil {
			return err
		}
		return put(tx)
	})
}

// CandidatesByID reads facts or chunks by id as search candidates (no bm25).
func (s *Store) CandidatesByID(ctx context.Context, kind string, ids []int64) ([]Candidate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if kind == KindChunk {
		rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCandidateColumns+`, 0.0
			FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`, int64sJSON(ids))
		if err != nil {
			return nil, fmt.Errorf("read knowledge candidates: %w", err)
		}
		return scanChunkCandidates(rows)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.id, f.content, f.space, f.created_at, 0.0
		FROM facts f WHERE f.id IN (SELECT value FROM json_each(?))`, int64sJSON(ids))
	if err != nil {
		return nil, fmt.Errorf("read fact candidates: %w", err)
	}
	return scanFactCandidates(rows)
}

// stringsJSON encodes names as a JSON array for json_each: one bound parameter, any length.
func stringsJSON(ss []string) string {
	b, _ := json.Marshal(ss) // []string always encodes
	return string(b)
}
