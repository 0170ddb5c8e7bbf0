package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3/driver"
)

// TestRebuildIndexRepairsDamagedIndex: full-text index pages overwritten with garbage (what
// a bad sector or a torn copy does to them) break recall with an error that names the
// repair; integrity reports the damage as findings, not as an error of its own; and
// rebuild-index makes every index anew from the stored text, after which recall and
// integrity are as before and no memory was lost.
func TestRebuildIndexRepairsDamagedIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, path, Options{Entities: x})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	target := remember(t, e, "", "The staging cluster runs Kafka 3.7 on host kafka-stg-02")
	remember(t, e, "", "老王喜欢简约风格")
	remember(t, e, "", "CI uses Python 3.12")

	raw, err := driver.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range []string{"facts_words", "facts_fts"} {
		if _, err := raw.ExecContext(ctx, `UPDATE `+ix+`_data SET block = x'ffffffffffffffffffffffff'`); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	// A fresh engine, as the next process would open it: nothing cached from before.
	e.Close()
	e, err = Open(ctx, path, Options{Entities: x})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Recall(ctx, RecallRequest{Query: "kafka staging cluster"})
	if !errors.Is(err, ErrDamagedIndex) || !strings.Contains(err.Error(), "rebuild-index") {
		t.Fatalf("recall on a damaged index: %v; want ErrDamagedIndex naming rebuild-index", err)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "integrity"})
	if err != nil {
		t.Fatalf("integrity on a damaged index failed instead of reporting: %v", err)
	}
	if res.OK || !strings.Contains(strings.Join(res.Details, "\n"), "facts_words") {
		t.Errorf("integrity on a damaged index = %+v; want ok false naming facts_words", res)
	}

	rebuilt, err := e.Admin(ctx, AdminRequest{Action: "rebuild-index"})
	if err != nil || !rebuilt.OK || strings.Count(strings.Join(rebuilt.Details, "\n"), "full-text index") != 4 {
		t.Fatalf("rebuild-index = %+v, %v; want the 4 full-text indexes rebuilt, ok", rebuilt, err)
	}
	if res, err := e.Admin(ctx, AdminRequest{Action: "integrity"}); err != nil || !res.OK {
		t.Errorf("integrity after rebuild-index = %+v, %v", res, err)
	}
	got, err := e.Recall(ctx, RecallRequest{Query: "kafka staging cluster"})
	if err != nil || len(got.Hits) == 0 || got.Hits[0].ID != target {
		t.Errorf("recall after rebuild-index = %+v, %v; want fact %d first", got.Hits, err, target)
	}
	if got, err := e.Recall(ctx, RecallRequest{Query: "kafka-stg"}); err != nil || len(got.Hits) == 0 || got.Hits[0].ID != target {
		t.Errorf("substring recall after rebuild-index = %+v, %v; want fact %d (the trigram index)", got.Hits, err, target)
	}
	list, err := e.List(ctx, ListRequest{})
	if err != nil || len(list.Facts) != 3 {
		t.Errorf("after rebuild-index: %d memories listed (%v); want all 3", len(list.Facts), err)
	}
}

// TestRebuildIndexRepairsADamagedTreeIndex (issue 27, item 5): garbage over the root page
// of an ordinary index (the dedupe index on facts) makes every new memory fail. The
// refusal names rebuild-index, which makes the index anew although SQLite can neither
// REINDEX nor DROP it; then integrity is ok, the memories are all there and writing works.
func TestRebuildIndexRepairsADamagedTreeIndex(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	e, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("MARKER-%04d the ledger of day %d", i, i)
	}
	if _, err := e.RememberBatch(ctx, "", texts, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := driver.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	var root int
	if err := raw.QueryRowContext(ctx, `SELECT rootpage FROM sqlite_schema WHERE name = 'facts_active_dedupe'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	var pageSize int
	if err := raw.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := (root - 1) * pageSize
	for i := at + 12; i < at+40; i++ { // the root's cell pointers
		data[i] = 0xA5
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	e, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("open with a damaged index: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	_, err = e.Remember(ctx, RememberRequest{Text: "a new memory about kayaks"})
	if !errors.Is(err, ErrDamagedIndex) || !strings.Contains(err.Error(), "rebuild-index") {
		t.Fatalf("remember with a damaged index: %v; want ErrDamagedIndex naming rebuild-index", err)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "rebuild-index"})
	if err != nil {
		t.Fatalf("rebuild-index with a damaged b-tree index: %v", err)
	}
	if !strings.Contains(strings.Join(res.Details, "\n"), "facts_active_dedupe was damaged") {
		t.Errorf("rebuild-index said %q; want the damaged index named", res.Details)
	}
	if ok, err := e.Admin(ctx, AdminRequest{Action: "integrity"}); err != nil || !ok.OK {
		t.Errorf("integrity after rebuild-index: %+v, %v", ok, err)
	}
	if _, err := e.Remember(ctx, RememberRequest{Text: "a new memory about kayaks"}); err != nil {
		t.Errorf("remember after rebuild-index: %v", err)
	}
	if dup, err := e.Remember(ctx, RememberRequest{Text: texts[7]}); err != nil || dup.Status != StatusDuplicate {
		t.Errorf("remember a stored memory again after rebuild-index: %+v, %v; want a duplicate", dup, err)
	}
	st, err := e.Stats(ctx)
	if err != nil || st.FactsActive != n+1 {
		t.Errorf("after rebuild-index: %d memories (%v), want %d", st.FactsActive, err, n+1)
	}
}
