package store

import (
	"context"
	"database/sql"
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

// putEntities replaces an owner's entity rows and stamps the owner, inside tx.
func putEntities(ctx context.Context, tx *sql.Tx, kind string, id int64, ents *Entities) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM entities WHERE owner_kind = ? AND owner_id = ?`, kind, id); err != nil {
		return err
	}
	version := 0
	if ents != nil {
		version = ents.Version
		for _, name := range ents.Names {
			if _, err := tx.ExecContext(ctx,
				`INSERT OR IGNORE INTO entities(owner_kind, owner_id, entity, rules_version) VALUES (?, ?, ?, ?)`,
				kind, id, name, ents.Version); err != nil {
				return err
			}
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE `+ownerTable(kind)+` SET entity_rules = ?,
		entity_count = (SELECT count(*) FROM entities WHERE owner_kind = ? AND owner_id = ?) WHERE id = ?`,
		version, kind, id, id)
	return err
}

// StaleOwner is a fact or chunk whose entities were made by another rules version (or never).
type StaleOwner struct {
	ID   int64
	Text string
}

// StaleEntities returns up to limit owners of kind not stamped with version, and how many
// there are in all. Forgotten facts are left alone until they are restored.
func (s *Store) StaleEntities(ctx context.Context, kind string, version, limit int) ([]StaleOwner, int, error) {
	out, total, err := s.staleOwners(ctx, kind, "entity_rules", version, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read stale entities: %w", err)
	}
	return out, total, nil
}

// staleOwners returns up to limit owners of kind (active facts, or chunks) whose stamp column
// is not version, in id order, and how many there are in all. stamp is a column name from
// this package, never user text.
func (s *Store) staleOwners(ctx context.Context, kind, stamp string, version, limit int) ([]StaleOwner, int, error) {
	t := ownerTable(kind)
	textCol, active := "content", ` AND status = 'active'`
	if kind == KindChunk {
		textCol, active = "text", ""
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t+` WHERE `+stamp+` != ?`+active, version).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, `+textCol+` FROM `+t+` WHERE `+stamp+` != ?`+active+` ORDER BY id LIMIT ?`, version, limit)
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

// SetEntities writes an owner's entities in its own short transaction, but only if its text
// is still text: a concurrent edit wins, and the sweep picks the row up again.
func (s *Store) SetEntities(ctx context.Context, kind string, id int64, text string, ents Entities) error {
	err := s.writeIfUnchanged(ctx, kind, id, text, func(tx *sql.Tx) error { return putEntities(ctx, tx, kind, id, &ents) })
	if err != nil {
		return fmt.Errorf("store entities of %s %d: %w", kind, id, err)
	}
	return nil
}

// writeIfUnchanged runs put in one write transaction if the owner's text is still text, and
// returns ErrChanged otherwise (edited or gone since it was read).
func (s *Store) writeIfUnchanged(ctx context.Context, kind string, id int64, text string, put func(tx *sql.Tx) error) error {
	textCol := "content"
	if kind == KindChunk {
		textCol = "text"
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var same bool
		err := tx.QueryRowContext(ctx, `SELECT `+textCol+` = ? FROM `+ownerTable(kind)+` WHERE id = ?`, text, id).Scan(&same)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !same {
			return ErrChanged
		}
		if err != nil {
			return err
		}
		return put(tx)
	})
}

// scopeJoin joins entity rows to their owners and keeps active ones of space ("" for every
// space). The space test is only written when there is one, so SQLite can use the index.
func scopeJoin(kind, space string) (string, []any) {
	if kind == KindChunk {
		q := ` JOIN chunks c ON c.id = e.owner_id JOIN documents d ON d.id = c.doc_id WHERE e.owner_kind = 'chunk'`
		if space == "" {
			return q, nil
		}
		return q + ` AND d.space = ?`, []any{space}
	}
	q := ` JOIN facts f ON f.id = e.owner_id WHERE e.owner_kind = 'fact' AND f.status = 'active'`
	if space == "" {
		return q, nil
	}
	return q + ` AND f.space = ?`, []any{space}
}

// OwnerCount is the number of active facts (or chunks) in space ("" for every space): the N
// an entity's document frequency is measured against.
func (s *Store) OwnerCount(ctx context.Context, kind, space string) (int, error) {
	q, args := `SELECT count(*) FROM facts WHERE status = 'active'`, []any{}
	if kind == KindChunk {
		q = `SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE 1`
		if space != "" {
			q, args = q+` AND d.space = ?`, []any{space}
		}
	} else if space != "" {
		q, args = q+` AND space = ?`, []any{space}
	}
	var n int
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s owners: %w", kind, err)
	}
	return n, nil
}

// EntityDF counts, for each name, the active owners of kind in space that carry it, but
// stops counting at limit+1: the caller only asks whether a name is rare enough, and a
// common one ("python" in every other fact) would otherwise cost a walk of all its rows.
func (s *Store) EntityDF(ctx context.Context, kind, space string, names []string, limit int) (map[string]int, error) {
	join, args := scopeJoin(kind, space)
	df := make(map[string]int, len(names))
	for _, name := range names {
		var n int
		q := `SELECT count(*) FROM (SELECT 1 FROM entities e` + join + ` AND e.entity = ? LIMIT ?)`
		if err := s.db.QueryRowContext(ctx, q, append(append([]any{}, args...), name, limit+1)...).Scan(&n); err != nil {
			return nil, fmt.Errorf("entity frequency: %w", err)
		}
		df[name] = n
	}
	return df, nil
}

// EntityMatch is one owner carrying some of the asked anchors.
type EntityMatch struct {
	Shared int // how many of the anchors it carries
	Total  int // how many entities it has
}

// EntityMatches returns the active owners of kind in space carrying any of anchors, at most
// limit of them, those sharing the most first. It reads only the anchors' postings.
func (s *Store) EntityMatches(ctx context.Context, kind, space string, anchors []string, limit int) (map[int64]EntityMatch, error) {
	if len(anchors) == 0 {
		return nil, nil
	}
	owner := "f"
	if kind == KindChunk {
		owner = "c"
	}
	join, args := scopeJoin(kind, space)
	rows, err := s.db.QueryContext(ctx, `SELECT e.owner_id, count(*), `+owner+`.entity_count FROM entities e`+join+`
		AND e.entity IN (SELECT value FROM json_each(?))
		GROUP BY e.owner_id ORDER BY count(*) DESC, e.owner_id LIMIT ?`,
		append(args, stringsJSON(anchors), limit)...)
	if err != nil {
		return nil, fmt.Errorf("entity candidates: %w", err)
	}
	defer rows.Close()
	out := map[int64]EntityMatch{}
	for rows.Next() {
		var id int64
		var m EntityMatch
		if err := rows.Scan(&id, &m.Shared, &m.Total); err != nil {
			return nil, fmt.Errorf("entity candidates: %w", err)
		}
		out[id] = m
	}
	return out, rows.Err()
}

// SharedEntities returns, per owner, which of names it carries: the explanation of a few
// entity-leg hits.
func (s *Store) SharedEntities(ctx context.Context, kind string, ids []int64, names []string) (map[int64][]string, error) {
	if len(ids) == 0 || len(names) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT owner_id, entity FROM entities
		WHERE owner_kind = ? AND owner_id IN (SELECT value FROM json_each(?)) AND entity IN (SELECT value FROM json_each(?))
		ORDER BY owner_id, entity`, kind, int64sJSON(ids), stringsJSON(names))
	if err != nil {
		return nil, fmt.Errorf("shared entities: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("shared entities: %w", err)
		}
		out[id] = append(out[id], name)
	}
	return out, rows.Err()
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
