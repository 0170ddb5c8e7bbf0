package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Fact statuses. Deleting is soft: a deleted fact can be restored.
const (
	StatusActive     = "active"
	StatusSuperseded = "superseded"
	StatusDeleted    = "deleted"
)

// DuplicateError reports that an active fact in the same space already has this content.
type DuplicateError struct{ ExistingID int64 }

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("an active fact with the same content already exists (id %d)", e.ExistingID)
}

// Fact is one stored memory.
type Fact struct {
	ID        int64
	Space     string
	Content   string
	Status    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// SupersededBy is the fact that replaced this one (status superseded), else 0.
	SupersededBy int64
	dedupe       int64 // the dedupe key (dedupeKey of its content hash, spaced: spacedKey)
}

const factColumns = `id, space, content, dedupe, status, created_at, created_at + updated_after, coalesce(superseded_by, 0)`

type rowScanner interface{ Scan(dest ...any) error }

func scanFact(r rowScanner) (Fact, error) {
	var f Fact
	var created, updated int64
	if err := r.Scan(&f.ID, &f.Space, &f.Content, &f.dedupe, &f.Status, &created, &updated, &f.SupersededBy); err != nil {
		return Fact{}, err
	}
	f.CreatedAt = time.UnixMilli(created)
	f.UpdatedAt = time.UnixMilli(updated)
	return f, nil
}

// AddFact stores f in space unless an active fact there has the same hash, in which case it
// returns that fact's id and duplicate = true and writes nothing new. Its entities and
// triples are stored in the same transaction. When f.Supersedes names a fact, that fact is
// marked superseded by the stored (or the duplicate) fact in the same transaction too.
func (s *Store) AddFact(ctx context.Context, space string, f NewFact) (id int64, duplicate bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		existing, err := activeByHash(ctx, tx, space, f.Hash)
		if err != nil {
			return err
		}
		if existing != 0 {
			id, duplicate = existing, true
		} else {
			in := newInterner(tx)
			defer in.close()
			ents, err := in.columns(ctx, f.Entities)
			if err != nil {
				return err
			}
			now := nowMillis()
			res, err := tx.ExecContext(ctx, insertFact, space, f.Content, f.Hash, now, now, ents.rules, ents.ids, ents.count,
				tripleRules(f.Triples), statementsBlob(f.Triples, f.Content))
			if err != nil {
				return err
			}
			if id, err = res.LastInsertId(); err != nil {
				return err
			}
			keys, err := tx.PrepareContext(ctx, insertStatementKey)
			if err != nil {
				return err
			}
			defer keys.Close()
			if err := insertStatementKeys(ctx, keys, id, f.Triples); err != nil {
				return err
			}
			if err := s.logFact(ctx, tx, id, OpAdd); err != nil {
				return err
			}
		}
		if f.Supersedes != 0 {
			if err := supersede(ctx, tx, f.Supersedes, id); err != nil {
				return err
			}
			return s.logFact(ctx, tx, f.Supersedes, OpSupersede)
		}
		return nil
	})
	if err != nil {
		return 0, false, fmt.Errorf("add fact: %w", err)
	}
	return id, duplicate, nil
}

// insertFact writes a new active fact with its entities and its length in index terms, in
// one row write: the triggers then index it.
// ?5 is the time it was last changed, stored as the time since ?4 (updated_after, 0 for a
// fact never changed).
// Its uid, its identity on every device (sync.go), is 128 random bits.
const insertFact = `INSERT INTO facts(space, content, dedupe, status, created_at, updated_after, entity_rules, entity_ids, entity_count, triple_rules, statements, wlen, uid)
	VALUES (?1, ?2, memdesk_spaced(memdesk_dedupe(?3), ?1), 'active', ?4, max(?5 - ?4, 0), ?6, ?7, ?8, ?9, ?10, memdesk_wlen(?2), lower(hex(randomblob(16))))`

// NewFact is one fact of a batch write.
type NewFact struct {
	Content  string
	Hash     string
	Entities *Entities // nil: pending
	Triples  *Triples  // nil: pending
	// Supersedes, when not 0, is an active fact of the same space this one replaces
	// (AddFact only).
	Supersedes int64
	// CreatedAt and UpdatedAt, when set, are kept (AddFacts only): a fact imported from an
	// export keeps the times it was written and last changed. Zero means now.
	CreatedAt, UpdatedAt time.Time
}

// AddFacts writes a batch in one transaction: the same rules as AddFact for each fact (a
// duplicate, also within the batch, returns the existing id), one commit for all. The
// results are in input order.
func (s *Store) AddFacts(ctx context.Context, space string, facts []NewFact) (ids []int64, duplicate []bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		ids, duplicate = make([]int64, len(facts)), make([]bool, len(facts))
		stmt, err := tx.PrepareContext(ctx, insertFact)
		if err != nil {
			return err
		}
		defer stmt.Close()
		byHash, err := tx.PrepareContext(ctx, activeByHashQuery)
		if err != nil {
			return err
		}
		defer byHash.Close()
		keys, err := tx.PrepareContext(ctx, insertStatementKey)
		if err != nil {
			return err
		}
		defer keys.Close()
		in := newInterner(tx)
		defer in.close()
		now := nowMillis()
		for i, f := range facts {
			existing, err := scanID(byHash.QueryRowContext(ctx, space, f.Hash))
			if err != nil {
				return err
			}
			if existing != 0 {
				ids[i], duplicate[i] = existing, true
				continue
			}
			ents, err := in.columns(ctx, f.Entities)
			if err != nil {
				return err
			}
			created, updated := now, now
			if !f.CreatedAt.IsZero() {
				created = f.CreatedAt.UnixMilli()
			}
			if !f.UpdatedAt.IsZero() {
				updated = f.UpdatedAt.UnixMilli()
			}
			res, err := stmt.ExecContext(ctx, space, f.Content, f.Hash, created, updated, ents.rules, ents.ids, ents.count,
				tripleRules(f.Triples), statementsBlob(f.Triples, f.Content))
			if err != nil {
				return err
			}
			if ids[i], err = res.LastInsertId(); err != nil {
				return err
			}
			if err := insertStatementKeys(ctx, keys, ids[i], f.Triples); err != nil {
				return err
			}
			if err := s.logFact(ctx, tx, ids[i], OpAdd); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("add %d facts: %w", len(facts), err)
	}
	return ids, duplicate, nil
}

// activeByHashQuery finds the active fact of a space with a content hash (by its dedupe key).
const activeByHashQuery = `SELECT id FROM facts WHERE dedupe = memdesk_spaced(memdesk_dedupe(?2), ?1) AND status = 'active' AND space = ?1`

func activeByHash(ctx context.Context, tx *sql.Tx, space, hash string) (int64, error) {
	return scanID(tx.QueryRowContext(ctx, activeByHashQuery, space, hash))
}

// activeByKey finds the active fact of a space with a dedupe key.
func activeByKey(ctx context.Context, tx *sql.Tx, space string, key int64) (int64, error) {
	return scanID(tx.QueryRowContext(ctx, `SELECT id FROM facts WHERE dedupe = ?2 AND status = 'active' AND space = ?1`, space, key))
}

// scanID reads one id, 0 when there is no row.
func scanID(row *sql.Row) (int64, error) {
	var id int64
	err := row.Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// EditFact replaces a fact's content. It reports changed = false when the content is the same.
// Editing into the content of another active fact of the space is a *DuplicateError.
// The fact's entities and triples are replaced by f's (nil: pending) in the same transaction.
func (s *Store) EditFact(ctx context.Context, id int64, nf NewFact) (changed bool, err error) {
	content, hash := nf.Content, nf.Hash
	err = s.write(ctx, func(tx *sql.Tx) error {
		f, err := scanFact(tx.QueryRowContext(ctx, `SELECT `+factColumns+` FROM facts WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if f.Content == content {
			return nil
		}
		if f.Status == StatusActive {
			other, err := activeByHash(ctx, tx, f.Space, hash)
			if err != nil {
				return err
			}
			if other != 0 && other != id {
				return &DuplicateError{ExistingID: other}
			}
		}
		if _, err = tx.ExecContext(ctx, `UPDATE facts SET content = ?1, dedupe = memdesk_spaced(memdesk_dedupe(?2), space), updated_after = max(?3 - created_at, 0), wlen = memdesk_wlen(?1) WHERE id = ?4`,
			content, hash, nowMillis(), id); err != nil {
			return err
		}
		changed = true
		in := newInterner(tx)
		defer in.close()
		if err := putEntities(ctx, tx, in, id, nf.Entities); err != nil {
			return err
		}
		if err := putTriples(ctx, tx, id, content, nf.Triples); err != nil {
			return err
		}
		return s.logFact(ctx, tx, id, OpEdit)
	})
	if err != nil {
		return false, fmt.Errorf("edit fact %d: %w", id, err)
	}
	return changed, nil
}

// SetFactStatus moves a fact to status and returns its previous status. Making a fact active
// again fails with a *DuplicateError when another active fact now holds the same content.
func (s *Store) SetFactStatus(ctx context.Context, id int64, status string) (previous string, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		f, err := scanFact(tx.QueryRowContext(ctx, `SELECT `+factColumns+` FROM facts WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		previous = f.Status
		if f.Status == status {
			return nil
		}
		if status == StatusActive {
			other, err := activeByKey(ctx, tx, f.Space, f.dedupe)
			if err != nil {
				return err
			}
			if other != 0 {
				return &DuplicateError{ExistingID: other}
			}
		}
		// Leaving 'superseded' by any route drops the link: it described that status only.
		if _, err = tx.ExecContext(ctx, `UPDATE facts SET status = ?1, superseded_by = NULL, updated_after = max(?2 - created_at, 0) WHERE id = ?3`, status, nowMillis(), id); err != nil {
			return err
		}
		op := OpForget
		if status == StatusActive {
			op = OpRestore
		}
		return s.logFact(ctx, tx, id, op)
	})
	if err != nil {
		return "", fmt.Errorf("set fact %d %s: %w", id, status, err)
	}
	return previous, nil
}

// Fact returns one fact by id, whatever its status.
func (s *Store) Fact(ctx context.Context, id int64) (Fact, error) {
	f, err := scanFact(s.db.QueryRowContext(ctx, `SELECT `+factColumns+` FROM facts WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Fact{}, fmt.Errorf("fact %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Fact{}, fmt.Errorf("read fact %d: %w", id, err)
	}
	return f, nil
}

// FactFilter selects facts for listing. Zero values mean: every space, active only, no limit.
type FactFilter struct {
	Space       string
	AllStatuses bool
	Contains    string // case-insensitive substring of the content
	Limit       int
	Offset      int
}

// ListFacts returns facts newest first.
func (s *Store) ListFacts(ctx context.Context, f FactFilter) ([]Fact, error) {
	var where []string
	var args []any
	if f.Space != "" {
		where = append(where, "space = ?")
		args = append(args, f.Space)
	}
	if !f.AllStatuses {
		where = append(where, "status = 'active'")
	}
	if f.Contains != "" {
		// instr, not LIKE: LIKE refuses a pattern over 50,000 bytes ("LIKE or GLOB pattern
		// too complex") and needs its wildcards escaped; instr takes any text as it is.
		// lower() folds ASCII only, as LIKE does.
		where = append(where, `instr(lower(content), lower(?)) > 0`)
		args = append(args, f.Contains)
	}
	q := `SELECT ` + factColumns + ` FROM facts`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, f.Limit, f.Offset)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	defer rows.Close()
	var out []Fact
	for rows.Next() {
		fact, err := scanFact(rows)
		if err != nil {
			return nil, fmt.Errorf("list facts: %w", err)
		}
		out = append(out, fact)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	return out, nil
}

func int64sJSON(ids []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", id)
	}
	b.WriteByte(']')
	return b.String()
}

// TimelineCursor is where a page of the timeline ends: the last entry's time and id, and
// whether it was a dated document. The timeline holds facts and dated documents in one
// order, (time, kind, id) newest first with a fact before a document of the same
// millisecond, so the cursor pages both without skipping or repeating one.
type TimelineCursor struct {
	CreatedAt time.Time
	ID        int64
	// Document says the entry was a document, ID a document id; false: a fact.
	Document bool `json:",omitempty"`
}

// TimelineFacts returns up to limit active facts of space ("" for every space) written
// before the cursor (nil: from the newest), newest first; of two written in the same
// millisecond the higher id first. It reads one index range, however many facts there are.
func (s *Store) TimelineFacts(ctx context.Context, space string, before *TimelineCursor, limit int) ([]Fact, error) {
	q, args := timelineQuery(space, before, limit)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read the timeline: %w", err)
	}
	defer rows.Close()
	var out []Fact
	for rows.Next() {
		f, err := scanFact(rows)
		if err != nil {
			return nil, fmt.Errorf("read the timeline: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the timeline: %w", err)
	}
	return out, nil
}

// timelineQuery is TimelineFacts' statement and its arguments.
func timelineQuery(space string, before *TimelineCursor, limit int) (string, []any) {
	q := `SELECT ` + factColumns + ` FROM facts INDEXED BY facts_timeline WHERE status = 'active'`
	var args []any
	if space != "" {
		q += ` AND space = ?`
		args = append(args, space)
	}
	if before != nil {
		// Facts come before documents of the same millisecond: after a document, only
		// older facts are left.
		id := before.ID
		if before.Document {
			id = 0
		}
		q += ` AND (created_at, id) < (?, ?)`
		args = append(args, before.CreatedAt.UnixMilli(), id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	return q, append(args, limit)
}
