package store

import (
	"context"
	"database/sql"
	"fmt"
)

// VersionProbe holds one connection of its own for SQLite's PRAGMA data_version, which
// changes only when a connection other than the one asking has committed: another process,
// or another connection of this Store's pool. The pragma reads no table, so asking it a few
// times a second costs microseconds. Use one probe from one goroutine at a time.
type VersionProbe struct {
	conn *sql.Conn
}

// OpenVersionProbe takes a connection out of the pool for a probe; Close gives it back.
func (s *Store) OpenVersionProbe(ctx context.Context) (*VersionProbe, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open a connection to watch for changes: %w", err)
	}
	return &VersionProbe{conn: conn}, nil
}

// DataVersion is the probe connection's PRAGMA data_version: compare two answers, never
// the number itself (SQLite gives it no other meaning).
func (p *VersionProbe) DataVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := p.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read data_version: %w", err)
	}
	return v, nil
}

// ContentMark stands for what a person sees of the database: it moves when a memory, a
// document's chunks, a pair kept both or a folder kept in sync is added, changed or removed,
// and stays put through the engine's upkeep of vectors and calibrations. Entity sweeps do
// move it: the change log records their rows for the in-memory indexes.
type ContentMark struct {
	LastChange int64 // the change log's newest sequence number
	Dismissed  int64 // dismissed pairs
	Watched    int64 // folders kept in sync
}

// ContentMark reads the mark on the probe's connection: one index lookup and two counts of
// tables a person fills by hand.
func (p *VersionProbe) ContentMark(ctx context.Context) (ContentMark, error) {
	var m ContentMark
	err := p.conn.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(seq), 0) FROM changes),
		(SELECT count(*) FROM dismissed_pairs), (SELECT count(*) FROM watched_roots)`).Scan(&m.LastChange, &m.Dismissed, &m.Watched)
	if err != nil {
		return ContentMark{}, fmt.Errorf("read what changed: %w", err)
	}
	return m, nil
}

// Close returns the probe's connection to the pool.
func (p *VersionProbe) Close() error { return p.conn.Close() }
