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
	_, err := tx.ExecContext(ctx, `UPDATE `+ownerTable(kind)+` SET entity_rules = ? WHERE id = ?`, version, id)
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
	t := ownerTable(kind)
	textCol, active := "content", ` AND status = 'active'`
	if kind == KindChunk {
		textCol, active = "text", ""
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t+` WHERE entity_rules != ?`+active, version).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count stale entities: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, `+textCol+` FROM `+t+` WHERE entity_rules != ?`+active+` ORDER BY id LIMIT ?`, version, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read stale entities: %w", err)
	}
	defer rows.Close()
	var out []StaleOwner
	for rows.Next() {
		var o StaleOwner
		if err := rows.Scan(&o.ID, &o.Text); err != nil {
			return nil, 0, fmt.Errorf("read stale entities: %w", err)
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
	textCol := "content"
	if kind == KindChunk {
		textCol = "text"
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var same bool
		err := tx.QueryRowContext(ctx, `SELECT `+textCol+` = ? FROM `+ownerTable(kind)+` WHERE id = ?`, text, id).Scan(&same)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !same {
			return ErrChanged
		}
		if err != nil {
			return err
		}
		return putEntities(ctx, tx, kind, id, &ents)
	})
	if err != nil {
		return fmt.Errorf("store entities of %s %d: %w", kind, id, err)
	}
	return nil
}

// EntityStats are the document frequencies an entity query needs: df per asked entity over
// the active owners of one space, and how many active owners the space has.
type EntityStats struct {
	DF    map[string]int
	Total int
}

// scopeJoin joins entity rows to their owners and keeps active ones of the space.
func scopeJoin(kind string) string {
	if kind == KindChunk {
		return ` JOIN chunks c ON c.id = e.owner_id JOIN documents d ON d.id = c.doc_id
			WHERE e.owner_kind = 'chunk' AND (? = '' OR d.space = ?)`
	}
	return ` JOIN facts f ON f.id = e.owner_id
		WHERE e.owner_kind = 'fact' AND f.status = 'active' AND (? = '' OR f.space = ?)`
}

// EntityDF counts, for each name, the active owners of kind in space that carry it.
func (s *Store) EntityDF(ctx context.Context, kind, space string, names []string) (EntityStats, error) {
	st := EntityStats{DF: map[string]int{}}
	totalQ := `SELECT count(*) FROM facts WHERE status = 'active' AND (? = '' OR space = ?)`
	if kind == KindChunk {
		totalQ = `SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE (? = '' OR d.space = ?)`
	}
	if err := s.db.QueryRowContext(ctx, totalQ, space, space).Scan(&st.Total); err != nil {
		return st, fmt.Errorf("count %s owners: %w", kind, err)
	}
	if len(names) == 0 {
		return st, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT e.entity, count(*) FROM entities e`+scopeJoin(kind)+
		` AND e.entity IN (SELECT value FROM json_each(?)) GROUP BY e.entity`,
		space, space, stringsJSON(names))
	if err != nil {
		return st, fmt.Errorf("entity frequencies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return st, fmt.Errorf("entity frequencies: %w", err)
		}
		st.DF[name] = n
	}
	return st, rows.Err()
}

// EntityOwners returns the active owners of kind in space carrying any of anchors (at most
// limit of them), each with its full entity set.
func (s *Store) EntityOwners(ctx context.Context, kind, space string, anchors []string, limit int) (map[int64][]string, error) {
	if len(anchors) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `
		WITH owners AS (
			SELECT DISTINCT e.owner_id AS id FROM entities e`+scopeJoin(kind)+`
			AND e.entity IN (SELECT value FROM json_each(?)) LIMIT ?)
		SELECT e.owner_id, e.entity FROM entities e JOIN owners o ON o.id = e.owner_id
		WHERE e.owner_kind = ?`,
		space, space, stringsJSON(anchors), limit, kind)
	if err != nil {
		return nil, fmt.Errorf("entity candidates: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("entity candidates: %w", err)
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
