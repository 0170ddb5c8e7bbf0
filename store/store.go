// Package store owns memdesk's one SQLite file: its schema, its migrations and the typed
// queries the engine runs against it. It holds no ranking logic: it returns candidates and
// raw scores, and the engine decides what they mean.
//
// A Store is safe for concurrent use by several goroutines, and several processes (the GUI,
// the CLI and the MCP server) may open the same file at once: the database runs in WAL mode
// with a busy timeout, and every write is a short IMMEDIATE transaction.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// ErrNotFound is returned when a fact, document or chunk id does not exist.
var ErrNotFound = errors.New("not found")

// Errors of Open about the file at the path, each wrapped with the path and a next step.
var (
	// ErrNotDatabase: the file is not an SQLite database.
	ErrNotDatabase = errors.New("not a memdesk database")
	// ErrEmptyFile: the file exists and holds 0 bytes. memdesk never leaves a database
	// empty (see createDatabase), so something else made or truncated it.
	ErrEmptyFile = errors.New("empty file, not a memdesk database")
	// ErrNoDirectory: the folder the database should be in does not exist, and
	// Options.CreateDirs is off.
	ErrNoDirectory = errors.New("folder does not exist")
	// ErrReadOnly: the database file or its folder cannot be written by this user (or the
	// file system is read-only). Such a database opens for reading; every change is refused
	// with this error.
	ErrReadOnly = errors.New("the database is read-only")
)

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// pageCacheKiB is each connection's page cache: recall reads little from SQLite now (its
// indexes are copied in memory), but an import writes index pages of thousands of chunks, and
// SQLite's default of 2 MB made it re-read them.
const pageCacheKiB = 8 << 10

// busyTimeout is how long a writer waits for another process's transaction before SQLite
// reports SQLITE_BUSY. Writes are short, so anything near this means a stuck peer.
const busyTimeout = 10 * time.Second

// Store is an open memdesk database.
type Store struct {
	db      *sql.DB
	path    string
	opts    Options
	created bool
	// readOnly: opened for reading only, since this user cannot write the file or its
	// folder (see openReadOnly).
	readOnly bool
}

// Options configure a Store.
type Options struct {
	// Words rewrites a text for the word-level index (memdesk_words in SQL): its terms,
	// separated by spaces. It must be deterministic; nil indexes the text as it is.
	Words func(string) string
	// WordCount is a text's length in terms for the word index's bm25 (memdesk_wlen in
	// SQL); nil counts the space-separated fields of Words.
	WordCount func(string) int
	// ChangesKept is how many rows of each change log PruneChanges keeps; 0 means 20,000.
	// Tests of what happens past the cut set a small number instead of writing 20,000 rows.
	ChangesKept int
	// WordsVersion names the Words analysis; a database indexed under another version has
	// its word indexes rebuilt on open.
	WordsVersion int
	// Substrings rewrites a text for the trigram index (memdesk_substrings in SQL): what only
	// a substring search can find in it. It must be deterministic, as the index's deletes
	// give it the old text again; nil indexes the text as it is.
	Substrings func(string) string
	// SubstringsVersion names the Substrings rules; a database indexed under others has its
	// trigram indexes rebuilt on open.
	SubstringsVersion int
	// TraceSQL, when set, is told the text of every statement each connection runs (a
	// diagnostic: the recall-path plan test reads what recall really asks).
	TraceSQL func(sql string)
	// BusyTimeout is how long a statement waits for another connection's write lock before
	// it fails with an error IsBusy recognises; zero means 10 s.
	BusyTimeout time.Duration
	// OnUpgrade, when set, is told before Open migrates a store made by an older version
	// (from, to: schema versions): an upgrade runs once and can take seconds on a large store,
	// which someone waiting should hear of. A new store is not an upgrade.
	OnUpgrade func(from, to int)
	// SyncClock is the physical clock of device sync's hybrid logical clock (sync.go); nil
	// means time.Now. Tests of skewed or far-apart devices set it.
	SyncClock func() time.Time
	// CreateDirs makes Open create the database's missing folders (user-only). Off, a
	// missing folder is ErrNoDirectory: a mistyped path must not look like a new, empty
	// store where the user's data was.
	CreateDirs bool
}

// IsBusy reports whether err is SQLite's "database is locked": another connection held the
// write lock for longer than the busy timeout. Background work waits and tries again;
// a person's own write reports it.
func IsBusy(err error) bool {
	return errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED)
}

// walSizeLimit is what the WAL is cut back to once a checkpoint has emptied it. SQLite
// otherwise keeps the file at its largest size for as long as a connection stays open: a
// window open for days after one import held a 296 MB WAL.
const walSizeLimit = 16 << 20

// Open opens (creating if needed) the database at path and migrates it to the current
// schema. Folders are created, user-only because they hold a person's memories, only with
// Options.CreateDirs. A file at path that is empty or not an SQLite database is refused
// (ErrEmptyFile, ErrNotDatabase), never initialized over.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.Words == nil {
		opts.Words = func(s string) string { return s }
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = busyTimeout
	}
	if opts.SyncClock == nil {
		opts.SyncClock = time.Now
	}
	if opts.WordCount == nil {
		words := opts.Words
		opts.WordCount = func(s string) int { return len(strings.Fields(words(s))) }
	}
	if path == "" {
		return nil, errors.New("open store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	dir := filepath.Dir(abs)
	if opts.CreateDirs {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open store: create directory for %q: %w", abs, err)
		}
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s, so there is no database at %s: check the path, or create the folder first if a new database belongs there",
			ErrNoDirectory, dir, abs)
	}
	created, err := createDatabase(ctx, abs)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	if !created {
		if err := checkDatabaseFile(abs); err != nil {
			return nil, err
		}
		if !writable(abs) || !writable(dir) {
			return openReadOnly(ctx, abs, opts)
		}
	}
	if err := createSidecars(abs); err != nil {
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	// modeof makes SQLite create a -wal it deletes and re-creates later with the database's
	// mode too, not the process umask.
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?_txlock=immediate" +
		"&modeof=" + url.QueryEscape(abs) +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", opts.BusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(wal)&_pragma=foreign_keys(on)&_pragma=synchronous(normal)" +
		fmt.Sprintf("&_pragma=cache_size(%d)", -pageCacheKiB) +
		fmt.Sprintf("&_pragma=journal_size_limit(%d)", walSizeLimit)
	s := &Store{path: abs, opts: opts, created: created}
	db, err := driver.Open(dsn, s.registerExtensions)
	if err != nil {
		return nil, openError(abs, err)
	}
	s.db = db
	// The first connection, so the first read of the file, is made here.
	if err := s.migrate(ctx, migrations); err != nil {
		db.Close()
		return nil, openError(abs, err)
	}
	if err := s.ensureWords(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	if err := s.ensureSubstrings(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	// What a crashed import or removal left is reclaimed now, not an hour later: it would
	// count in every statistic and take space meanwhile. A failure here (a busy peer) is not
	// a reason to refuse the store; the next import tries again and reports it.
	_ = s.RemoveAbandoned(ctx)
	// No PRAGMA optimize (ANALYZE): statistics taken while a store is young describe tiny
	// tables, and FTS5's own statements planned with them later were slow enough to halve
	// ingest (100k facts: 7,700 -> 3,500 facts/s). Every statement recall runs uses its index
	// without statistics (TestRecallPathUsesIndexes).
	return s, nil
}

// openReadOnly opens a database this user cannot write: a backup on read-only media, a
// file another user owns, a folder shared read-only. Everything that reads works (recall,
// list, export, stats); every change is refused with ErrReadOnly. It writes nothing, so it
// neither upgrades an old schema (that is refused too) nor rebuilds an index made by older
// analysis rules (recall searches it as it is).
func openReadOnly(ctx context.Context, abs string, opts Options) (*Store, error) {
	q := "?mode=ro"
	// SQLite reads a WAL database through its -shm. When the last writer closed cleanly
	// there is none, and none can be made here: then the file is read as immutable, which
	// is what it is to this process. A -wal holding changes not yet merged cannot be read
	// without its -shm: refuse rather than show memories older than the file's.
	_, err := os.Stat(abs + "-shm")
	immutable := err != nil
	if immutable {
		if wal, err := os.Stat(abs + "-wal"); err == nil && wal.Size() > 0 {
			return nil, fmt.Errorf("open store %q: %w, and its last writer left changes in %s that only a writer can merge: copy the database with its -wal file to a folder you can write, and open the copy",
				abs, ErrReadOnly, abs+"-wal")
		}
		q += "&immutable=1"
	}
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + q +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", opts.BusyTimeout.Milliseconds()) +
		"&_pragma=foreign_keys(on)" + fmt.Sprintf("&_pragma=cache_size(%d)", -pageCacheKiB)
	s := &Store{path: abs, opts: opts, readOnly: true}
	db, err := driver.Open(dsn, s.registerExtensions)
	if err != nil {
		return nil, openError(abs, err)
	}
	s.db = db
	if _, err := s.Version(ctx); err != nil {
		db.Close()
		if !immutable {
			// A -shm this user cannot write: a writer has the database open now, and SQLite
			// shares the WAL's index only with processes that can write it.
			return nil, fmt.Errorf("open store %q: %w, and another program has it open for writing now (%v): read it once that program has closed it, or copy the database with its -wal file to a folder you can write and open the copy",
				abs, ErrReadOnly, err)
		}
		return nil, fmt.Errorf("open store %q read-only: %w", abs, err)
	}
	if err := s.migrate(ctx, migrations); err != nil {
		db.Close()
		return nil, openError(abs, err)
	}
	return s, nil
}

// ReadOnly reports whether the store was opened for reading only (ErrReadOnly).
func (s *Store) ReadOnly() bool { return s.readOnly }

// openError wraps an error of opening the database at path. SQLite's "file is not a
// database" becomes ErrNotDatabase: checkDatabaseFile saw the header, but the rest of the
// file is not a database.
func openError(path string, err error) error {
	if errors.Is(err, sqlite3.NOTADB) {
		return fmt.Errorf("%s is %w (it has an SQLite header but SQLite cannot read it as a database): check the path; if it held your memories, restore it from a backup", path, ErrNotDatabase)
	}
	return fmt.Errorf("open store %q: %w", path, err)
}

// createDatabase creates the database file at path, user-only (mode 0600, so SQLite never
// creates it with the process umask), unless a file is there already; it reports whether it
// did. The new database is made under a temporary name and linked into place only once it
// holds SQLite's header: so memdesk never leaves an empty file at a database path, even when
// killed while creating one, and an empty file found there was made or truncated by
// something else (checkDatabaseFile refuses it).
func createDatabase(ctx context.Context, path string) (created bool, err error) {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return false, nil // there is something: checkDatabaseFile or SQLite says what
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-*")
	if err != nil {
		return false, err
	}
	tmpPath := tmp.Name()
	defer os.Remove(tmpPath)
	if err := tmp.Close(); err != nil {
		return false, err
	}
	// journal_mode(wal) writes the header (and WAL's file format version) into the file
	// itself; closing the only connection removes the -wal and -shm it made. auto_vacuum can
	// only be chosen before the first table: incremental, so the pages a compaction frees
	// go back to the file system (ReleaseFreePages).
	db, err := driver.Open("file:" + (&url.URL{Path: tmpPath}).EscapedPath() + "?_pragma=auto_vacuum(incremental)&_pragma=journal_mode(wal)")
	if err != nil {
		return false, err
	}
	err = db.PingContext(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	err = os.Link(tmpPath, path)
	if errors.Is(err, os.ErrExist) {
		return false, nil // another process created it meanwhile: use theirs
	}
	if err == nil {
		return true, nil
	}
	// A file system without hard links (FAT, some network shares): copy the header into a
	// file created exclusively, so another process's new database is never overwritten.
	header, rerr := os.ReadFile(tmpPath)
	if rerr != nil {
		return false, rerr
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(header)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil, err
}

// checkDatabaseFile refuses a file at path that memdesk must not open as its database: an
// empty file or one without SQLite's header. An empty file beside a WAL that holds data is
// left to SQLite, which reads the database from the WAL.
func checkDatabaseFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("open store %q: %w", path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a folder, %w: give the path of a database file, e.g. %s",
			path, ErrNotDatabase, filepath.Join(path, "memdesk.db"))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is %w (not a regular file)", path, ErrNotDatabase)
	}
	if fi.Size() == 0 {
		if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
			return nil
		}
		return fmt.Errorf("%s is an %w (memdesk never leaves a database empty): if it held your memories, restore it from a backup; to start a new database there, delete the file and run again",
			path, ErrEmptyFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open store %q: %w", path, err)
	}
	defer f.Close()
	header := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, header); err != nil || string(header) != sqliteHeader {
		return fmt.Errorf("%s is %w (it is not an SQLite file): check the path", path, ErrNotDatabase)
	}
	return nil
}

// createSidecars creates the -wal and -shm files SQLite keeps beside the database, when they
// are missing, with the database file's permissions: the WAL holds the latest writes, memory
// text included, and the driver would otherwise create both with the process umask (0644
// under the usual 022), readable by anyone who can enter a shared folder given with --db.
// An empty WAL is a valid one. Existing files are left as they are, never truncated.
func createSidecars(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	for _, suffix := range []string{"-wal", "-shm"} {
		f, err := os.OpenFile(path+suffix, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		// The umask may have narrowed perm; the database's own mode is the one wanted.
		err = f.Chmod(perm)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// registerExtensions runs on every new connection: FTS5 is an extension in this driver, and
// the word-index triggers call memdesk_words.
func (s *Store) registerExtensions(c *sqlite3.Conn) error {
	if err := fts5.Register(c); err != nil {
		return err
	}
	if trace := s.opts.TraceSQL; trace != nil {
		err := c.Trace(sqlite3.TRACE_STMT, func(_ sqlite3.TraceEvent, _, sql any) error {
			if text, ok := sql.(string); ok {
				trace(text)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	words, count := s.opts.Words, s.opts.WordCount
	if words == nil { // a Store built by hand (tests of old schema versions)
		words = func(s string) string { return s }
	}
	if count == nil {
		count = func(s string) int { return len(strings.Fields(words(s))) }
	}
	substrings := s.opts.Substrings
	if substrings == nil {
		substrings = func(s string) string { return s }
	}
	funcs := []struct {
		name string
		args int
		fn   func(ctx sqlite3.Context, arg ...sqlite3.Value)
	}{
		{"memdesk_words", 1, func(ctx sqlite3.Context, arg ...sqlite3.Value) { ctx.ResultText(words(arg[0].Text())) }},
		{"memdesk_wlen", 1, func(ctx sqlite3.Context, arg ...sqlite3.Value) { ctx.ResultInt(count(arg[0].Text())) }},
		{"memdesk_substrings", 1, func(ctx sqlite3.Context, arg ...sqlite3.Value) { ctx.ResultText(substrings(arg[0].Text())) }},
		{"memdesk_spaced", 2, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			ctx.ResultInt64(spacedKey(arg[0].Int64(), arg[1].Text()))
		}},
		{"memdesk_dedupe", 1, func(ctx sqlite3.Context, arg ...sqlite3.Value) { ctx.ResultInt64(dedupeKey(arg[0].Text())) }},
	}
	for _, f := range funcs {
		if err := c.CreateFunction(f.name, f.args, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// ensureWords (re)builds the word-level indexes when they were made by another analysis
// version, or never made.
func (s *Store) ensureWords(ctx context.Context) error {
	return s.ensureIndexVersion(ctx, "words_version", s.opts.WordsVersion, "word index", []string{
		`INSERT INTO facts_words(facts_words) VALUES ('delete-all')`,
		`INSERT INTO chunks_words(chunks_words) VALUES ('delete-all')`,
		`INSERT INTO facts_words(rowid, words) SELECT id, memdesk_words(content) FROM facts WHERE status = 'active'`,
		`INSERT INTO chunks_words(rowid, words) SELECT id, memdesk_words(text) FROM chunks`,
	})
}

// ensureSubstrings (re)builds the trigram indexes when they were made by other substring
// rules, or before there were any (schema v17).
func (s *Store) ensureSubstrings(ctx context.Context) error {
	return s.ensureIndexVersion(ctx, "substrings_version", s.opts.SubstringsVersion, "substring index", []string{
		`INSERT INTO facts_fts(facts_fts) VALUES ('delete-all')`,
		`INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')`,
		`INSERT INTO facts_fts(rowid, content) SELECT id, memdesk_substrings(content) FROM facts WHERE status = 'active'`,
		`INSERT INTO chunks_fts(rowid, text) SELECT id, memdesk_substrings(text) FROM chunks`,
	})
}

// ensureIndexVersion runs rebuild when meta's key does not hold version, then records it.
// It runs in one transaction, so readers see the old index or the new one.
func (s *Store) ensureIndexVersion(ctx context.Context, key string, version int, what string, rebuild []string) error {
	want := fmt.Sprint(version)
	// The common case, an index already built under this version, needs no write lock.
	var current string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&current); err == nil && current == want {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var have string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&have)
		if err == nil && have == want {
			return nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read %s version: %w", what, err)
		}
		for _, q := range rebuild {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("rebuild %s: %w", what, err)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, key, want)
		return err
	})
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Created reports whether Open created the database file.
func (s *Store) Created() bool { return s.created }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// beginTries is how many times a write asks for the write lock, each waiting up to the busy
// timeout. SQLite's busy handler is not a queue: under a stream of other writers (three CLI
// importers, an agent) a waiting one can miss every opening for the whole timeout, and a
// person's save failed with "database is locked" (issue 27) while nothing was wrong but the
// crowd. Nothing has run when BEGIN IMMEDIATE fails, so asking again is safe.
const beginTries = 3

// begin starts an IMMEDIATE transaction, asking again (beginTries in all, a short pause
// between) while another connection holds the write lock past the busy timeout.
func (s *Store) begin(ctx context.Context) (*sql.Tx, error) {
	if s.readOnly {
		return nil, s.readOnlyError()
	}
	for try := 1; ; try++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err == nil || !IsBusy(err) || try == beginTries {
			return tx, err
		}
		t := time.NewTimer(time.Duration(try) * 100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}

// readOnlyError is the refusal of a change to a read-only database, worded for the person
// who asked for the change.
func (s *Store) readOnlyError() error {
	return fmt.Errorf("%w: %s cannot be written by this user, so memories can be searched, listed and exported, not changed; to change them, copy the database to a folder you can write and open the copy",
		ErrReadOnly, s.path)
}

// write runs fn in one IMMEDIATE transaction (the driver's default here), so a writer takes
// the lock up front instead of failing on upgrade.
// A write the disk refused comes back as a DiskError.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return cancelled(ctx, s.diskError(err))
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return cancelled(ctx, s.diskError(err))
	}
	return cancelled(ctx, s.diskError(tx.Commit()))
}

// cancelled makes a write that failed because ctx ended say so: database/sql rolls the
// transaction back the moment ctx is done, so the statement running then may fail with
// "sql: statement is closed" or "transaction has already been committed or rolled back",
// which hides from callers (errors.Is(err, context.Canceled)) that nothing went wrong but
// the cancellation.
func cancelled(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%w (%v)", ctx.Err(), err)
}

func nowMillis() int64 { return time.Now().UnixMilli() }

// spacedKey is a fact's dedupe key in space: key XOR 64 bits of the space's name, so one
// index over the key alone keeps a space's facts distinct (where an index of the space's
// name and the key stored the name again per fact), and moving a fact between spaces is
// computed from its key (XOR undoes itself: respacedKey) without its text.
func spacedKey(key int64, space string) int64 {
	sum := sha256.Sum256([]byte("space\x00" + space))
	return key ^ int64(binary.LittleEndian.Uint64(sum[:8]))
}

// respacedKey is the key of a fact of space from once it moves to space to.
func respacedKey(key int64, from, to string) int64 { return spacedKey(spacedKey(key, from), to) }

// dedupeKey is the 64 bits of a fact's content hash that its dedupe index holds.
func dedupeKey(hash string) int64 {
	sum := sha256.Sum256([]byte(hash))
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}
