package ui

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/probes"
	"github.com/memdesk/memdesk/internal/simembed"
	"github.com/memdesk/memdesk/modelboot"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// The store of the tests below: a question, a fact that answers it by meaning alone (no
// word in common), and facts its words find.
const (
	financeQuestion = "when is the finance meeting now"
	budgetFact      = "Quarterly budget review moved to Thursday"
	financeRoom     = "the finance meeting is in room four"
	meetingNotes    = "meeting notes from the finance team"
	lunchFact       = "lunch is at noon in the canteen"
	// lunchQuery finds the lunch fact by words; the model finds the budget fact for it only
	// by chance (TestTypingAgainCancelsTheMeaningAnswer checks that it does not).
	lunchQuery = "lunch noon"
)

// heldModel is a strong simulated embedding model (internal/simembed) served over Ollama's
// wire format (ollamatest) that holds back its answer for one query text until released: a
// model slower than the window, without a clock in the test.
type heldModel struct {
	mu      sync.Mutex
	held    string        // a text holding this is kept back; "" holds none
	release chan struct{} // closed to let it through
	waiting int           // embeddings of the held text waiting now
}

// hold keeps back every embedding of a text containing text until let is called.
func (m *heldModel) hold(text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held, m.release = text, make(chan struct{})
}

// let releases what hold kept back, and holds nothing more.
func (m *heldModel) let() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.release != nil {
		close(m.release)
	}
	m.held, m.release = "", nil
}

func (m *heldModel) waitingNow() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.waiting
}

// wait blocks an embedding of text while it is held.
func (m *heldModel) wait(text string) {
	m.mu.Lock()
	release := m.release
	if m.held == "" || !strings.Contains(text, m.held) {
		m.mu.Unlock()
		return
	}
	m.waiting++
	m.mu.Unlock()
	<-release
	m.mu.Lock()
	m.waiting--
	m.mu.Unlock()
}

// meaningEngine opens an engine whose semantic leg is ready on a held model that knows the
// budget fact answers the finance question, writes the store's facts and embeds them, all
// before the window starts (so its live view sees no write of the test's own).
func meaningEngine(t *testing.T) (*engine.Engine, *heldModel, map[string]int64) {
	t.Helper()
	sim := simembed.New(simembed.Config{Dims: 64, Quality: 0.9, Baseline: 0.3})
	for _, p := range probes.Paraphrases() {
		sim.AddParaphrase(p[0], p[1]) // what the engine measures the model with
	}
	sim.AddParaphrase(budgetFact, financeQuestion)
	held := &heldModel{}
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "sim", Dims: 64, ContextLength: 8192, Pooling: "mean",
		Embed: func(text string) []float32 { held.wait(text); return sim.Embed(text) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	t.Cleanup(held.let) // before the server closes: it waits for the requests it holds
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
	deadline := time.After(time.Minute)
	for boot.State().Phase != modelboot.PhaseReady {
		select {
		case <-states:
		case <-deadline:
			t.Fatalf("simulated model not ready after a minute: %v", boot.State())
		}
	}
	eng, err := engine.Open(ctx, filepath.Join(t.TempDir(), "m.db"), engine.Options{
		Embedder: modelboot.Retrieval{Boot: boot}, SemanticState: func() string { return boot.State().String() }})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	ids := map[string]int64{}
	for _, text := range []string{budgetFact, financeRoom, meetingNotes, lunchFact} {
		res, err := eng.Remember(ctx, engine.RememberRequest{Text: text})
		if err != nil {
			t.Fatalf("remember %q: %v", text, err)
		}
		ids[text] = res.FactID
	}
	// Embedded and measured before the window opens: the model is what the test holds, not
	// the store's catch-up.
	if rep, err := eng.EmbedPending(ctx, 0); err != nil || rep.Remaining != 0 {
		t.Fatalf("EmbedPending = %+v, %v; want every fact embedded", rep, err)
	}
	return eng, held, ids
}

// fullRecalls records the full recalls (those that ask the model) the window makes: how
// many have returned, and the queries of those that ended cancelled.
type fullRecalls struct {
	Backend
	mu        sync.Mutex
	returned  int
	cancelled []string
}

func (b *fullRecalls) Recall(ctx context.Context, req engine.RecallRequest) (engine.RecallResult, error) {
	res, err := b.Backend.Recall(ctx, req)
	if !req.SkipMeaning {
		b.mu.Lock()
		b.returned++
		if ctx.Err() != nil {
			b.cancelled = append(b.cancelled, req.Query)
		}
		b.mu.Unlock()
	}
	return res, err
}

func (b *fullRecalls) state() (returned int, cancelled []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.returned, slices.Clone(b.cancelled)
}

// listed is the text of each row the list widget holds, in order.
func listed(l *hitList) []string {
	rows := make([]string, len(l.results.Objects))
	for i, o := range l.results.Objects {
		rows[i] = strings.ReplaceAll(texts(o), "\n", "")
	}
	return rows
}

// rowOf is the index of the row that shows text, -1 when none does.
func rowOf(rows []string, text string) int {
	return slices.IndexFunc(rows, func(row string) bool { return strings.Contains(row, text) })
}

// meaningScreen is a list the tests type into: the recall screen's or the quick window's.
type meaningScreen struct {
	list    *hitList
	typeIn  func(text string)
	settled func() bool // the screen shows the answer to what was typed last, all of it
}

func meaningScreens(h *harness) map[string]func() meaningScreen {
	return map[string]func() meaningScreen{
		"window": func() meaningScreen {
			r := h.u.recall
			return meaningScreen{list: &r.hitList, typeIn: func(text string) { r.query.SetText(""); test.Type(r.query, text) },
				settled: r.search.settled}
		},
		"quick": func() meaningScreen {
			q := h.quickUp()
			return meaningScreen{list: &q.hitList, typeIn: func(text string) { q.query.SetText(""); test.Type(q.query, text) },
				settled: q.search.settled}
		},
	}
}

// TestMeaningIsMergedWithoutMovingTheRows: with the model slower than the window, the hits
// found by words show while the model has not answered; when it answers, the fact found by
// meaning alone is added below them, and the rows shown before (and the highlight) stay
// where they were.
func TestMeaningIsMergedWithoutMovingTheRows(t *testing.T) {
	for _, name := range []string{"window", "quick"} {
		t.Run(name, func(t *testing.T) {
			eng, held, _ := meaningEngine(t)
			calls := &fullRecalls{}
			h := newHarnessOn(t, eng, Options{}, func(e *engine.Engine) Backend { calls.Backend = e; return calls }).start()
			s := meaningScreens(h)[name]()

			held.hold(financeQuestion)
			s.typeIn(financeQuestion)
			h.waitFor("the hits found by words", func() bool {
				rows := listed(s.list)
				return rowOf(rows, financeRoom) >= 0 && rowOf(rows, meetingNotes) >= 0
			})
			if returned, _ := calls.state(); returned != 0 {
				t.Fatalf("the hits by words showed after %d full recalls returned, want before any (the model is held)", returned)
			}
			before := listed(s.list)
			if rowOf(before, budgetFact) >= 0 {
				t.Fatalf("the fact found by meaning alone shows before the model answered: %q", before)
			}
			h.waitFor("the model to be asked for the query", func() bool { return held.waitingNow() > 0 })
			s.list.selectHit(1) // the person is reading the second hit
			shownRows := slices.Clone(s.list.cards)

			held.let()
			h.waitFor("the fact found by meaning", func() bool { return rowOf(listed(s.list), budgetFact) >= 0 })
			after := listed(s.list)
			if !slices.Equal(after[:len(before)], before) {
				t.Errorf("rows after the model answered:\n%q\nwant the rows shown before, in place:\n%q", after, before)
			}
			if at := rowOf(after, budgetFact); at < len(before) {
				t.Errorf("the fact found by meaning is row %d, want below the %d rows shown before: %q", at, len(before), after)
			}
			for i, row := range shownRows {
				if s.list.cards[i] != row {
					t.Errorf("row %d was made again, want the row shown before kept", i)
				}
			}
			if s.list.selected != 1 {
				t.Errorf("highlight on row %d after the merge, want it left on row 1", s.list.selected)
			}
			// The model leads for this question: the full answer ranks the fact first, and
			// the merge puts it below what the person was reading.
			hit := s.list.cards[rowOf(after, budgetFact)].hit
			if hit.Legs.FTS != 0 || hit.Legs.Entity != 0 || hit.Legs.Semantic <= 0 || !strings.HasPrefix(hit.Why, "semantic") {
				t.Errorf("the merged hit has legs %+v, why %q; want it found by meaning alone, and saying so", hit.Legs, hit.Why)
			}
		})
	}
}

// TestTypingAgainCancelsTheMeaningAnswer: a query typed while the model still embeds the one
// before cancels that wait, and the old query's answer by meaning never shows in the new
// query's list.
func TestTypingAgainCancelsTheMeaningAnswer(t *testing.T) {
	for _, name := range []string{"window", "quick"} {
		t.Run(name, func(t *testing.T) {
			eng, held, _ := meaningEngine(t)
			// The new query's own answer must not hold the fact, or its showing would prove
			// nothing about the old answer.
			if res, err := eng.Recall(context.Background(), engine.RecallRequest{Query: lunchQuery}); err != nil {
				t.Fatal(err)
			} else if slices.ContainsFunc(res.Hits, func(h engine.Hit) bool { return h.Text == budgetFact }) {
				t.Fatalf("the full answer to %q holds %q: choose another query for this test", lunchQuery, budgetFact)
			}
			calls := &fullRecalls{}
			h := newHarnessOn(t, eng, Options{}, func(e *engine.Engine) Backend { calls.Backend = e; return calls }).start()
			s := meaningScreens(h)[name]()

			held.hold(financeQuestion)
			s.typeIn(financeQuestion)
			h.waitFor("the hits found by words and the model asked", func() bool {
				return rowOf(listed(s.list), financeRoom) >= 0 && held.waitingNow() > 0
			})
			s.typeIn(lunchQuery)
			h.waitFor("the new query's answers and the old wait cancelled", func() bool {
				_, cancelled := calls.state()
				return rowOf(listed(s.list), lunchFact) >= 0 && slices.Contains(cancelled, financeQuestion) &&
					s.settled()
			})
			held.let() // had the old wait not been cancelled, its answer would come now
			h.waitFor("the new query's answers", s.settled)
			if rows := listed(s.list); rowOf(rows, budgetFact) >= 0 {
				t.Errorf("the old query's answer by meaning shows in the new query's list: %q", rows)
			}
		})
	}
}

func TestMergeByMeaning(t *testing.T) {
	mem := func(id int64) engine.Hit { return engine.Hit{Source: engine.SourceMemory, ID: id} }
	doc := func(id int64) engine.Hit { return engine.Hit{Source: engine.SourceKnowledge, ID: id} }
	tests := []struct {
		name        string
		shown, full []engine.Hit
		want, added []engine.Hit
	}{
		{"the model adds nothing", []engine.Hit{mem(1), mem(2)}, []engine.Hit{mem(1), mem(2)}, []engine.Hit{mem(1), mem(2)}, nil},
		{"a hit by meaning ranked first goes below", []engine.Hit{mem(1), mem(2)}, []engine.Hit{mem(3), mem(2), mem(1)},
			[]engine.Hit{mem(1), mem(2), mem(3)}, []engine.Hit{mem(3)}},
		{"a shown hit the full answer drops stays", []engine.Hit{mem(1), mem(2)}, []engine.Hit{mem(3), mem(1)},
			[]engine.Hit{mem(1), mem(2), mem(3)}, []engine.Hit{mem(3)}},
		{"a memory and a chunk of one id are two hits", []engine.Hit{mem(1)}, []engine.Hit{doc(1), mem(1), doc(2)},
			[]engine.Hit{mem(1), doc(1), doc(2)}, []engine.Hit{doc(1), doc(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := engine.RecallResult{Query: "q", Hits: tt.full, Relaxed: true, Filtered: 2}
			got, added := mergeByMeaning(engine.RecallResult{Query: "q", Hits: tt.shown}, full)
			keys := func(hits []engine.Hit) []hitKey {
				var out []hitKey
				for _, h := range hits {
					out = append(out, keyOf(h))
				}
				return out
			}
			if !slices.Equal(keys(got.Hits), keys(tt.want)) || !slices.Equal(keys(added), keys(tt.added)) {
				t.Errorf("merged %v, added %v; want %v, added %v", got.Hits, added, tt.want, tt.added)
			}
			if !got.Relaxed || got.Filtered != 2 {
				t.Errorf("merged relaxed %v, filtered %d; want the full answer's (true, 2)", got.Relaxed, got.Filtered)
			}
		})
	}
}
