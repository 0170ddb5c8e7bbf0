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

// Close returns the probe's connection to the pool.
func (p *VersionProbe) Close() error { return p.conn.Close() }
