package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The full-text indexes grow by segments: every write transaction adds one, and FTS5's
// automerge bounds how many there are, not the space they take. Over 50k chunks imported a
// file at a time the trigram index took 27.3 MB and the word index 12.2 MB; merged into one
// segment each, 15.9 and 6.7 MB, and the file 88 MB -> 65 MB. CompactSearch does that merge
// in bounded passes and ReleaseFreePages hands the pages it freed back to the file system.

// CompactSearch does one bounded pass of merging the full-text indexes' segments: in each
// index that has more than one, FTS5 writes at most pages pages of merged segment ('merge'
// with a negative page count: an incremental 'optimize'), one short write transaction per
// index, so readers never wait and a writer waits at most one step. It reports whether any
// index had merging to do; a pass that reports false changed nothing.
func (s *Store) CompactSearch(ctx context.Context, pages int) (bool, error) {
	if pages <= 0 {
		pages = 500
	}
	worked := false
	for _, ix := range fullTextIndexes {
		err := s.write(ctx, func(tx *sql.Tx) error {
			var before, after int64
			if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
				return err
			}
			// Names are this package's constants, never user text.
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %[1]s(%[1]s, rank) VALUES ('merge', ?)`, ix.name), -pages); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
				return err
			}
			// FTS5's documented test: a merge that did any work changed two rows or more.
			if after-before >= 2 {
				worked = true
			}
			return nil
		})
		if err != nil {
			return worked, fmt.Errorf("compact full-text index %s: %w", ix.name, err)
		}
	}
	return worked, nil
}

// FreePages is how many pages of the file hold nothing (SQLite's freelist) and their size.
func (s *Store) FreePages(ctx context.Context) (pages int64, bytes int64, err error) {
	var size int64
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT freelist_count FROM pragma_freelist_count), (SELECT page_size FROM pragma_page_size)`).Scan(&pages, &size); err != nil {
		return 0, 0, fmt.Errorf("read free pages: %w", err)
	}
	return pages, pages * size, nil
}

// ReleaseFreePages returns at most pages free pages to the file system, so the file shrinks,
// and reports how many are left free. A store made before incremental vacuuming (its
// auto_vacuum is off) keeps its free pages for later writes to reuse: only a full VACUUM
// (Vacuum) shrinks it.
func (s *Store) ReleaseFreePages(ctx context.Context, pages int) (int64, error) {
	incremental, err := s.incrementalVacuum(ctx)
	if err != nil {
		return 0, err
	}
	if incremental && pages > 0 {
		// incremental_vacuum returns no rows but must be stepped to the end to do its work.
		rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, pages))
		if err != nil {
			return 0, fmt.Errorf("release free pages: %w", cancelled(ctx, s.diskError(err)))
		}
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, fmt.Errorf("release free pages: %w", cancelled(ctx, s.diskError(err)))
		}
	}
	left, _, err := s.FreePages(ctx)
	return left, err
}

// incrementalVacuum reports whether the file gives its free pages back in steps
// (auto_vacuum=incremental: every store this version creates, and any store Vacuum
// rewrote), rather than only by a full VACUUM.
func (s *Store) incrementalVacuum(ctx context.Context) (bool, error) {
	var mode int
	if err := s.db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return false, fmt.Errorf("read auto_vacuum: %w", err)
	}
	return mode == 2, nil
}

// Vacuum rewrites the whole file without its free pages, and switches it to giving free
// pages back in steps from then on. It needs the database to itself for as long as the copy
// takes (seconds per 100 MB): other connections' writes wait on the busy timeout.
func (s *Store) Vacuum(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("vacuum: %w", cancelled(ctx, s.diskError(err)))
	}
	return nil
}

// SearchWrites is how much was written since the full-text indexes were last compacted.
type SearchWrites struct {
	// Since is how many changes to facts, chunks and documents were logged since then (all
	// of them for a store never compacted); Live is how many facts and chunks there are.
	Since, Live int64
	// Seq is the change log's position now, what MarkCompacted records.
	Seq int64
}

// SearchWritesSinceCompaction reads SearchWrites in one statement.
func (s *Store) SearchWritesSinceCompaction(ctx context.Context) (SearchWrites, error) {
	var w SearchWrites
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT coalesce(max(seq), 0) FROM changes),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'compacted_seq'), 0),
		(SELECT count(*) FROM facts WHERE status = 'active') + (SELECT count(*) FROM chunks)`).Scan(&w.Seq, &at, &w.Live)
	if err != nil {
		return w, fmt.Errorf("read writes since the last compaction: %w", err)
	}
	w.Since = max(w.Seq-at, 0)
	return w, nil
}

// MarkCompacted records that the indexes were compacted as of change seq.
func (s *Store) MarkCompacted(ctx context.Context, seq int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('compacted_seq', ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fmt.Sprint(seq))
		return err
	})
	if err != nil {
		return fmt.Errorf("record the compaction: %w", err)
	}
	return nil
}

// Checkpoint copies the write-ahead log into the database file and empties the log, so the
// file takes what a compaction gave back (WAL mode shrinks the file only then). Readers still
// on an older snapshot keep part of the log: that part is copied at a later checkpoint.
func (s *Store) Checkpoint(ctx context.Context) error {
	var busy, frames, moved int
	if err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &moved); err != nil {
		return fmt.Errorf("checkpoint: %w", cancelled(ctx, s.diskError(err)))
	}
	return nil
}

// DatabaseBytes is the size of the database itself, free pages included: the file's size
// once the write-ahead log is checkpointed into it. A file measured on disk right after a
// large write also holds that write again in the log, until readers let it be folded in.
func (s *Store) DatabaseBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size)`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read database size: %w", err)
	}
	return n, nil
}
