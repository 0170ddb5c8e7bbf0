package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SpaceCount is one space and what it holds.
type SpaceCount struct {
	Name      string
	Memories  int // active facts
	Documents int
}

// Spaces lists every space that holds an active fact or a document, by name.
func (s *Store) Spaces(ctx context.Context) ([]SpaceCount, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT space, sum(memories), sum(documents) FROM (
			SELECT space, count(*) AS memories, 0 AS documents FROM facts WHERE status = 'active' GROUP BY space
			UNION ALL
			SELECT space, 0, count(*) FROM documents WHERE substr(space, 1, 1) != char(1) GROUP BY space)
		GROUP BY space ORDER BY space`)
	if err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	defer rows.Close()
	var out []SpaceCount
	for rows.Next() {
		var sc SpaceCount
		if err := rows.Scan(&sc.Name, &sc.Memories, &sc.Documents); err != nil {
			return nil, fmt.Errorf("list spaces: %w", err)
		}
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	return out, nil
}

// ErrSpaceInUse is a rename onto a space that already holds something.
var ErrSpaceInUse = errors.New("space already in use")

// RenameSpace gives everything of space from (facts of every status, documents, their paths,
// watched folders and file stamps) the name to, in one transaction. to must hold nothing yet:
// merging two spaces would meet identical memories and documents on both sides.
// rows is how many rows changed name: 0 when no space was called from.
func (s *Store) RenameSpace(ctx context.Context, from, to string) (moved SpaceCount, rows int64, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		var used int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM facts WHERE space = ?1) + (SELECT count(*) FROM documents WHERE space = ?1)
			+ (SELECT count(*) FROM watched_roots WHERE space = ?1)`, to).Scan(&used); err != nil {
			return err
		}
		if used > 0 {
			return fmt.Errorf("%q: %w", to, ErrSpaceInUse)
		}
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM facts WHERE space = ?1 AND status = 'active'),
			(SELECT count(*) FROM documents WHERE space = ?1)`, from).Scan(&moved.Memories, &moved.Documents); err != nil {
			return err
		}
		renamed, err := queryIDs(ctx, tx, `SELECT id FROM facts WHERE space = ? ORDER BY id`, from)
		if err != nil {
			return err
		}
		if err := noteVectorsMoved(ctx, tx, KindFact, `SELECT id FROM facts WHERE space = ?`, from); err != nil {
			return err
		}
		if err := noteVectorsMoved(ctx, tx, KindChunk, `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.space = ?`, from); err != nil {
			return err
		}
		for _, table := range []string{"facts", "documents", "document_paths", "watched_roots", "file_stamps"} {
			set := `space = ?1`
			if table == "facts" {
				// A fact's dedupe key holds its space (spacedKey).
				set += `, dedupe = memdesk_spaced(memdesk_spaced(dedupe, ?2), ?1)`
			}
			res, err := tx.ExecContext(ctx, `UPDATE `+table+` SET `+set+` WHERE space = ?2`, to, from)
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			n, _ := res.RowsAffected()
			rows += n
		}
		moved.Name = to
		// Each memory's new space is logged as a change of that memory: replay then needs
		// no notion of spaces, and a memory added to the old name elsewhere meanwhile stays
		// where it was written.
		return s.logFacts(ctx, tx, OpRename, renamed...)
	})
	if err != nil {
		return SpaceCount{}, 0, fmt.Errorf("rename space %q to %q: %w", from, to, err)
	}
	return moved, rows, nil
}

// MoveFact puts an active fact in another space. A fact of the same content already active
// there is a *DuplicateError; a fact that is not active is ErrNotFound.
func (s *Store) MoveFact(ctx context.Context, id int64, to string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var space string
		var dedupe int64
		err := tx.QueryRowContext(ctx, `SELECT space, dedupe FROM facts WHERE id = ? AND status = 'active'`, id).Scan(&space, &dedupe)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no active memory #%d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if space == to {
			return nil
		}
		var other int64
		dedupe = respacedKey(dedupe, space, to)
		switch err := tx.QueryRowContext(ctx, `SELECT id FROM facts WHERE dedupe = ?2 AND status = 'active' AND space = ?1`, to, dedupe).Scan(&other); {
		case err == nil:
			return &DuplicateError{ExistingID: other}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if err := noteVectorsMoved(ctx, tx, KindFact, `SELECT ?`, id); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `UPDATE facts SET space = ?1, dedupe = ?2, updated_after = max(?3 - created_at, 0) WHERE id = ?4`, to, dedupe, nowMillis(), id); err != nil {
			return err
		}
		return s.logFact(ctx, tx, id, OpMove)
	})
	if err != nil {
		return fmt.Errorf("move memory #%d to space %q: %w", id, to, err)
	}
	return nil
}

// noteVectorsMoved logs the vectors of the owners ids selects (one argument) as changed, and
// counts a new generation, so the semantic leg's in-memory index of each space reads them
// again: a vector stays with its owner when the owner changes space, and only the change log
// tells the index of the old space to drop it and that of the new one to take it.
func noteVectorsMoved(ctx context.Context, tx *sql.Tx, kind, ids string, arg any) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO vector_changes(owner_kind, owner_id)
		SELECT v.owner_kind, v.owner_id FROM vectors v WHERE v.owner_kind = ?1 AND v.owner_id IN (`+
		strings.ReplaceAll(ids, "?", "?2")+`)`, kind, arg)
	if err != nil {
		return fmt.Errorf("log moved vectors: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('vectors_generation_' || ?1, '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, kind)
	return err
}
