package ui

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// otherProgram opens a second engine on the harness's database file: what the CLI or the
// MCP server is to the window.
func (h *harness) otherProgram() *engine.Engine {
	h.t.Helper()
	e, err := engine.Open(context.Background(), h.eng.Path(), engine.Options{})
	if err != nil {
		h.t.Fatalf("open a second engine on %s: %v", h.eng.Path(), err)
	}
	h.t.Cleanup(func() { e.Close() })
	return e
}

// TestLiveRefreshKeepsScrollAndSelection: a memory another program writes appears in the
// open Memories list, the status bar counts it, and the person reading further down stays
// on the same rows with the same memory selected.
func TestLiveRefreshKeepsScrollAndSelection(t *testing.T) {
	h := newHarness(t, Options{ChangePoll: 20 * time.Millisecond}, nil)
	const n = 40
	for i := range n {
		h.remember(fmt.Sprintf("memory number %d about the garden", i), "")
	}
	h.start()
	h.u.win.Resize(fyne.NewSize(980, 700))
	h.u.showScreen(screenMemories)
	m := h.u.memories
	h.waitFor("the list", func() bool { return m.pages.length == n })

	var selectedRow widget.ListItemID = -1
	onSelected := m.list.OnSelected
	m.list.OnSelected = func(id widget.ListItemID) { selectedRow = id; onSelected(id) }
	const pick = 12
	m.list.Select(pick)
	picked, _ := m.pages.row(pick)
	stride := m.stride()
	m.list.ScrollToOffset(10 * stride)
	before := m.list.GetScrollOffset()
	if before == 0 {
		t.Fatal("the list did not scroll; the test needs it scrolled to mean anything")
	}
	top, _ := m.pages.row(int(before / stride))

	other := h.otherProgram()
	res, err := other.Remember(context.Background(), engine.RememberRequest{Text: "the CLI wrote this while the window was open"})
	if err != nil {
		t.Fatalf("remember in the other program: %v", err)
	}
	h.waitFor("the other program's memory in the list", func() bool {
		f, ok := m.pages.row(0)
		return m.pages.length == n+1 && ok && f.ID == res.FactID
	})
	h.waitFor("the status bar count", func() bool { return h.u.status.counts.Text == countsLine(engine.Stats{FactsActive: n + 1}) })

	if m.selected != picked.ID || selectedRow != pick+1 {
		t.Errorf("selected memory #%d at row %d, want #%d, now at row %d", m.selected, selectedRow, picked.ID, pick+1)
	}
	after := m.list.GetScrollOffset()
	if got, _ := m.pages.row(int(after / stride)); got.ID != top.ID {
		t.Errorf("row at the top of the view is #%d (offset %v -> %v), want #%d as before the refresh", got.ID, before, after, top.ID)
	}
}

// TestLiveRefreshRerunsTheShownRecall: the result list answers the shown query again, and
// the highlighted hit stays highlighted, and previewed with its details open.
func TestLiveRefreshRerunsTheShownRecall(t *testing.T) {
	h := newHarness(t, Options{ChangePoll: 20 * time.Millisecond}, nil)
	h.remember("the garden gate is green", "")
	h.start()
	r := h.u.recall
	r.query.SetText("garden")
	r.search.now()
	h.waitFor("one hit", func() bool { return len(r.cards) == 1 })
	r.selectHit(0)
	r.previewFold.Open(0)
	kept := keyOf(r.cards[0].hit)

	if _, err := h.otherProgram().Remember(context.Background(), engine.RememberRequest{Text: "the garden shed is red"}); err != nil {
		t.Fatalf("remember in the other program: %v", err)
	}
	h.waitFor("the other program's memory among the hits", func() bool { return len(r.cards) == 2 })
	if r.selected < 0 || keyOf(r.cards[r.selected].hit) != kept {
		t.Fatalf("highlight on %d after the refresh, want it still on %+v", r.selected, kept)
	}
	if r.previewed != kept || r.previewFold == nil || !r.previewFold.Items[0].Open {
		t.Errorf("the preview shows %+v with details open = %v after the refresh, want %+v with them open",
			r.previewed, r.previewFold != nil && r.previewFold.Items[0].Open, kept)
	}
}

// slowReads is the engine with every read the live view repeats taking delay longer: a
// 100k-memory store read while another program's entity sweep keeps the disk and both cores
// busy, where a list took longer than the live view's gap.
type slowReads struct {
	*engine.Engine
	delay time.Duration
}

func (s slowReads) wait(ctx context.Context) {
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func (s slowReads) Recall(ctx context.Context, req engine.RecallRequest) (engine.RecallResult, error) {
	s.wait(ctx)
	return s.Engine.Recall(ctx, req)
}

func (s slowReads) List(ctx context.Context, req engine.ListRequest) (engine.ListResult, error) {
	s.wait(ctx)
	return s.Engine.List(ctx, req)
}

func (s slowReads) Stats(ctx context.Context) (engine.Stats, error) {
	s.wait(ctx)
	return s.Engine.Stats(ctx)
}

func (s slowReads) KBList(ctx context.Context, space string) (engine.KBListResult, error) {
	s.wait(ctx)
	return s.Engine.KBList(ctx, space)
}

// TestLiveViewFollowsWritesDuringASweep (issue 27, item 4): while another program commits
// without pause, as an entity sweep over a bulk import does for minutes, and every read the
// window repeats takes longer than the live view's gap, a memory another program writes still
// reaches the list, the counts and the shown recall, and a search typed meanwhile is
// answered. Each live refresh used to supersede the reads in flight, so none ever landed: the
// window stayed on "Searching…" and showed no new memory until the sweep ended.
func TestLiveViewFollowsWritesDuringASweep(t *testing.T) {
	const delay = 400 * time.Millisecond
	h := newHarness(t, Options{ChangePoll: 10 * time.Millisecond}, func(e *engine.Engine) Backend {
		return slowReads{Engine: e, delay: delay}
	})
	h.remember("the garden gate is green", "")
	h.start()
	h.u.live.gap = delay / 20
	m, r := h.u.memories, h.u.recall
	h.u.showScreen(screenMemories)
	m.space.SetText("default")
	m.filtering.flush(m.reload)
	h.waitFor("the default space's one memory", func() bool { return m.pages.length == 1 })

	// The other program's stream of commits, in a space of its own so the list under test
	// stays two rows long.
	other := h.otherProgram()
	ctx, stop := context.WithCancel(context.Background())
	var streamed atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if _, err := other.Remember(ctx, engine.RememberRequest{Text: fmt.Sprintf("sweep row %d", streamed.Load()), Space: "sweep"}); err == nil {
				streamed.Add(1)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { stop(); <-done }) // before the harness closes the engines
	h.waitFor("the live view to start refreshing", func() bool { return h.u.live.refreshes >= 3 })

	r.query.SetText("bicycle")
	r.search.now()
	res, err := other.Remember(context.Background(), engine.RememberRequest{Text: "the bicycle pump is in the shed"})
	if err != nil {
		t.Fatalf("remember in the other program: %v", err)
	}
	st, err := other.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	atTarget := streamed.Load()

	h.waitFor("the other program's memory in the list", func() bool {
		f, ok := m.pages.row(0)
		return m.pages.length == 2 && ok && f.ID == res.FactID
	})
	h.waitFor("the typed search answered with the other program's memory", func() bool {
		return len(r.cards) == 1 && r.cards[0].hit.ID == res.FactID && shown(r.cards[0].content)
	})
	h.waitFor("the counts to include it", func() bool {
		var n int
		_, err := fmt.Sscanf(h.u.status.counts.Text, "%d", &n)
		return err == nil && n >= st.FactsActive
	})
	if n := streamed.Load() - atTarget; n < 2 {
		t.Errorf("the other program committed %d times while the window caught up; the test needs the changes to keep coming to mean anything", n)
	}
}

// TestLiveRefreshWaitsForTheWindowsOwnImport: while the window imports, the changes it
// makes itself (and any others) are not refreshed one by one; one refresh runs when it ends.
func TestLiveRefreshWaitsForTheWindowsOwnImport(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	l := h.u.live
	importing := true
	ran := 0
	l.busy = func() bool { return importing }
	l.refresh = func() { ran++ }
	for range 5 {
		l.changed()
	}
	if ran != 0 || !l.pending {
		t.Fatalf("during the import: %d refreshes, pending %v; want none run and one owed", ran, l.pending)
	}
	importing = false
	h.u.dataChanged() // what the knowledge screen calls when the import ends
	if ran != 1 || l.pending {
		t.Errorf("after the import: %d refreshes, pending %v; want exactly one run and none owed", ran, l.pending)
	}
	// Changes that keep coming after it wait for the gap and fold into one.
	for range 5 {
		l.changed()
	}
	if ran != 1 || !l.pending {
		t.Errorf("within the gap: %d refreshes, pending %v; want still one, and one owed", ran, l.pending)
	}
	h.waitFor("the owed refresh at the end of the gap", func() bool { return ran == 2 })
}

// TestBadgePassIsPaced: while changes keep coming, the full contradiction pass waits for
// checkPace times its last duration, and the changes meanwhile fold into one waiting pass.
func TestBadgePassIsPaced(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	m := h.u.memories
	m.checked, m.checkTook = time.Now(), time.Hour // as if a pass just took an hour
	for range 3 {
		m.reloadConflictsPaced()
	}
	if m.checking || !m.checkDue {
		t.Errorf("checking %v, due %v right after a slow pass; want no pass yet and one due", m.checking, m.checkDue)
	}
	m.checkDue = false
	m.checked, m.checkTook = time.Now().Add(-time.Minute), time.Millisecond // a quick pass, long ago
	m.reloadConflictsPaced()
	if !m.checking {
		t.Error("a change long after a quick pass did not start one at once")
	}
	h.waitFor("the pass to end", func() bool { return !m.checking })
}

// TestLiveRefreshBadgesAContradiction: a memory another program writes that contradicts one
// in the window badges both rows, and the status bar counts it.
func TestLiveRefreshBadgesAContradiction(t *testing.T) {
	h := newHarness(t, Options{ChangePoll: 20 * time.Millisecond}, nil)
	mine := h.remember("CI uses Python 3.12", "")
	h.start()
	h.u.showScreen(screenMemories)
	m := h.u.memories
	h.waitFor("the list", func() bool { return m.pages.length == 1 })
	res, err := h.otherProgram().Remember(context.Background(), engine.RememberRequest{Text: "CI uses Python 3.11"})
	if err != nil {
		t.Fatalf("remember in the other program: %v", err)
	}
	h.waitFor("both rows badged", func() bool { return len(m.conflicts[mine]) == 1 && len(m.conflicts[res.FactID]) == 1 })
	h.waitFor("the status bar count", func() bool { return h.u.status.counts.Text == countsLine(engine.Stats{FactsActive: 2}) })
}
