package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ncruces/go-sqlite3/driver"
)

func TestOpenCreatesUserOnlyFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	path := filepath.Join(dir, "memdesk.db")
	s, err := Open(context.Background(), path, Options{CreateDirs: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if !s.Created() {
		t.Error("Created() = false for a new database, want true")
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %v, want %v", p, got, want)
		}
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	var fk int
	if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
}

// TestMigrateFromEveryVersion builds a database at each older schema version, with a row
// written at that version, then opens it with the current code.
func TestMigrateFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	for from := 0; from <= SchemaVersion(); from++ {
		t.Run(fmt.Sprintf("from v%d", from), func(t *testing.T) {
			path, db := storeAt(t, from, strings.ToUpper)
			if from >= 1 {
				hash, key := "hash", "'h'"
				if from >= 9 {
					hash, key = "dedupe", "7"
				}
				updated := "updated_at"
				if from >= versionBefore(schemaUpdatedAfter)+1 {
					updated = "updated_after"
				}
				if _, err := db.Exec(`INSERT INTO facts(space, content, ` + hash + `, created_at, ` + updated + `) VALUES ('default', 'old fact', ` + key + `, 1, 1)`); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()

			s, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatalf("Open from v%d: %v", from, err)
			}
			defer s.Close()
			if v, err := s.Version(ctx); err != nil || v != SchemaVersion() {
				t.Errorf("version after Open = %d (%v), want %d", v, err, SchemaVersion())
			}
			if from >= 1 {
				f, err := s.Fact(ctx, 1)
				if err != nil || f.UpdatedAt.UnixMilli() != 1 && from <= versionBefore(schemaUpdatedAfter) || f.CreatedAt.UnixMilli() != 1 {
					t.Errorf("fact written at v%d: created %v, updated %v (%v); want both 1 ms after the epoch", from, f.CreatedAt, f.UpdatedAt, err)
				}
				if got, err := s.WordCandidates(ctx, KindFact, `"old" AND "fact"`, SearchScope{}); err != nil || len(got) != 1 {
					t.Errorf("fact written at v%d: words MatchFacts = %v, %v; want 1 hit", from, got, err)
				}
				if got, err := s.TrigramCandidates(ctx, KindFact, `"old" AND "fac"`, SearchScope{}); err != nil || len(got) != 1 {
					t.Errorf("fact written at v%d: TrigramCandidates = %v, %v; want 1 hit", from, got, err)
				}
			}
			if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
				t.Errorf("Integrity after migrating from v%d = %v, %v", from, problems, err)
			}
		})
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path, Options{}); err == nil {
		t.Fatal("Open of a newer schema succeeded, want an error asking to upgrade")
	}
}

func TestFactLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)

	id, dup, err := s.AddFact(ctx, "default", NewFact{Content: "CI uses Python 3.12", Hash: "h1"})
	if err != nil || dup {
		t.Fatalf("AddFact = %d, %v, %v; want new fact", id, dup, err)
	}
	again, dup, err := s.AddFact(ctx, "default", NewFact{Content: "CI uses Python 3.12", Hash: "h1"})
	if err != nil || !dup || again != id {
		t.Fatalf("second AddFact = %d, %v, %v; want duplicate of %d", again, dup, err, id)
	}
	other, dup, err := s.AddFact(ctx, "work", NewFact{Content: "CI uses Python 3.12", Hash: "h1"})
	if err != nil || dup || other == id {
		t.Fatalf("AddFact in another space = %d, %v, %v; want a new fact", other, dup, err)
	}

	search := func(match string) []int64 {
		t.Helper()
		got, err := s.WordCandidates(ctx, KindFact, match, SearchScope{Space: "default"})
		if err != nil {
			t.Fatalf("MatchFacts(%s): %v", match, err)
		}
		var ids []int64
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		return ids
	}
	if diff := cmp.Diff([]int64{id}, search(`"python"`)); diff != "" {
		t.Errorf("before edit (-want +got):\n%s", diff)
	}

	changed, err := s.EditFact(ctx, id, NewFact{Content: "CI uses Python 3.13 and Rust", Hash: "h2"})
	if err != nil || !changed {
		t.Fatalf("EditFact = %v, %v", changed, err)
	}
	if got := search(`"3.12"`); len(got) != 0 {
		t.Errorf("old text still indexed after edit: %v", got)
	}
	if diff := cmp.Diff([]int64{id}, search(`"rust"`)); diff != "" {
		t.Errorf("new text not indexed after edit (-want +got):\n%s", diff)
	}

	if prev, err := s.SetFactStatus(ctx, id, StatusDeleted); err != nil || prev != StatusActive {
		t.Fatalf("forget = %q, %v", prev, err)
	}
	if got := search(`"rust"`); len(got) != 0 {
		t.Errorf("forgotten fact still matches: %v", got)
	}
	f, err := s.Fact(ctx, id)
	if err != nil || f.Status != StatusDeleted || f.Content != "CI uses Python 3.13 and Rust" {
		t.Errorf("forgotten fact = %+v, %v; want it kept with status deleted", f, err)
	}
	if _, err := s.SetFactStatus(ctx, id, StatusActive); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if diff := cmp.Diff([]int64{id}, search(`"rust"`)); diff != "" {
		t.Errorf("restored fact not searchable (-want +got):\n%s", diff)
	}
	if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
		t.Errorf("Integrity = %v, %v", problems, err)
	}
}

func TestEditAndRestoreRefuseDuplicates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a, _, _ := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "ha"})
	b, _, _ := s.AddFact(ctx, "default", NewFact{Content: "beta", Hash: "hb"})

	_, err := s.EditFact(ctx, b, NewFact{Content: "alpha", Hash: "ha"})
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.ExistingID != a {
		t.Fatalf("edit into a duplicate: err = %v, want DuplicateError{%d}", err, a)
	}

	// Forget a, add its text again, then restoring a would duplicate the new one.
	if _, err := s.SetFactStatus(ctx, a, StatusDeleted); err != nil {
		t.Fatal(err)
	}
	c, dupNew, err := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "ha"})
	if err != nil || dupNew {
		t.Fatalf("re-add after forget = %d, %v, %v; want a new fact", c, dupNew, err)
	}
	if _, err := s.SetFactStatus(ctx, a, StatusActive); !errors.As(err, &dup) || dup.ExistingID != c {
		t.Fatalf("restore into a duplicate: err = %v, want DuplicateError{%d}", err, c)
	}
}

func TestMissingIDs(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.EditFact(ctx, 42, NewFact{Content: "x", Hash: "h"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("EditFact(42) err = %v, want ErrNotFound", err)
	}
	if _, err := s.SetFactStatus(ctx, 42, StatusDeleted); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetFactStatus(42) err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteDocument(ctx, 42); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteDocument(42) err = %v, want ErrNotFound", err)
	}
	if _, err := s.Document(ctx, 42); !errors.Is(err, ErrNotFound) {
		t.Errorf("Document(42) err = %v, want ErrNotFound", err)
	}
}

func TestListFacts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for i, text := range []string{"one 100%", "two_x", "three"} {
		if _, _, err := s.AddFact(ctx, "default", NewFact{Content: text, Hash: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetFactStatus(ctx, 3, StatusDeleted); err != nil {
		t.Fatal(err)
	}
	ids := func(f FactFilter) []int64 {
		t.Helper()
		facts, err := s.ListFacts(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, f := range facts {
			out = append(out, f.ID)
		}
		return out
	}
	tests := []struct {
		name   string
		filter FactFilter
		want   []int64
	}{
		{"active newest first", FactFilter{}, []int64{2, 1}},
		{"all statuses", FactFilter{AllStatuses: true}, []int64{3, 2, 1}},
		{"percent is literal", FactFilter{Contains: "%"}, []int64{1}},
		{"underscore is literal", FactFilter{Contains: "_"}, []int64{2}},
		{"limit and offset", FactFilter{AllStatuses: true, Limit: 1, Offset: 1}, []int64{2}},
		{"other space", FactFilter{Space: "nope"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ids(tc.filter)); diff != "" {
				t.Errorf("ListFacts(%+v) (-want +got):\n%s", tc.filter, diff)
			}
		})
	}
}

func TestPutDocumentReplacesChunksAtomically(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	in := DocumentInput{Space: "default", Path: "/notes/a.md", Title: "A", Format: "markdown", Hash: "v1", Bytes: 10,
		Chunks: []Chunk{{Ordinal: 0, Text: "服务器在杭州机房"}, {Ordinal: 1, Text: "deploy on fridays"}}}
	id, outcome, err := s.PutDocument(ctx, in)
	if err != nil || outcome != ImportAdded {
		t.Fatalf("first PutDocument = %d, %q, %v", id, outcome, err)
	}
	if _, outcome, _ = s.PutDocument(ctx, in); outcome != ImportUnchanged {
		t.Errorf("same hash again: outcome %q, want unchanged", outcome)
	}
	in.Hash = "v2"
	in.Chunks = []Chunk{{Ordinal: 0, Text: "服务器搬到了上海机房"}}
	id2, outcome, err := s.PutDocument(ctx, in)
	if err != nil || outcome != ImportUpdated || id2 != id {
		t.Fatalf("changed PutDocument = %d, %q, %v; want updated %d", id2, outcome, err, id)
	}
	if got, _ := s.TrigramCandidates(ctx, KindChunk, `"杭州机"`, SearchScope{}); len(got) != 0 {
		t.Errorf("old chunk text still matches after re-import: %v", got)
	}
	got, err := s.TrigramCandidates(ctx, KindChunk, `"上海机"`, SearchScope{})
	if err != nil || len(got) != 1 || got[0].DocPath != "/notes/a.md" || got[0].DocTitle != "A" {
		t.Fatalf("new chunk = %+v, %v", got, err)
	}
	// A chunk insert that fails must leave the previous version in place.
	in.Hash = "v3"
	in.Chunks = []Chunk{{Ordinal: 0, Text: "x"}, {Ordinal: 0, Text: "same ordinal twice"}}
	if _, _, err := s.PutDocument(ctx, in); err == nil {
		t.Fatal("PutDocument with a duplicate ordinal succeeded")
	}
	if got, _ := s.TrigramCandidates(ctx, KindChunk, `"上海机"`, SearchScope{}); len(got) != 1 {
		t.Errorf("failed re-import lost the previous chunks: %v", got)
	}
	if err := s.DeleteDocument(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.TrigramCandidates(ctx, KindChunk, `"上海机"`, SearchScope{}); len(got) != 0 {
		t.Errorf("removed document still matches: %v", got)
	}
	if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
		t.Errorf("Integrity = %v, %v", problems, err)
	}
}

func TestIntegrityDetectsIndexDrift(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, _, err := s.AddFact(ctx, "default", NewFact{Content: "indexed fact", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	// Simulate a writer that bypassed the triggers: an index row with no fact behind it.
	if _, err := s.db.Exec(`INSERT INTO facts_words(rowid, words) VALUES (999, 'ghost')`); err != nil {
		t.Fatal(err)
	}
	problems, err := s.Integrity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 {
		t.Fatal("Integrity found nothing after the index lost a row")
	}
}

func TestSearchTreatsUserTextAsData(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	hostile := `'); DROP TABLE facts; --`
	if _, _, err := s.AddFact(ctx, "default", NewFact{Content: hostile, Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.TrigramCandidates(ctx, KindFact, `"dro" AND "rop"`, SearchScope{Space: hostile})
	if err != nil {
		t.Fatalf("TrigramCandidates: %v", err)
	}
	if len(got) != 0 {
		t.Errorf("space filter ignored: %v", got)
	}
	got, err = s.TrigramCandidates(ctx, KindFact, `"dro" AND "rop"`, SearchScope{})
	if err != nil || len(got) != 1 || got[0].Text != hostile {
		t.Errorf("TrigramCandidates(dro AND rop) = %v, %v; want the fact", got, err)
	}
	if _, err := s.EntityNameIDs(ctx, []string{hostile, `"`, "%"}); err != nil {
		t.Errorf("EntityNameIDs of hostile names: %v", err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM facts`).Scan(&n); err != nil || n != 1 {
		t.Errorf("facts table after hostile input: %d rows, %v", n, err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	// Two Stores on one file stand in for two processes: separate pools, separate locks.
	a, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	errs := make(chan error, 2)
	for w, s := range []*Store{a, b} {
		go func() {
			for i := range 100 {
				text := string(rune('a'+w)) + " fact " + string(rune('0'+i%10)) + string(rune('0'+i/10))
				if _, _, err := s.AddFact(ctx, "default", NewFact{Content: text, Hash: text}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent AddFact: %v", err)
		}
	}
	var n int
	if err := a.db.QueryRow(`SELECT count(*) FROM facts`).Scan(&n); err != nil || n != 200 {
		t.Errorf("facts after two writers = %d (%v), want 200", n, err)
	}
}

// TestWordIndexFollowsAnalysisVersion: a new analysis version rebuilds the word index from
// the stored text; the same version leaves it alone.
func TestWordIndexFollowsAnalysisVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "words.db")
	open := func(words func(string) string, version int) *Store {
		t.Helper()
		s, err := Open(ctx, path, Options{Words: words, WordsVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	hits := func(s *Store, match string) int {
		t.Helper()
		got, err := s.WordCandidates(ctx, KindFact, match, SearchScope{})
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	s := open(func(string) string { return "alpha" }, 1)
	if _, _, err := s.AddFact(ctx, "default", NewFact{Content: "some text", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if n := hits(s, `"alpha"`); n != 1 {
		t.Fatalf("v1 index: %d hits for alpha, want 1", n)
	}
	s.Close()

	s = open(func(string) string { return "beta" }, 1)
	if n := hits(s, `"alpha"`); n != 1 {
		t.Errorf("same version reopened: index was rebuilt (%d hits for alpha, want 1)", n)
	}
	s.Close()

	s = open(func(string) string { return "beta" }, 2)
	defer s.Close()
	if a, b := hits(s, `"alpha"`), hits(s, `"beta"`); a != 0 || b != 1 {
		t.Errorf("v2 index: alpha %d, beta %d hits; want 0 and 1", a, b)
	}
	if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
		t.Errorf("Integrity = %v, %v", problems, err)
	}
}

func TestEntities(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ents := func(names ...string) *Entities { return &Entities{Version: 3, Names: names} }
	wang, _, err := s.AddFact(ctx, "default", NewFact{Content: "老王喜欢简约风格", Hash: "h1", Entities: ents("老王", "风格")})
	if err != nil {
		t.Fatal(err)
	}
	li, _, _ := s.AddFact(ctx, "default", NewFact{Content: "老李也喜欢简约风格", Hash: "h2", Entities: ents("老李", "风格", "风格")})
	pending, _, _ := s.AddFact(ctx, "default", NewFact{Content: "not extracted yet", Hash: "h3"})

	// A name is stored once, whoever carries it; an owner keeps the ids of its own.
	ids, err := s.EntityNameIDs(ctx, []string{"老王", "风格", "老李", "nobody"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids["nobody"] != 0 {
		t.Fatalf("EntityNameIDs = %v, want three names and no id for nobody", ids)
	}
	if distinct := map[int64]bool{ids["老王"]: true, ids["风格"]: true, ids["老李"]: true}; len(distinct) != 3 {
		t.Fatalf("EntityNameIDs = %v: three names share ids", ids)
	}
	// A rolled-back transaction's names are gone, and the counter with them: the next
	// name's id is new all the same.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := newInterner(tx)
	if _, err := in.id(ctx, "rolled back"); err != nil {
		t.Fatal(err)
	}
	in.close()
	tx.Rollback()
	zhang, _, _ := s.AddFact(ctx, "default", NewFact{Content: "老张", Hash: "h4", Entities: ents("老张")})
	more, err := s.EntityNameIDs(ctx, []string{"老张", "rolled back"})
	if err != nil || len(more) != 1 || more["老张"] <= ids["老李"] || more["老张"] <= ids["老王"] || more["老张"] <= ids["风格"] {
		t.Fatalf("EntityNameIDs after a rollback = %v, %v; want only 老张, numbered after %v", more, err, ids)
	}
	if _, err := s.SetFactStatus(ctx, zhang, StatusDeleted); err != nil {
		t.Fatal(err)
	}
	var names int
	if err := s.db.QueryRow(`SELECT count(*) FROM entity_names`).Scan(&names); err != nil || names != 4 {
		t.Errorf("entity_names rows = %d (%v), want 4", names, err)
	}
	owners, _, err := s.OwnersByID(ctx, KindFact, []int64{wang, li, pending})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][]int64{wang: {ids["老王"], ids["风格"]}, li: {ids["老李"], ids["风格"]}, pending: nil}
	for id, w := range want {
		if diff := cmp.Diff(w, owners[id].Entities); diff != "" {
			t.Errorf("entities of fact %d (-want +got):\n%s", id, diff)
		}
	}
	back, err := s.EntityNames(ctx, []int64{ids["老王"]})
	if err != nil || back[ids["老王"]] != "老王" {
		t.Errorf("EntityNames = %v, %v", back, err)
	}

	stale, total, err := s.StaleEntities(ctx, 3, 10)
	if err != nil || total != 1 || len(stale) != 1 || stale[0].ID != pending {
		t.Fatalf("StaleEntities(v3) = %+v, %d, %v; want only the pending fact", stale, total, err)
	}
	if _, total, _ := s.StaleEntities(ctx, 4, 10); total != 3 {
		t.Errorf("StaleEntities(v4) total = %d, want every active fact (3)", total)
	}
	if err := s.SetEntities(ctx, pending, "stale text", Entities{Version: 3, Names: []string{"x"}}); !errors.Is(err, ErrChanged) {
		t.Errorf("SetEntities on changed text: err = %v, want ErrChanged", err)
	}
	if err := s.SetEntities(ctx, pending, "not extracted yet", Entities{Version: 3, Names: []string{"extracted"}}); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := s.StaleEntities(ctx, 3, 10); total != 0 {
		t.Errorf("after SetEntities: %d stale, want 0", total)
	}
	// An edit without entities makes the fact pending again, with no entities.
	if _, err := s.EditFact(ctx, wang, NewFact{Content: "老王改喜欢复古风格", Hash: "h5"}); err != nil {
		t.Fatal(err)
	}
	if owners, _, _ := s.OwnersByID(ctx, KindFact, []int64{wang}); len(owners[wang].Entities) != 0 {
		t.Errorf("entities of the old text survive the edit: %v", owners[wang].Entities)
	}
	if st, err := s.Stats(ctx); err != nil || st.Entities != 3 {
		t.Errorf("Stats entities = %d (%v), want 3 (老李, 风格 and extracted)", st.Entities, err)
	}

}

// TestMigrateInternsEntities: entity rows written before schema v8 become one name each and
// per-owner id lists, and the old table is gone.
func TestMigrateInternsEntities(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, 7, strings.ToLower)
	for _, q := range []string{
		`INSERT INTO facts(id, space, content, hash, created_at, updated_at, entity_rules, entity_count) VALUES (1, 'default', '老王喜欢风格', 'a', 1, 1, 1, 2)`,
		`INSERT INTO facts(id, space, content, hash, created_at, updated_at, entity_rules, entity_count) VALUES (2, 'default', '老李喜欢风格', 'b', 1, 1, 1, 2)`,
		`INSERT INTO entities(owner_kind, owner_id, entity, rules_version) VALUES ('fact', 1, '老王', 1), ('fact', 1, '风格', 1), ('fact', 2, '老李', 1), ('fact', 2, '风格', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: strings.ToLower})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, err := s.EntityNameIDs(ctx, []string{"老王", "老李", "风格"})
	if err != nil || len(ids) != 3 {
		t.Fatalf("names after migrating = %v, %v; want 3", ids, err)
	}
	owners, _, err := s.OwnersByID(ctx, KindFact, []int64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64][]int64{1: {ids["老王"], ids["风格"]}, 2: {ids["老李"], ids["风格"]}} {
		got := owners[id].Entities
		if !cmp.Equal(sortedIDs(got), sortedIDs(want)) {
			t.Errorf("fact %d entities = %v, want %v", id, got, want)
		}
	}
	if err := s.db.QueryRow(`SELECT 1 FROM sqlite_schema WHERE name = 'entities'`).Scan(new(int)); err == nil {
		t.Error("the entities table survived the migration")
	}
}

func sortedIDs(ids []int64) []int64 {
	out := append([]int64(nil), ids...)
	slices.Sort(out)
	return out
}

// TestTrigramIndexFollowsEdits: the trigram index keeps no row sizes, so its triggers delete
// with the old text; an edit, a forget and a restore each leave exactly the live text
// findable, and the index stays sound.
func TestTrigramIndexFollowsEdits(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	id, _, err := s.AddFact(ctx, "default", NewFact{Content: "the zeppelin hangar", Hash: "a"})
	if err != nil {
		t.Fatal(err)
	}
	count := func(expr string) int {
		t.Helper()
		got, err := s.TrigramCandidates(ctx, KindFact, expr, SearchScope{})
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	const zep, blimp = `"zep" AND "ppe"`, `"bli" AND "imp"`
	if count(zep) != 1 {
		t.Fatal("new fact not found by its trigrams")
	}
	if _, err := s.EditFact(ctx, id, NewFact{Content: "the blimp hangar", Hash: "b"}); err != nil {
		t.Fatal(err)
	}
	if count(zep) != 0 || count(blimp) != 1 {
		t.Errorf("after the edit: old text %d, new text %d matches; want 0 and 1", count(zep), count(blimp))
	}
	if _, err := s.SetFactStatus(ctx, id, StatusDeleted); err != nil {
		t.Fatal(err)
	}
	if count(blimp) != 0 {
		t.Error("forgotten fact still found")
	}
	if _, err := s.SetFactStatus(ctx, id, StatusActive); err != nil {
		t.Fatal(err)
	}
	if count(blimp) != 1 {
		t.Error("restored fact not found")
	}
	if problems, err := s.Integrity(ctx); err != nil || len(problems) > 0 {
		t.Errorf("Integrity = %v, %v", problems, err)
	}
}

// TestMigratePacksStatements: statement rows written before schema v9 end up in their fact's
// row, found by (subject, predicate) as before, and the old table is gone.
func TestMigratePacksStatements(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, 8, strings.ToLower)
	for _, q := range []string{
		`INSERT INTO facts(id, space, content, hash, created_at, updated_at, triple_rules) VALUES (1, 'default', '老王住在北京', 'a', 1, 1, 2)`,
		`INSERT INTO triples(fact_id, ordinal, subject, predicate, object, negated) VALUES (1, 0, '老王', '住在', '北京', 0), (1, 1, '老王', '喜欢', '猫', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: strings.ToLower})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.TriplesAbout(ctx, "default", []SubjectKey{{"老王", "喜欢"}})
	want := []FactTriples{{FactID: 1, Space: "default", Triples: []Triple{
		{Subject: "老王", Predicate: "住在", Object: "北京"}, {Subject: "老王", Predicate: "喜欢", Object: "猫", Negated: true}}}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("TriplesAbout after migrating = %+v, %v; want %+v", got, err, want)
	}
	if err := s.db.QueryRow(`SELECT 1 FROM sqlite_schema WHERE name = 'triples'`).Scan(new(int)); err == nil {
		t.Error("the triples table survived the migration")
	}
}

// TestMigrateAddsPages: chunks stored before schema v11 are on page 0, and a PDF imported
// then (read without word spaces or pages) is re-read by its next import, not left as it was.
func TestMigrateAddsPages(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, versionBefore(schemaPages), strings.ToLower)
	for _, q := range []string{
		`INSERT INTO documents(id, space, path, title, format, hash, bytes, imported_at) VALUES
			(1, 'default', '/d/a.pdf', 'a', 'pdf', 'h1', 10, 1), (2, 'default', '/d/b.txt', 'b', 'text', 'h2', 10, 1)`,
		`INSERT INTO chunks(doc_id, ordinal, text, heading, byte_start, byte_end, line_start, line_end) VALUES
			(1, 0, 'Revenuegrew', '', 0, 11, 1, 1), (2, 0, 'notes', '', 0, 5, 1, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: strings.ToLower})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for doc, want := range map[int64]string{1: ImportUpdated, 2: ImportUnchanged} {
		d, err := s.Document(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := s.Chunks(ctx, doc)
		if err != nil || len(chunks) != 1 || chunks[0].Page != 0 {
			t.Errorf("Chunks(%d) after migrating = %+v, %v; want one chunk on page 0", doc, chunks, err)
		}
		in := DocumentInput{Space: d.Space, Path: d.Path, Title: d.Title, Format: d.Format, Hash: "h" + string(rune('0'+doc)),
			Chunks: []Chunk{{Text: "Revenue grew", ByteEnd: 12, LineStart: 1, LineEnd: 1, Page: 3}}}
		if _, outcome, err := s.PutDocument(ctx, in); err != nil || outcome != want {
			t.Errorf("PutDocument(%s, same hash) = %q, %v; want %q", d.Path, outcome, err, want)
		}
	}
	if chunks, err := s.Chunks(ctx, 1); err != nil || len(chunks) != 1 || chunks[0].Page != 3 {
		t.Errorf("Chunks(1) after re-import = %+v, %v; want its chunk on page 3", chunks, err)
	}
}

// storeAt builds, at a new path, the database an older memdesk made: migrations[:version]
// applied, nothing else. The test writes rows in that version's shape through db, closes it
// and opens the path with the current code.
func storeAt(t *testing.T, version int, words func(string) string) (path string, db *sql.DB) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "old.db")
	old := &Store{path: path, opts: Options{Words: words}}
	// WAL, as every memdesk store: switching to it writes the header even at v0.
	db, err := driver.Open("file:"+path+"?_txlock=immediate&_pragma=journal_mode(wal)&_pragma=foreign_keys(on)", old.registerExtensions)
	if err != nil {
		t.Fatal(err)
	}
	old.db = db
	if err := old.migrate(context.Background(), migrations[:version]); err != nil {
		db.Close()
		t.Fatalf("migrate to v%d: %v", version, err)
	}
	return path, db
}

// versionBefore is the schema version just before the migration whose SQL is ddl.
func versionBefore(ddl string) int {
	return slices.IndexFunc(migrations, func(m migration) bool { return m.sql == ddl })
}

// TestMigrateDropsChunkEntities: chunks lose their entity columns, the names only chunks
// carried are deleted, a fact's names stay theirs, and the next new name gets a fresh id.
func TestMigrateDropsChunkEntities(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, versionBefore(schemaChunksNoEntities), strings.ToLower)
	for _, q := range []string{
		`INSERT INTO entity_names(name, id) VALUES ('老王', 1), ('风格', 2), ('杭州', 3), ('机房', 4)`,
		`INSERT OR REPLACE INTO meta(key, value) VALUES ('entity_next_id', 5)`,
		`INSERT INTO facts(id, space, content, dedupe, status, created_at, updated_after, entity_rules, entity_ids, entity_count, wlen)
			VALUES (1, 'default', '老王喜欢风格', 1, 'active', 1, 0, 1, x'0102', 2, 2)`,
		`INSERT INTO documents(id, space, path, title, format, hash, bytes, imported_at) VALUES (1, 'default', '/a.md', 'A', 'markdown', 'd1', 12, 1)`,
		`INSERT INTO chunks(doc_id, ordinal, text, byte_start, byte_end, line_start, line_end, entity_rules, entity_ids, entity_count, wlen)
			VALUES (1, 0, '杭州机房和老王', 0, 21, 1, 1, 1, x'030401', 3, 3)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: strings.ToLower})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, err := s.EntityNameIDs(ctx, []string{"老王", "风格", "杭州", "机房"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"老王": 1, "风格": 2}; !maps.Equal(ids, want) {
		t.Errorf("names after migrating = %v, want %v (the chunk-only names gone)", ids, want)
	}
	var cols int
	if err := s.db.QueryRow(`SELECT count(*) FROM pragma_table_info('chunks') WHERE name LIKE 'entity%'`).Scan(&cols); err != nil || cols != 0 {
		t.Errorf("chunks keep %d entity columns (%v), want none", cols, err)
	}
	// The chunk is still whole and findable after its table was rewritten.
	var text string
	if err := s.db.QueryRow(`SELECT text FROM chunks WHERE doc_id = 1`).Scan(&text); err != nil || text != "杭州机房和老王" {
		t.Errorf("chunk after migrating = %q, %v", text, err)
	}
	if _, _, err := s.AddFact(ctx, "default", NewFact{Content: "机房在杭州", Hash: "h2", Entities: &Entities{Version: 1, Names: []string{"机房"}}}); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.EntityNameIDs(ctx, []string{"机房"}); err != nil || ids["机房"] != 5 {
		t.Errorf("a new name after migrating = %v, %v; want the next id (5), never a deleted one", ids, err)
	}
}
