package ui

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// Fact statuses as engine.FactView reports them.
const (
	factActive     = "active"
	factSuperseded = "superseded"
	factDeleted    = "deleted"
)

// memoriesScreen lists facts newest first, lets a person add, edit, forget and restore them,
// and filters by text and space.
type memoriesScreen struct {
	t       *tasks
	b       Backend
	win     fyne.Window
	dialogs *dialogs
	log     *slog.Logger
	changed func() // the database changed: counts are stale

	filter  *widget.Entry
	space   *widget.SelectEntry
	showAll *widget.Check
	// byDay switches the list to the timeline (nil when the backend has none).
	byDay     *widget.Check
	timeline  *timelineView
	list      *widget.List
	empty     *widget.Label
	addEntry  *submitEntry
	addButton *widget.Button
	banner    *banner
	acts      *factActions
	content   fyne.CanvasObject

	pages *factPages
	gen   int // the newest reload; pages from older ones are dropped
	// conflicts maps a fact to the active facts it contradicts, from the last full check.
	conflicts map[int64][]engine.ContradictionPair
	// checking says a contradiction pass runs; recheck that another is owed after it, so
	// changes that keep coming run one pass at a time.
	checking, recheck bool
	// checked is when the last pass ended and checkTook how long it ran; checkDue says a
	// paced pass is waiting (reloadConflictsPaced).
	checked   time.Time
	checkTook time.Duration
	checkDue  bool
	// selected is the memory the person selected in the list (0: none): a refresh that
	// moves rows keeps it selected.
	selected  int64
	rowStride float32 // one row's height with the gap below it, once measured
	spaces    []string
	editSpace *dialogSelectEntry // the open edit dialog's space, for tests
	filtering debouncer
	keeping   reread // the live view's re-reads of the loaded pages (refreshKeeping)
}

func newMemoriesScreen(t *tasks, b Backend, win fyne.Window, dialogs *dialogs, log *slog.Logger, changed func()) *memoriesScreen {
	m := &memoriesScreen{t: t, b: b, win: win, dialogs: dialogs, log: log, changed: changed,
		pages: newFactPages(factPageSize, 0), filtering: debouncer{delay: debounceDelay}}

	m.filter = widget.NewEntry()
	m.filter.SetPlaceHolder(lang.L("Filter by text…"))
	m.filter.OnChanged = func(string) { m.filtering.trigger(t, m.reload) }
	m.space = widget.NewSelectEntry(nil)
	m.space.SetPlaceHolder(lang.L("all spaces"))
	m.space.OnChanged = func(string) { m.filtering.trigger(t, m.reload) }
	m.showAll = widget.NewCheck(lang.L("Show history"), func(bool) { m.reload() })

	m.list = widget.NewList(func() int { return m.pages.length }, newFactRow, m.updateRow)
	m.list.OnSelected = func(id widget.ListItemID) {
		if f, ok := m.pages.row(id); ok {
			m.selected = f.ID
		}
	}
	m.list.OnUnselected = func(widget.ListItemID) { m.selected = 0 }
	m.empty = widget.NewLabel("")
	m.empty.Alignment = fyne.TextAlignCenter
	m.empty.Importance = widget.LowImportance
	m.empty.Hide()

	m.addEntry = newSubmitEntry(m.add)
	m.addEntry.SetPlaceHolder(lang.L("Something to remember… (Ctrl+Enter saves)"))
	m.addEntry.SetMinRowsVisible(3)
	m.addButton = widget.NewButtonWithIcon(lang.L("Remember"), theme.ContentAddIcon(), m.add)
	m.addButton.Importance = widget.HighImportance
	m.banner = newBanner()
	m.acts = &factActions{t: t, b: b, banner: m.banner, after: m.afterChange}

	spaceBox := container.NewGridWrap(fyne.NewSize(170, m.space.MinSize().Height), m.space)
	controls := container.NewHBox(widget.NewLabel(lang.L("space")), spaceBox, m.showAll)
	listed := container.NewStack(m.list, container.NewCenter(m.empty))
	middle := container.NewStack(listed)
	if tr, ok := b.(timelineReader); ok {
		m.timeline = newTimelineView(t, tr)
		m.timeline.space = func() string { return strings.TrimSpace(m.space.Text) }
		m.timeline.bind = m.bindRow
		m.timeline.failed = func(err error) { m.banner.show(widget.DangerImportance, sentence(err), "", nil) }
		m.timeline.content.Hide()
		middle.Add(m.timeline.content)
		m.byDay = widget.NewCheck(lang.L("By day"), func(on bool) {
			// The timeline lists a space's active memories and dated documents; text
			// filter and history are the list's.
			if on {
				listed.Hide()
				m.timeline.content.Show()
				m.filter.Disable()
				m.showAll.Disable()
				m.timeline.reload()
			} else {
				m.timeline.content.Hide()
				listed.Show()
				m.filter.Enable()
				m.showAll.Enable()
			}
			middle.Refresh()
		})
		controls.Add(m.byDay)
	}
	top := container.NewBorder(nil, nil, nil, controls, m.filter)
	addRow := container.NewBorder(nil, nil, nil, container.NewVBox(m.addButton), m.addEntry)
	bottom := container.NewVBox(m.banner.content, addRow)
	m.content = container.NewBorder(top, bottom, nil, nil, middle)
	return m
}

// byDayShown reports whether the timeline, not the list, is on screen.
func (m *memoriesScreen) byDayShown() bool { return m.byDay != nil && m.byDay.Checked }

// listRequest is the list the controls describe, for one page.
func (m *memoriesScreen) listRequest(page int) engine.ListRequest {
	return engine.ListRequest{Space: strings.TrimSpace(m.space.Text), All: m.showAll.Checked,
		Filter: m.filter.Text, Limit: factPageSize, Offset: page * factPageSize}
}

// reload reads the first page again (and the total, when no filter narrows the list),
// keeping the old rows on screen until the new ones arrive; the timeline too, when shown.
func (m *memoriesScreen) reload() {
	if m.byDayShown() {
		m.timeline.reload()
	}
	m.fetch(m.listRequest(0), m.showFirstPage, nil)
}

// showFirstPage replaces the list's rows by the first page of a new listing.
func (m *memoriesScreen) showFirstPage(total int, facts []engine.FactView) func() {
	m.pages = newFactPages(factPageSize, total)
	m.pages.put(0, facts)
	return nil
}

// fetch lists req (and the total, see total) in the background and hands the answer to
// show on the UI goroutine, unless a newer fetch has started meanwhile; then the spaces,
// the empty note and the list follow it, and last what show returned (nil: nothing). An
// error goes to the banner. landed, when set, runs once the answer is shown or dropped.
func (m *memoriesScreen) fetch(req engine.ListRequest, show func(total int, facts []engine.FactView) (after func()), landed func()) {
	m.gen++
	gen := m.gen
	m.t.start(func(ctx context.Context) {
		total := m.total(ctx, req)
		res, err := m.b.List(ctx, req)
		m.t.do(func() {
			if landed != nil {
				defer landed()
			}
			if gen != m.gen {
				return
			}
			if err != nil {
				m.banner.show(widget.DangerImportance, sentence(err), "", nil)
				return
			}
			after := show(total, res.Facts)
			m.learnSpaces(res.Facts)
			m.showEmpty(req)
			m.list.Refresh()
			if after != nil {
				after()
			}
		})
	})
}

// total is how many rows the list has, when Stats can say without a filter (-1 otherwise).
func (m *memoriesScreen) total(ctx context.Context, req engine.ListRequest) int {
	if req.Filter != "" || req.Space != "" {
		return -1
	}
	st, err := m.b.Stats(ctx)
	if err != nil {
		return -1
	}
	total := st.FactsActive
	if req.All {
		total += st.FactsSuperseded + st.FactsDeleted
	}
	return total
}

// refreshKeeping reads again every page the list has loaded, in one call, and swaps them in
// at once, so no row flashes "Loading…". The person stays where they were: when memories
// were added or removed above the rows in view, the list scrolls by as many rows, so the same
// memories stay in view, and the selected memory stays selected. At the very top the list
// stays at the top, where new memories appear. It is the live view's read, so one runs at a
// time (see reread).
func (m *memoriesScreen) refreshKeeping() {
	if m.byDayShown() {
		m.timeline.reloadKeeping()
	}
	m.keeping.ask(m.refreshKeepingNow)
}

func (m *memoriesScreen) refreshKeepingNow(landed func()) {
	loaded := 0
	for p := range m.pages.pages {
		loaded = max(loaded, p+1)
	}
	if loaded == 0 {
		m.fetch(m.listRequest(0), m.showFirstPage, landed)
		return
	}
	req := m.listRequest(0)
	req.Limit = loaded * factPageSize
	m.fetch(req, func(total int, facts []engine.FactView) func() {
		stride := m.stride()
		offset := m.list.GetScrollOffset()
		first := int(offset / stride)
		anchor, anchored := m.pages.row(first)

		pages := newFactPages(factPageSize, total)
		for p := 0; p < loaded; p++ {
			lo := p * factPageSize
			hi := min(lo+factPageSize, len(facts))
			if lo > hi {
				break
			}
			pages.put(p, facts[lo:hi])
			if hi-lo < factPageSize {
				break
			}
		}
		m.pages = pages
		return func() {
			// Select first: List.Select scrolls to the row, and the offset set after it wins.
			if m.selected != 0 {
				if i := pages.index(m.selected); i >= 0 {
					m.list.Select(i)
				} else {
					m.list.UnselectAll()
				}
			}
			if offset > 0 && anchored {
				if i := pages.index(anchor.ID); i >= 0 {
					offset += float32(i-first) * stride
				}
			}
			m.list.ScrollToOffset(offset)
		}
	}, landed)
}

// stride is the height one row takes in the list, the gap below it included: how far a
// row added above the view moves the rows in it.
func (m *memoriesScreen) stride() float32 {
	if m.rowStride == 0 {
		m.rowStride = newFactRow().MinSize().Height + m.list.Theme().Size(theme.SizeNamePadding)
	}
	return m.rowStride
}

// reloadConflicts runs the full contradiction check for the badges. It reads every active
// statement, so it runs when the facts change, not on every filter keystroke, and one at a
// time: a change while one runs owes one more. Badges are per fact, whatever the list shows.
func (m *memoriesScreen) reloadConflicts() {
	if m.checking {
		m.recheck = true
		return
	}
	m.checking = true
	began := time.Now()
	m.t.start(func(ctx context.Context) {
		found, err := m.b.Contradictions(ctx, engine.ContradictionsRequest{})
		m.t.do(func() {
			m.checking = false
			m.checked, m.checkTook = time.Now(), time.Since(began)
			if m.recheck {
				m.recheck = false
				m.reloadConflicts()
			}
			if err != nil {
				// Badges only: a failed check leaves rows as they were and says why in the log.
				m.log.Warn("contradiction badges not updated", "err", err)
				return
			}
			conflicts := map[int64][]engine.ContradictionPair{}
			for _, p := range found.Pairs {
				conflicts[p.A.ID] = append(conflicts[p.A.ID], p)
				conflicts[p.B.ID] = append(conflicts[p.B.ID], p)
			}
			m.conflicts = conflicts
			m.list.Refresh()
			if m.timeline != nil {
				m.timeline.list.Refresh()
			}
		})
	})
}

// checkPace is how many times its own duration a paced contradiction pass waits after the
// last one: a pass that takes 1.2 s (100k memories) runs at most every 6 s while another
// program keeps writing, a fifth of a core, and one of 20 ms (1k) as often as changes come.
const checkPace = 4

// reloadConflictsPaced is reloadConflicts for changes that keep coming (the live view): it
// runs when checkPace times the last pass's duration has gone by since that pass ended, and
// changes meanwhile fold into the one pass that is waiting.
func (m *memoriesScreen) reloadConflictsPaced() {
	wait := time.Until(m.checked.Add(checkPace * m.checkTook))
	if wait <= 0 {
		m.reloadConflicts()
		return
	}
	if m.checkDue {
		return
	}
	m.checkDue = true
	time.AfterFunc(wait, func() {
		m.t.do(func() {
			m.checkDue = false
			m.reloadConflicts()
		})
	})
}

// loadPage fetches one page the list scrolled to.
func (m *memoriesScreen) loadPage(page int) {
	if m.pages.loading[page] {
		return
	}
	m.pages.loading[page] = true
	gen, pages := m.gen, m.pages
	req := m.listRequest(page)
	m.t.start(func(ctx context.Context) {
		res, err := m.b.List(ctx, req)
		m.t.do(func() {
			if gen != m.gen || pages != m.pages {
				return
			}
			if err != nil {
				delete(pages.loading, page)
				m.banner.show(widget.DangerImportance, sentence(err), "", nil)
				return
			}
			pages.put(page, res.Facts)
			m.learnSpaces(res.Facts)
			m.list.Refresh()
		})
	})
}

func (m *memoriesScreen) showEmpty(req engine.ListRequest) {
	switch {
	case m.pages.length > 0:
		m.empty.Hide()
		return
	case req.Filter != "" || req.Space != "":
		m.empty.SetText(lang.L("No memories match."))
	default:
		m.empty.SetText(lang.L("No memories yet. Write one below and press Ctrl+Enter."))
	}
	m.empty.Show()
}

// learnSpaces offers every space seen so far in the space selector.
func (m *memoriesScreen) learnSpaces(facts []engine.FactView) {
	names := make([]string, len(facts))
	for i, f := range facts {
		names[i] = f.Space
	}
	m.learnSpaceNames(names)
}

func (m *memoriesScreen) updateRow(id widget.ListItemID, obj fyne.CanvasObject) {
	row := obj.(*factRow)
	f, ok := m.pages.row(id)
	if !ok {
		row.showLoading()
		m.loadPage(m.pages.page(id))
		return
	}
	m.bindRow(row, f)
}

// bindRow shows f in row, with its badge and actions: the list's rows and the timeline's.
func (m *memoriesScreen) bindRow(row *factRow, f engine.FactView) {
	row.show(f, m.conflicts[f.ID])
	row.conflict.OnTapped = func() { m.showConflicts(f, m.conflicts[f.ID]) }
	row.edit.OnTapped = func() { m.showEdit(f) }
	row.forget.OnTapped = func() { m.forget(f) }
	row.restore.OnTapped = func() { m.restore(f.ID) }
}

func (m *memoriesScreen) add() {
	m.addButton.Disable()
	text := m.addEntry.Text
	m.acts.add(text, strings.TrimSpace(m.space.Text), func(saved bool) {
		m.addButton.Enable()
		// A save can take seconds on a busy store; what was typed meanwhile is the next
		// memory, not this one's leftovers.
		if saved && m.addEntry.Text == text {
			m.addEntry.SetText("")
		}
	})
}

// afterChange follows a write to the facts: the list, its badges and the counts are stale.
func (m *memoriesScreen) afterChange() {
	m.reload()
	m.reloadConflicts()
	m.changed()
}

func (m *memoriesScreen) showEdit(f engine.FactView) {
	entry := m.dialogs.newMultiLineEntry()
	entry.SetText(f.Text)
	entry.SetMinRowsVisible(5)
	// The space can be changed too, for an active memory, when the backend can move one:
	// pick a space from the list or type a new name.
	content := fyne.CanvasObject(entry)
	space := m.dialogs.newSelectEntry(m.spaces)
	space.SetText(f.Space)
	_, canMove := m.b.(memoryMover)
	if canMove && f.Status == factActive {
		content = container.NewBorder(nil, container.NewBorder(nil, nil, widget.NewLabel(lang.L("Space")), nil, space), nil, nil, entry)
	}
	m.editSpace = space
	m.dialogs.showConfirm(lang.L("Edit memory #{{.ID}}", tmpl{"ID": f.ID}), lang.L("Save"), lang.L("Cancel"), content, fyne.NewSize(560, 260), func(save bool) {
		if !save {
			return
		}
		if entry.Text != f.Text {
			m.edit(f.ID, entry.Text)
		}
		if to := strings.TrimSpace(space.Text); canMove && f.Status == factActive && to != "" && to != f.Space {
			m.move(f, to)
		}
	})
	m.win.Canvas().Focus(entry)
}

func (m *memoriesScreen) edit(id int64, text string) { m.acts.edit(id, text) }

func (m *memoriesScreen) showHygiene(done string, id int64, text string, res engine.RememberResult) {
	m.acts.showHygiene(done, id, text, res)
}

func (m *memoriesScreen) supersede(old, by int64)  { m.acts.supersede(old, by) }
func (m *memoriesScreen) dismiss(a, b int64)       { m.acts.dismiss(a, b) }
func (m *memoriesScreen) forget(f engine.FactView) { m.acts.forget(f) }
func (m *memoriesScreen) restore(id int64)         { m.acts.restore(id) }

// showConflicts lists what a fact contradicts, each with its two resolutions.
func (m *memoriesScreen) showConflicts(f engine.FactView, pairs []engine.ContradictionPair) {
	box := container.NewVBox()
	var d dialog.Dialog
	for _, p := range pairs {
		other := p.A
		if other.ID == f.ID {
			other = p.B
		}
		settle := m.acts.settling(f, other)
		text := widget.NewLabel(lang.L("conflicts with #{{.Other}} ({{.Age}}) “{{.Text}}”\n{{.Reason}}\nKeep new keeps #{{.Older}} as history; Keep old forgets #{{.Newer}}.", tmpl{
			"Other": other.ID, "Age": settle.age(other.ID), "Text": display.Line(other.Text), "Reason": display.Line(p.Reason),
			"Older": settle.older.ID, "Newer": settle.newer.ID}))
		text.Wrapping = fyne.TextWrapWord
		buttons := container.NewHBox()
		for _, c := range settle.choices(func() { d.Hide() }) {
			buttons.Add(widget.NewButton(c.label, c.do))
		}
		box.Add(container.NewVBox(text, buttons, widget.NewSeparator()))
	}
	d = m.dialogs.showCustom(lang.L("#{{.ID}} “{{.Text}}” contradicts", tmpl{"ID": f.ID, "Text": shorten(f.Text, 40)}), lang.L("Close"), container.NewVScroll(box), fyne.NewSize(560, 360))
}

// shorten cuts text to at most n runes, marking the cut.
func shorten(text string, n int) string {
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	return string(r[:n-1]) + "…"
}

// factRow is one line of the memories list: the text, a caption, and its actions.
type factRow struct {
	widget.BaseWidget
	text, meta                      *widget.Label
	conflict, edit, forget, restore *widget.Button
	content                         fyne.CanvasObject
}

func newFactRow() fyne.CanvasObject {
	r := &factRow{text: widget.NewLabel(""), meta: caption("")}
	r.text.Truncation = fyne.TextTruncateEllipsis
	r.edit = widget.NewButtonWithIcon(lang.L("Edit"), theme.DocumentCreateIcon(), nil)
	r.forget = widget.NewButtonWithIcon(lang.L("Forget"), theme.DeleteIcon(), nil)
	r.restore = widget.NewButtonWithIcon(lang.L("Restore"), theme.ContentUndoIcon(), nil)
	for _, b := range []*widget.Button{r.edit, r.forget, r.restore} {
		b.Importance = widget.LowImportance
	}
	r.conflict = widget.NewButtonWithIcon("", theme.WarningIcon(), nil)
	r.conflict.Importance = widget.WarningImportance
	r.conflict.Hide()
	r.content = container.NewBorder(nil, nil, nil, container.NewHBox(r.conflict, r.edit, r.forget, r.restore),
		container.NewVBox(r.text, r.meta))
	r.ExtendBaseWidget(r)
	return r
}

func (r *factRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }

func (r *factRow) showLoading() {
	r.text.SetText(lang.L("Loading…"))
	r.meta.SetText("")
	r.conflict.Hide()
	r.edit.Hide()
	r.forget.Hide()
	r.restore.Hide()
}

func (r *factRow) show(f engine.FactView, conflicts []engine.ContradictionPair) {
	r.text.SetText(display.Block(f.Text))
	meta := fmt.Sprintf("#%d · %s · %s", f.ID, f.Space, f.CreatedAt.Local().Format(lang.L("2 Jan 2006 15:04")))
	if f.Status != factActive {
		meta += " · " + statusWord(f.Status)
	}
	if f.SupersededBy != 0 {
		meta += lang.L(" by #{{.ID}}", tmpl{"ID": f.SupersededBy})
	}
	r.meta.SetText(meta)
	if len(conflicts) > 0 && f.Status == factActive {
		r.conflict.SetText(lang.L("contradicts {{.Count}}", tmpl{"Count": len(conflicts)}))
		r.conflict.Show()
	} else {
		r.conflict.Hide()
	}
	r.edit.Show()
	if f.Status == factActive {
		r.forget.Show()
		r.restore.Hide()
	} else {
		r.forget.Hide()
		r.restore.Show()
	}
}

func statusWord(status string) string {
	switch status {
	case factDeleted:
		return lang.L("forgotten")
	case factSuperseded:
		return lang.L("superseded")
	}
	return status
}
