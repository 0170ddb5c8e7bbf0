package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// calibrationKey is the meta key of a vector space's calibration: one row per fingerprint,
// so a model change measures the new space and keeps the old one's for a change back.
func calibrationKey(fingerprint string) string { return "semantic_calibration:" + fingerprint }

// Calibration returns what was measured of the model of vector space fingerprint (the
// engine's own encoding), and whether anything was.
func (s *Store) Calibration(ctx context.Context, fingerprint string) (string, bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, calibrationKey(fingerprint)).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("read the embedding model's calibration: %w", err)
	}
	return v, true, nil
}

// PutCalibration stores what was measured of the model of vector space fingerprint.
func (s *Store) PutCalibration(ctx context.Context, fingerprint, value string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, calibrationKey(fingerprint), value)
		if err != nil {
			return fmt.Errorf("store the embedding model's calibration: %w", err)
		}
		return nil
	})
}
