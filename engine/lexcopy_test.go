package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memdesk/memdesk/store"
)

// TestOneShotStartsFromTheSavedOwnerTables: a process that loaded a large store's word index
// whole saves its owner tables as it closes, and the next process answers from them (and
// the writes made between the two) what a whole load answers.
func TestOneShotStartsFromTheSavedOwnerTables(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	e, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	facts := make([]store.NewFact, 12_000) // past lexicon's copyMinOwners
	for i := range facts {
		text := fmt.Sprintf("note %d about the %s project and its %s", i, []string{"alpha", "beta", "gamma"}[i%3], []string{"budget", "deadline", "review"}[i%7%3])
		facts[i] = store.NewFact{Content: text, Hash: text}
	}
	if _, _, err := e.st.AddFacts(ctx, "default", facts); err != nil {
		t.Fatal(err)
	}
	ask := func(e *Engine, q string) []string {
		t.Helper()
		res, err := e.Recall(ctx, RecallRequest{Query: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, fmt.Sprint(h.Source, h.ID, h.Score))
		}
		return out
	}
	ask(e, "alpha budget")
	if body, _ := e.st.LexiconCopy(ctx); body != nil {
		t.Fatal("a copy was saved before the process closed: a recall must not wait for it")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if body, err := e.st.LexiconCopy(ctx); err != nil || body == nil {
		t.Fatalf("no owner tables saved by the process that loaded them: %v", err)
	}
	if _, _, err := e.st.AddFacts(ctx, "default", []store.NewFact{{Content: "the alpha budget was approved on monday", Hash: "new"}}); err != nil {
		t.Fatal(err)
	}
	queries := []string{"alpha budget", "approved monday", "note 11999 gamma"}
	var got [][]string
	for _, q := range queries {
		got = append(got, ask(e, q))
	}
	// The same store loaded whole: its copy made unusable first.
	if err := e.st.SetLexiconCopy(ctx, []byte("not a copy")); err != nil {
		t.Fatal(err)
	}
	whole, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	for i, q := range queries {
		want := ask(whole, q)
		if len(want) == 0 || !slices.Equal(got[i], want) {
			t.Errorf("%q from the saved tables: %v; loaded whole: %v", q, got[i], want)
		}
	}
}
