package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// statusBar is the line under every screen: the semantic leg's state, the engine's
// background work while there is some, and what the database holds.
type statusBar struct {
	t        *tasks
	source   SemanticSource
	work     BackgroundSource
	poll     time.Duration
	semantic *widget.Label
	busy     *widget.Label
	counts   *widget.Label
	row      *fyne.Container
	content  fyne.CanvasObject
	stats    reread

	// onSemantic and onStats pass the same news on to the settings screen.
	onSemantic func(state string)
	onStats    func(engine.Stats, error)
	// onSync passes the sync status read with the counts on (ErrSyncOff when sync is off
	// or the backend cannot sync).
	onSync func(engine.SyncStatus, error)
}

func newStatusBar(t *tasks, source SemanticSource, work BackgroundSource, poll time.Duration) *statusBar {
	s := &statusBar{t: t, source: source, work: work, poll: poll,
		semantic: hint(lang.L("semantic: {{.State}}", tmpl{"State": lang.L("off")})), busy: hint(""), counts: hint("")}
	s.row = container.NewHBox(s.semantic, s.busy, layout.NewSpacer(), s.counts)
	s.content = container.NewVBox(widget.NewSeparator(), s.row)
	return s
}

// start polls the semantic state and the background work while the window lives. Polling,
// not events, keeps each source a one-method interface that any bootstrap can satisfy.
func (s *statusBar) start() {
	if s.source == nil {
		s.setSemantic("")
	}
	if s.source == nil && s.work == nil {
		return
	}
	s.t.start(func(ctx context.Context) {
		tick := time.NewTicker(s.poll)
		defer tick.Stop()
		last, lastWork := "", ""
		for {
			if s.source != nil {
				if state := s.source.SemanticState(); state != last {
					last = state
					s.t.do(func() { s.setSemantic(state) })
				}
			}
			if s.work != nil {
				if line := workLine(s.work.BackgroundWork()); line != lastWork {
					lastWork = line
					s.t.do(func() {
						s.busy.SetText(line)
						s.row.Refresh() // a label's new width takes a new layout of its row
					})
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

func (s *statusBar) setSemantic(state string) {
	label := semanticLabel(state)
	s.semantic.SetText(lang.L("semantic: {{.State}}", tmpl{"State": label}))
	if s.onSemantic != nil {
		s.onSemantic(label)
	}
}

// semanticLabel words the semantic leg's state in the window's language. The state is
// modelboot's (State.String: "offline", "pulling 42%", "failed: <reason>") or the engine's
// "off", and stays plain text there: its first word is translated here, and what follows
// (a percentage, a reason) is kept as given. A word this does not know shows as it is.
func semanticLabel(state string) string {
	word, rest := state, ""
	if i := strings.IndexAny(state, " :("); i >= 0 {
		word, rest = state[:i], state[i:]
	}
	switch word {
	case "", "off":
		word = lang.L("off")
	case "starting":
		word = lang.L("starting")
	case "offline":
		word = lang.L("offline")
	case "pulling":
		word = lang.L("pulling")
	case "warming":
		word = lang.L("warming")
	case "ready":
		word = lang.L("ready")
	case "failed":
		word = lang.L("failed")
	}
	return word + rest
}

// workLine words the engine's background work for the status line; "" when it is idle.
func workLine(w engine.Work) string {
	count := ""
	if w.Total > 0 {
		count = " " + lang.L("{{.Done}} of {{.Total}}", tmpl{"Done": grouped(w.Done), "Total": grouped(w.Total)})
	}
	switch w.Task {
	case "":
		return ""
	case engine.WorkWarming:
		return "· " + lang.L("preparing search…")
	case engine.WorkStatements:
		return "· " + lang.L("checking statements") + count
	case engine.WorkLoading:
		return "· " + lang.L("loading the name finder…")
	case engine.WorkNames:
		return "· " + lang.L("finding names") + count
	}
	return "· " + w.Task + count
}

// grouped writes n with thousands separators (12,000).
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// refreshStats reloads the counts, one read at a time: a refresh asked for while one runs
// is read after it lands (see reread).
func (s *statusBar) refreshStats(b Backend) {
	s.stats.ask(func(landed func()) {
		s.t.start(func(ctx context.Context) {
			st, err := b.Stats(ctx)
			var sync engine.SyncStatus
			syncErr := engine.ErrSyncOff
			if sb, ok := b.(SyncBackend); ok {
				sync, syncErr = sb.SyncStatus(ctx)
			}
			s.t.do(func() {
				defer landed()
				if err != nil {
					s.counts.SetText(sentence(err))
				} else {
					line := countsLine(st)
					if last := lastOtherWrite(sync); syncErr == nil && !last.IsZero() {
						line += " · " + lang.L("another device wrote at {{.When}}", tmpl{"When": last.Local().Format(time.DateTime)})
					}
					s.counts.SetText(line)
				}
				if s.onStats != nil {
					s.onStats(st, err)
				}
				if s.onSync != nil {
					s.onSync(sync, syncErr)
				}
			})
		})
	})
}

func countsLine(st engine.Stats) string {
	return lang.L("{{.Memories}} · {{.Documents}} · {{.Chunks}}", tmpl{"Memories": plural(st.FactsActive, "memory", "memories"),
		"Documents": plural(st.Documents, "document", "documents"), "Chunks": plural(st.Chunks, "chunk", "chunks")})
}

// plural counts n things in the window's language: "1 memory", "3 memories", "3 条记忆". The
// translations are keyed by the English plural ("{{.Count}} memories"); English gives the
// singular for one, Chinese has a single form. one stays in the call so the key test can
// check the English singular.
func plural(n int, one, many string) string {
	return lang.N("{{.Count}} "+many, n, tmpl{"Count": n})
}
