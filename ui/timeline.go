package ui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// timelineReader pages through the memories by day; *engine.Engine satisfies it. A backend
// without it offers no "By day" view.
type timelineReader interface {
	Timeline(ctx context.Context, req engine.TimelineRequest) (engine.TimelinePage, error)
}

// timelineAhead is how many rows before the end of what is loaded the next page is asked
// for, so scrolling rarely meets a "Loading…" row.
const timelineAhead = 40

// timelineView lists the memories under a header per day they were written, newest day
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
	now    func() time.Time

	rows    []timelineRow
	next    *engine.TimelineCursor
	loading bool
	gen     int    // the newest reload; pages of older ones are dropped
	keeping reread // the live view's re-reads (reloadKeeping)
	list    *widget.List
	empty   *widget.Label
	content fyne.CanvasObject
}

// timelineRow is a day's header (fact.ID 0) or one of its memories.
type timelineRow struct {
	day  time.Time
	fact engine.FactView
}

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

// reloadKeeping reads as many memories as are loaded now again, in one call, and stays
// scrolled where it was: another program wrote. It is the live view's read, so one runs at
// a time (see reread).
func (v *timelineView) reloadKeeping() {
	v.keeping.ask(func(landed func()) {
		v.gen++
		limit := min(max(v.loadedFacts(), factPageSize), 2000)
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
			if en.Fact == nil {
				continue // dated documents are not shown here yet
			}
			v.rows = append(v.rows, timelineRow{day: d.Day, fact: *en.Fact})
		}
	}
	v.next = page.Next
	v.empty.Hidden = len(v.rows) > 0
	v.empty.Refresh()
	v.list.Refresh()
}

func (v *timelineView) loadedFacts() int {
	n := 0
	for _, r := range v.rows {
		if r.fact.ID != 0 {
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
	if r.fact.ID == 0 {
		w.header.SetText(dayHeader(r.day, v.now()))
		w.header.Show()
		w.fact.Hide()
		return
	}
	w.header.Hide()
	w.fact.Show()
	v.bind(w.fact, r.fact)
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

// timelineRowWidget is one row of the timeline: a day's header or a memory.
type timelineRowWidget struct {
	widget.BaseWidget
	header  *widget.Label
	fact    *factRow
	content fyne.CanvasObject
}

func newTimelineRowWidget() fyne.CanvasObject {
	w := &timelineRowWidget{header: widget.NewLabel(""), fact: newFactRow().(*factRow)}
	w.header.TextStyle = fyne.TextStyle{Bold: true}
	w.header.Importance = widget.HighImportance
	w.header.Hide()
	// The header sits at the bottom of its row, next to the day's first memory; an empty
	// line above it keeps one template height for headers and memories alike.
	w.content = container.NewStack(container.NewVBox(widget.NewLabel(""), w.header), w.fact)
	w.ExtendBaseWidget(w)
	return w
}

func (w *timelineRowWidget) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(w.content)
}
