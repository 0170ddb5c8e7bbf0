package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/store"
)

func add(t testing.TB, e *Engine, req RememberRequest) RememberResult {
	t.Helper()
	req.Action = ActionAdd
	res, err := e.Remember(context.Background(), req)
	if err != nil {
		t.Fatalf("Remember(%q): %v", req.Text, err)
	}
	return res
}

func contradictionIDs(cs []Contradiction) []int64 {
	var ids []int64
	for _, c := range cs {
		ids = append(ids, c.FactID)
	}
	return ids
}

func TestRememberReportsContradictions(t *testing.T) {
	e := openTestEngine(t)
	py311 := add(t, e, RememberRequest{Text: "CI uses Python 3.11"}).FactID
	wang := add(t, e, RememberRequest{Text: "老王住在北京"}).FactID
	add(t, e, RememberRequest{Text: "老王住在上海", Space: "elsewhere"}) // other space: never paired

	tests := []struct {
		name string
		text string
		want []int64
	}{
		{"version changed", "CI uses Python 3.12", []int64{py311}},
		{"negated", "CI no longer uses Python 3.11", []int64{py311}},
		{"chinese single-valued predicate", "老王住在上海", []int64{wang}},
		{"compatible statement", "CI uses Docker", nil},
		{"different subject", "小李住在上海", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := add(t, e, RememberRequest{Text: tt.text})
			if diff := cmp.Diff(tt.want, contradictionIDs(res.Contradicts)); diff != "" {
				t.Errorf("contradicts (-want +got):\n%s", diff)
			}
			for _, c := range res.Contradicts {
				if c.Reason == "" || c.Text == "" {
					t.Errorf("contradiction %+v lacks its text or reason", c)
				}
			}
			// Each case is checked against the base facts only.
			if _, err := e.Remember(context.Background(), RememberRequest{Action: ActionForget, ID: res.FactID}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRememberReportsRestatements(t *testing.T) {
	e := openTestEngine(t)
	py := add(t, e, RememberRequest{Text: "Our CI uses Python 3.12"}).FactID
	add(t, e, RememberRequest{Text: "Alice likes tea"})

	if got := add(t, e, RememberRequest{Text: "our ci uses python 3.12"}); got.Status != StatusDuplicate || got.FactID != py {
		t.Errorf("case-only restatement = %+v, want duplicate of %d", got, py)
	}
	if got := add(t, e, RememberRequest{Text: "The CI uses Python 3.12 now"}).SimilarTo; !slices.Equal(got, []int64{py}) {
		t.Errorf("near-duplicate similar_to = %v, want [%d]", got, py)
	}
	if got := add(t, e, RememberRequest{Text: "Alice likes coffee"}).SimilarTo; len(got) != 0 {
		t.Errorf("a different statement about the same subject was reported similar to %v", got)
	}
}

func TestSupersession(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	old := add(t, e, RememberRequest{Text: "The release deadline is Friday"}).FactID
	res := add(t, e, RememberRequest{Text: "The release deadline is Monday", Supersedes: old})
	if res.Superseded != old {
		t.Fatalf("add with supersedes = %+v, want superseded %d", res, old)
	}
	f, err := e.Fact(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != StatusSuperseded || f.SupersededBy != res.FactID {
		t.Fatalf("old fact = %s by %d, want superseded by %d", f.Status, f.SupersededBy, res.FactID)
	}
	// Recall prefers what is current; history stays listed.
	if ids := recallIDs(t, e, RecallRequest{Query: "release deadline"}); !slices.Equal(ids, []int64{res.FactID}) {
		t.Errorf("recall after supersession = %v, want only %d", ids, res.FactID)
	}
	all, _ := e.List(ctx, ListRequest{All: true})
	if len(all.Facts) != 2 {
		t.Errorf("list --all holds %d facts, want both", len(all.Facts))
	}
	if c, _ := e.Contradictions(ctx, ContradictionsRequest{}); len(c.Pairs) != 0 {
		t.Errorf("a resolved pair is still reported: %+v", c.Pairs)
	}

	for name, req := range map[string]RememberRequest{
		"superseding a superseded fact": {Action: ActionSupersede, ID: old, By: res.FactID},
		"superseding itself":            {Action: ActionSupersede, ID: res.FactID, By: res.FactID},
		"no replacement":                {Action: ActionSupersede, ID: res.FactID},
		"missing replacement":           {Action: ActionAdd, Text: "x is y", Supersedes: 9999},
	} {
		if _, err := e.Remember(ctx, req); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := e.Remember(ctx, RememberRequest{Action: ActionSupersede, ID: 9999, By: res.FactID}); !errors.Is(err, ErrNotFound) {
		t.Errorf("superseding a missing fact err = %v, want ErrNotFound", err)
	}
}

func TestContradictionsFullPassAndDismiss(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	// Loaded in bulk: no write-time report, so only the full pass can find these.
	batch, err := e.RememberBatch(ctx, "default", []string{
		"Alice lives in Berlin", "Alice lives in Paris", "Alice likes tea", "Alice likes coffee",
		"老王喜欢简约风格", "老王不喜欢简约风格", "老王喜欢红色",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := func(i int) int64 { return batch[i].FactID }
	got, err := e.Contradictions(ctx, ContradictionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]int64
	for _, p := range got.Pairs {
		pairs = append(pairs, [2]int64{p.A.ID, p.B.ID})
		if p.Reason == "" || p.Kind == "" {
			t.Errorf("pair %d/%d lacks kind or reason", p.A.ID, p.B.ID)
		}
	}
	want := [][2]int64{{id(0), id(1)}, {id(4), id(5)}}
	if diff := cmp.Diff(want, pairs); diff != "" {
		t.Fatalf("pairs (-want +got):\n%s", diff)
	}

	if err := e.DismissContradiction(ctx, id(1), id(0)); err != nil {
		t.Fatal(err)
	}
	got, _ = e.Contradictions(ctx, ContradictionsRequest{})
	if len(got.Pairs) != 1 || got.Pairs[0].A.ID != id(4) {
		t.Errorf("after dismissing, pairs = %+v, want only %d/%d", got.Pairs, id(4), id(5))
	}
	if err := e.DismissContradiction(ctx, id(0), 9999); err == nil {
		t.Error("dismissing a pair with a missing fact succeeded")
	}

	adm, err := e.Admin(ctx, AdminRequest{Action: "contradictions"})
	if err != nil {
		t.Fatal(err)
	}
	if adm.OK || adm.Counts["pairs"] != 1 {
		t.Errorf("admin contradictions = %+v, want one pair reported", adm)
	}
}

func TestKBAddReportsConflicts(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	py := add(t, e, RememberRequest{Text: "CI uses Python 3.11"}).FactID
	alice := add(t, e, RememberRequest{Text: "Alice lives in Berlin"}).FactID
	dir := t.TempDir()
	doc := "# Build notes\n\nThe build is quick. CI uses Python 3.12.\n\nAlice lives in Berlin.\nBob likes tea.\n"
	path := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Fact int64
		Kind string
		Line int
	}
	var got []seen
	for _, c := range res.Conflicts {
		got = append(got, seen{c.FactID, c.Kind, c.LineStart})
		if c.Path != path || c.Sentence == "" || c.FactText == "" {
			t.Errorf("conflict %+v lacks where it is or what it disagrees with", c)
		}
	}
	want := []seen{{py, ConflictContradicts, 3}, {alice, ConflictRestates, 5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conflicts (-want +got):\n%s", diff)
	}
	// Importing the same file again changes nothing and reports nothing.
	again, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Conflicts) != 0 {
		t.Errorf("an unchanged re-import reported %d conflicts", len(again.Conflicts))
	}
}

func TestSentences(t *testing.T) {
	got := sentences("第一句。第二句！\nThe end. Version 3.12 stays\nlast")
	want := []sentence{{"第一句。", 0}, {"第二句！", 0}, {"The end.", 1}, {"Version 3.12 stays", 1}, {"last", 2}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(sentence{})); diff != "" {
		t.Errorf("sentences (-want +got):\n%s", diff)
	}
}

// TestHygieneSoak is an agent's day: thousands of remember and recall calls in which facts
// are restated (same text, other case or width, other wording) and changed (a new value for
// the same subject). The store must stay free of exact duplicates and every change must be
// reported as a contradiction of the value it replaced, at write time and by the full pass.
func TestHygieneSoak(t *testing.T) {
	rounds := 3000
	if testing.Short() {
		rounds = 300
	}
	ctx := context.Background()
	e := openTestEngine(t)
	rng := rand.New(rand.NewPCG(7, 11))
	cities := []string{"Berlin", "Paris", "Lisbon", "Oslo", "Tokyo", "Lima"}
	current := map[int]int64{} // person -> the active fact saying where they live
	missed, reported, calls := 0, 0, 0
	for i := range rounds {
		person := rng.IntN(rounds/10 + 1)
		city := cities[rng.IntN(len(cities))]
		text := fmt.Sprintf("Person%d lives in %s", person, city)
		switch rng.IntN(4) {
		case 0: // a restatement in other case and width
			text = fmt.Sprintf("ＰＥＲＳＯＮ%d LIVES IN %s", person, city)
		case 1:
			if _, err := e.Recall(ctx, RecallRequest{Query: fmt.Sprintf("where does Person%d live", person)}); err != nil {
				t.Fatalf("round %d recall: %v", i, err)
			}
			calls++
			continue
		}
		res := add(t, e, RememberRequest{Text: text})
		calls++
		prev, known := current[person]
		switch {
		case res.Status == StatusDuplicate:
			if known && res.FactID != prev {
				t.Fatalf("round %d: %q duplicate of %d, but the active fact is %d", i, text, res.FactID, prev)
			}
		case known:
			if slices.Contains(contradictionIDs(res.Contradicts), prev) {
				reported++
			} else {
				missed++
				t.Errorf("round %d: %q did not report contradicting fact %d", i, text, prev)
			}
			// The agent resolves it the way the MCP tool describes: same text, supersedes.
			again := add(t, e, RememberRequest{Text: text, Supersedes: prev})
			if again.Status != StatusDuplicate || again.FactID != res.FactID {
				t.Fatalf("round %d: resolving = %+v, want duplicate of %d", i, again, res.FactID)
			}
			current[person] = res.FactID
		default:
			current[person] = res.FactID
		}
	}
	// No two active facts of a space normalize to the same text.
	all, err := e.List(ctx, ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]int64{}
	for _, f := range all.Facts {
		h := contentHash(f.Text)
		if other, dup := hashes[h]; dup {
			t.Errorf("facts %d and %d are exact duplicates: %q", other, f.ID, f.Text)
		}
		hashes[h] = f.ID
	}
	if len(all.Facts) != len(current) {
		t.Errorf("%d active facts, want one per person (%d)", len(all.Facts), len(current))
	}
	if c, _ := e.Contradictions(ctx, ContradictionsRequest{}); len(c.Pairs) != 0 {
		t.Errorf("after resolving every change, the full pass still reports %d pairs", len(c.Pairs))
	}
	t.Logf("%d calls, %d changes reported at write time, %d missed, %d people with one active fact each",
		calls, reported, missed, len(current))
	if reported == 0 {
		t.Fatal("the loop never changed a value: the test checked nothing")
	}
}

func TestTripleSweep(t *testing.T) {
	ctx := context.Background()
	e := openEntityEngine(t) // the sweep loads the extractor: share the one loaded
	a := add(t, e, RememberRequest{Text: "Alice lives in Berlin"}).FactID
	add(t, e, RememberRequest{Text: "Alice lives in Paris"})
	// A fact written before statements existed (or by older rules) is stamped pending.
	if err := e.st.SetTriples(ctx, a, "Alice lives in Berlin", store.Triples{Version: 0}); err != nil {
		t.Fatal(err)
	}
	if c, _ := e.Contradictions(ctx, ContradictionsRequest{}); len(c.Pairs) != 0 {
		t.Fatalf("a fact without statements was paired: %+v", c.Pairs)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "entities-sweep", All: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts["triples_rebuilt"] != 1 || res.Counts["triples_deferred"] != 0 {
		t.Errorf("sweep counts = %v, want one fact's statements rebuilt", res.Counts)
	}
	if c, _ := e.Contradictions(ctx, ContradictionsRequest{}); len(c.Pairs) != 1 {
		t.Errorf("after the sweep, pairs = %+v, want Berlin/Paris", c.Pairs)
	}
}

func TestEntitiesSweepLoadsNothingWhenNothingIsStale(t *testing.T) {
	e := openTestEngine(t)
	res, err := e.Admin(context.Background(), AdminRequest{Action: "entities-sweep", All: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || e.ents.Load() != nil {
		t.Errorf("sweep of an empty store = %+v, extractor loaded %v; want ok without loading it", res, e.ents.Load() != nil)
	}
}

// TestTheExtractorLoadsOnlyForMemoriesToName: a process whose memories all have their names
// (written by another) searches without loading the entity extractor, 125 MB of heap; the
// first memory it writes itself is stored pending, and the sweep that follows loads the
// extractor and names it.
func TestTheExtractorLoadsOnlyForMemoriesToName(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memdesk.db")
	writer, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.LoadEntities(ctx); err != nil {
		t.Fatal(err)
	}
	remember(t, writer, "", "老王喜欢简约风格")
	writer.Close()

	e, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.catchUp(ctx); err != nil { // what Run does first
		t.Fatal(err)
	}
	if _, err := e.Recall(ctx, RecallRequest{Query: "老王"}); err != nil {
		t.Fatal(err)
	}
	if e.ents.Load() != nil {
		t.Fatal("the extractor was loaded with every memory named and only a search made")
	}

	runInBackground(t, e)
	remember(t, e, "", "小李下周去杭州出差")
	waitFor(t, "the new memory named by a sweep that loaded the extractor", func() bool {
		_, stale, err := e.st.StaleEntities(ctx, entity.RulesVersion, 0)
		return err == nil && stale == 0 && e.ents.Load() != nil
	})
	res, err := e.Recall(ctx, RecallRequest{Query: "杭州"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Legs.Entity == 0 {
		t.Errorf("recall 杭州 after the sweep = %+v, %v; want the new memory with an entity score", res.Hits, err)
	}
}
