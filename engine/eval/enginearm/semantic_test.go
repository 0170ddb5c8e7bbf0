package enginearm

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/probes"
	"github.com/memdesk/memdesk/internal/simembed"
	"github.com/memdesk/memdesk/modelboot"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// simulatedModel serves a simulated embedding model of the given quality over Ollama's wire
// format (ollamatest), knowing ds's relevance and the engine's paraphrase probes, and returns
// the engine options that reach it through modelboot, as production does.
func simulatedModel(t *testing.T, ds *eval.Dataset, quality float64) engine.Options {
	t.Helper()
	m := simembed.New(simembed.Config{Dims: 256, Quality: quality, Baseline: 0.3})
	for _, p := range probes.Paraphrases() {
		m.AddParaphrase(p[0], p[1])
	}
	for _, d := range ds.Docs {
		m.AddDocument(d.ID, d.Text)
	}
	for _, q := range ds.Queries {
		rel := map[string]float64{}
		for id, relevant := range ds.Relevant[q.ID] {
			if relevant {
				rel[id] = 1
			}
		}
		if len(rel) > 0 {
			m.AddQuery(q.Text, rel)
		}
	}
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "sim", Dims: 256, ContextLength: 8192, Pooling: "mean", Embed: m.Embed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	boot, err := modelboot.New(modelboot.Settings{Host: srv.Host(), Model: "sim", MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 50 * time.Millisecond, HealthInterval: time.Hour}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- boot.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	states, unsubscribe := boot.Subscribe()
	defer unsubscribe()
	deadline := time.After(2 * time.Minute)
	for boot.State().Phase != modelboot.PhaseReady {
		select {
		case <-states:
		case <-deadline:
			t.Fatalf("simulated model not ready after 2 minutes: %v", boot.State())
		}
	}
	return engine.Options{Embedder: modelboot.Retrieval{Boot: boot}, SemanticState: func() string { return boot.State().String() }}
}

// semanticArm loads ds into a fresh engine with the entity leg (and with opts' embedder, if any, every text
// embedded before the first query) and runs its queries; meaningOnly asks the model alone.
func semanticArm(t *testing.T, ds *eval.Dataset, scope eval.Scope, opts engine.Options, meaningOnly bool) eval.Metrics {
	t.Helper()
	ctx := context.Background()
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	opts.Entities = x
	e, err := engine.Open(ctx, filepath.Join(t.TempDir(), "eval.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r, _, err := Load(ctx, e, ds.Docs, LoadOptions{As: AsMemory, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Embedder != nil {
		for {
			rep, err := e.EmbedPending(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Remaining == 0 {
				break
			}
			if rep.Embedded+rep.Zero == 0 {
				t.Fatalf("embedding stalled with %d texts left", rep.Remaining)
			}
		}
	}
	r.MeaningOnly = meaningOnly
	arm, err := eval.Run(ctx, ds, r, eval.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return arm.Metrics
}

// sample cuts ds to its first n answerable queries and the documents they need: under
// ScopePrefix every document of their spaces, otherwise their relevant documents and the
// first others of the corpus up to docs in all, so a subsample still holds distractors.
func sample(ds *eval.Dataset, n, docs int, scope eval.Scope) *eval.Dataset {
	out := &eval.Dataset{Name: ds.Name, Relevant: map[string]eval.Relevance{}}
	spaces := map[string]bool{}
	need := map[string]bool{}
	for _, q := range ds.Queries {
		if len(out.Queries) == n {
			break
		}
		if !ds.Related(q.ID) {
			continue
		}
		out.Queries = append(out.Queries, q)
		out.Relevant[q.ID] = ds.Relevant[q.ID]
		spaces[scope.SpaceOf(q.ID)] = true
		for id := range ds.Relevant[q.ID] {
			need[id] = true
		}
	}
	for _, d := range ds.Docs {
		switch {
		case scope == eval.ScopePrefix && spaces[scope.SpaceOf(d.ID)],
			scope != eval.ScopePrefix && (need[d.ID] || len(out.Docs) < docs-len(need)):
			out.Docs = append(out.Docs, d)
		}
	}
	return out
}

// TestSemanticLegEarnsItsPlace holds the three legs against two legs and against the model
// alone, with simulated models of known quality (issue 14): a strong model must lift the
// fusion to at least the better of the two, a weak one and noise must never cost the other
// legs anything, and unrelated questions must stay unanswered. Over testdata/unrelated
// always, and over ../shared/data/dev where it is (subsampled: seconds per set).
func TestSemanticLegEarnsItsPlace(t *testing.T) {
	type set struct {
		name, dir, unrelated string
		scope                eval.Scope
		queries, docs        int
	}
	sets := []set{
		{"unrelated/en", filepath.Join("..", "..", "..", "testdata", "unrelated", "en"), filepath.Join("..", "..", "..", "testdata", "unrelated", "en", "unrelated"), eval.ScopePrefix, 1000, 0},
		{"unrelated/zh", filepath.Join("..", "..", "..", "testdata", "unrelated", "zh"), filepath.Join("..", "..", "..", "testdata", "unrelated", "zh", "unrelated"), eval.ScopePrefix, 1000, 0},
	}
	dev := filepath.Join("..", "..", "..", "..", "shared", "data", "dev")
	if _, err := os.Stat(dev); err == nil {
		sets = append(sets,
			set{"scifact", filepath.Join(dev, "scifact"), filepath.Join(dev, "longmemeval-s"), eval.ScopeNone, 60, 1500},
			set{"cmrc2018-sentences", filepath.Join(dev, "cmrc2018-sentences"), filepath.Join(dev, "madial-zh"), eval.ScopeNone, 120, 2000},
			set{"longmemeval-s", filepath.Join(dev, "longmemeval-s"), filepath.Join(dev, "scifact"), eval.ScopePrefix, 12, 0},
			set{"madial-zh", filepath.Join(dev, "madial-zh"), filepath.Join(dev, "cmrc2018-sentences"), eval.ScopePrefix, 160, 0})
	} else {
		t.Logf("no dev sets at %s: testdata/unrelated only", dev)
	}
	const tolerance = 0.005
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			full, err := eval.LoadBEIR(s.dir)
			if err != nil {
				t.Fatal(err)
			}
			ds := sample(full, s.queries, s.docs, s.scope)
			unrelated, err := eval.LoadQueries(s.unrelated)
			if err != nil {
				t.Fatal(err)
			}
			ds.AddUnrelated(unrelated[:min(len(unrelated), 40)], s.scope)
			two := semanticArm(t, ds, s.scope, engine.Options{}, false)
			t.Logf("two legs: recall@10 %.3f, nDCG@10 %.3f, unrelated empty %.3f", two.Recall10, two.NDCG10, *two.EmptyRateUnrelated)
			// The medium model is measured and logged, not held to a bar: in small Chinese
			// stores the fusion still trails it (doc/semantic.md, "Roles").
			for _, model := range []struct {
				name         string
				quality      float64
				strong, held bool
			}{{"strong", 0.9, true, true}, {"medium", 0.4, true, false}, {"weak", 0.2, false, true}, {"noise", 0, false, true}} {
				opts := simulatedModel(t, ds, model.quality)
				three := semanticArm(t, ds, s.scope, opts, false)
				t.Logf("%s model, three legs: recall@10 %.3f, nDCG@10 %.3f, unrelated empty %.3f",
					model.name, three.Recall10, three.NDCG10, *three.EmptyRateUnrelated)
				want := two.Recall10
				if model.strong {
					alone := semanticArm(t, ds, s.scope, opts, true)
					t.Logf("%s model alone: recall@10 %.3f, nDCG@10 %.3f", model.name, alone.Recall10, alone.NDCG10)
					want = max(want, alone.Recall10)
				}
				if model.held && three.Recall10 < want-tolerance {
					t.Errorf("%s model: three legs recall@10 %.3f, want at least %.3f", model.name, three.Recall10, want)
				}
				// One unrelated question more with an answer is 0.025 of 40: allowed once.
				if got, bar := *three.EmptyRateUnrelated, *two.EmptyRateUnrelated-0.026; got < bar {
					t.Errorf("%s model: unrelated questions answered with nothing %.3f, two legs %.3f",
						model.name, got, *two.EmptyRateUnrelated)
				}
			}
		})
	}
}
