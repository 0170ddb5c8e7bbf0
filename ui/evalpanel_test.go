package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/assets"
	"github.com/memdesk/memdesk/engine/eval"
)

// TestEvalPanelRunsTheGoldSet runs the embedded gold set through the default runner: a real
// engine, lexical leg only, in a scratch database that is gone afterwards and never the
// user's.
func TestEvalPanelRunsTheGoldSet(t *testing.T) {
	scratchParent := t.TempDir()
	t.Setenv("TMPDIR", scratchParent) // os.MkdirTemp("") puts the scratch database here
	h := newHarness(t, Options{}, nil).start()
	h.remember("the user's own memory", "")
	p := h.u.settings.eval
	h.u.showScreen(screenSettings)

	if got := texts(h.u.settings.content); !strings.Contains(got, "lexical leg only") {
		t.Errorf("settings do not say the eval measures the lexical leg only:\n%s", got)
	}
	test.Tap(p.start)
	if !p.start.Disabled() || p.cancel.Disabled() || !p.bar.Visible() {
		t.Error("while running, Run should be disabled, Cancel enabled and the progress bar shown")
	}
	h.waitWithin(2*time.Minute, "the eval result", func() bool { return p.result.Visible() })
	if p.last == nil {
		t.Fatalf("no result; the panel says %q", p.result.Text)
	}

	cf, err := eval.ParseCases(assets.BilingualCases())
	if err != nil {
		t.Fatal(err)
	}
	var queries int
	for _, c := range cf.Cases {
		queries += len(c.Queries)
	}
	s := p.last.Report.Summary
	if s.Queries != queries || s.Passed+s.Failed != queries {
		t.Errorf("summary counts %d queries (%d passed, %d failed), want %d in all", s.Queries, s.Passed, s.Failed, queries)
	}
	if p.last.Report.Ranking.Recall10 <= 0 {
		t.Errorf("recall@10 = %v; the real engine found nothing", p.last.Report.Ranking.Recall10)
	}
	if want := fmt.Sprintf("%d of %d queries passed, %d failed. Measured the lexical leg only.", s.Passed, queries, s.Failed); !strings.HasPrefix(p.result.Text, want) {
		t.Errorf("result = %q, want it to start %q", p.result.Text, want)
	}
	shown := texts(p.content)
	for _, want := range []string{"recall@1", "recall@10", "nDCG@10", "MRR@10", "must-include passed",
		"must-exclude passed", "empty on unrelated", fmt.Sprintf("%.3f", p.last.Report.Ranking.MRR10)} {
		if !strings.Contains(shown, want) {
			t.Errorf("panel lacks %q:\n%s", want, shown)
		}
	}
	if got := len(p.chart.Objects); got != 7 {
		t.Errorf("chart has %d bars, want 7", got)
	}
	if p.start.Disabled() || !p.cancel.Disabled() || p.bar.Visible() {
		t.Error("after the run, Run should be enabled, Cancel disabled and the progress bar hidden")
	}

	st, err := h.eng.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.FactsActive != 1 {
		t.Errorf("the user's database has %d memories after the eval, want its 1", st.FactsActive)
	}
	left, err := os.ReadDir(scratchParent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		if strings.HasPrefix(e.Name(), "memdesk-eval-") {
			t.Errorf("scratch directory %s left behind", e.Name())
		}
	}
}

func TestEvalPanelProgressAndCancel(t *testing.T) {
	halfway := func(ctx context.Context, progress eval.Progress) (EvalResult, error) {
		if err := progress(1, 2); err != nil {
			return EvalResult{}, err
		}
		<-ctx.Done()
		return EvalResult{}, ctx.Err()
	}
	h := newHarness(t, Options{Eval: halfway}, nil).start()
	p := h.u.settings.eval
	h.u.showScreen(screenSettings)
	if got := texts(h.u.settings.content); !strings.Contains(got, "gold set") || strings.Contains(got, "leg only") {
		t.Errorf("an injected runner's legs are unknown before it runs, but settings say:\n%s", got)
	}
	test.Tap(p.start)
	h.waitFor("the progress bar at half", func() bool { return p.bar.Visible() && p.bar.Value == 0.5 })
	test.Tap(p.cancel)
	h.waitFor("the result", func() bool { return p.result.Visible() })
	if p.result.Text != "Cancelled." {
		t.Errorf("result = %q, want Cancelled.", p.result.Text)
	}
	if p.bar.Visible() || len(p.chart.Objects) != 0 {
		t.Error("progress bar or chart shown after cancel")
	}
}

func TestEvalPanelChartAndFailures(t *testing.T) {
	report := eval.CaseReport{
		Summary: eval.CaseSummary{Queries: 3, Passed: 2, Failed: 1, MustIncludePassRate: 0.5, MustExcludePassRate: 1, EmptyRateUnrelated: 1},
		Ranking: eval.CaseRanking{Recall1: 0.25, Recall10: 1, NDCG10: 0.75, MRR10: 0.5},
		Queries: []eval.CaseOutcome{
			{Case: "work", Query: "who owns the build", Pass: true},
			{Case: "work", Query: "老王的电话", Why: []string{"must include [2] in the first 5"}},
		},
	}
	fixed := func(context.Context, eval.Progress) (EvalResult, error) {
		return EvalResult{Report: report, Legs: []string{"lexical", "entity"}}, nil
	}
	h := newHarness(t, Options{Eval: fixed}, nil).start()
	p := h.u.settings.eval
	test.Tap(p.start)
	h.waitFor("the result", func() bool { return p.result.Visible() })
	if want := "2 of 3 queries passed, 1 failed. Measured the lexical and entity legs."; p.result.Text != want {
		t.Errorf("result = %q, want %q", p.result.Text, want)
	}
	if !p.failFold.Visible() || !strings.Contains(p.failures.Text, "[work] 老王的电话 — must include [2] in the first 5") {
		t.Errorf("failed queries = %q (shown %v), want the failing query and why", p.failures.Text, p.failFold.Visible())
	}

	// Each bar's fill is its value's share of the track.
	test.NewTempWindow(t, p.content).Resize(fyne.NewSize(800, 900))
	wants := []float32{0.25, 1, 0.75, 0.5, 0.5, 1, 1}
	var fills []float32
	walk(p.chart, func(o fyne.CanvasObject) {
		if c, ok := o.(*fyne.Container); ok {
			if _, ok := c.Layout.(*fractionLayout); ok {
				track, fill := c.Objects[0].(*canvas.Rectangle), c.Objects[1].(*canvas.Rectangle)
				fills = append(fills, fill.Size().Width/track.Size().Width)
			}
		}
	})
	if len(fills) != len(wants) {
		t.Fatalf("%d bars, want %d", len(fills), len(wants))
	}
	for i, want := range wants {
		if d := fills[i] - want; d > 0.01 || d < -0.01 {
			t.Errorf("bar %d fill = %.2f of the track, want %.2f", i, fills[i], want)
		}
	}
}

func TestLegsPhrase(t *testing.T) {
	tests := []struct {
		legs []string
		want string
	}{
		{nil, ""},
		{[]string{"lexical"}, "lexical leg only"},
		{[]string{"lexical", "entity"}, "lexical and entity legs"},
		{[]string{"lexical", "entity", "semantic"}, "lexical, entity and semantic legs"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.legs, "+"), func(t *testing.T) {
			if got := legsPhrase(tt.legs); got != tt.want {
				t.Errorf("legsPhrase(%q) = %q, want %q", tt.legs, got, tt.want)
			}
		})
	}
}
