package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/assets"
	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/eval/enginearm"
)

// EvalResult is one run of the built-in gold set.
type EvalResult struct {
	Report eval.CaseReport
	// Legs are the retrieval legs the run measured ("lexical", "entity", "semantic").
	Legs []string
}

// EvalFunc runs the built-in gold set and reports the figures. progress is told how many
// queries are done and stops the run by returning an error; ctx ends with the window or the
// panel's Cancel button. It must never touch the user's database.
type EvalFunc func(ctx context.Context, progress eval.Progress) (EvalResult, error)

// scratchEval is the default EvalFunc: the embedded gold set through a real engine over a
// new database in a temporary directory, removed afterwards. With entities false the
// extractor (about 3 s and 500 MB) is not loaded and only the lexical leg is measured.
func scratchEval(entities bool, log *slog.Logger) EvalFunc {
	return func(ctx context.Context, progress eval.Progress) (res EvalResult, err error) {
		cf, err := eval.ParseCases(assets.BilingualCases())
		if err != nil {
			return EvalResult{}, fmt.Errorf("built-in gold set: %w", err)
		}
		dir, err := os.MkdirTemp("", "memdesk-eval-")
		if err != nil {
			return EvalResult{}, fmt.Errorf("create scratch directory: %w", err)
		}
		defer func() {
			if rerr := os.RemoveAll(dir); err == nil && rerr != nil {
				err = fmt.Errorf("remove scratch directory: %w", rerr)
			}
		}()
		e, err := engine.Open(ctx, filepath.Join(dir, "eval.db"), engine.Options{Logger: log})
		if err != nil {
			return EvalResult{}, err
		}
		defer func() {
			if cerr := e.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}()
		res.Legs = []string{"lexical"}
		if entities {
			if err := e.LoadEntities(ctx); err != nil {
				return EvalResult{}, err
			}
			res.Legs = append(res.Legs, "entity")
		}
		res.Report, err = eval.RunCases(ctx, cf, enginearm.NewCases(e).Retrieve,
			eval.CaseRunOptions{Arm: "real", Latency: true, Progress: progress})
		if err != nil {
			return EvalResult{}, err
		}
		return res, nil
	}
}

// legsPhrase reads a leg list as the panel says it: "lexical leg only", "lexical and entity
// legs", in the window's language.
func legsPhrase(legs []string) string {
	names := make([]string, len(legs))
	for i, l := range legs {
		names[i] = legName(l)
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return lang.L("{{.Leg}} leg only", tmpl{"Leg": names[0]})
	}
	return lang.L("{{.Legs}} and {{.Last}} legs", tmpl{
		"Legs": strings.Join(names[:len(names)-1], lang.X("list.separator", ", ")), "Last": names[len(names)-1]})
}

// legName is a retrieval leg's name (EvalResult.Legs) in the window's language; one this
// does not know shows as it is.
func legName(leg string) string {
	switch leg {
	case "lexical":
		return lang.L("lexical")
	case "entity":
		return lang.L("entity")
	case "semantic":
		return lang.L("semantic")
	}
	return leg
}

// evalFailuresShown bounds the failed queries listed under the chart.
const evalFailuresShown = 20

// evalPanel runs the gold set from Settings: Run and Cancel, a progress bar, then the
// figures as a small bar chart and the queries that failed.
type evalPanel struct {
	t   *tasks
	run EvalFunc

	start    *widget.Button
	cancel   *widget.Button
	bar      *widget.ProgressBar
	result   *widget.Label
	chart    *fyne.Container
	failures *widget.Label
	failFold *widget.Accordion
	content  fyne.CanvasObject

	stop context.CancelFunc // non-nil while running
	last *EvalResult        // the shown result, for tests
}

// newEvalPanel describes what a run measures up front when it knows (legs, from the default
// runner); an injected runner reports its legs with its result.
func newEvalPanel(t *tasks, run EvalFunc, legs []string) *evalPanel {
	p := &evalPanel{t: t, run: run, bar: widget.NewProgressBar(), chart: container.NewVBox()}
	p.start = widget.NewButtonWithIcon(lang.L("Run the built-in gold set"), theme.MediaPlayIcon(), p.begin)
	p.cancel = widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), p.abort)
	p.cancel.Disable()
	p.bar.Hide()
	p.result = widget.NewLabel("")
	p.result.Wrapping = fyne.TextWrapWord
	p.result.Hide()
	p.failures = widget.NewLabel("")
	p.failures.Wrapping = fyne.TextWrapWord
	p.failures.Importance = widget.LowImportance
	p.failFold = widget.NewAccordion(widget.NewAccordionItem(lang.L("failed queries"), p.failures))
	p.failFold.Hide()

	help := lang.L("Asks the bilingual gold set (Chinese and English notes, look-alike names, unrelated questions) of the real engine in a scratch database; your memories are not touched.")
	if phrase := legsPhrase(legs); phrase != "" {
		help += lang.L(" Measures the {{.Legs}}.", tmpl{"Legs": phrase})
	}
	helpLabel := hint(help)
	helpLabel.Wrapping = fyne.TextWrapWord
	p.content = container.NewVBox(
		helpLabel,
		container.NewHBox(p.start, p.cancel),
		p.bar, p.result, p.chart, p.failFold)
	return p
}

func (p *evalPanel) begin() {
	if p.stop != nil {
		return
	}
	p.start.Disable()
	p.cancel.Enable()
	p.result.Hide()
	p.chart.RemoveAll()
	p.failFold.Hide()
	p.bar.SetValue(0)
	p.bar.Show()
	progress := func(done, total int) error {
		p.t.do(func() { p.showProgress(done, total) })
		return nil
	}
	p.stop = p.t.start(func(ctx context.Context) {
		res, err := p.run(ctx, progress)
		p.t.do(func() { p.finished(res, err) })
	})
}

func (p *evalPanel) showProgress(done, total int) {
	if total > 0 && p.stop != nil {
		p.bar.SetValue(float64(done) / float64(total))
	}
}

func (p *evalPanel) abort() {
	if p.stop != nil {
		p.stop()
		p.cancel.Disable()
	}
}

func (p *evalPanel) finished(res EvalResult, err error) {
	p.stop = nil
	p.start.Enable()
	p.cancel.Disable()
	p.bar.Hide()
	p.result.Show()
	if err != nil {
		p.last = nil
		p.result.Importance = widget.DangerImportance
		if errors.Is(err, context.Canceled) {
			p.result.Importance = widget.MediumImportance
		}
		p.result.SetText(sentence(err))
		return
	}
	p.last = &res
	s, rank := res.Report.Summary, res.Report.Ranking
	p.result.Importance = widget.SuccessImportance
	if s.Failed > 0 {
		p.result.Importance = widget.WarningImportance
	}
	msg := lang.L("{{.Passed}} of {{.Queries}} queries passed, {{.Failed}} failed.", tmpl{"Passed": s.Passed, "Queries": s.Queries, "Failed": s.Failed})
	if phrase := legsPhrase(res.Legs); phrase != "" {
		msg += lang.L(" Measured the {{.Legs}}.", tmpl{"Legs": phrase})
	}
	if l := res.Report.Latency; l != nil {
		msg += lang.L(" Latency p50 {{.P50}} ms, p95 {{.P95}} ms.", tmpl{"P50": fmt.Sprintf("%.1f", l.P50), "P95": fmt.Sprintf("%.1f", l.P95)})
	}
	p.result.SetText(msg)

	for _, m := range []struct {
		name  string
		value float64
	}{
		{"recall@1", rank.Recall1},
		{"recall@10", rank.Recall10},
		{"nDCG@10", rank.NDCG10},
		{"MRR@10", rank.MRR10},
		{lang.L("must-include passed"), s.MustIncludePassRate},
		{lang.L("must-exclude passed"), s.MustExcludePassRate},
		{lang.L("empty on unrelated"), s.EmptyRateUnrelated},
	} {
		p.chart.Add(metricBar(m.name, m.value))
	}

	var failed []string
	for _, q := range res.Report.Queries {
		if q.Pass {
			continue
		}
		if len(failed) == evalFailuresShown {
			failed = append(failed, lang.L("… and {{.Count}} more.", tmpl{"Count": s.Failed - evalFailuresShown}))
			break
		}
		failed = append(failed, fmt.Sprintf("[%s] %s — %s", q.Case, q.Query, strings.Join(q.Why, "; ")))
	}
	if len(failed) > 0 {
		p.failures.SetText(strings.Join(failed, "\n"))
		p.failFold.Show()
	}
}

// metricBarWidth and metricNameWidth size the chart: a fixed name column so bars line up.
const (
	metricBarWidth  = 240
	metricNameWidth = 190
)

// metricBar is one row of the chart: the metric's name, a bar as long as its value (0–1)
// over a track, and the value in digits.
func metricBar(name string, value float64) fyne.CanvasObject {
	value = min(max(value, 0), 1)
	track := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	track.CornerRadius = 3
	fill := canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	fill.CornerRadius = 3
	bar := container.New(&fractionLayout{fraction: float32(value)}, track, fill)
	label := widget.NewLabel(name)
	label.Truncation = fyne.TextTruncateEllipsis
	nameBox := container.NewGridWrap(fyne.NewSize(metricNameWidth, label.MinSize().Height), label)
	return container.NewHBox(nameBox, container.NewCenter(bar), widget.NewLabel(fmt.Sprintf("%.3f", value)))
}

// fractionLayout draws its first object (the track) at full width and its second (the
// fill) at fraction of it, both a bar's height.
type fractionLayout struct{ fraction float32 }

func (l *fractionLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for i, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		w := size.Width
		if i > 0 {
			w *= l.fraction
		}
		o.Resize(fyne.NewSize(w, size.Height))
	}
}

func (l *fractionLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(metricBarWidth, theme.TextSize())
}
