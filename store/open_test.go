package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3/driver"
)

// TestOpenRefusesWhatIsNotADatabase: a file at the path that is empty, not SQLite, or a
// folder is refused with an error naming the path, and left byte for byte as it was.
func TestOpenRefusesWhatIsNotADatabase(t *testing.T) {
	tests := []struct {
		name    string
		content []byte // nil: a folder
		want    error
		says    string
	}{
		{"zero-length file", []byte{}, ErrEmptyFile, "delete the file"},
		{"text file", []byte("shopping list: eggs\n"), ErrNotDatabase, "not an SQLite file"},
		{"shorter than the header", []byte("SQLite"), ErrNotDatabase, "not an SQLite file"},
		{"header, garbage after", append([]byte(sqliteHeader), make([]byte, 4096)...), ErrNotDatabase, "cannot read it"},
		{"folder", nil, ErrNotDatabase, "is a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memdesk.db")
			if tc.content == nil {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(context.Background(), path, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded, want a refusal")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Open = %v; want %v naming %s and saying %q", err, tc.want, path, tc.says)
			}
			if tc.content != nil {
				if got, err := os.ReadFile(path); err != nil || string(got) != string(tc.content) {
					t.Errorf("file after Open = %d bytes (%v), want the %d bytes it held", len(got), err, len(tc.content))
				}
			}
		})
	}
}

// TestOpenMissingFolder: without CreateDirs a missing folder is refused and not created;
// with it, the folders and the database are made.
func TestOpenMissingFolder(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "typo", "data")
	path := filepath.Join(dir, "memdesk.db")
	if s, err := Open(ctx, path, Options{}); !errors.Is(err, ErrNoDirectory) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open = %v, want ErrNoDirectory", err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open made %s (stat: %v); want nothing created", filepath.Dir(dir), err)
	}
	s, err := Open(ctx, path, Options{CreateDirs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestOpenNewDatabaseIsNeverEmpty: a database Open creates holds SQLite's header at once,
// no temporary file is left beside it, and only the first Open reports creating it.
func TestOpenNewDatabaseIsNeverEmpty(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "memdesk.db")
	created, err := createDatabase(ctx, path)
	if err != nil || !created {
		t.Fatalf("createDatabase = %v, %v; want true, nil", created, err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(got), sqliteHeader) {
		t.Fatalf("new database file = %d bytes %q (%v), want SQLite's header", len(got), got[:min(len(got), 16)], err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	for i, want := range []bool{false, false} {
		s, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Created() != want {
			t.Errorf("open %d: Created() = %v, want %v", i+1, s.Created(), want)
		}
		s.Close()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "memdesk.db") {
			t.Errorf("left in the folder: %s", e.Name())
		}
	}
}

// TestOpenRefusesAnotherProgramsDatabase: a SQLite file of another program given as the
// database is refused with what it holds, and left as it was.
func TestOpenRefusesAnotherProgramsDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := driver.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE facts(x); CREATE TABLE invoices(id, total)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(context.Background(), path, Options{Words: wordsForTest})
	if err == nil || !strings.Contains(err.Error(), "not a memdesk database") || !strings.Contains(err.Error(), "invoices") {
		t.Fatalf("Open of another program's database: %v, want a refusal naming its tables", err)
	}
	db, err = driver.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil || n != 2 {
		t.Errorf("the other database holds %d schema entries after the refusal (%v), want its 2 tables", n, err)
	}
}
