package ui

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// meaningWait is how long the window's second step waits for the model to embed the query.
// Nothing waits on it: the answer by words is on screen and typing again cancels it, so a
// slow model (a large one on a CPU, one loading after an idle unload) still adds what it
// finds, where a surface someone waits on gives up after a second.
const meaningWait = 15 * time.Second

// previewTextLimit bounds how much of a long chunk the preview pane shows; rowTextLimit how
// much of it a row of the list holds (the row truncates it to its width).
const (
	previewTextLimit = 1500
	rowTextLimit     = 160
)

// recallScreen is the search box and its results: search as you type, each keystroke
// cancelling the query before it. Up and Down move a highlight through the results and
// Enter opens the highlighted hit, so a search never needs the mouse.
type recallScreen struct {
	hitList
	search *liveSearch

	query  *searchEntry
	source *widget.Select
	space  *widget.SelectEntry
	// spaceNames are the spaces space offers (SelectEntry keeps its options to itself).
	spaceNames []string
	// when, folder and order narrow and order the results; the engine applies them.
	when   *widget.Select
	folder *widget.SelectEntry
	order  *widget.Select
	// folderNames are the folders folder offers.
	folderNames []string
	// now is the clock the date presets count back from.
	now  func() time.Time
	note *widget.Label
	// respell searches the store's own spelling of a query that found nothing; hidden
	// unless the engine had one (RecallResult.DidYouMean).
	respell *widget.Button
	content fyne.CanvasObject
	// preview shows the highlighted hit whole (the first when none is highlighted): its
	// text, why it was found and the scores' fold, beside the list of one-line rows.
	preview       *fyne.Container
	previewScroll *container.Scroll
	previewed     hitKey
	previewFold   *widget.Accordion

	// open shows a hit where it lives: a memory in its edit dialog, a chunk among its
	// document's chunks.
	open func(engine.Hit)
	// copyHit puts a hit's text on the clipboard (Ctrl+C on a highlighted hit); nil: none.
	copyHit func(engine.Hit)

	shown engine.RecallResult // what the cards show, for tests
}

// typeToSearch is the recall note before anything is typed.
func typeToSearch() string {
	return lang.L("Type to search. Memories and imported documents are searched together.")
}

// whenPreset is a choice of the "written" selector and how far back it reaches from now
// (0: since midnight today; -1: any time).
type whenPreset struct {
	label string
	back  time.Duration
}

// whenPresets are the "written" selector's choices, in order.
func whenPresets() []whenPreset {
	return []whenPreset{
		{lang.L("any time"), -1},
		{lang.L("today"), 0},
		{lang.L("last 7 days"), 7 * 24 * time.Hour},
		{lang.L("last 30 days"), 30 * 24 * time.Hour},
		{lang.L("last year"), 365 * 24 * time.Hour},
	}
}

// selectChoice is one value a selector offers, under the label it shows in the window's language.
type selectChoice[T any] struct {
	value T
	label string
}

// sourceChoices are the "in" selector's choices, in order.
func sourceChoices() []selectChoice[engine.Source] {
	return []selectChoice[engine.Source]{
		{engine.SourceAll, lang.L("all")},
		{engine.SourceMemory, lang.L("memory")},
		{engine.SourceKnowledge, lang.L("knowledge")},
	}
}

// sortChoices are the "sort" selector's choices, in order.
func sortChoices() []selectChoice[engine.Sort] {
	return []selectChoice[engine.Sort]{
		{engine.SortRelevance, lang.L("relevance")},
		{engine.SortNewest, lang.L("newest")},
	}
}

// choiceLabels are the labels of choices, for a selector.
func choiceLabels[T any](choices []selectChoice[T]) []string {
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = c.label
	}
	return labels
}

// chosen is the value of the choice sel shows, the first one when none is selected.
func chosen[T any](choices []selectChoice[T], sel *widget.Select) T {
	if i := sel.SelectedIndex(); i > 0 && i < len(choices) {
		return choices[i].value
	}
	return choices[0].value
}

func newRecallScreen(t *tasks, b Backend, log *slog.Logger) *recallScreen {
	r := &recallScreen{hitList: newHitList(t.do), now: time.Now}
	r.afterFrame = func(f func()) { time.AfterFunc(frameTime, func() { t.do(f) }) }
	r.onSelect = r.showPreview
	r.search = &liveSearch{t: t, b: b, typing: debouncer{delay: debounceDelay}, request: r.request, log: log,
		pending: func() { r.note.SetText(lang.L("Searching…")) }, answer: r.show, answerAgain: r.showAgain,
		meaning: r.addMeaning}
	r.query = newSearchEntry(r.typedKey)
	r.query.SetPlaceHolder(lang.L("Search your memories and documents…  (↑↓ choose a hit, Enter opens it)"))
	r.query.OnChanged = func(string) {
		// The highlight belongs to the results of the text before this keystroke.
		r.selectHit(-1)
		r.search.typed()
	}
	r.query.OnSubmitted = func(string) { r.search.now() }
	r.query.onShortcut = r.typedShortcut
	r.source = widget.NewSelect(choiceLabels(sourceChoices()), nil)
	r.source.SetSelectedIndex(0)
	r.source.OnChanged = func(string) { r.search.now() }
	r.space = widget.NewSelectEntry(nil)
	r.space.SetPlaceHolder("default")
	r.space.OnChanged = func(string) { r.search.typed() }
	presets := whenPresets()
	labels := make([]string, len(presets))
	for i, p := range presets {
		labels[i] = p.label
	}
	r.when = widget.NewSelect(labels, nil)
	r.when.SetSelectedIndex(0)
	r.when.OnChanged = func(string) { r.search.now() }
	r.folder = widget.NewSelectEntry(nil)
	r.folder.SetPlaceHolder(lang.L("any folder"))
	r.folder.OnChanged = func(string) { r.search.typed() }
	r.order = widget.NewSelect(choiceLabels(sortChoices()), nil)
	r.order.SetSelectedIndex(0)
	r.order.OnChanged = func(string) { r.search.now() }
	r.note = widget.NewLabel(typeToSearch())
	r.note.Importance = widget.LowImportance
	r.note.Wrapping = fyne.TextWrapWord
	r.respell = widget.NewButton("", nil)
	r.respell.Importance = widget.LowImportance
	r.respell.Hide()

	spaceBox := container.NewGridWrap(fyne.NewSize(150, r.space.MinSize().Height), r.space)
	controls := container.NewHBox(widget.NewLabel(lang.L("in")), r.source, widget.NewLabel(lang.L("space")), spaceBox,
		widget.NewLabel(lang.L("written")), r.when, widget.NewLabel(lang.L("sort")), r.order)
	// The folder takes what room the row has left: paths are long. The objects go in the
	// order they show, which is the order Tab walks them in (NewBorder puts the centre first).
	folderLabel := widget.NewLabel(lang.L("folder"))
	folderBox := container.New(layout.NewBorderLayout(nil, nil, folderLabel, nil), folderLabel, r.folder)
	filters := container.New(layout.NewBorderLayout(nil, nil, controls, nil), controls, folderBox)
	top := container.NewVBox(r.query, filters, r.note, container.NewHBox(r.respell))
	r.preview = container.NewVBox()
	r.previewScroll = container.NewVScroll(r.preview)
	split := container.NewHSplit(r.scroll, r.previewScroll)
	split.Offset = 0.5
	probe := newPaintProbe(log, debounceDelay)
	r.search.drawn = probe.expect
	// The probe comes last, so it is painted after the list and the preview.
	r.content = container.NewStack(container.NewBorder(top, nil, nil, nil, split),
		container.NewWithoutLayout(probe.raster))
	return r
}

// request is the search the controls describe.
func (r *recallScreen) request() engine.RecallRequest {
	req := engine.RecallRequest{Query: strings.TrimSpace(r.query.Text), Space: strings.TrimSpace(r.space.Text), Lang: uiLanguage(),
		Source: chosen(sourceChoices(), r.source), Folder: strings.TrimSpace(r.folder.Text), Sort: chosen(sortChoices(), r.order)}
	if i := r.when.SelectedIndex(); i > 0 {
		now, back := r.now(), whenPresets()[i].back
		req.Since = now.Add(-back)
		if back == 0 {
			req.Since = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
		}
	}
	return req
}

// setFolders offers the folders the imported documents are in (at any of their paths) in
// the folder selector; a folder typed there narrows to it and below.
func (r *recallScreen) setFolders(docs []engine.DocumentView) {
	seen := map[string]bool{}
	var dirs []string
	for _, d := range docs {
		for _, p := range append([]string{d.Path}, d.Copies...) {
			if dir := filepath.Dir(p); !seen[dir] {
				seen[dir] = true
				dirs = append(dirs, dir)
			}
		}
	}
	slices.Sort(dirs)
	r.folderNames = dirs
	r.folder.SetOptions(dirs)
}

// typedKey moves the highlight with Up and Down and opens the highlighted hit on Enter. It
// reports whether it used the key; the search box types every other key as usual, and Enter
// with nothing highlighted still searches at once.
func (r *recallScreen) typedKey(ev *fyne.KeyEvent) bool {
	switch ev.Name {
	case fyne.KeyDown:
		r.move(1)
		return true
	case fyne.KeyUp:
		r.move(-1)
		return true
	case fyne.KeyReturn, fyne.KeyEnter:
		h, ok := r.selectedHit()
		if !ok || r.open == nil {
			return false
		}
		r.open(h)
		return true
	}
	return false
}

// hitList is a scrolled column of hit rows with a keyboard highlight, shared by the recall
// screen and the quick window.
type hitList struct {
	// cards are the shown hits' rows, in order; selected indexes them, -1 for none.
	cards    []*resultRow
	selected int
	results  *fyne.Container
	scroll   *container.Scroll
	// later runs a function on the UI goroutine after what is queued there now: the rows
	// below the first screen are laid out then (nil: all at once).
	later func(func())
	// afterFrame runs a function on the UI goroutine once the window has drawn a frame (nil:
	// later): the preview of a new answer is made then.
	afterFrame func(func())
	gen        int // setRows calls, so a late second part of an older answer is dropped
	// onSelect, when set, hears every change of the highlight (-1: none), new rows included.
	onSelect func(i int)
}

func newHitList(later func(func())) hitList {
	results := container.NewVBox()
	return hitList{selected: -1, results: results, scroll: container.NewVScroll(results), later: later}
}

// frameTime is a little more than a frame at 60 Hz: a function queued on the UI goroutine
// this long after the window was changed runs after the frame that shows the change (Fyne
// draws on a 60 Hz tick, on that goroutine).
const frameTime = 20 * time.Millisecond

// firstRows is how many rows setRows lays out before the screen is drawn: what a screen
// shows. Laying out a row measures its texts, so the rest follow in a second step instead of
// delaying the first.
const firstRows = 12

// setRows replaces the rows, with nothing highlighted, the first screen's first (see
// firstRows).
func (l *hitList) setRows(rows []*resultRow) { l.replaceRows(rows, false) }

// replaceRows is setRows; atOnce lays every row out now, for a caller that scrolls the new
// rows to where the old ones were.
func (l *hitList) replaceRows(rows []*resultRow, atOnce bool) {
	l.selectHit(-1)
	l.cards = rows
	l.gen++
	gen := l.gen
	if l.onSelect != nil {
		// The preview follows the list by a frame: the list is what a person is waiting
		// for, and the preview's wrapped text costs a third as much again to lay out and
		// paint. (Queued with later, it was made before that frame in half the answers.)
		next := l.afterFrame
		if next == nil {
			next = l.later
		}
		if next == nil {
			l.onSelect(-1)
		} else {
			next(func() {
				if gen == l.gen && l.selected < 0 {
					l.onSelect(-1)
				}
			})
		}
	}
	// One layout per step: Container.Add lays the whole list out again on each call.
	objects := contents(rows)
	if atOnce || l.later == nil || len(objects) <= firstRows {
		l.results.Objects = objects
		l.results.Refresh()
		return
	}
	l.results.Objects = objects[:firstRows:firstRows]
	l.results.Refresh()
	l.later(func() {
		if gen != l.gen {
			return
		}
		// The cards, not rows: appendRows may have added to them meanwhile.
		l.results.Objects = contents(l.cards)
		l.results.Refresh()
	})
}

// appendRows adds rows below the shown ones: none of those moves, and the highlight stays.
// (The answer by meaning comes after the one by words, while the person may be reading it.)
func (l *hitList) appendRows(rows []*resultRow) {
	if len(rows) == 0 {
		return
	}
	laidOut := len(l.results.Objects) == len(l.cards)
	l.cards = append(l.cards, rows...)
	if !laidOut {
		return // replaceRows' second step lays out every card, these too
	}
	l.results.Objects = append(l.results.Objects, contents(rows)...)
	l.results.Refresh()
}

// contents are the rows' canvas objects, in order.
func contents(rows []*resultRow) []fyne.CanvasObject {
	objects := make([]fyne.CanvasObject, len(rows))
	for i, row := range rows {
		objects[i] = row.content
	}
	return objects
}

// rowWidth is the width to cut new rows to: the list's, or fallback before it is first drawn.
func (l *hitList) rowWidth(fallback float32) float32 {
	if w := l.scroll.Size().Width; w > 0 {
		return w
	}
	return fallback
}

// redraw makes the shown rows again with draw, when there are any, keeping the highlight.
func (l *hitList) redraw(draw func()) {
	if len(l.cards) == 0 {
		return
	}
	selected := l.selected
	draw()
	l.selectHit(selected)
}

// move walks the highlight by delta rows, stopping at either end.
func (l *hitList) move(delta int) {
	if len(l.cards) == 0 {
		return
	}
	l.selectHit(min(max(l.selected+delta, 0), len(l.cards)-1))
}

// selectedHit is the highlighted hit, if any.
func (l *hitList) selectedHit() (engine.Hit, bool) {
	if l.selected < 0 || l.selected >= len(l.cards) {
		return engine.Hit{}, false
	}
	return l.cards[l.selected].hit, true
}

// selectHit highlights the i-th result (-1: none) and scrolls it into view.
func (l *hitList) selectHit(i int) {
	if i == l.selected {
		return
	}
	if l.selected >= 0 && l.selected < len(l.cards) {
		l.cards[l.selected].highlight(false)
	}
	l.selected = i
	if i < 0 || i >= len(l.cards) {
		l.selected = -1
	}
	if l.onSelect != nil {
		l.onSelect(l.selected)
	}
	if l.selected < 0 {
		return
	}
	row := l.cards[i]
	row.highlight(true)
	top, bottom := row.content.Position().Y, row.content.Position().Y+row.content.Size().Height
	view := l.scroll.Size().Height
	switch off := l.scroll.Offset.Y; {
	case top < off:
		l.scroll.ScrollToOffset(fyne.NewPos(0, top))
	case bottom > off+view && view > 0:
		l.scroll.ScrollToOffset(fyne.NewPos(0, min(top, bottom-view)))
	}
}

// resultRow is one hit's card over a background that shows the keyboard highlight.
type resultRow struct {
	hit     engine.Hit
	bg      *canvas.Rectangle
	content fyne.CanvasObject
}

// newResultRow puts card, the hit drawn for its screen, over the highlight.
func newResultRow(h engine.Hit, card fyne.CanvasObject) *resultRow {
	row := &resultRow{hit: h, bg: canvas.NewRectangle(color.Transparent)}
	row.bg.CornerRadius = theme.InputRadiusSize()
	row.content = container.NewStack(row.bg, card)
	return row
}

func (row *resultRow) highlight(on bool) {
	row.bg.FillColor = color.Transparent
	if on {
		row.bg.FillColor = theme.Color(theme.ColorNameSelection)
	}
	row.bg.Refresh()
}

// typedShortcut copies the highlighted hit on Ctrl+C, unless text in the search box is
// selected: then the box copies its selection, as it always did.
func (r *recallScreen) typedShortcut(s fyne.Shortcut) bool {
	if _, ok := s.(*fyne.ShortcutCopy); !ok || r.query.SelectedText() != "" || r.copyHit == nil {
		return false
	}
	h, ok := r.selectedHit()
	if !ok {
		return false
	}
	r.copyHit(h)
	return true
}

// searchEntry is a one-line entry that first offers each key to onKey (and each shortcut to
// onShortcut), so arrows and Enter can act on the results while the search box keeps the
// focus.
type searchEntry struct {
	widget.Entry
	onKey      func(*fyne.KeyEvent) bool
	onShortcut func(fyne.Shortcut) bool
}

func newSearchEntry(onKey func(*fyne.KeyEvent) bool) *searchEntry {
	e := &searchEntry{onKey: onKey}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey gives onKey the first look at the key.
func (e *searchEntry) TypedKey(ev *fyne.KeyEvent) {
	if e.onKey != nil && e.onKey(ev) {
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut gives onShortcut the first look at the shortcut.
func (e *searchEntry) TypedShortcut(s fyne.Shortcut) {
	if e.onShortcut != nil && e.onShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// liveSearch runs a recall as the person types: after a pause in typing, cancelling the
// query in flight, and dropping any answer that a newer query has overtaken.
type liveSearch struct {
	t       *tasks
	b       Backend
	typing  debouncer
	request func() engine.RecallRequest // what the widgets ask; an empty Query clears
	pending func()                      // a query has started (may be nil)
	// answer shows the newest query's result; a zero result with no error means "cleared".
	answer func(engine.RecallResult, error)
	// answerAgain, when set, shows the result of a quiet rerun (again) in place.
	answerAgain func(engine.RecallResult)
	// meaning, when set, makes each typed search two steps: answer shows the lexical answer
	// at once (engine.RecallRequest.SkipMeaning), and when the engine says the model could
	// add to it, the full answer follows and goes to meaning, to be merged in without
	// moving what is shown. A slow model then delays only what it adds. Nil: one full
	// recall per search.
	meaning func(engine.RecallResult)

	cancel context.CancelFunc
	gen    int  // the newest search; older answers are dropped
	owed   bool // the data changed while a search was in flight: run it again when it lands

	// log, when set, gets one debug line per answer shown after typing: the time from the
	// last keystroke to the rows built, which is what a person waits for (and how issue 26's
	// "within 100 ms from the first second" is measured on a real window).
	log     *slog.Logger
	lastKey time.Time
	// drawn, when set, is told of each answer shown after typing, with its last keystroke:
	// the recall screen logs when the frame that shows it is painted.
	drawn func(lastKey time.Time, hits int)
}

// settled reports that no search waits for typing to pause or for its answer: what the
// screen shows is the answer to what was typed last.
func (s *liveSearch) settled() bool { return s.cancel == nil && !s.typing.due }

// typed schedules a search once typing pauses.
func (s *liveSearch) typed() {
	s.lastKey = time.Now()
	s.typing.trigger(s.t, s.run)
}

// again runs the shown query once more, quietly: no pending, and the answer goes to
// answerAgain when it succeeds and one is set (the data changed, not the query). A search in
// flight is not cancelled: it lands, and the rerun starts after it (see reread for why).
func (s *liveSearch) again() {
	if s.cancel != nil {
		s.owed = true
		return
	}
	s.start(true)
}

// now searches at once, dropping a scheduled search.
func (s *liveSearch) now() { s.typing.flush(s.run) }

// run starts the search the widgets describe, cancelling the one in flight. UI goroutine only.
func (s *liveSearch) run() { s.start(false) }

func (s *liveSearch) start(quiet bool) {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.gen++
	gen := s.gen
	if !quiet {
		s.owed = false // this search reads the data as it is now
	}
	req := s.request()
	if req.Query == "" {
		s.answer(engine.RecallResult{}, nil)
		return
	}
	if s.pending != nil && !quiet {
		s.pending()
	}
	// A quiet rerun replaces what is shown with the full answer in one step: the data
	// changed, and no one is waiting for it.
	twoSteps := s.meaning != nil && !quiet
	first := req
	first.SkipMeaning = twoSteps
	lastKey := s.lastKey
	s.cancel = s.t.start(func(ctx context.Context) {
		began := time.Now()
		res, err := s.b.Recall(ctx, first)
		took := time.Since(began)
		// The search stays in flight (cancel kept, settled false) until the full answer lands.
		more := twoSteps && err == nil && res.MeaningLeft
		answered := time.Now()
		s.t.do(func() {
			queued := time.Since(answered)
			if gen != s.gen {
				return // a newer query owns the screen
			}
			if !more && s.landed() {
				defer s.again()
			}
			if quiet && err == nil && s.answerAgain != nil {
				s.answerAgain(res)
				return
			}
			building := time.Now()
			s.answer(res, err)
			if s.log != nil && !quiet && !lastKey.IsZero() {
				// queued: the answer waited for the UI goroutine; built: the rows took to make.
				s.log.Debug("search shown", "hits", len(res.Hits), "recall", took, "queued", queued,
					"built", time.Since(building), "after_last_key", time.Since(lastKey), "debounce", s.typing.delay,
					"meaning_follows", more)
				if s.drawn != nil {
					s.drawn(lastKey, len(res.Hits))
				}
			}
		})
		if !more {
			return
		}
		// The same context: typing again cancels the model's wait too, not only the answer.
		// The UI goroutine runs what is posted in order, so the merge finds the answer by
		// words shown.
		second := req
		second.MeaningWait = meaningWait
		// fullErr, not err: the first answer's closure, still to run on the UI goroutine,
		// reads err.
		full, fullErr := s.b.Recall(ctx, second)
		s.t.do(func() {
			if gen != s.gen {
				return
			}
			if s.landed() {
				defer s.again()
			}
			if fullErr != nil {
				// The lexical answer stays: it is right as far as it goes, and an error in
				// place of it would take away what the person is reading.
				if s.log != nil {
					s.log.Warn("the answer by meaning failed; the answer by words stays", "err", fullErr)
				}
				return
			}
			s.meaning(full)
			if s.log != nil && !lastKey.IsZero() {
				s.log.Debug("search merged by meaning", "hits", len(full.Hits), "after_last_key", time.Since(lastKey))
			}
		})
	})
}

// landed ends the search in flight, its last answer here, and reports whether the data
// changed meanwhile: then the caller reruns it (again) once the answer is shown. UI
// goroutine only.
func (s *liveSearch) landed() (owed bool) {
	s.cancel = nil
	owed, s.owed = s.owed, false
	return owed
}

// refresh runs the shown query again, when there is one, after the data changed (an edit
// here, or another program's write). It is quiet: no "Searching…", and when the answer is
// what the cards already show, nothing is redrawn.
func (r *recallScreen) refresh() {
	if strings.TrimSpace(r.query.Text) != "" {
		r.search.again()
	}
}

// showAgain shows a new answer to the shown query without moving the person: the same
// hit stays highlighted, its "details" stay open where they were, and the results stay
// scrolled where they were.
func (r *recallScreen) showAgain(res engine.RecallResult) {
	if sameAnswer(r.shown, res) {
		r.shown = res
		return
	}
	var key hitKey
	if r.selected >= 0 {
		key = keyOf(r.cards[r.selected].hit)
	}
	previewed, foldOpen := r.previewed, r.previewFold != nil && r.previewFold.Items[0].Open
	offset := r.scroll.Offset
	r.present(res, nil, true)
	for i, c := range r.cards {
		if r.selected < 0 && key != (hitKey{}) && keyOf(c.hit) == key {
			r.selectHit(i)
		}
	}
	if foldOpen && r.previewed == previewed && r.previewFold != nil {
		r.previewFold.Open(0)
	}
	r.scroll.Refresh()
	r.scroll.ScrollToOffset(offset)
}

// paintProbe logs when the frame that shows a typed search's answer is painted: a 1x1
// transparent raster, refreshed with each answer, whose image the painter asks for while
// drawing that frame, after the rows before it in the tree. "search drawn" (after_last_key,
// the debounce included) is then what a person waits for from the last key to the list on
// screen, which "search shown" (the rows built) stops short of. The GUI smoke reads it.
type paintProbe struct {
	raster   *canvas.Raster
	log      *slog.Logger
	debounce time.Duration

	mu      sync.Mutex
	lastKey time.Time // of the answer waiting to be painted; zero when none
	hits    int
}

func newPaintProbe(log *slog.Logger, debounce time.Duration) *paintProbe {
	p := &paintProbe{log: log, debounce: debounce}
	p.raster = canvas.NewRaster(p.paint)
	p.raster.Resize(fyne.NewSize(1, 1))
	return p
}

// expect is told of an answer just built; the next paint of the probe reports it.
func (p *paintProbe) expect(lastKey time.Time, hits int) {
	p.mu.Lock()
	p.lastKey, p.hits = lastKey, hits
	p.mu.Unlock()
	p.raster.Refresh()
}

// paint is the raster's image, asked for by the painter (on the draw thread).
func (p *paintProbe) paint(w, h int) image.Image {
	p.mu.Lock()
	lastKey, hits := p.lastKey, p.hits
	p.lastKey = time.Time{}
	p.mu.Unlock()
	if !lastKey.IsZero() && p.log != nil {
		p.log.Debug("search drawn", "hits", hits, "after_last_key", time.Since(lastKey), "debounce", p.debounce)
	}
	return image.NewNRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
}

// hitKey names a hit across two answers.
type hitKey struct {
	source engine.Source
	id     int64
}

func keyOf(h engine.Hit) hitKey { return hitKey{h.Source, h.ID} }

// sameAnswer reports whether b would show what a shows: the same hits with the same words.
func sameAnswer(a, b engine.RecallResult) bool {
	if a.Query != b.Query || a.Relaxed != b.Relaxed || len(a.Hits) != len(b.Hits) ||
		a.Floors.Unanswered() != b.Floors.Unanswered() {
		return false
	}
	for i := range a.Hits {
		x, y := a.Hits[i], b.Hits[i]
		if keyOf(x) != keyOf(y) || x.Text != y.Text || x.WhyPlain != y.WhyPlain || x.Score != y.Score ||
			conflictMark(x) != conflictMark(y) {
			return false
		}
	}
	return true
}

func (r *recallScreen) show(res engine.RecallResult, err error) { r.present(res, err, false) }

// present is show; atOnce lays every card out now (see replaceRows).
func (r *recallScreen) present(res engine.RecallResult, err error, atOnce bool) {
	r.shown = res
	r.setRows(nil)
	r.respell.Hide()
	if suggestion := res.DidYouMean; err == nil && suggestion != "" {
		r.respell.SetText(lang.L("Did you mean {{.Suggestion}}?  Search that", tmpl{"Suggestion": display.Line(suggestion)}))
		r.respell.OnTapped = func() {
			r.query.SetText(suggestion)
			r.search.now()
		}
		r.respell.Show()
	}
	r.note.Importance = widget.LowImportance
	switch {
	case err != nil:
		r.note.Importance = widget.DangerImportance
		r.note.SetText(sentence(err))
		return
	case res.Query == "":
		r.note.SetText(typeToSearch())
		return
	case len(res.Hits) == 0 && res.Filtered > 0:
		r.note.Importance = widget.MediumImportance
		r.note.SetText(lang.L("No hit was written then or is in that folder; {{.Hits}} without the filters.", tmpl{"Hits": plural(res.Filtered, "hit", "hits")}))
		return
	case len(res.Hits) == 0:
		r.note.Importance = widget.MediumImportance
		r.note.SetText(nothingRelevant(res))
		return
	}
	r.countHits(res)
	r.replaceRows(r.rows(res.Hits, 0), atOnce)
}

// countHits says how many hits res has, and whether the floors were relaxed to find them.
func (r *recallScreen) countHits(res engine.RecallResult) {
	r.note.Importance = widget.LowImportance
	msg := plural(len(res.Hits), "hit", "hits")
	if res.Filtered > 0 {
		msg += lang.L(" ({{.Count}} more outside the filters)", tmpl{"Count": res.Filtered})
	}
	if res.Relaxed {
		r.note.Importance = widget.WarningImportance
		msg = lang.L("Relaxed: nothing matched every term, so these are the closest {{.Hits}}.", tmpl{"Hits": plural(len(res.Hits), "hit", "hits")})
	}
	r.note.SetText(msg)
}

// rows are the list's rows of hits, the first of them at index from of the list.
func (r *recallScreen) rows(hits []engine.Hit, from int) []*resultRow {
	// The rows are cut to the list's width now (a window not yet drawn: its default width).
	width := r.rowWidth(480)
	rows := make([]*resultRow, 0, len(hits))
	for i, h := range hits {
		row := &tapArea{content: hitRow(h, width), tapped: func() { r.selectHit(from + i) },
			doubleTapped: func() {
				if r.open != nil {
					r.open(h)
				}
			}}
		row.ExtendBaseWidget(row)
		rows = append(rows, newResultRow(h, row))
	}
	return rows
}

// addMeaning merges the full answer, the model's included, into the answer by words shown:
// see mergeByMeaning. With nothing shown there is nothing to keep in place, and the full
// answer is shown as it is.
func (r *recallScreen) addMeaning(full engine.RecallResult) {
	if len(r.shown.Hits) == 0 {
		r.show(full, nil)
		return
	}
	merged, added := mergeByMeaning(r.shown, full)
	r.shown = merged
	r.countHits(merged)
	r.appendRows(r.rows(added, len(r.cards)))
}

// mergeByMeaning is what the list shows once the full answer to a query lands after its
// answer by words (shown): the shown hits where they are, as they are, then the hits the full
// answer adds, in its order; the count, floors and notes are the full answer's. A shown hit
// the full answer ranks elsewhere or leaves out stays: it still matched, and it may be
// what the person is reading. added are the hits appended.
func mergeByMeaning(shown, full engine.RecallResult) (merged engine.RecallResult, added []engine.Hit) {
	seen := make(map[hitKey]bool, len(shown.Hits))
	for _, h := range shown.Hits {
		seen[keyOf(h)] = true
	}
	for _, h := range full.Hits {
		if !seen[keyOf(h)] {
			added = append(added, h)
		}
	}
	merged = full
	merged.Hits = append(slices.Clone(shown.Hits), added...)
	return merged, added
}

// themeChanged draws the shown hits again, the preview too, keeping the highlight: their
// texts and badges hold the colours of the theme they were drawn in.
func (r *recallScreen) themeChanged() {
	r.redraw(func() {
		r.previewed = hitKey{}
		r.present(r.shown, nil, true)
	})
}

// showPreview shows the i-th hit in the preview pane, the first when i is -1, nothing when
// there are no rows. The pane is built again only when the hit changes.
func (r *recallScreen) showPreview(i int) {
	if i < 0 {
		i = 0
	}
	if i >= len(r.cards) {
		r.previewed, r.previewFold = hitKey{}, nil
		r.preview.Objects = nil
		r.preview.Refresh()
		return
	}
	h := r.cards[i].hit
	if keyOf(h) == r.previewed && r.previewFold != nil && len(r.preview.Objects) > 0 {
		return
	}
	card, fold := hitCard(h, r.open, previewTextLimit)
	r.previewed, r.previewFold = keyOf(h), fold
	r.preview.Objects = []fyne.CanvasObject{card}
	r.preview.Refresh()
	r.previewScroll.ScrollToTop()
}

// hitRow is one hit in two lines of the list: its text on one line, around the first match,
// then what it is and where it is from. The preview pane shows it whole.
//
// The lines are bare canvas texts, cut to the row's width by an estimate, not labels or rich
// text: over 52,000 chunks the frame that showed a new answer spent 20 ms measuring the rows'
// rich text and labels (Fyne lays each out again as its parent changes, and a truncating
// label shapes its text each time), and building the rows took 20 ms more; as bare texts
// both took 2-8 ms. (Fyne's own truncation measured the text at every cut it tried: over 50
// searches the window's font caches grew it from 413 to 855 MB.) Their colours are the
// theme's at the time, so the list is drawn again when the theme changes (themeChanged).
func hitRow(h engine.Hit, width float32) fyne.CanvasObject {
	badge, where := hitSource(h, rowLocation)
	room := width - 2*theme.InnerPadding() // the line starts that far in; as much for the scroll bar
	line := textLine(fitLine(clip(highlight(oneLine(h.Text), h.Matched), rowTextLimit), room/theme.TextSize()), theme.TextSize())
	room -= badge.MinSize().Width
	source := textLine(fitLine([]span{{Text: where}}, room/theme.CaptionTextSize()), theme.CaptionTextSize())
	return container.New(hitRowLayout{}, line, container.NewBorder(nil, nil, badge, nil, source))
}

// textLine is spans on one line at size, the matched ones bold in the primary colour (see
// matchedStyle), each run of one script (faceRuns) a canvas text of its own.
func textLine(spans []span, size float32) *fyne.Container {
	texts := make([]fyne.CanvasObject, 0, len(spans))
	for _, s := range spans {
		for _, run := range faceRuns(s.Text) {
			t := canvas.NewText(run, theme.Color(theme.ColorNameForeground))
			t.TextSize = size
			if s.Matched {
				t.Color = theme.Color(theme.ColorNamePrimary)
				t.TextStyle = fyne.TextStyle{Bold: true}
			}
			texts = append(texts, t)
		}
	}
	return container.New(spanLayout{}, texts...)
}

// faceRuns splits text where it passes between wide (CJK) characters and the rest; spaces
// and punctuation go with the run they are in. Fyne draws the two from different fonts, and
// paints a text of several runs by rasterising its whole width once per run: at 52,000
// mixed chunks a new answer's texts averaged 1.7 runs, and painting them was most of the
// time from the last key to the list on screen.
func faceRuns(text string) []string {
	var runs []string
	start, wide, seen := 0, false, false
	for i, r := range text {
		if unicode.IsSpace(r) || r < 0x80 && unicode.IsPunct(r) {
			continue
		}
		w := wideRune(r)
		if seen && w != wide {
			runs = append(runs, text[start:i])
			start = i
		}
		wide, seen = w, true
	}
	return append(runs, text[start:])
}

// spanLayout sets its objects side by side at their own sizes, left to right.
type spanLayout struct{}

func (spanLayout) Layout(objects []fyne.CanvasObject, _ fyne.Size) {
	x := float32(0)
	for _, o := range objects {
		m := o.MinSize()
		o.Move(fyne.NewPos(x, 0))
		o.Resize(m)
		x += m.Width
	}
}

func (spanLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var w, h float32
	for _, o := range objects {
		m := o.MinSize()
		w += m.Width
		h = max(h, m.Height)
	}
	return fyne.NewSize(w, h)
}

// hitRowLayout stacks a row's text line over its source line, with a little room around:
// two lines in about 50 px, so an 800 px window lists 10 and more. The text starts where a label's
// would (the inner padding in), the source line's badge half that in, so the badge's own
// text lines up under it.
type hitRowLayout struct{}

// hitRowGap is the room above, between and below the two lines.
const hitRowGap = 3

func (hitRowLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	y := float32(hitRowGap)
	for i, o := range objects {
		x := theme.InnerPadding()
		if i > 0 {
			x /= 2
		}
		h := o.MinSize().Height
		o.Move(fyne.NewPos(x, y))
		o.Resize(fyne.NewSize(max(size.Width-x, 0), h))
		y += h + hitRowGap
	}
}

// MinSize asks for no width: the lines are cut to the width the row had when it was made,
// and a row as wide as its text would widen the list, and with it the quick window.
func (hitRowLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	h := float32(hitRowGap)
	for _, o := range objects {
		h += o.MinSize().Height + hitRowGap
	}
	return fyne.NewSize(0, h)
}

// fitLine cuts spans to about ems em of width, ending the cut with an ellipsis. It counts a
// wide (CJK) character as 1 em, a capital or digit as 0.65 and any other as 0.5, about what
// they take in the theme's font (Noto Sans), and a matched (bold) one a tenth wider, so a
// line cut here nearly fills its row; one that overflows is clipped by the list.
func fitLine(spans []span, ems float32) []span {
	budget := ems - 1 // room for the ellipsis
	var used float32
	for i, s := range spans {
		for j, r := range s.Text {
			w := float32(0.5)
			switch {
			case wideRune(r):
				w = 1
			case unicode.IsUpper(r) || unicode.IsDigit(r):
				w = 0.65
			}
			if s.Matched {
				w *= 1.1
			}
			if used+w > budget {
				out := slices.Clone(spans[:i])
				if j > 0 {
					out = append(out, span{Text: s.Text[:j], Matched: s.Matched})
				}
				return append(out, span{Text: "…"})
			}
			used += w
		}
	}
	return spans
}

// wideRune reports whether r takes a full em: Han, kana, Hangul and full-width forms.
func wideRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0xFF00 && r <= 0xFFEF || r >= 0x3000 && r <= 0x303F
}

// oneLine is text for a single line: escaped for display, its line breaks and runs of space
// each one space.
func oneLine(text string) string { return strings.Join(strings.Fields(display.Block(text)), " ") }

// hitSource is a hit's badges (memory or document, and where it stands in a conflict) and
// where it is: a memory's number, space and date, a chunk's document and place in it as
// locate says.
func hitSource(h engine.Hit, locate func(engine.DocRef) string) (badge fyne.CanvasObject, where string) {
	if h.Doc != nil {
		badge, where = chip(lang.L("document"), theme.ColorNamePrimary), locate(*h.Doc)
	} else {
		badge = chip(lang.L("memory"), theme.ColorNameSuccess)
		where = fmt.Sprintf("#%d · %s · %s", h.ID, h.Space, h.CreatedAt.Local().Format(lang.L("2 Jan 2006")))
	}
	if mark := conflictMark(h); mark != "" {
		badge = container.NewHBox(badge, chip(mark, theme.ColorNameWarning))
	}
	return badge, where
}

// nothingRelevant says why a search found nothing.
func nothingRelevant(res engine.RecallResult) string {
	if why := res.Floors.Unanswered(); why != "" {
		return lang.L("Nothing relevant: {{.Why}}.", tmpl{"Why": why})
	}
	return lang.L("Nothing relevant.")
}

// hitCard shows one hit in the preview pane: where it is from (and where it stands in a
// conflict), up to limit runes of its text with matched terms in bold, why it was found in
// plain words, and the ranking stage's numbers behind a "details" fold.
func hitCard(h engine.Hit, open func(engine.Hit), limit int) (card fyne.CanvasObject, fold *widget.Accordion) {
	badge, where := hitSource(h, docLocation)
	actions := container.NewHBox()
	if open != nil {
		label := lang.L("Edit")
		if h.Doc != nil {
			label = lang.L("Open")
		}
		btn := widget.NewButtonWithIcon(label, theme.NavigateNextIcon(), func() { open(h) })
		btn.Importance = widget.LowImportance
		actions.Add(btn)
	}
	header := container.NewBorder(nil, nil, badge, actions, caption(where))

	text := widget.NewRichText(segments(clip(highlight(display.Block(h.Text), h.Matched), limit))...)
	text.Wrapping = fyne.TextWrapWord

	// Why it was found, in words; the ranking stage's numbers are one tap further.
	plain := caption(h.WhyPlain)
	plain.Truncation = fyne.TextTruncateOff
	plain.Wrapping = fyne.TextWrapWord
	details := widget.NewLabel(lang.L("{{.Why}}\nscore {{.Score}} · lexical {{.Lexical}} · entity {{.Entity}} · semantic {{.Semantic}}", tmpl{
		"Why": h.Why, "Score": fmt.Sprintf("%.3f", h.Score), "Lexical": fmt.Sprintf("%.3f", h.Legs.FTS),
		"Entity": fmt.Sprintf("%.3f", h.Legs.Entity), "Semantic": fmt.Sprintf("%.3f", h.Legs.Semantic)}))
	details.Wrapping = fyne.TextWrapWord
	details.Importance = widget.LowImportance

	fold = widget.NewAccordion(widget.NewAccordionItem(lang.L("details"), details))
	box := container.NewVBox(header, text, plain)
	if places := otherPlaces(h.Doc); places != "" {
		also := caption(lang.L("Also in: {{.Places}}", tmpl{"Places": places}))
		also.Truncation = fyne.TextTruncateOff
		also.Wrapping = fyne.TextWrapWord
		box.Add(also)
	}
	box.Add(fold)
	return box, fold
}

// otherPlaces lists where else a chunk's text is: the identical copies of its file, then the
// places the same passage was folded in from. "" for a memory or a text found once.
func otherPlaces(d *engine.DocRef) string {
	if d == nil {
		return ""
	}
	var places []string
	for _, p := range d.OtherPaths {
		places = append(places, display.Line(p))
	}
	for _, p := range d.AlsoIn {
		places = append(places, display.Line(p.Path)+docPlace(engine.DocPlace{Page: p.Page, LineStart: p.LineStart}, false))
	}
	return strings.Join(places, lang.L(", "))
}

// conflictMark says where a memory stands among those that contradict it: "newer,
// conflicts with #3" on the one written last, "older, conflicts with #7" on the others; ""
// when nothing contradicts it.
func conflictMark(h engine.Hit) string {
	if len(h.Conflicts) == 0 {
		return ""
	}
	ids := make([]string, len(h.Conflicts))
	for i, c := range h.Conflicts {
		ids[i] = fmt.Sprintf("#%d", c.FactID)
	}
	standing := lang.L("older")
	if h.Newest() {
		standing = lang.L("newer")
	}
	return lang.L("{{.Standing}}, conflicts with {{.IDs}}", tmpl{"Standing": standing, "IDs": strings.Join(ids, ", ")})
}

// docLocation reads "Title — path:12–20 › Heading", or for a PDF "Title — path, p. 3:12–20".
func docLocation(d engine.DocRef) string {
	s := d.Title
	if s == "" {
		s = d.Path
	} else {
		s += " — " + d.Path
	}
	return s + docPlace(d.DocPlace, true)
}

// rowLocation is where a chunk is in a row of the list, shorter than docLocation (the
// preview shows that): the file and its folder, not the whole path; the title only where it
// says more than the file's name; the first line only. "Deploy — d/deploy.md:12 › Install".
func rowLocation(d engine.DocRef) string {
	file := filepath.Base(d.Path)
	s := filepath.Join(filepath.Base(filepath.Dir(d.Path)), file)
	if d.Title != "" && !strings.EqualFold(d.Title, strings.TrimSuffix(file, filepath.Ext(file))) {
		s = d.Title + " — " + s
	}
	return s + docPlace(d.DocPlace, false)
}

// docPlace is where in its document a chunk is, after the document's name: the page of a
// PDF, the lines (the first alone, or lines the whole range) and the heading.
// ", p. 3:12–20 › Install".
func docPlace(d engine.DocPlace, lines bool) string {
	var s string
	if d.Page > 0 {
		s += lang.L(", p. {{.Page}}", tmpl{"Page": d.Page})
	}
	if d.LineStart > 0 {
		s += fmt.Sprintf(":%d", d.LineStart)
		if lines && d.LineEnd > d.LineStart {
			s += fmt.Sprintf("–%d", d.LineEnd)
		}
	}
	if d.Heading != "" {
		s += " › " + d.Heading
	}
	return s
}

// matchedStyle marks matched terms in bold and in the primary colour: CJK fallback fonts
// often have no bold face, so colour is what shows there.
func matchedStyle() widget.RichTextStyle {
	return widget.RichTextStyle{ColorName: theme.ColorNamePrimary, Inline: true,
		SizeName: theme.SizeNameText, TextStyle: fyne.TextStyle{Bold: true}}
}

func segments(spans []span) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(spans))
	for _, s := range spans {
		style := widget.RichTextStyleInline
		if s.Matched {
			style = matchedStyle()
		}
		out = append(out, &widget.TextSegment{Text: s.Text, Style: style})
	}
	return out
}
