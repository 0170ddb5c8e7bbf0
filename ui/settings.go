package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// settingsScreen shows the semantic leg's state, runs repairs, and describes the database.
type settingsScreen struct {
	t          *tasks
	b          Backend
	win        fyne.Window
	onRepaired func()

	semantic *widget.Label
	repairs  []*repairRow
	ollama   *ollamaPanel
	eval     *evalPanel
	sync     *syncPanel // nil when the backend cannot sync
	dbPath   *widget.Label
	stats    *widget.Label
	content  fyne.CanvasObject
}

func newSettingsScreen(t *tasks, b Backend, win fyne.Window, appearance, reach fyne.CanvasObject, ollama *ollamaPanel, eval *evalPanel) *settingsScreen {
	s := &settingsScreen{t: t, b: b, win: win, ollama: ollama, eval: eval}
	s.semantic = widget.NewLabel(lang.L("off"))
	s.semantic.TextStyle.Bold = true
	semanticHelp := hint(lang.L("Meaning-based recall through a local Ollama model. While it is not ready, recall uses words and names only."))
	semanticHelp.Wrapping = fyne.TextWrapWord

	repairs := container.NewVBox()
	for _, a := range repairOrder(b.AdminActions()) {
		w := windowRepair(a[0], a[1])
		r := newRepairRow(s, a[0], w.title, w.help)
		s.repairs = append(s.repairs, r)
		repairs.Add(r.content)
	}

	s.dbPath = widget.NewLabel("")
	s.dbPath.Selectable = true
	s.dbPath.Wrapping = fyne.TextWrapBreak
	s.stats = widget.NewLabel("")
	s.stats.Wrapping = fyne.TextWrapWord
	refresh := widget.NewButtonWithIcon(lang.L("Refresh"), theme.ViewRefreshIcon(), func() {
		if s.onRepaired != nil {
			s.onRepaired()
		}
	})

	if sb, ok := b.(SyncBackend); ok {
		s.sync = newSyncPanel(t, sb)
	}
	s.content = container.NewVScroll(container.NewVBox(
		appearance,
		widget.NewSeparator(),
		reach,
		widget.NewSeparator(),
		heading(lang.L("Semantic recall")),
		container.NewHBox(widget.NewLabel(lang.L("State:")), s.semantic), semanticHelp,
		ollama.content,
		widget.NewSeparator(),
		heading(lang.L("Repairs")),
		repairs,
		widget.NewSeparator(),
		heading(lang.L("Retrieval quality")),
		eval.content,
		widget.NewSeparator(),
		s.syncSection(),
		container.NewBorder(nil, nil, nil, refresh, heading(lang.L("Database"))),
		s.dbPath, s.stats,
	))
	return s
}

// syncSection is the Sync section and its separator, or nothing.
func (s *settingsScreen) syncSection() fyne.CanvasObject {
	if s.sync == nil {
		return container.NewVBox()
	}
	return container.NewVBox(s.sync.content, widget.NewSeparator())
}

func (s *settingsScreen) showSync(st engine.SyncStatus, err error) {
	if s.sync != nil {
		s.sync.show(st, err)
	}
}

func heading(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.SizeName = theme.SizeNameSubHeadingText
	l.TextStyle.Bold = true
	return l
}

func (s *settingsScreen) showSemantic(state string) { s.semantic.SetText(state) }

func (s *settingsScreen) showStats(st engine.Stats, err error) {
	if err != nil {
		s.stats.SetText(sentence(err))
		return
	}
	s.dbPath.SetText(st.Path)
	text := lang.L("{{.Active}} active memories, {{.Superseded}} superseded, {{.Forgotten}} forgotten\n"+
		"{{.Documents}} documents in {{.Chunks}} chunks\n{{.Entities}} entity rows, {{.Vectors}} vectors, {{.Spaces}} spaces\n"+
		"{{.Size}} on disk · schema version {{.Schema}}", tmpl{
		"Active": st.FactsActive, "Superseded": st.FactsSuperseded, "Forgotten": st.FactsDeleted,
		"Documents": st.Documents, "Chunks": st.Chunks, "Entities": st.EntityRows, "Vectors": st.Vectors,
		"Spaces": st.Spaces, "Size": byteSize(st.FileBytes), "Schema": st.SchemaVersion})
	if st.SemanticRole != "" {
		text += lang.L("\nSemantic leg: {{.Role}}, because {{.Why}}.", tmpl{"Role": st.SemanticRole, "Why": st.RoleWhy})
	}
	s.stats.SetText(text)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// repairRow is one maintenance action with its Run and Cancel buttons, progress and result.
type repairRow struct {
	s       *settingsScreen
	action  string
	run     *widget.Button
	cancel  *widget.Button
	bar     *widget.ProgressBar
	busy    *widget.ProgressBarInfinite
	result  *widget.Label
	content fyne.CanvasObject
	stop    context.CancelFunc // non-nil while running
}

// repairWords are how the window names a repair and what it does for the person. The
// engine's own help is the CLI's, with its flags (--to FILE, --all) and SQL terms; the window
// runs every repair without options, so it says what that does.
type repairWords struct{ title, help string }

// shownRepair is a repair the window has its own words for.
type shownRepair struct {
	action string
	words  repairWords
}

// shownRepairs are in the order a person reaches for them: check, keep a copy, mend, then
// the upkeep the app also does in the background. The words are in the window's language.
func shownRepairs() []shownRepair {
	return []shownRepair{
		{"integrity", repairWords{lang.L("Check for damage"),
			lang.L("Reads the whole database and its search indexes and reports anything damaged. Changes nothing.")}},
		{"backup", repairWords{lang.L("Save a copy"),
			lang.L("Saves a complete copy of your memories and documents next to the database file, named with today's date and time.")}},
		{"salvage", repairWords{lang.L("Rescue memories"),
			lang.L("When the check for damage finds your stored memories themselves damaged, writes every memory that can still be read to a file next to the database, to import into a new one.")}},
		{"rebuild-index", repairWords{lang.L("Rebuild search"),
			lang.L("Rebuilds search from the text you stored, when the check for damage finds a damaged index. Your memories and documents stay as they are.")}},
		{"compact", repairWords{lang.L("Free disk space"),
			lang.L("Tidies the search index and gives the space it no longer needs back to the disk (the app also does this after large imports). Your memories and documents stay as they are.")}},
		{"contradictions", repairWords{lang.L("Find contradictions"),
			lang.L("Lists memories that contradict each other. Settle each on the Memories screen, where both carry a warning badge.")}},
		{"entities-sweep", repairWords{lang.L("Finish reading names"),
			lang.L("Reads the names and statements of memories and documents still waiting (the app also does this in the background). Run it again if some are left.")}},
		{"vectors-diagnose", repairWords{lang.L("Check meaning search"),
			lang.L("Counts the memories and documents that meaning-based search has not read yet or read with a model you no longer use, and what is left of removed ones.")}},
		{"vectors-fix", repairWords{lang.L("Update meaning search"),
			lang.L("Has the current model read what it has not yet, a batch at a time, and drops what is left of removed ones. Run it again if some are left.")}},
	}
}

// repairOrder puts the known repairs in shownRepairs' order, then any others by name.
func repairOrder(actions [][2]string) [][2]string {
	out := make([][2]string, 0, len(actions))
	for _, r := range shownRepairs() {
		for _, a := range actions {
			if a[0] == r.action {
				out = append(out, a)
			}
		}
	}
	for _, a := range actions {
		if windowRepair(a[0], "").title == a[0] {
			out = append(out, a)
		}
	}
	return out
}

// windowRepair is how the window shows action; one it has no words for shows as the
// engine names and describes it.
func windowRepair(action, help string) repairWords {
	for _, r := range shownRepairs() {
		if r.action == action {
			return r.words
		}
	}
	return repairWords{action, help}
}

func newRepairRow(s *settingsScreen, action, title, help string) *repairRow {
	r := &repairRow{s: s, action: action, bar: widget.NewProgressBar(), busy: widget.NewProgressBarInfinite()}
	r.run = widget.NewButtonWithIcon(lang.L("Run"), theme.MediaPlayIcon(), r.start)
	r.cancel = widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), r.abort)
	r.cancel.Disable()
	r.bar.Hide()
	r.busy.Hide()
	r.busy.Stop()
	r.result = widget.NewLabel("")
	r.result.Wrapping = fyne.TextWrapWord
	r.result.Hide()
	name := widget.NewLabel(title)
	name.TextStyle.Bold = true
	helpLabel := hint(help)
	helpLabel.Wrapping = fyne.TextWrapWord
	r.content = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(r.run, r.cancel), name),
		helpLabel, container.NewStack(r.bar, r.busy), r.result)
	return r
}

func (r *repairRow) start() {
	if r.stop != nil {
		return
	}
	r.run.Disable()
	r.cancel.Enable()
	r.result.Hide()
	r.bar.Hide()
	r.busy.Show()
	r.busy.Start()
	req := engine.AdminRequest{Action: r.action, Progress: func(done, total int) {
		r.s.t.do(func() { r.showProgress(done, total) })
	}}
	r.stop = r.s.t.start(func(ctx context.Context) {
		res, err := r.s.b.Admin(ctx, req)
		r.s.t.do(func() { r.finished(res, err) })
	})
}

func (r *repairRow) showProgress(done, total int) {
	if total <= 0 || r.stop == nil {
		return
	}
	r.busy.Stop()
	r.busy.Hide()
	r.bar.Show()
	r.bar.SetValue(float64(done) / float64(total))
}

func (r *repairRow) abort() {
	if r.stop != nil {
		r.stop()
		r.cancel.Disable()
	}
}

// windowSteps words a repair's next steps as the window offers them (its buttons and
// screens, never the CLI's commands or flags), one line each after a newline, or "".
func windowSteps(res engine.AdminResult) string {
	var b strings.Builder
	for _, s := range res.Next {
		if line := windowStep(res.Action, s); line != "" {
			b.WriteString("\n" + line)
		}
	}
	return b.String()
}

// windowStep is one next step in the window's words; "" for a step the window has nothing
// to offer for (the CLI's verbose log). The window runs a repair's every pass it can per
// press, so a step that asks for all of them is "press Run again".
func windowStep(action string, s engine.AdminStep) string {
	switch s.Kind {
	case engine.StepRun:
		if s.Action == action {
			return lang.L("Press Run again to finish.")
		}
		return lang.L("Then run “{{.Repair}}” below.", tmpl{"Repair": windowRepair(s.Action, "").title})
	case engine.StepBackupFirst:
		return lang.L("First save a copy with “{{.Repair}}”.", tmpl{"Repair": windowRepair("backup", "").title})
	case engine.StepSettle:
		return lang.L("Settle each pair on the Memories screen: Keep new, Keep old or Keep both.")
	case engine.StepOpenCopy:
		return lang.L("Keep it somewhere safe: it holds all your memories and documents.")
	case engine.StepWaitForModel:
		return lang.L("The meaning model must be ready first: see its state above.")
	}
	return ""
}

func (r *repairRow) finished(res engine.AdminResult, err error) {
	r.stop = nil
	r.run.Enable()
	r.cancel.Disable()
	r.busy.Stop()
	r.busy.Hide()
	r.bar.Hide()
	switch {
	case err != nil:
		r.result.Importance = widget.DangerImportance
		r.result.SetText(sentence(err))
	case res.OK:
		r.result.Importance = widget.SuccessImportance
		r.result.SetText(lang.L("OK: {{.Details}}.", tmpl{"Details": strings.Join(res.Details, "; ")}) + windowSteps(res))
	default:
		r.result.Importance = widget.WarningImportance
		r.result.SetText(lang.L("Found {{.Problems}}:\n• {{.Details}}", tmpl{
			"Problems": plural(len(res.Details), "problem", "problems"), "Details": strings.Join(res.Details, "\n• ")}) + windowSteps(res))
	}
	r.result.Show()
	if r.s.onRepaired != nil {
		r.s.onRepaired()
	}
}
