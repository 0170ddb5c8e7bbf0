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

// pageCacheKiB is each connection's page cache: recall reads little from SQLite now (its
// indexes are copied in memory), but an import writes index pages of thousands of chunks, and
// SQLite's default of 2 MB made it re-read them.
const pageCacheKiB = 8 << 10

// busyTimeout is how long a writer waits for another process's transaction before SQLite
// reports SQLITE_BUSY. Writes are short, so anything near this means a stuck peer.
const busyTimeout = 10 * time.Second

// Store is an open memdesk database.
type Store struct {
	db   *sql.DB
	path string
	opts Options
}

// Options configure a Store.
type Options struct {
	// Words rewrites a text for the word-level index (memdesk_words in SQL): its terms,
	// separated by spaces. It must be deterministic; nil indexes the text as it is.
	Words func(string) string
	// WordCount is a text's length in terms for the word index's bm25 (memdesk_wlen in
	// SQL); nil counts the space-separated fields of Words.
	WordCount func(string) int
	// WordsVersion names the Words analysis; a database indexed under another version has
	// its word indexes rebuilt on open.
	WordsVersion int
	// TraceSQL, when set, is told the text of every statement each connection runs (a
	// diagnostic: the recall-path plan test reads what recall really asks).
	TraceSQL func(sql string)
}

// Open opens (creating if needed) the database at path and migrates it to the current
// schema. The directory is created user-only because it holds a person's memories.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.Words == nil {
		opts.Words = func(s string) string { return s }
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
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open store: create directory for %q: %w", abs, err)
	}
	if err := createUserOnly(abs); err != nil {
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	if err := createSidecars(abs); err != nil {
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	// modeof makes SQLite create a -wal it deletes and re-creates later with the database's
	// mode too, not the process umask.
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?_txlock=immediate" +
		"&modeof=" + url.QueryEscape(abs) +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(wal)&_pragma=foreign_keys(on)&_pragma=synchronous(normal)" +
		fmt.Sprintf("&_pragma=cache_size(%d)", -pageCacheKiB)
	s := &Store{path: abs, opts: opts}
	db, err := driver.Open(dsn, s.registerExtensions)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	s.db = db
	if err := s.migrate(ctx, migrations); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %q: %w", abs, err)
	}
	if err := s.ensureWords(ctx); err != nil {
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

// createUserOnly creates an empty database file with mode 0600 if none exists, so SQLite
// never creates it with the process umask.
func createUserOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
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
	err := c.CreateFunction("memdesk_words", 1, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS,
		func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			ctx.ResultText(words(arg[0].Text()))
		})
	if err != nil {
		return err
	}
	err = c.CreateFunction("memdesk_wlen", 1, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS,
		func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			ctx.ResultInt(count(arg[0].Text()))
		})
	if err != nil {
		return err
	}
	return c.CreateFunction("memdesk_dedupe", 1, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS,
		func(ctx sqlite3.Context, arg ...sqlite3.Value) {
			ctx.ResultInt64(dedupeKey(arg[0].Text()))
		})
}

// ensureWords (re)builds the word-level indexes when they were made by another analysis
// version, or never made. It runs in one transaction, so readers see the old index or the
// new one.
func (s *Store) ensureWords(ctx context.Context) error {
	want := fmt.Sprint(s.opts.WordsVersion)
	// The common case, an index already built by this analysis, needs no write lock.
	var current string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'words_version'`).Scan(&current); err == nil && current == want {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var have string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'words_version'`).Scan(&have)
		if err == nil && have == want {
			return nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read word index version: %w", err)
		}
		for _, q := range []string{
			`INSERT INTO facts_words(facts_words) VALUES ('delete-all')`,
			`INSERT INTO chunks_words(chunks_words) VALUES ('delete-all')`,
			`INSERT INTO facts_words(rowid, words) SELECT id, memdesk_words(content) FROM facts WHERE status = 'active'`,
			`INSERT INTO chunks_words(rowid, words) SELECT id, memdesk_words(text) FROM chunks`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("rebuild word index: %w", err)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('words_version', ?)`, want)
		return err
	})
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// write runs fn in one IMMEDIATE transaction (the driver's default here), so a writer takes
// the lock up front instead of failing on upgrade.
// A write the disk refused comes back as a DiskError.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.diskError(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.diskError(err)
	}
	return s.diskError(tx.Commit())
}

func nowMillis() int64 { return time.Now().UnixMilli() }

// dedupeKey is the 64 bits of a fact's content hash that its dedupe index holds.
func dedupeKey(hash string) int64 {
	sum := sha256.Sum256([]byte(hash))
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}
