package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Salvage reads what can still be read of a damaged database. A damaged page of the facts
// table made every statement that scans it fail ("database disk image is malformed"), so
// list, export and backup failed whole and not one memory could be read out. Salvage reads
// the active facts one id at a time: a fact on a damaged page is lost, the others are not.

// SalvageReport says what SalvageFacts read and what it could not.
type SalvageReport struct {
	Read    int // active facts read whole
	Damaged int // ids whose row could not be read
	MaxID   int64
}

// salvageGap is how many ids past the last one found SalvageFacts tries when the highest id
// itself cannot be read.
const salvageGap = 10000

// SalvageFacts calls fn with every active fact it can read, in id order, and reports the ids
// it could not. It fails only if it cannot learn how far the ids go and cannot read one.
func (s *Store) SalvageFacts(ctx context.Context, fn func(Fact)) (SalvageReport, error) {
	var rep SalvageReport
	maxErr := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM facts`).Scan(&rep.MaxID)
	stmt, err := s.db.PrepareContext(ctx, `SELECT `+factColumns+` FROM facts WHERE id = ?`)
	if err != nil {
		return rep, fmt.Errorf("salvage: %w", err)
	}
	defer stmt.Close()
	misses := 0
	for id := int64(1); ; id++ {
		if maxErr == nil && id > rep.MaxID {
			break
		}
		if maxErr != nil && misses > salvageGap {
			rep.MaxID = id - 1
			break
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		f, err := scanFact(stmt.QueryRowContext(ctx, id))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			misses++
		case err != nil:
			if !IsCorrupt(err) {
				return rep, fmt.Errorf("salvage: read fact %d: %w", id, err)
			}
			rep.Damaged++
			misses++
		default:
			misses = 0
			if f.Status == StatusActive {
				rep.Read++
				fn(f)
			}
		}
	}
	return rep, nil
}

// TablesReadable reports whether the facts and chunks tables can be read whole: when a
// search meets a damaged page, it is an index (rebuild-index makes it anew) only if they can.
func (s *Store) TablesReadable(ctx context.Context) (bool, error) {
	// Every row and every text (overflow pages too), through the tables themselves.
	for _, q := range []string{
		`SELECT max(length(content)), max(length(space)) FROM facts NOT INDEXED`,
		`SELECT max(length(text)), max(doc_id) FROM chunks NOT INDEXED`,
	} {
		var a, b sql.NullInt64
		if err := s.db.QueryRowContext(ctx, q).Scan(&a, &b); err != nil {
			if IsCorrupt(err) {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}
