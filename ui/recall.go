package ui

import (
	"context"
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// hitTextLimit bounds how much of a long chunk a result card shows.
const hitTextLimit = 600

// recallScreen is the search box and its results: search as you type, each keystroke
// cancelling the query before it. Up and Down move a highlight through the results and
// Enter opens the highlighted hit, so a search never needs the mouse.
type recallScreen struct {
	t *tasks
	b Backend

	query   *searchEntry
	source  *widget.Select
	space   *widget.Entry
	note    *widget.Label
	results *fyne.Container
	scroll  *container.Scroll
	content fyne.CanvasObject

	// cards are the shown hits' rows, in order; selected indexes them, -1 for none.
	cards    []*resultRow
	selected int

	// open shows a hit where it lives: a memory in its edit dialog, a chunk among its
	// document's chunks.
	open func(engine.Hit)

	typing debouncer
	cancel context.CancelFunc
	gen    int                 // the newest search; older answers are dropped
	shown  engine.RecallResult // what the cards show, for tests
}

func newRecallScreen(t *tasks, b Backend) *recallScreen {
	r := &recallScreen{t: t, b: b, typing: debouncer{delay: debounceDelay}, selected: -1}
	r.query = newSearchEntry(r.typedKey)
	r.query.SetPlaceHolder("Search your memories and documents…  (↑↓ choose a hit, Enter opens it)")
	r.query.OnChanged = func(string) {
		// The highlight belongs to the results of the text before this keystroke.
		r.selectHit(-1)
		r.typing.trigger(t, r.search)
	}
	r.query.OnSubmitted = func(string) { r.typing.flush(r.search) }
	r.source = widget.NewSelect([]string{string(engine.SourceAll), string(engine.SourceMemory), string(engine.SourceKnowledge)}, nil)
	r.source.SetSelectedIndex(0)
	r.source.OnChanged = func(string) { r.typing.flush(r.search) }
	r.space = widget.NewEntry()
	r.space.SetPlaceHolder("default")
	r.space.OnChanged = func(string) { r.typing.trigger(t, r.search) }
	r.note = widget.NewLabel("Type to search. Memories and imported documents are searched together.")
	r.note.Importance = widget.LowImportance
	r.note.Wrapping = fyne.TextWrapWord
	r.results = container.NewVBox()

	spaceBox := container.NewGridWrap(fyne.NewSize(150, r.space.MinSize().Height), r.space)
	controls := container.NewHBox(widget.NewLabel("in"), r.source, widget.NewLabel("space"), spaceBox)
	top := container.NewVBox(container.NewBorder(nil, nil, nil, controls, r.query), r.note)
	r.scroll = container.NewVScroll(r.results)
	r.content = container.NewBorder(top, nil, nil, nil, r.scroll)
	return r
}

// typedKey moves the highlight with Up and Down and opens the highlighted hit on Enter. It
// reports whether it used the key; the search box types every other key as usual, and Enter
// with nothing highlighted still searches at once.
func (r *recallScreen) typedKey(ev *fyne.KeyEvent) bool {
	switch ev.Name {
	case fyne.KeyDown:
		if len(r.cards) > 0 {
			r.selectHit(min(r.selected+1, len(r.cards)-1))
		}
		return true
	case fyne.KeyUp:
		if len(r.cards) > 0 {
			r.selectHit(max(r.selected-1, 0))
		}
		return true
	case fyne.KeyReturn, fyne.KeyEnter:
		if r.selected < 0 || r.open == nil {
			return false
		}
		r.open(r.cards[r.selected].hit)
		return true
	}
	return false
}

// selectHit highlights the i-th result (-1: none) and scrolls it into view.
func (r *recallScreen) selectHit(i int) {
	if i == r.selected {
		return
	}
	if r.selected >= 0 && r.selected < len(r.cards) {
		r.cards[r.selected].highlight(false)
	}
	r.selected = i
	if i < 0 || i >= len(r.cards) {
		r.selected = -1
		return
	}
	row := r.cards[i]
	row.highlight(true)
	top, bottom := row.content.Position().Y, row.content.Position().Y+row.content.Size().Height
	view := r.scroll.Size().Height
	switch off := r.scroll.Offset.Y; {
	case top < off:
		r.scroll.ScrollToOffset(fyne.NewPos(0, top))
	case bottom > off+view && view > 0:
		r.scroll.ScrollToOffset(fyne.NewPos(0, min(top, bottom-view)))
	}
}

// resultRow is one hit's card over a background that shows the keyboard highlight.
type resultRow struct {
	hit     engine.Hit
	bg      *canvas.Rectangle
	content fyne.CanvasObject
	details *widget.Accordion // the scores' fold
}

func newResultRow(h engine.Hit, open func(engine.Hit)) *resultRow {
	row := &resultRow{hit: h, bg: canvas.NewRectangle(color.Transparent)}
	row.bg.CornerRadius = theme.InputRadiusSize()
	card, details := hitCard(h, open)
	row.details = details
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

// searchEntry is a one-line entry that first offers each key to onKey, so arrows and Enter
// can act on the results while the search box keeps the focus.
type searchEntry struct {
	widget.Entry
	onKey func(*fyne.KeyEvent) bool
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

// search runs the current query, cancelling the one in flight. UI goroutine only.
func (r *recallScreen) search() { r.run(false) }

// refresh runs the shown query again, when there is one, after the data changed (an edit
// here, or another program's write). It is quiet: no "Searching…", and when the answer is
// what the cards already show, nothing is redrawn.
func (r *recallScreen) refresh() {
	if strings.TrimSpace(r.query.Text) != "" {
		r.run(true)
	}
}

// run searches; again says the query is the one shown, asked again.
func (r *recallScreen) run(again bool) {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	r.gen++
	gen := r.gen
	q := strings.TrimSpace(r.query.Text)
	if q == "" {
		r.show(engine.RecallResult{}, nil)
		r.note.SetText("Type to search. Memories and imported documents are searched together.")
		return
	}
	req := engine.RecallRequest{Query: q, Space: strings.TrimSpace(r.space.Text), Source: engine.Source(r.source.Selected)}
	if !again {
		r.note.SetText("Searching…")
	}
	r.cancel = r.t.start(func(ctx context.Context) {
		res, err := r.b.Recall(ctx, req)
		r.t.do(func() {
			if gen != r.gen {
				return // a newer query owns the screen
			}
			r.cancel = nil
			if again && err == nil {
				r.showAgain(res)
				return
			}
			r.show(res, err)
		})
	})
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
	opened := map[hitKey]bool{}
	for _, c := range r.cards {
		if c.details.Items[0].Open {
			opened[keyOf(c.hit)] = true
		}
	}
	offset := r.scroll.Offset
	r.show(res, nil)
	for i, c := range r.cards {
		if opened[keyOf(c.hit)] {
			c.details.Open(0)
		}
		if r.selected < 0 && key != (hitKey{}) && keyOf(c.hit) == key {
			r.selectHit(i)
		}
	}
	r.scroll.Refresh()
	r.scroll.ScrollToOffset(offset)
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

func (r *recallScreen) show(res engine.RecallResult, err error) {
	r.shown = res
	r.selectHit(-1)
	r.cards = nil
	r.results.RemoveAll()
	r.note.Importance = widget.LowImportance
	switch {
	case err != nil:
		r.note.Importance = widget.DangerImportance
		r.note.SetText(sentence(err))
		return
	case res.Query == "":
		return
	case len(res.Hits) == 0:
		r.note.Importance = widget.MediumImportance
		if why := res.Floors.Unanswered(); why != "" {
			r.note.SetText("Nothing relevant: " + why + ".")
		} else {
			r.note.SetText("Nothing relevant.")
		}
		return
	}
	msg := plural(len(res.Hits), "hit", "hits")
	if res.Relaxed {
		r.note.Importance = widget.WarningImportance
		msg = "Relaxed: nothing matched every term, so these are the closest " + plural(len(res.Hits), "hit", "hits") + "."
	}
	r.note.SetText(msg)
	for _, h := range res.Hits {
		row := newResultRow(h, r.open)
		r.cards = append(r.cards, row)
		r.results.Add(row.content)
	}
}

// hitCard shows one hit: where it is from (and where it stands in a conflict), its text
// with matched terms in bold, why it was found in plain words, and the ranking stage's
// numbers behind a "details" fold.
func hitCard(h engine.Hit, open func(engine.Hit)) (card fyne.CanvasObject, fold *widget.Accordion) {
	var badge fyne.CanvasObject
	var where string
	if h.Doc != nil {
		badge = chip("document", theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary)
		where = docLocation(*h.Doc)
	} else {
		badge = chip("memory", theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess)
		where = fmt.Sprintf("#%d · %s · %s", h.ID, h.Space, h.CreatedAt.Local().Format("2 Jan 2006"))
	}
	actions := container.NewHBox()
	if open != nil {
		label := "Edit"
		if h.Doc != nil {
			label = "Open"
		}
		btn := widget.NewButtonWithIcon(label, theme.NavigateNextIcon(), func() { open(h) })
		btn.Importance = widget.LowImportance
		actions.Add(btn)
	}
	if mark := conflictMark(h); mark != "" {
		badge = container.NewHBox(badge, chip(mark, theme.ColorNameForegroundOnWarning, theme.ColorNameWarning))
	}
	header := container.NewBorder(nil, nil, badge, actions, caption(where))

	text := widget.NewRichText(segments(clip(highlight(display.Block(h.Text), h.Matched), hitTextLimit))...)
	text.Wrapping = fyne.TextWrapWord

	// Why it was found, in words; the ranking stage's numbers are one tap further.
	plain := caption(h.WhyPlain)
	plain.Truncation = fyne.TextTruncateOff
	plain.Wrapping = fyne.TextWrapWord
	details := widget.NewLabel(fmt.Sprintf("%s\nscore %.3f · lexical %.3f · entity %.3f · semantic %.3f",
		h.Why, h.Score, h.Legs.FTS, h.Legs.Entity, h.Legs.Semantic))
	details.Wrapping = fyne.TextWrapWord
	details.Importance = widget.LowImportance

	fold = widget.NewAccordion(widget.NewAccordionItem("details", details))
	return container.NewVBox(header, text, plain, fold, widget.NewSeparator()), fold
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
	standing := "older"
	if h.Newest() {
		standing = "newer"
	}
	return fmt.Sprintf("%s, conflicts with %s", standing, strings.Join(ids, ", "))
}

// docLocation reads "Title — path:12–20 › Heading", or for a PDF "Title — path, p. 3:12–20".
func docLocation(d engine.DocRef) string {
	s := d.Title
	if s == "" {
		s = d.Path
	} else {
		s += " — " + d.Path
	}
	if d.Page > 0 {
		s += fmt.Sprintf(", p. %d", d.Page)
	}
	if d.LineStart > 0 {
		s += fmt.Sprintf(":%d", d.LineStart)
		if d.LineEnd > d.LineStart {
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
