package store

import (
	"strings"
	"testing"
)

// TestInternerClosesAHalfPreparedPair: when the second statement failed to prepare (its
// context ended as the app quit), close closes the first and does not touch the missing one.
func TestInternerClosesAHalfPreparedPair(t *testing.T) {
	s := openTest(t)
	tx, err := s.db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	sel, err := tx.PrepareContext(t.Context(), `SELECT id FROM entity_names WHERE name = ?`)
	if err != nil {
		t.Fatal(err)
	}
	in := newInterner(tx)
	in.sel = sel // as id leaves it when preparing ins failed
	in.close()
	if err := sel.QueryRowContext(t.Context(), "x").Scan(new(int64)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("the prepared statement after close: %v, want it closed", err)
	}
}
