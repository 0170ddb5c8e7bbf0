package ui

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
)

func TestSettingsIntegrityRepair(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("something to check", "")
	s := h.u.settings
	var r *repairRow
	for _, row := range s.repairs {
		if row.action == "integrity" {
			r = row
		}
	}
	if r == nil {
		t.Fatalf("no integrity repair among %d", len(s.repairs))
	}
	test.Tap(r.run)
	if !r.run.Disabled() || r.cancel.Disabled() {
		t.Error("while running, Run should be disabled and Cancel enabled")
	}
	h.waitFor("the result", func() bool { return r.result.Visible() })
	if !strings.HasPrefix(r.result.Text, "OK: ") {
		t.Errorf("result = %q, want OK", r.result.Text)
	}
	if r.run.Disabled() || !r.cancel.Disabled() {
		t.Error("after running, Run should be enabled and Cancel disabled")
	}
	h.waitFor("the database stats", func() bool { return strings.HasPrefix(s.stats.Text, "1 active memories") })
	if s.dbPath.Text != h.eng.Path() {
		t.Errorf("database path = %q, want %q", s.dbPath.Text, h.eng.Path())
	}
}

// halfwayAdmin reports half the work done, then waits to be cancelled.
type halfwayAdmin struct{ Backend }

func (b halfwayAdmin) Admin(ctx context.Context, req engine.AdminRequest) (engine.AdminResult, error) {
	req.Progress(1, 2)
	<-ctx.Done()
	return engine.AdminResult{}, ctx.Err()
}

func TestSettingsRepairProgressAndCancel(t *testing.T) {
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { return halfwayAdmin{e} }).start()
	r := h.u.settings.repairs[0]
	test.Tap(r.run)
	h.waitFor("the progress bar at half", func() bool { return r.bar.Visible() && r.bar.Value == 0.5 })
	test.Tap(r.cancel)
	h.waitFor("the result", func() bool { return r.result.Visible() })
	if r.result.Text != "Cancelled." {
		t.Errorf("result = %q, want Cancelled.", r.result.Text)
	}
	if r.bar.Visible() {
		t.Error("progress bar still shown after cancel")
	}
}

// fakeSemantic is a semantic state the test changes.
type fakeSemantic struct {
	mu    sync.Mutex
	state string
}

func (f *fakeSemantic) set(s string) {
	f.mu.Lock()
	f.state = s
	f.mu.Unlock()
}

func (f *fakeSemantic) SemanticState() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

func TestSemanticStateChanges(t *testing.T) {
	src := &fakeSemantic{state: "offline"}
	h := newHarness(t, Options{Semantic: src, SemanticPoll: 10 * time.Millisecond}, nil).start()
	for _, state := range []string{"offline", "pulling 42%", "warming", "ready"} {
		src.set(state)
		h.waitFor("semantic: "+state, func() bool {
			return h.u.status.semantic.Text == "semantic: "+state && h.u.settings.semantic.Text == state
		})
	}
}

func TestSemanticOffWithoutASource(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	if got := h.u.status.semantic.Text; got != "semantic: off" {
		t.Errorf("status = %q, want semantic: off", got)
	}
}

func TestPreferencesRememberScreenAndSize(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.u.showScreen(screenSettings)
	h.u.win.Resize(h.u.win.Canvas().Size().AddWidthHeight(40, 30))
	want := h.u.win.Canvas().Size()
	h.u.win.Close()

	again := newApp(h.u.fa, Options{Backend: h.eng}, h.q.post)
	defer again.Close()
	if got := again.tabs.SelectedIndex(); got != screenSettings {
		t.Errorf("screen on reopening = %d, want settings (%d)", got, screenSettings)
	}
	if got := again.win.Canvas().Size(); got != want {
		t.Errorf("size on reopening = %v, want %v", got, want)
	}
}

// TestSettingsSaysTheSemanticRole: the database section says which role the embedding
// model earned and why, in the engine's words, and says nothing of a role while there is none.
func TestSettingsSaysTheSemanticRole(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	s := h.u.settings
	// The screen's own first load lands first, so it cannot overwrite what is checked here.
	h.waitFor("the database stats", func() bool { return strings.HasPrefix(s.stats.Text, "0 active memories") })
	st := engine.Stats{FactsActive: 3, SemanticRole: "supporting",
		RoleWhy: "the model embeds only 50% of the test sentences (one of the two languages comes out empty)"}
	s.showStats(st, nil)
	if want := "Semantic leg: supporting, because the model embeds only 50%"; !strings.Contains(s.stats.Text, want) {
		t.Errorf("stats = %q, want it to say %q", s.stats.Text, want)
	}
	st.SemanticRole, st.RoleWhy = "", ""
	s.showStats(st, nil)
	if strings.Contains(s.stats.Text, "Semantic leg") {
		t.Errorf("stats = %q: no role to show, yet it names one", s.stats.Text)
	}
}

// TestRepairsSpeakThePersonsLanguage: the window runs every repair without options, so its
// descriptions name none of the CLI's flags or SQL, and every repair the engine offers shows.
func TestRepairsSpeakThePersonsLanguage(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.u.showScreen(screenSettings)
	shown := texts(h.u.settings.content)
	for _, cli := range []string{"VACUUM", "--to", "--all", "FILE", "rebuild-index", "entities-sweep", "vectors-"} {
		if strings.Contains(shown, cli) {
			t.Errorf("Settings shows the CLI's %q:\n%s", cli, shown)
		}
	}
	if got, want := len(h.u.settings.repairs), len(h.eng.AdminActions()); got != want {
		t.Errorf("%d repairs shown, want all %d the engine offers", got, want)
	}
	for _, title := range []string{"Check for damage", "Save a copy", "Rebuild search"} {
		if !strings.Contains(shown, title) {
			t.Errorf("Settings lacks the repair %q:\n%s", title, shown)
		}
	}
}

// TestRepairResultsOfferTheWindowsSteps: after a repair, what to do next is in the window's
// words (its buttons and screens), never the CLI's commands: the contradictions found are
// settled on the Memories screen, a saved copy is just kept.
func TestRepairResultsOfferTheWindowsSteps(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("CI uses Python 3.11", "")
	h.remember("CI uses Python 3.12", "")
	rows := map[string]*repairRow{}
	for _, row := range h.u.settings.repairs {
		rows[row.action] = row
	}
	for action, want := range map[string]string{
		"contradictions": "Settle each pair on the Memories screen: Keep new, Keep old or Keep both.",
		"backup":         "Keep it somewhere safe",
	} {
		r := rows[action]
		if r == nil {
			t.Fatalf("no %s repair", action)
		}
		test.Tap(r.run)
		h.waitFor("the "+action+" result", func() bool { return r.result.Visible() })
		if !strings.Contains(r.result.Text, want) {
			t.Errorf("%s result = %q, want it to say %q", action, r.result.Text, want)
		}
		for _, cli := range []string{"memdesk ", "--all", "--db", "supersede", "dismiss"} {
			if strings.Contains(r.result.Text, cli) {
				t.Errorf("%s result %q shows the CLI's %q", action, r.result.Text, cli)
			}
		}
	}
}

// TestWindowStepsWordEveryKind: each kind of next step the engine can ask for has window
// words or is deliberately left out (the CLI's verbose log).
func TestWindowStepsWordEveryKind(t *testing.T) {
	for _, tc := range []struct {
		step engine.AdminStep
		want string
	}{
		{engine.AdminStep{Kind: engine.StepRun, Action: "entities-sweep", All: true}, "Press Run again to finish."},
		{engine.AdminStep{Kind: engine.StepRun, Action: "rebuild-index"}, "Then run “Rebuild search” below."},
		{engine.AdminStep{Kind: engine.StepBackupFirst}, "First save a copy with “Save a copy”."},
		{engine.AdminStep{Kind: engine.StepWaitForModel}, "The meaning model must be ready first: see its state above."},
		{engine.AdminStep{Kind: engine.StepSeeWhy}, ""},
	} {
		if got := windowStep("entities-sweep", tc.step); got != tc.want {
			t.Errorf("windowStep(%+v) = %q, want %q", tc.step, got, tc.want)
		}
	}
}

// TestStatusShowsBackgroundWork: while the engine's Run loads the extractor and finds the
// names of facts stored pending, the status line says so; once Run is idle it says nothing.
func TestStatusShowsBackgroundWork(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the entity extractor (seconds)")
	}
	eng, err := engine.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"老王喜欢简约风格", "Alice maintains the billing service"} {
		if _, err := eng.Remember(context.Background(), engine.RememberRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarnessOn(t, eng, Options{Background: eng, SemanticPoll: 10 * time.Millisecond}, nil).start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- eng.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("Run: %v", err)
		}
	})
	h.waitFor("the status line to show the extractor loading", func() bool {
		return h.u.status.busy.Text == "· loading the name finder…"
	})
	// Shown, not only set: laid out at least as wide as its text.
	h.waitFor("the busy label laid out", func() bool {
		b := h.u.status.busy
		return b.Visible() && b.Size().Width >= b.MinSize().Width && b.MinSize().Width > 20
	})
	h.waitFor("the status line to clear once the names are found", func() bool {
		return h.u.status.busy.Text == "" && eng.BackgroundWork() == engine.Work{}
	})
}

func TestWorkLine(t *testing.T) {
	for _, tc := range []struct {
		w    engine.Work
		want string
	}{
		{engine.Work{}, ""},
		{engine.Work{Task: engine.WorkWarming}, "· preparing search…"},
		{engine.Work{Task: engine.WorkNames}, "· finding names"},
		{engine.Work{Task: engine.WorkNames, Done: 12000, Total: 100000}, "· finding names 12,000 of 100,000"},
		{engine.Work{Task: engine.WorkStatements, Done: 0, Total: 1500}, "· checking statements 0 of 1,500"},
	} {
		if got := workLine(tc.w); got != tc.want {
			t.Errorf("workLine(%+v) = %q, want %q", tc.w, got, tc.want)
		}
	}
}
