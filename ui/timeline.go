package ui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// timelineReader pages through the memories and dated documents by day; *engine.Engine
// satisfies it. A backend without it offers no "By day" view.
type timelineReader interface {
	Timeline(ctx context.Context, req engine.TimelineRequest) (engine.TimelinePage, error)
}

// timelineAhead is how many rows before the end of what is loaded the next page is asked
// for, so scrolling rarely meets a "Loading…" row.
const timelineAhead = 40

// timelineView lists the memories, and the documents whose text says when it was written
// (chat conversations, dated notes), under a header per day they were written, newest day
// first. It reads a page at a time as the person scrolls, so 100k memories cost what the
// rows on screen cost.
type timelineView struct {
	t     *tasks
	b     timelineReader
	space func() string // the space the Memories screen shows ("" for all)
	// bind shows a fact in a row with the Memories screen's actions on it.
	bind func(*factRow, engine.FactView)
	// failed reports an error in the Memories screen's banner.
	failed func(error)
	// openDoc shows a document in the document view, as Recall opens a knowledge hit.
	openDoc func(engine.DocumentView)
	now     func() time.Time

	rows    []timelineRow
	next    *engine.TimelineCursor
	loading bool
	gen     int    // the newest reload; pages of older ones are dropped
	keeping reread // the live view's re-reads (reloadKeeping)
	list    *widget.List
	empty   *widget.Label
	content fyne.CanvasObject
}

// timelineRow is a day's header (no fact, no doc), one of its memories or one of its
// dated documents.
type timelineRow struct {
	day  time.Time
	fact engine.FactView
	doc  *engine.DocumentView
}

func (r timelineRow) header() bool { return r.fact.ID == 0 && r.doc == nil }

func newTimelineView(t *tasks, b timelineReader) *timelineView {
	v := &timelineView{t: t, b: b, now: time.Now}
	v.list = widget.NewList(func() int { return len(v.rows) }, newTimelineRowWidget, v.updateRow)
	v.empty = widget.NewLabel(lang.L("No memories yet. Write one below and press Ctrl+Enter."))
	v.empty.Alignment = fyne.TextAlignCenter
	v.empty.Importance = widget.LowImportance
	v.empty.Hide()
	v.content = container.NewStack(v.list, container.NewCenter(v.empty))
	return v
}

// reload reads the timeline's first page again and goes to the top.
func (v *timelineView) reload() {
	v.gen++
	v.fetch(engine.TimelineRequest{Space: v.space()}, func(page engine.TimelinePage) {
		v.rows, v.next = nil, nil
		v.add(page)
		v.list.ScrollToTop()
	}, nil)
}

// reloadKeeping reads as many entries as are loaded now again, in one call, and stays
// scrolled where it was: another program wrote. It is the live view's read, so one runs at
// a time (see reread).
func (v *timelineView) reloadKeeping() {
	v.keeping.ask(func(landed func()) {
		v.gen++
		limit := min(max(v.loadedEntries(), factPageSize), 2000)
		offset := v.list.GetScrollOffset()
		v.fetch(engine.TimelineRequest{Space: v.space(), Limit: limit}, func(page engine.TimelinePage) {
			v.rows, v.next = nil, nil
			v.add(page)
			v.list.ScrollToOffset(offset)
		}, landed)
	})
}

// more reads the page after the loaded ones, unless one is on its way or none is left.
func (v *timelineView) more() {
	if v.loading || v.next == nil {
		return
	}
	v.fetch(engine.TimelineRequest{Space: v.space(), Before: v.next}, v.add, nil)
}

// fetch reads a page in the background and hands it to use on the UI goroutine, unless a
// newer reload overtook it; an error goes to failed. landed, when set, runs once the page is
// used or dropped.
func (v *timelineView) fetch(req engine.TimelineRequest, use func(engine.TimelinePage), landed func()) {
	gen := v.gen
	v.loading = true
	v.t.start(func(ctx context.Context) {
		page, err := v.b.Timeline(ctx, req)
		v.t.do(func() {
			if landed != nil {
				defer landed()
			}
			if gen != v.gen {
				return
			}
			v.loading = false
			if err != nil {
				v.failed(err)
				return
			}
			use(page)
		})
	})
}

// add appends a page's days; a day the page boundary cut goes on under its header.
func (v *timelineView) add(page engine.TimelinePage) {
	for _, d := range page.Days {
		if n := len(v.rows); n == 0 || !v.rows[n-1].day.Equal(d.Day) {
			v.rows = append(v.rows, timelineRow{day: d.Day})
		}
		for _, en := range d.Entries {
			if en.Document != nil {
				v.rows = append(v.rows, timelineRow{day: d.Day, doc: en.Document})
				continue
			}
			v.rows = append(v.rows, timelineRow{day: d.Day, fact: *en.Fact})
		}
	}
	v.next = page.Next
	v.empty.Hidden = len(v.rows) > 0
	v.empty.Refresh()
	v.list.Refresh()
}

// loadedEntries counts the memories and documents loaded, headers left out.
func (v *timelineView) loadedEntries() int {
	n := 0
	for _, r := range v.rows {
		if !r.header() {
			n++
		}
	}
	return n
}

func (v *timelineView) updateRow(id widget.ListItemID, obj fyne.CanvasObject) {
	w := obj.(*timelineRowWidget)
	if id >= len(v.rows) {
		return
	}
	if id >= len(v.rows)-timelineAhead {
		v.more()
	}
	r := v.rows[id]
	w.header.Hide()
	w.fact.Hide()
	w.doc.Hide()
	switch {
	case r.header():
		w.header.SetText(dayHeader(r.day, v.now()))
		w.header.Show()
	case r.doc != nil:
		doc := *r.doc
		w.doc.show(doc, func() {
			if v.openDoc != nil {
				v.openDoc(doc)
			}
		})
		w.doc.Show()
	default:
		w.fact.Show()
		v.bind(w.fact, r.fact)
	}
}

// dayHeader names a day as a person reads it: "Today", "Yesterday", else the date in the
// window's language (dayName).
func dayHeader(day, now time.Time) string {
	now = now.In(day.Location())
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, day.Location())
	switch {
	case day.Equal(today):
		return lang.L("Today")
	case day.Equal(today.AddDate(0, 0, -1)):
		return lang.L("Yesterday")
	}
	return dayName(day, now)
}

// chineseWeekdays are the weekdays' short Chinese names (周日 … 周六) by time.Weekday.
const chineseWeekdays = "日一二三四五六"

// dayName is a day with its weekday as a calendar says it in the window's language:
// "Mon 30 Nov 2026" in English; "11月30日 周一" in Chinese, which puts the year in front
// ("2025年11月30日 周一") only when it is not now's. Go's layouts name months and weekdays in
// English only, so the Chinese form is built from the numbers.
func dayName(day, now time.Time) string {
	if uiLanguage() != langChinese {
		return day.Format("Mon 2 Jan 2006")
	}
	layout := "1月2日"
	if day.Year() != now.Year() {
		layout = "2006年1月2日"
	}
	return day.Format(layout) + " 周" + string([]rune(chineseWeekdays)[day.Weekday()])
}

// timelineRowWidget is one row of the timeline: a day's header, a memory or a document.
type timelineRowWidget struct {
	widget.BaseWidget
	header  *widget.Label
	fact    *factRow
	doc     *timelineDocRow
	content fyne.CanvasObject
}

func newTimelineRowWidget() fyne.CanvasObject {
	w := &timelineRowWidget{header: widget.NewLabel(""), fact: newFactRow().(*factRow), doc: newTimelineDocRow()}
	w.doc.Hide()
	w.header.TextStyle = fyne.TextStyle{Bold: true}
	w.header.Importance = widget.HighImportance
	w.header.Hide()
	// The header sits at the bottom of its row, next to the day's first memory; an empty
	// line above it keeps one template height for headers and memories alike.
	w.content = container.NewStack(container.NewVBox(widget.NewLabel(""), w.header), w.fact, w.doc)
	w.ExtendBaseWidget(w)
	return w
}

func (w *timelineRowWidget) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(w.content)
}

// timelineDocRow is a dated document in the timeline, laid out like a memory's row: a
// badge saying what it is (a chat conversation or a note), its title, where it is and when
// it was written, and Open, which shows it in the document view.
type timelineDocRow struct {
	widget.BaseWidget
	conversation fyne.CanvasObject // badge
	note         fyne.CanvasObject // badge
	title        *widget.Label
	meta         *widget.Label
	open         *widget.Button
	content      fyne.CanvasObject
}

func newTimelineDocRow() *timelineDocRow {
	r := &timelineDocRow{
		conversation: chip(lang.L("conversation"), theme.ColorNamePrimary),
		note:         chip(lang.L("note"), theme.ColorNamePrimary),
		title:        widget.NewLabel(""),
		meta:         caption(""),
		open:         widget.NewButtonWithIcon(lang.L("Open"), theme.FileTextIcon(), nil),
	}
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.open.Importance = widget.LowImportance
	r.content = container.NewBorder(nil, nil, container.NewStack(r.conversation, r.note), r.open,
		container.NewVBox(r.title, r.meta))
	r.ExtendBaseWidget(r)
	return r
}

func (r *timelineDocRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(r.content)
}

// show fills the row with doc; open runs on Open.
func (r *timelineDocRow) show(doc engine.DocumentView, open func()) {
	r.conversation.Hide()
	r.note.Hide()
	if doc.Conversation() {
		r.conversation.Show()
	} else {
		r.note.Show()
	}
	r.title.SetText(display.Line(doc.Title))
	meta := fmt.Sprintf("#%d · %s · %s · %s", doc.ID, doc.Space, display.Line(doc.Format), display.Line(doc.Path))
	if doc.Written != nil {
		meta += " · " + doc.Written.Local().Format(lang.L("2 Jan 2006 15:04"))
	}
	r.meta.SetText(meta)
	r.open.OnTapped = open
}
