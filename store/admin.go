package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Stats counts what the database holds.
type Stats struct {
	FactsActive     int   `json:"facts_active"`
	FactsSuperseded int   `json:"facts_superseded"`
	FactsDeleted    int   `json:"facts_deleted"`
	Documents       int   `json:"documents"`
	Chunks          int   `json:"chunks"`
	Entities        int   `json:"entity_rows"`
	Vectors         int   `json:"vectors"`
	Spaces          int   `json:"spaces"`
	FileBytes       int64 `json:"file_bytes"`
	// FreeBytes is the space inside the file that holds nothing (free pages): what
	// compacting gives back to the file system.
	FreeBytes     int64 `json:"free_bytes"`
	SchemaVersion int   `json:"schema_version"`
}

// Stats reads the counts in one statement, so they are consistent with each other. Chunks of
// an import still being written, or of a version being removed, are not counted.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM facts WHERE status = 'active'),
		(SELECT count(*) FROM facts WHERE status = 'superseded'),
		(SELECT count(*) FROM facts WHERE status = 'deleted'),
		(SELECT count(*) FROM documents d WHERE `+notReserved+`),
		(SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE `+notReserved+`),
		(SELECT coalesce(sum(entity_count), 0) FROM facts WHERE status = 'active'),
		(SELECT count(*) FROM vectors),
		(SELECT count(*) FROM (SELECT space FROM facts UNION SELECT space FROM documents d WHERE `+notReserved+`)),
		(SELECT user_version FROM pragma_user_version),
		(SELECT freelist_count FROM pragma_freelist_count) * (SELECT page_size FROM pragma_page_size)`).Scan(
		&st.FactsActive, &st.FactsSuperseded, &st.FactsDeleted, &st.Documents, &st.Chunks,
		&st.Entities, &st.Vectors, &st.Spaces, &st.SchemaVersion, &st.FreeBytes)
	if err != nil {
		return Stats{}, fmt.Errorf("read stats: %w", err)
	}
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	return st, nil
}

// Integrity runs SQLite's integrity check, FTS5's own check on each full-text index, and a
// cross-check that every indexed row is exactly the set the triggers should maintain. It
// returns one line per problem; none means the database is healthy.
func (s *Store) Integrity(ctx context.Context) ([]string, error) {
	var problems []string
	// A check that cannot even run on a damaged file is a finding, not a failure of the
	// check: the person asked whether the file is healthy, and it is not.
	finding := func(what string, err error) error {
		if IsCorrupt(err) {
			problems = append(problems, what+": "+err.Error())
			return nil
		}
		return fmt.Errorf("integrity check %s: %w", what, err)
	}
	if err := s.sqliteIntegrity(ctx, &problems); err != nil {
		if err := finding("sqlite", err); err != nil {
			return nil, err
		}
	}

	for _, fts := range []string{"facts_fts", "chunks_fts", "facts_words", "chunks_words"} {
		// The table name is one of our constants, never user text.
		if _, err := s.db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %[1]s(%[1]s) VALUES ('integrity-check')`, fts)); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", fts, err))
		}
	}

	var checks []struct{ name, query string }
	// Neither full-text index keeps row sizes, so the word index's rows are read from its own
	// postings (fts5vocab): every owner it holds is live, and it holds as many owners as there
	// are live ones with any term. The trigram index is checked by FTS5's own check above.
	checks = append(checks,
		struct{ name, query string }{"facts_words rows match active facts", `SELECT
			(SELECT count(*) FROM (SELECT DISTINCT doc FROM facts_words_instance)) =
				(SELECT count(*) FROM facts WHERE status = 'active' AND memdesk_words(content) != '')
			AND NOT EXISTS (SELECT 1 FROM (SELECT DISTINCT doc FROM facts_words_instance) i LEFT JOIN facts f ON f.id = i.doc
				WHERE f.id IS NULL OR f.status != 'active')`},
		struct{ name, query string }{"chunks_words rows match chunks", `SELECT
			(SELECT count(*) FROM (SELECT DISTINCT doc FROM chunks_words_instance)) = (SELECT count(*) FROM chunks WHERE memdesk_words(text) != '')
			AND NOT EXISTS (SELECT 1 FROM (SELECT DISTINCT doc FROM chunks_words_instance) i LEFT JOIN chunks c ON c.id = i.doc
				WHERE c.id IS NULL)`})
	checks = append(checks, []struct{ name, query string }{
		{"every chunk belongs to a document", `SELECT NOT EXISTS (SELECT 1 FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id WHERE d.id IS NULL)`},
	}...)
	for _, c := range checks {
		var ok bool
		if err := s.db.QueryRowContext(ctx, c.query).Scan(&ok); err != nil {
			if err := finding(c.name, err); err != nil {
				return nil, err
			}
			continue
		}
		if !ok {
			problems = append(problems, "failed: "+c.name)
		}
	}
	return problems, nil
}

// sqliteIntegrity appends what PRAGMA integrity_check finds to problems.
func (s *Store) sqliteIntegrity(ctx context.Context, problems *[]string) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			*problems = append(*problems, "sqlite: "+line)
		}
	}
	return rows.Err()
}

// Backup writes a consistent, compacted copy of the database to dest with VACUUM INTO,
// while other connections keep reading and writing; it refuses to overwrite a file. It
// returns the copy's size.
//
// dest appears whole or not at all. VACUUM INTO writes into a private folder beside dest
// (.memdesk-backup-*, mode 0700, so neither the copy nor SQLite's journal for it, which the
// VFS creates under the umask, is readable by others while it is written); the copy is
// synced, then linked to dest, which fails rather than overwrite. Written straight to dest, a
// backup killed midway left a 0-byte or headless file under a backup's name, to be found out
// only when someone needed it. A failed backup removes its folder; one killed leaves it,
// hidden, and the next backup into that folder removes it.
func (s *Store) Backup(ctx context.Context, dest string) (size int64, err error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return 0, fmt.Errorf("back up to %q: %w", dest, err)
	}
	dir := filepath.Dir(abs)
	// A folder that is not there is more likely a typo than a wish: say so, create nothing.
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0, fmt.Errorf("back up to %q: the folder %s does not exist; create it first or choose another", abs, dir)
	}
	if _, err := os.Lstat(abs); err == nil {
		return 0, fmt.Errorf("back up to %q: %w", abs, errBackupExists)
	}
	removeAbandonedBackups(dir)
	work, err := os.MkdirTemp(dir, backupWorkPrefix+"*")
	if err != nil {
		return 0, fmt.Errorf("back up to %q: %w", abs, err)
	}
	defer os.RemoveAll(work)
	partial := filepath.Join(work, "copy.db")
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, partial); err != nil {
		if de, ok := s.diskError(err).(*DiskError); ok {
			de.Path = abs // the backup's disk is the one that filled
			err = de
		}
		return 0, fmt.Errorf("back up to %q: %w", abs, err)
	}
	// Under the umask VACUUM INTO made the copy 0644 (0666 under umask 0): nobody else could
	// reach it in the 0700 folder, but its name outside will be a link to this very file.
	if err := os.Chmod(partial, 0o600); err != nil {
		return 0, fmt.Errorf("back up to %q: %w", abs, err)
	}
	size, err = syncedSize(partial)
	if err != nil {
		return 0, fmt.Errorf("back up to %q: %w", abs, err)
	}
	if err := publish(partial, abs); err != nil {
		return 0, fmt.Errorf("back up to %q: %w", abs, err)
	}
	return size, nil
}

// backupWorkPrefix names the private folders backups are written in.
const backupWorkPrefix = ".memdesk-backup-"

// backupAbandonedAfter is how long a backup's folder must have been left untouched before
// another backup removes it: a running backup writes its copy all along.
const backupAbandonedAfter = 10 * time.Minute

// removeAbandonedBackups removes what backups killed midway left in dir: their private
// folders, untouched for backupAbandonedAfter. It does its best and never fails the backup: what
// it cannot remove is leftover space, hidden, not anyone's data and not a backup's name.
func removeAbandonedBackups(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, backupWorkPrefix+"*"))
	for _, m := range matches {
		if newest, ok := newestChange(m); ok && time.Since(newest) > backupAbandonedAfter {
			_ = os.RemoveAll(m)
		}
	}
}

// newestChange is the latest modification time of folder and the files in it.
func newestChange(folder string) (time.Time, bool) {
	fi, err := os.Lstat(folder)
	if err != nil || !fi.IsDir() {
		return time.Time{}, false
	}
	newest := fi.ModTime()
	entries, _ := os.ReadDir(folder)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.ModTime().After(newest) {
			newest = info.ModTime()
		}
	}
	return newest, true
}

// syncedSize flushes path to disk and returns its size: the copy must be on disk before it
// takes a backup's name.
func syncedSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// publish gives the finished copy at from the name to, never replacing a file: a hard link
// fails if to exists. Where the file system has no hard links (FAT on a USB stick), to is
// created empty with O_EXCL, which reserves the name, and the copy renamed over it.
func publish(from, to string) error {
	err := os.Link(from, to)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		err = reserveAndRename(from, to)
	}
	if errors.Is(err, fs.ErrExist) {
		return errBackupExists
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(to))
}

// reserveAndRename is publish where there are no hard links: to is created empty with
// O_EXCL (fs.ErrExist if something is there), then the copy is renamed over it.
func reserveAndRename(from, to string) error {
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	if err := os.Rename(from, to); err != nil {
		os.Remove(to)
		return err
	}
	return nil
}

// errBackupExists is the refusal to write a backup over a file.
var errBackupExists = errors.New("the file exists; choose a new name")

// syncDir makes a new name in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
