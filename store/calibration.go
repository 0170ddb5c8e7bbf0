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

// probesKey is the meta key of the probe vectors a vector space's model made when it was
// measured: what recognises the same model under another name or digest.
func probesKey(fingerprint string) string { return "semantic_probes:" + fingerprint }

// PutProbeVectors stores the probe vectors (the engine's encoding) measured in vector space
// fingerprint.
func (s *Store) PutProbeVectors(ctx context.Context, fingerprint string, value []byte) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, probesKey(fingerprint), value)
		if err != nil {
			return fmt.Errorf("store the embedding model's probe vectors: %w", err)
		}
		return nil
	})
}

// ProbeVectors returns the probe vectors stored for every vector space, by fingerprint.
func (s *Store) ProbeVectors(ctx context.Context) (map[string][]byte, error) {
	const prefix = "semantic_probes:"
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM meta WHERE key >= ? AND key < ?`, prefix, prefix[:len(prefix)-1]+";")
	if err != nil {
		return nil, fmt.Errorf("read the embedding models' probe vectors: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var key string
		var value []byte
		if err := rows.Scan(&key, &value); err != nil {
			return nil, fmt.Errorf("read the embedding models' probe vectors: %w", err)
		}
		out[key[len(prefix):]] = value
	}
	return out, rows.Err()
}

// AdoptVectorSpace moves every vector of space from into space to, in one statement, and
// returns how many it moved: the engine found both to be made by the same model (the same
// weights under another name or digest), so the vectors are valid in to as they are. The
// generations are bumped so an in-memory index of either space reads it again.
func (s *Store) AdoptVectorSpace(ctx context.Context, from, to string) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE vectors SET fingerprint = ? WHERE fingerprint = ?`, to, from)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key IN ('vectors_generation_fact', 'vectors_generation_chunk')`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("take over the vectors of space %q: %w", from, err)
	}
	return int(n), nil
}
