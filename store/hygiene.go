package store

import (
	"context"
	"database/sql"
	"encoding/binary"
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

// putTriples replaces the statements of a fact whose text is content and stamps the fact,
// inside tx.
func putTriples(ctx context.Context, tx *sql.Tx, factID int64, content string, ts *Triples) error {
	var list []Triple
	if ts != nil {
		list = ts.List
	}
	if err := writeStatements(ctx, tx, factID, content, list); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE facts SET triple_rules = ? WHERE id = ?`, tripleRules(ts), factID)
	return err
}

// writeStatements stores the statements of a fact whose text is content in its row, and
// their (subject, predicate) keys.
func writeStatements(ctx context.Context, tx *sql.Tx, factID int64, content string, list []Triple) error {
	var blob []byte
	if len(list) > 0 {
		blob = encodeStatements(list, content)
	}
	return writeStatementsColumn(ctx, tx, factID, blob, list)
}

// writeStatementsColumn stores blob, the statements column made of list, and list's keys.
func writeStatementsColumn(ctx context.Context, tx *sql.Tx, factID int64, blob []byte, list []Triple) error {
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

// statementsBlob is the statements column of a new fact whose text is content (nil: none
// or pending).
func statementsBlob(ts *Triples, content string) []byte {
	if ts == nil || len(ts.List) == 0 {
		return nil
	}
	return encodeStatements(ts.List, content)
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

// statementKey is the 32 bits of (subject, predicate) statement_keys holds. A lookup reads
// each candidate's statements and keeps the exact ones, so a key shared by chance costs a
// row read, never a wrong answer, and 32 bits store in half the bytes of 64.
func statementKey(subject, predicate string) int64 {
	return int64(int32(dedupeKey(subject + "\x00" + predicate)))
}

// tripleRules is the stamp a fact's statements are written with (0: pending).
func tripleRules(ts *Triples) int {
	if ts == nil {
		return 0
	}
	return ts.Version
}

// encodeStatements is the statements column of a fact whose text is content: for each
// statement its subject, predicate and object, then 1 for a negated one, else 0. Statements
// are cut from the fact's own text, so each string is written as pieces of that text where
// it has them (exactly, or with ASCII letters lowered, as extraction folds them) and as
// literal bytes elsewhere: at 100k facts the column took 3.7 MB as plain strings, 0.8 MB as
// pieces, and reading it back costs a copy, where extracting the statements again made a full
// contradiction pass 8 times slower (doc/performance.md).
//
// A string is its length (uvarint), then pieces until that many bytes are made, each a
// uvarint tag n<<2 | kind: kind 0 is n literal bytes that follow, 1 is n bytes of the text
// at the offset (uvarint) that follows, 2 the same bytes with A-Z lowered.
func encodeStatements(list []Triple, content string) []byte {
	lowered := asciiLower(content)
	var b []byte
	for _, t := range list {
		for _, s := range []string{t.Subject, t.Predicate, t.Object} {
			b = appendPieces(b, s, content, lowered)
		}
		neg := byte(0)
		if t.Negated {
			neg = 1
		}
		b = append(b, neg)
	}
	return b
}

// Piece kinds of encodeStatements.
const (
	pieceLiteral = iota
	pieceText
	pieceLowered
)

// minPiece is the shortest span of the text written as a piece: a tag and an offset take
// two bytes or more, so a shorter span is no smaller than its literal bytes.
const minPiece = 3

// appendPieces appends s, made of literal bytes and the longest spans of content (or
// lowered, content with A-Z lowered) that it shares, greedily from the left.
func appendPieces(b []byte, s, content, lowered string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	literal := func(lit string) {
		if lit != "" {
			b = binary.AppendUvarint(b, uint64(len(lit))<<2|pieceLiteral)
			b = append(b, lit...)
		}
	}
	start := 0 // of the literal bytes not yet written
	for i := 0; i < len(s); {
		off, n, kind := longestSpan(s[i:], content, lowered)
		if n < minPiece {
			i++
			continue
		}
		literal(s[start:i])
		b = binary.AppendUvarint(b, uint64(n)<<2|uint64(kind))
		b = binary.AppendUvarint(b, uint64(off))
		i += n
		start = i
	}
	literal(s[start:])
	return b
}

// longestSpan finds the longest prefix of s (minPiece bytes at least) that content or
// lowered holds, and where.
func longestSpan(s, content, lowered string) (off, n, kind int) {
	if len(s) < minPiece {
		return 0, 0, 0
	}
	head := s[:minPiece]
	srcs := []string{pieceText: content} // by piece kind; pieceLiteral's is empty, never found
	if lowered != content {              // a text with no capital holds nothing more lowered
		srcs = append(srcs, lowered) // at pieceLowered
	}
	for k, src := range srcs {
		for from := 0; ; {
			j := strings.Index(src[from:], head)
			if j < 0 {
				break
			}
			j += from
			m := minPiece
			for m < len(s) && j+m < len(src) && s[m] == src[j+m] {
				m++
			}
			if m > n {
				off, n, kind = j, m, k
			}
			from = j + 1
		}
	}
	return off, n, kind
}

// asciiLower lowers A-Z and leaves every other byte, so offsets into it are offsets into s.
// It works on bytes: invalid UTF-8 stays as it is, byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// decodeStatements reads a column written by encodeStatements for the same content; a
// damaged tail, or a piece outside the text, ends the list there.
func decodeStatements(b []byte, content string) []Triple {
	var out []Triple
	for len(b) > 0 {
		var parts [3]string
		for i := range parts {
			var ok bool
			if parts[i], b, ok = readPieces(b, content); !ok {
				return out
			}
		}
		if len(b) == 0 {
			return out
		}
		out = append(out, Triple{Subject: parts[0], Predicate: parts[1], Object: parts[2], Negated: b[0] == 1})
		b = b[1:]
	}
	return out
}

// readPieces reads one string of appendPieces from the front of b.
func readPieces(b []byte, content string) (string, []byte, bool) {
	total, k := binary.Uvarint(b)
	if k <= 0 || total > uint64(len(b))+uint64(len(content))*uint64(len(b)) {
		return "", nil, false
	}
	b = b[k:]
	if total == 0 {
		return "", b, true
	}
	// Most strings are one exact span of the text: that is a slice of it, not a copy.
	if tag, k := binary.Uvarint(b); k > 0 && tag&3 == pieceText && tag>>2 == total {
		if off, m := binary.Uvarint(b[k:]); m > 0 && off <= uint64(len(content)) && total <= uint64(len(content))-off {
			return content[off : off+total], b[k+m:], true
		}
	}
	out := make([]byte, 0, total)
	for uint64(len(out)) < total {
		tag, k := binary.Uvarint(b)
		if k <= 0 {
			return "", nil, false
		}
		b = b[k:]
		n, kind := tag>>2, tag&3
		if n == 0 || uint64(len(out))+n > total {
			return "", nil, false
		}
		switch kind {
		case pieceLiteral:
			if uint64(len(b)) < n {
				return "", nil, false
			}
			out = append(out, b[:n]...)
			b = b[n:]
		case pieceText, pieceLowered:
			off, k := binary.Uvarint(b)
			if k <= 0 || off > uint64(len(content)) || n > uint64(len(content))-off {
				return "", nil, false
			}
			b = b[k:]
			span := content[off : off+n]
			if kind == pieceLowered {
				span = asciiLower(span)
			}
			out = append(out, span...)
		default:
			return "", nil, false
		}
	}
	return string(out), b, true
}

// StaleTriples returns up to limit active facts not stamped with triple-rules version, and
// how many there are in all.
func (s *Store) StaleTriples(ctx context.Context, version, limit int) ([]StaleOwner, int, error) {
	out, total, err := s.staleFacts(ctx, "triple_rules", version, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read stale triples: %w", err)
	}
	return out, total, nil
}

// SetTriples writes a fact's triples in its own short transaction, but only if its content
// is still text: a concurrent edit wins, and the sweep picks the fact up again.
func (s *Store) SetTriples(ctx context.Context, factID int64, text string, ts Triples) error {
	err := s.writeIfUnchanged(ctx, factID, text, func(tx *sql.Tx) error { return putTriples(ctx, tx, factID, text, &ts) })
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
	q := `SELECT f.id, f.space, f.content, f.statements FROM facts f
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
	q := `SELECT f.id, f.space, f.content, f.statements FROM facts f WHERE f.status = 'active' AND f.statements IS NOT NULL`
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
		var content string
		var blob []byte
		if err := rows.Scan(&f.FactID, &f.Space, &content, &blob); err != nil {
			return nil, fmt.Errorf("read statements: %w", err)
		}
		if f.Triples = decodeStatements(blob, content); len(f.Triples) > 0 {
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := supersede(ctx, tx, old, by); err != nil {
			return err
		}
		return s.logFact(ctx, tx, old, OpSupersede)
	})
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
	_, err := tx.ExecContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ?1, updated_after = max(?2 - created_at, 0) WHERE id = ?3`,
		by, nowMillis(), old)
	return err
}

// DismissPair records that a person kept both facts of a reported pair.
func (s *Store) DismissPair(ctx context.Context, a, b int64) error {
	a, b = min(a, b), max(a, b)
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO dismissed_pairs(a, b, created_at) VALUES (?, ?, ?)`, a, b, nowMillis())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return s.logDismiss(ctx, tx, a, b)
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
