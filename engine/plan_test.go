package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// TestRecallPathUsesIndexes records every statement recall runs (the store's trace hook),
// over facts and knowledge, every kind of query (words, one CJK character, a substring only the
// trigram index answers, entities, a space, a time word), and asks SQLite for each one's plan:
// none may scan a table, except the one whole load of the in-memory copy, marked as such. A
// statement that starts scanning (a lost index, a rewritten query) fails here first.
func TestRecallPathUsesIndexes(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]bool{}
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.db")
	e, err := Open(ctx, path, Options{Entities: x, TraceSQL: func(q string) {
		mu.Lock()
		seen[q] = true
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, f := range []string{"CI uses Python 3.12 via go-sqlite3", "老王喜欢简约风格", "我家的猫叫豆豆", "Alice moved to Berlin"} {
		remember(t, e, "", f)
	}
	remember(t, e, "work", "the staging cluster runs Kubernetes 1.31")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Deploy\n\nRoll back with kubectl rollout undo.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clear(seen) // the writes are not the recall path
	mu.Unlock()
	for _, req := range []RecallRequest{
		{Query: "which python version"},
		{Query: "猫"},
		{Query: "sqlit"}, // no word holds it: the trigram fallback
		{Query: "where does Alice live"},
		{Query: "老王喜欢什么"},
		{Query: "kubernetes", Space: "work"},
		{Query: "rollout", Source: SourceKnowledge},
		{Query: "昨天的会议"},
	} {
		if _, err := e.Recall(ctx, req); err != nil {
			t.Fatalf("Recall(%q): %v", req.Query, err)
		}
	}
	remember(t, e, "", "a write between two recalls is read from the change log")
	if _, err := e.Recall(ctx, RecallRequest{Query: "change log"}); err != nil {
		t.Fatal(err)
	}

	db, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := fts5.Register(db); err != nil {
		t.Fatal(err)
	}
	// The store's own functions, for statements that call them: a plan does not run them.
	for name, args := range map[string]int{"memdesk_words": 1, "memdesk_wlen": 1, "memdesk_dedupe": 1, "memdesk_spaced": 2, "memdesk_substrings": 1} {
		if err := db.CreateFunction(name, args, sqlite3.DETERMINISTIC, func(ctx sqlite3.Context, _ ...sqlite3.Value) { ctx.ResultInt(0) }); err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for q := range seen {
		trimmed := strings.TrimSpace(q)
		if !strings.HasPrefix(strings.ToUpper(trimmed), "SELECT") && !strings.HasPrefix(trimmed, "/*") {
			continue // BEGIN, COMMIT, PRAGMA, the writes between recalls
		}
		if strings.HasPrefix(trimmed, "-- TRIGGER") {
			continue
		}
		plan := explainPlan(t, db, q)
		checked++
		for _, step := range plan {
			if !strings.HasPrefix(step, "SCAN ") || strings.Contains(step, "VIRTUAL TABLE") ||
				strings.HasPrefix(step, "SCAN json_each") || strings.HasPrefix(step, "SCAN (subquery") ||
				strings.Contains(q, "whole scan") {
				continue
			}
			t.Errorf("recall statement scans a table (%s):\n%s", step, q)
		}
	}
	if checked < 5 {
		t.Fatalf("only %d recall statements seen; the trace hook is not reporting", checked)
	}
}

// explainPlan returns the steps of q's query plan (its parameters left unbound: the plan does
// not depend on their values).
func explainPlan(t *testing.T, db *sqlite3.Conn, q string) []string {
	t.Helper()
	stmt, _, err := db.Prepare("EXPLAIN QUERY PLAN " + q)
	if err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN %s: %v", q, err)
	}
	defer stmt.Close()
	var out []string
	for stmt.Step() {
		out = append(out, stmt.ColumnText(3))
	}
	if err := stmt.Err(); err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN %s: %v", q, err)
	}
	return out
}
