package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "memdesk.db"), Options{Words: wordsForTest})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wordsForTest stands in for the engine's analysis: the word index sees the text lowercased
// with hyphens split, so tests can tell it from the trigram index.
func wordsForTest(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", " ") }
