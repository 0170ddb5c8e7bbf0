package ui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
)

func TestDayHeader(t *testing.T) {
	loc := time.FixedZone("UTC+8", 8*3600)
	now := time.Date(2026, 12, 1, 0, 30, 0, 0, loc)
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, loc) }
	tests := []struct {
		day  time.Time
		want string
	}{
		{day(12, 1), "Today"},
		{day(11, 30), "Yesterday"},
		{day(11, 29), "Sun 29 Nov 2026"},
		{day(12, 2), "Wed 2 Dec 2026"},
	}
	for _, tc := range tests {
		if got := dayHeader(tc.day, now); got != tc.want {
			t.Errorf("dayHeader(%v) = %q, want %q", tc.day, got, tc.want)
		}
	}
	// Now in another zone is read in the day's: 16:30 UTC on the 30th is already the 1st in UTC+8.
	if got := dayHeader(day(12, 1), time.Date(2026, 11, 30, 16, 30, 0, 0, time.UTC)); got != "Today" {
		t.Errorf("dayHeader across zones = %q, want Today", got)
	}
}

// TestTimelineShowsDays: "By day" shows the memories under a header per day, newest first,
// with the list's actions on each; the text filter and history, which the timeline does
// not apply, are off while it shows; a memory added meanwhile appears under Today.
func TestTimelineShowsDays(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	now := time.Now()
	at := func(daysAgo int) time.Time {
		d := now.AddDate(0, 0, -daysAgo)
		return time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.Local)
	}
	ex := engine.MemoryExport{Format: engine.MemoryExportFormat}
	for _, m := range []struct {
		text    string
		daysAgo int
	}{{"pruned the pears", 5}, {"planted plums", 5}, {"picked apples", 1}} {
		ex.Memories = append(ex.Memories, engine.ExportedMemory{Text: m.text, Space: "default", CreatedAt: at(m.daysAgo), UpdatedAt: at(m.daysAgo)})
	}
	if _, err := h.eng.ImportMemories(context.Background(), ex, nil); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.u.showScreen(screenMemories)
	m := h.u.memories
	if m.byDay == nil {
		t.Fatal("no By day switch over the engine")
	}
	test.Tap(m.byDay)
	v := m.timeline
	h.waitFor("the timeline", func() bool { return len(v.rows) == 5 })
	var got []string
	for _, r := range v.rows {
		if r.header() {
			got = append(got, "# "+dayHeader(r.day, now))
		} else {
			got = append(got, r.fact.Text)
		}
	}
	want := []string{"# Yesterday", "picked apples", "# " + at(5).Format("Mon 2 Jan 2006"), "planted plums", "pruned the pears"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("timeline rows = %q, want %q", got, want)
	}
	shown := texts(m.content)
	for _, w := range []string{"Yesterday", "picked apples", "Edit", "Forget"} {
		if !strings.Contains(shown, w) {
			t.Errorf("the screen lacks %q:\n%s", w, shown)
		}
	}
	if !m.filter.Disabled() || !m.showAll.Disabled() {
		t.Errorf("filter disabled %v, history disabled %v; want both off by day", m.filter.Disabled(), m.showAll.Disabled())
	}
	m.addEntry.SetText("watered the orchard")
	m.add()
	h.waitFor("today's memory", func() bool { return len(v.rows) == 7 && dayHeader(v.rows[0].day, time.Now()) == "Today" })
	if v.rows[1].fact.Text != "watered the orchard" {
		t.Errorf("first memory under Today = %q", v.rows[1].fact.Text)
	}
	test.Tap(m.byDay)
	if m.filter.Disabled() || v.content.Visible() {
		t.Errorf("after By day off: filter disabled %v, timeline visible %v", m.filter.Disabled(), v.content.Visible())
	}
}

// manyDays serves a synthetic timeline of n memories, ten a day, and counts the calls.
type manyDays struct {
	*engine.Engine
	n     int
	calls atomic.Int32
}

func (b *manyDays) Timeline(_ context.Context, req engine.TimelineRequest) (engine.TimelinePage, error) {
	b.calls.Add(1)
	limit := req.Limit
	if limit == 0 {
		limit = 200
	}
	// Memory i (0 newest) has id n-i and was written i/10 days before the first day.
	start := 0
	if req.Before != nil {
		start = b.n - int(req.Before.ID) + 1
	}
	first := time.Date(2026, 11, 30, 0, 0, 0, 0, time.Local)
	var facts []engine.FactView
	for i := start; i < min(start+limit, b.n); i++ {
		facts = append(facts, engine.FactView{ID: int64(b.n - i), Text: "memory", Space: "default", Status: factActive,
			CreatedAt: first.AddDate(0, 0, -i/10).Add(time.Duration(9-i%10) * time.Minute)})
	}
	var page engine.TimelinePage
	for _, f := range facts {
		day := time.Date(f.CreatedAt.Year(), f.CreatedAt.Month(), f.CreatedAt.Day(), 0, 0, 0, 0, time.Local)
		en := engine.TimelineEntry{Fact: &f}
		if n := len(page.Days); n > 0 && page.Days[n-1].Day.Equal(day) {
			page.Days[n-1].Entries = append(page.Days[n-1].Entries, en)
		} else {
			page.Days = append(page.Days, engine.TimelineDay{Day: day, Entries: []engine.TimelineEntry{en}})
		}
	}
	if start+limit < b.n {
		last := facts[len(facts)-1]
		page.Next = &engine.TimelineCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

// TestTimeline100kReadsAsItScrolls: over 100k memories the timeline reads one page to show
// the top and one more each time the person scrolls near the end of what is loaded; a day
// the page boundary cuts keeps one header.
func TestTimeline100kReadsAsItScrolls(t *testing.T) {
	const n = 100_000
	md := &manyDays{n: n}
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { md.Engine = e; return md }).start()
	h.u.showScreen(screenMemories)
	m := h.u.memories
	test.Tap(m.byDay)
	v := m.timeline
	h.waitFor("the first page", func() bool { return v.loadedEntries() >= factPageSize && !v.loading })
	if c := md.calls.Load(); c > 2 {
		t.Errorf("%d Timeline calls to show the top of 100k memories, want 1 or 2", c)
	}
	for page := 2; page <= 4; page++ {
		v.list.ScrollToBottom()
		h.waitFor("the next page", func() bool { return v.loadedEntries() >= page*factPageSize && !v.loading })
	}
	headers := 0
	for _, r := range v.rows {
		if r.header() {
			headers++
		}
	}
	// 800 memories, ten a day: 80 days, each with one header, however the pages cut them.
	if loaded := v.loadedEntries(); headers != loaded/10 {
		t.Errorf("%d day headers over %d memories ten a day, want %d", headers, loaded, loaded/10)
	}
	if c := md.calls.Load(); c > 6 {
		t.Errorf("%d Timeline calls to scroll four pages, want a handful", c)
	}
}

// timelineDocRowShowing is the visible document row of the timeline titled title, or nil.
func timelineDocRowShowing(root fyne.CanvasObject, title string) *timelineDocRow {
	var found *timelineDocRow
	walk(root, func(o fyne.CanvasObject) {
		if r, ok := o.(*timelineDocRow); ok && found == nil && r.title.Text == title {
			found = r
		}
	})
	return found
}

// TestTimelineShowsDatedDocuments: a chat conversation and a note with a date property show
// under the day they were written, among the memories, with a conversation or note badge,
// their title and path; a note without a date is not there; Open shows the document in the
// document view, as a knowledge hit opens from Recall.
func TestTimelineShowsDatedDocuments(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	ctx := context.Background()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "engine", "ingest", "testdata", "claude", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(dir, "claude", "conversations.json")
	if err := os.MkdirAll(filepath.Dir(export), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(export, data, 0o644); err != nil {
		t.Fatal(err)
	}
	vault := filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join("..", "engine", "testdata", "vault"))); err != nil {
		t.Fatal(err)
	}
	daily := filepath.Join(vault, "Daily", "2024-05-01.md")
	undated := filepath.Join(vault, "Archive", "2023", "notes.md")
	if _, err := h.eng.KBAdd(ctx, engine.KBAddRequest{Paths: []string{export, daily, undated}}); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.remember("vacuumed the orders table", "")
	h.u.showScreen(screenMemories)
	m := h.u.memories
	test.Tap(m.byDay)
	v := m.timeline
	// Today and its memory, then 2024-05-01's note and the two conversations' days.
	h.waitFor("the timeline", func() bool { return len(v.rows) == 8 })
	var got []string
	for _, r := range v.rows {
		switch {
		case r.header():
			got = append(got, "# "+r.day.Format(time.DateOnly))
		case r.doc != nil:
			got = append(got, r.doc.Title)
		default:
			got = append(got, r.fact.Text)
		}
	}
	// The days are of the machine's calendar: the note is dated 2024-05-01 (midnight UTC),
	// the conversations started at 16:20 UTC on 9 Jan 2024 and 02:05 UTC on 18 Jun 2023.
	local := func(t time.Time) string { return "# " + t.Local().Format(time.DateOnly) }
	want := []string{local(time.Now()), "vacuumed the orders table",
		local(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)), "2024-05-01",
		local(time.Date(2024, 1, 9, 16, 20, 0, 0, time.UTC)), "Postgres vacuum tuning",
		local(time.Date(2023, 6, 18, 2, 5, 0, 0, time.UTC)), "给奶奶的生日礼物"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("timeline rows = %q, want %q", got, want)
	}

	var conv *timelineDocRow
	h.waitFor("the conversation's row", func() bool {
		conv = timelineDocRowShowing(v.content, "Postgres vacuum tuning")
		return conv != nil && shown(conv.open)
	})
	note := timelineDocRowShowing(v.content, "2024-05-01")
	if note == nil {
		t.Fatalf("no row shows the dated note:\n%s", texts(v.content))
	}
	for _, row := range []struct {
		r          *timelineDocRow
		badge, not string
		path       string
	}{{conv, "conversation", "note", export}, {note, "note", "conversation", daily}} {
		shownText := texts(row.r)
		lines := strings.Split(shownText, "\n")
		if !slices.Contains(lines, row.badge) || slices.Contains(lines, row.not) || !strings.Contains(shownText, row.path) {
			t.Errorf("row %q shows:\n%s\nwant the badge %q (not %q) and the path %s", row.r.title.Text, shownText, row.badge, row.not, row.path)
		}
	}
	test.Tap(conv.open)
	h.waitFor("the document view", func() bool { return h.overlay() != nil && h.u.docs.isOpen() })
	if got := h.u.docs.page.Document.Title; got != "Postgres vacuum tuning" {
		t.Errorf("Open showed %q, want the conversation", got)
	}

	// A note imported meanwhile shows on the timeline without a reload: the live view's
	// re-read (reloadKeeping) brings the new page of entries.
	if _, err := h.eng.KBAdd(ctx, engine.KBAddRequest{Paths: []string{filepath.Join(vault, "Projects", "Memdesk.md")}}); err != nil {
		t.Fatal(err)
	}
	h.u.knowledge.changed()
	h.waitFor("the imported note on the timeline", func() bool {
		return slices.ContainsFunc(v.rows, func(r timelineRow) bool { return r.doc != nil && r.doc.Title == "Memdesk project" })
	})
}
