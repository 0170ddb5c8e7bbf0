package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// WatchedRoot is a folder memdesk keeps in sync with a space.
type WatchedRoot struct {
	Space   string
	Root    string
	AddedAt time.Time
}

// AddWatchedRoot records root as watched for space; recording it again changes nothing.
func (s *Store) AddWatchedRoot(ctx context.Context, space, root string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO watched_roots(space, root, added_at) VALUES (?, ?, ?)
			ON CONFLICT(space, root) DO NOTHING`, space, root, nowMillis())
		return err
	})
	if err != nil {
		return fmt.Errorf("record watched folder %q: %w", root, err)
	}
	return nil
}

// RemoveWatchedRoot forgets that root is watched, and the stamps of its files; the documents
// imported from it stay.
func (s *Store) RemoveWatchedRoot(ctx context.Context, space, root string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM watched_roots WHERE space = ? AND root = ?`, space, root)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM file_stamps WHERE space = ?1 AND substr(path, 1, length(?2)) = ?2`,
			space, underPrefix(root))
		return err
	})
	if err != nil {
		return fmt.Errorf("forget watched folder %q: %w", root, err)
	}
	return nil
}

// WatchedRoots lists the watched folders of space (every space when empty), by folder.
func (s *Store) WatchedRoots(ctx context.Context, space string) ([]WatchedRoot, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT space, root, added_at FROM watched_roots
		WHERE ?1 = '' OR space = ?1 ORDER BY root, space`, space)
	if err != nil {
		return nil, fmt.Errorf("list watched folders: %w", err)
	}
	defer rows.Close()
	var out []WatchedRoot
	for rows.Next() {
		var w WatchedRoot
		var added int64
		if err := rows.Scan(&w.Space, &w.Root, &added); err != nil {
			return nil, fmt.Errorf("list watched folders: %w", err)
		}
		w.AddedAt = time.UnixMilli(added)
		out = append(out, w)
	}
	return out, rows.Err()
}

// FileStamp is a file's size and modification time when it was last synced.
type FileStamp struct {
	Size    int64
	ModTime int64 // nanoseconds since 1970
}

// SetFileStamp records the stamp of a synced file.
func (s *Store) SetFileStamp(ctx context.Context, space, path string, st FileStamp) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO file_stamps(space, path, size, mtime_ns) VALUES (?, ?, ?, ?)
			ON CONFLICT(space, path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns`,
			space, path, st.Size, st.ModTime)
		return err
	})
	if err != nil {
		return fmt.Errorf("record stamp of %q: %w", path, err)
	}
	return nil
}

// FileStamps returns the stamps of the files of space under root, by path.
func (s *Store) FileStamps(ctx context.Context, space, root string) (map[string]FileStamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime_ns FROM file_stamps
		WHERE space = ?1 AND substr(path, 1, length(?2)) = ?2`, space, underPrefix(root))
	if err != nil {
		return nil, fmt.Errorf("read stamps under %q: %w", root, err)
	}
	defer rows.Close()
	out := map[string]FileStamp{}
	for rows.Next() {
		var path string
		var st FileStamp
		if err := rows.Scan(&path, &st.Size, &st.ModTime); err != nil {
			return nil, fmt.Errorf("read stamps under %q: %w", root, err)
		}
		out[path] = st
	}
	return out, rows.Err()
}
