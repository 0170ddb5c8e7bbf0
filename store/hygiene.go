package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Triple is one (subject, predicate, object) statement of a fact, as the engine extracted
// and normalized it.
type Triple struct {
	Subject   string
	Predicate string
	Object    string
	Negated   bool
}

// Triples are one fact's statements and the triple-rules version that made them. A nil
// *Triples on a write means "not extracted yet": the fact is stamped pending (version 0).
type Triples struct {
	Version int
	List    []Triple
}

// putTriples replaces a fact's triples and stamps the fact, inside tx.
// insertTripleRow writes one statement of a fact.
const insertTripleRow = `INSERT INTO triples(fact_id, ordinal, subject, predicate, object, negated) VALUES (?, ?, ?, ?, ?, ?)`

// insertTriples writes the statements of a fact just inserted (stamped in its insert) with
// ins, a prepared insertTripleRow.
func insertTriples(ctx context.Context, ins *sql.Stmt, factID int64, ts *Triples) error {
	if ts == nil {
		return nil
	}
	for i, t := range ts.List {
		if _, err := ins.ExecContext(ctx, factID, i, t.Subject, t.Predicate, t.Object, t.Negated); err != nil {
			return err
		}
	}
	return nil
}

// tripleRules is the stamp a fact's statements are written with (0: pending).
func tripleRules(ts *Triples) int {
	if ts == nil {
		return 0
	}
	return ts.Version
}

func putTriples(ctx context.Context, tx *sql.Tx, factID int64, ts *Triples) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM triples WHERE fact_id = ?`, factID); err != nil {
		return err
	}
	version := 0
	if ts != nil {
		version = ts.Version
		for i, t := range ts.List {
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO triples(fact_id, ordinal, subject, predicate, object, negated) VALUES (?, ?, ?, ?, ?, ?)`,
				factID, i, t.Subject, t.Predicate, t.Object, t.Negated); err != nil {
				return err
			}
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE facts SET triple_rules = ? WHERE id = ?`, version, factID)
	return err
}

// StaleTriples returns up to limit active facts not stamped with triple-rules version, and
// how many there are in all.
func (s *Store) StaleTriples(ctx context.Context, version, limit int) ([]StaleOwner, int, error) {
	out, total, err := s.staleOwners(ctx, KindFact, "triple_rules", version, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read stale triples: %w", err)
	}
	return out, total, nil
}

// SetTriples writes a fact's triples in its own short transaction, but only if its content
// is still text: a concurrent edit wins, and the sweep picks the fact up again.
func (s *Store) SetTriples(ctx context.Context, factID int64, text string, ts Triples) error {
	err := s.writeIfUnchanged(ctx, KindFact, factID, text, func(tx *sql.Tx) error { return putTriples(ctx, tx, factID, &ts) })
	if err != nil {
		return fmt.Errorf("store triples of fact %d: %w", factID, err)
	}
	return nil
}

// FactTriples is one active fact with its statements.
type FactTriples struct {
	FactID  int64
	Space   string
	Triples []Triple
}

// SubjectKey is the (subject, predicate) pair contradictions are looked up by.
type SubjectKey struct{ Subject, Predicate string }

// TriplesAbout returns the active facts of space that have a statement about one of keys,
// each with all its statements, in id order; facts in exclude are left out. It is the
// candidate set of an incremental contradiction check: an index lookup, never a scan.
func (s *Store) TriplesAbout(ctx context.Context, space string, keys []SubjectKey, exclude ...int64) ([]FactTriples, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	var conds []string
	args := []any{space}
	for _, k := range keys {
		conds = append(conds, `(subject = ? AND predicate = ?)`)
		args = append(args, k.Subject, k.Predicate)
	}
	q := `SELECT t.fact_id, f.space, t.subject, t.predicate, t.object, t.negated
		FROM triples t JOIN facts f ON f.id = t.fact_id
		WHERE f.status = 'active' AND f.space = ? AND t.fact_id IN (
			SELECT fact_id FROM triples WHERE ` + strings.Join(conds, ` OR `) + `)`
	if len(exclude) > 0 {
		q += ` AND t.fact_id NOT IN (SELECT value FROM json_each(?))`
		args = append(args, int64sJSON(exclude))
	}
	q += ` ORDER BY t.fact_id, t.ordinal`
	return s.queryTriples(ctx, q, args...)
}

// AllTriples returns every active fact of space ("" for every space) that has statements,
// grouped by fact in (space, id) order: the input of a full contradiction pass.
func (s *Store) AllTriples(ctx context.Context, space string) ([]FactTriples, error) {
	q := `SELECT t.fact_id, f.space, t.subject, t.predicate, t.object, t.negated
		FROM triples t JOIN facts f ON f.id = t.fact_id WHERE f.status = 'active'`
	var args []any
	if space != "" {
		q += ` AND f.space = ?`
		args = append(args, space)
	}
	q += ` ORDER BY f.space, t.fact_id, t.ordinal`
	return s.queryTriples(ctx, q, args...)
}

func (s *Store) queryTriples(ctx context.Context, q string, args ...any) ([]FactTriples, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read triples: %w", err)
	}
	defer rows.Close()
	var out []FactTriples
	for rows.Next() {
		var id int64
		var space string
		var t Triple
		if err := rows.Scan(&id, &space, &t.Subject, &t.Predicate, &t.Object, &t.Negated); err != nil {
			return nil, fmt.Errorf("read triples: %w", err)
		}
		if n := len(out); n == 0 || out[n-1].FactID != id {
			out = append(out, FactTriples{FactID: id, Space: space})
		}
		out[len(out)-1].Triples = append(out[len(out)-1].Triples, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read triples: %w", err)
	}
	return out, nil
}

// ErrNotActive is returned when an operation needs an active fact and gets another.
var ErrNotActive = errors.New("not active")

// Supersede marks fact old superseded by fact by: both active, in one space, not the same.
// Nothing is deleted; restoring old makes it active again.
func (s *Store) Supersede(ctx context.Context, old, by int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error { return supersede(ctx, tx, old, by) })
	if err != nil {
		return fmt.Errorf("supersede fact %d by %d: %w", old, by, err)
	}
	return nil
}

func supersede(ctx context.Context, tx *sql.Tx, old, by int64) error {
	if old == by {
		return fmt.Errorf("fact %d cannot supersede itself: %w", old, ErrNotActive)
	}
	var spaces [2]string
	for i, id := range []int64{old, by} {
		f, err := scanFact(tx.QueryRowContext(ctx, `SELECT `+factColumns+` FROM facts WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if f.Status != StatusActive {
			return fmt.Errorf("fact %d is %s: %w", id, f.Status, ErrNotActive)
		}
		spaces[i] = f.Space
	}
	if spaces[0] != spaces[1] {
		return fmt.Errorf("facts %d and %d are in different spaces (%q, %q): %w", old, by, spaces[0], spaces[1], ErrNotActive)
	}
	_, err := tx.ExecContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ?`,
		by, nowMillis(), old)
	return err
}

// DismissPair records that a person kept both facts of a reported pair.
func (s *Store) DismissPair(ctx context.Context, a, b int64) error {
	a, b = min(a, b), max(a, b)
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO dismissed_pairs(a, b, created_at) VALUES (?, ?, ?)`, a, b, nowMillis())
		return err
	})
	if err != nil {
		return fmt.Errorf("dismiss pair %d, %d: %w", a, b, err)
	}
	return nil
}

// DismissedPairs returns every dismissed pair as [lower id, higher id].
func (s *Store) DismissedPairs(ctx context.Context) (map[[2]int64]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a, b FROM dismissed_pairs`)
	if err != nil {
		return nil, fmt.Errorf("read dismissed pairs: %w", err)
	}
	defer rows.Close()
	out := map[[2]int64]bool{}
	for rows.Next() {
		var p [2]int64
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, fmt.Errorf("read dismissed pairs: %w", err)
		}
		out[p] = true
	}
	return out, rows.Err()
}
