package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
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

// putTriples replaces a fact's statements and stamps the fact, inside tx.
func putTriples(ctx context.Context, tx *sql.Tx, factID int64, ts *Triples) error {
	var list []Triple
	if ts != nil {
		list = ts.List
	}
	if err := writeStatements(ctx, tx, factID, list); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE facts SET triple_rules = ? WHERE id = ?`, tripleRules(ts), factID)
	return err
}

// writeStatements stores a fact's statements in its row and its (subject, predicate) keys.
func writeStatements(ctx context.Context, tx *sql.Tx, factID int64, list []Triple) error {
	var blob []byte
	if len(list) > 0 {
		blob = EncodeTriples(list)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE facts SET statements = ? WHERE id = ?`, blob, factID); err != nil {
		return err
	}
	for _, t := range list {
		if _, err := tx.ExecContext(ctx, insertStatementKey, statementKey(t.Subject, t.Predicate), factID); err != nil {
			return err
		}
	}
	return nil
}

// statementsBlob is the statements column of a new fact (nil: none or pending).
func statementsBlob(ts *Triples) []byte {
	if ts == nil || len(ts.List) == 0 {
		return nil
	}
	return EncodeTriples(ts.List)
}

// insertStatementKeys records the keys of a new fact's statements with keys, a prepared
// insertStatementKey.
func insertStatementKeys(ctx context.Context, keys *sql.Stmt, factID int64, ts *Triples) error {
	if ts == nil {
		return nil
	}
	for _, t := range ts.List {
		if _, err := keys.ExecContext(ctx, statementKey(t.Subject, t.Predicate), factID); err != nil {
			return err
		}
	}
	return nil
}

// insertStatementKey records that a fact has a statement under a key.
const insertStatementKey = `INSERT OR IGNORE INTO statement_keys(key, fact_id) VALUES (?, ?)`

// statementKey is the 64 bits of (subject, predicate) statement_keys holds.
func statementKey(subject, predicate string) int64 {
	return dedupeKey(subject + "\x00" + predicate)
}

// tripleRules is the stamp a fact's statements are written with (0: pending).
func tripleRules(ts *Triples) int {
	if ts == nil {
		return 0
	}
	return ts.Version
}

// EncodeTriples is the blob form of a fact's statements: for each, its subject, predicate
// and object as uvarint-prefixed strings, then 1 for a negated one, else 0.
func EncodeTriples(list []Triple) []byte {
	var b []byte
	for _, t := range list {
		for _, s := range []string{t.Subject, t.Predicate, t.Object} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		neg := byte(0)
		if t.Negated {
			neg = 1
		}
		b = append(b, neg)
	}
	return b
}

// DecodeTriples reads a blob written by EncodeTriples; a damaged tail is dropped.
func DecodeTriples(b []byte) []Triple {
	var out []Triple
	for len(b) > 0 {
		var parts [3]string
		for i := range parts {
			n, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < n {
				return out
			}
			parts[i] = string(b[k : k+int(n)])
			b = b[k+int(n):]
		}
		if len(b) == 0 {
			return out
		}
		out = append(out, Triple{Subject: parts[0], Predicate: parts[1], Object: parts[2], Negated: b[0] == 1})
		b = b[1:]
	}
	return out
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
	want := make(map[SubjectKey]bool, len(keys))
	hashed := make([]int64, 0, len(keys))
	for _, k := range keys {
		want[k] = true
		hashed = append(hashed, statementKey(k.Subject, k.Predicate))
	}
	q := `SELECT f.id, f.space, f.statements FROM facts f
		WHERE f.id IN (SELECT fact_id FROM statement_keys WHERE key IN (SELECT value FROM json_each(?)))
		AND f.status = 'active' AND f.space = ?`
	args := []any{int64sJSON(hashed), space}
	if len(exclude) > 0 {
		q += ` AND f.id NOT IN (SELECT value FROM json_each(?))`
		args = append(args, int64sJSON(exclude))
	}
	q += ` ORDER BY f.id`
	facts, err := s.queryStatements(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	// A key may be stale (left by an edit) or shared by another pair: keep the facts that
	// really have one of the statements asked about.
	out := facts[:0]
	for _, f := range facts {
		for _, t := range f.Triples {
			if want[SubjectKey{t.Subject, t.Predicate}] {
				out = append(out, f)
				break
			}
		}
	}
	return out, nil
}

// AllTriples returns every active fact of space ("" for every space) that has statements,
// grouped by fact in (space, id) order: the input of a full contradiction pass.
func (s *Store) AllTriples(ctx context.Context, space string) ([]FactTriples, error) {
	q := `SELECT f.id, f.space, f.statements FROM facts f WHERE f.status = 'active' AND f.statements IS NOT NULL`
	var args []any
	if space != "" {
		q += ` AND f.space = ?`
		args = append(args, space)
	}
	q += ` ORDER BY f.space, f.id`
	return s.queryStatements(ctx, q, args...)
}

func (s *Store) queryStatements(ctx context.Context, q string, args ...any) ([]FactTriples, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read statements: %w", err)
	}
	defer rows.Close()
	var out []FactTriples
	for rows.Next() {
		var f FactTriples
		var blob []byte
		if err := rows.Scan(&f.FactID, &f.Space, &blob); err != nil {
			return nil, fmt.Errorf("read statements: %w", err)
		}
		if f.Triples = DecodeTriples(blob); len(f.Triples) > 0 {
			out = append(out, f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read statements: %w", err)
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
