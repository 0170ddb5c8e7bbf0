package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTimeline: the memories come grouped by the calendar day of the request's location
// they were written on, newest day first and newest first within a day, whatever order they
// were stored in; paging with Next walks the whole timeline once, a day split by a page
// goes on in the next one; forgotten memories are left out, a space narrows.
func TestTimeline(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	shanghai := time.FixedZone("UTC+8", 8*3600)
	at := func(day, hour, minute int) time.Time { return time.Date(2026, 11, day, hour, minute, 0, 0, shanghai) }
	ids := importDated(t, e, []ExportedMemory{
		{Text: "late on the 29th", CreatedAt: at(29, 23, 30)},
		{Text: "early on the 30th", CreatedAt: at(30, 0, 30)},
		{Text: "noon on the 30th", CreatedAt: at(30, 12, 0)},
		{Text: "work on the 30th", CreatedAt: at(30, 9, 0), Space: "work"},
		{Text: "the 1st of November", CreatedAt: at(1, 8, 0)},
		{Text: "forgotten on the 30th", CreatedAt: at(30, 13, 0)},
	})
	// Written last, but on the oldest day: the timeline goes by the time written, not by id.
	oldest := importDated(t, e, []ExportedMemory{{Text: "imported from October", CreatedAt: time.Date(2026, 10, 15, 10, 0, 0, 0, shanghai)}})[0]
	if _, err := e.Remember(ctx, RememberRequest{Action: ActionForget, ID: ids[5]}); err != nil {
		t.Fatal(err)
	}
	late29, early30, noon30, work30, first := ids[0], ids[1], ids[2], ids[3], ids[4]

	type day struct {
		date string
		ids  []int64
	}
	read := func(req TimelineRequest) (days []day, pages int) {
		t.Helper()
		req.Location = shanghai
		for {
			page, err := e.Timeline(ctx, req)
			if err != nil {
				t.Fatalf("Timeline(%+v): %v", req, err)
			}
			pages++
			for _, d := range page.Days {
				if d.Day.Location() != shanghai || d.Day.Hour() != 0 {
					t.Errorf("day %v is not a midnight of the request's location", d.Day)
				}
				var got []int64
				for _, en := range d.Entries {
					if en.Fact == nil {
						t.Fatalf("day %s holds a document, %+v; this test imports none", d.Day, en.Document)
					}
					got = append(got, en.Fact.ID)
				}
				date := d.Day.Format(time.DateOnly)
				if n := len(days); n > 0 && days[n-1].date == date {
					days[n-1].ids = append(days[n-1].ids, got...) // a day the page cut goes on
					continue
				}
				days = append(days, day{date, got})
			}
			if page.Next == nil {
				return days, pages
			}
			req.Before = page.Next
		}
	}
	want := []day{
		{"2026-11-30", []int64{noon30, work30, early30}},
		{"2026-11-29", []int64{late29}},
		{"2026-11-01", []int64{first}},
		{"2026-10-15", []int64{oldest}},
	}
	cmpDays := cmp.AllowUnexported(day{})
	for _, limit := range []int{0, 1, 2, 5} {
		got, pages := read(TimelineRequest{Limit: limit})
		if diff := cmp.Diff(want, got, cmpDays); diff != "" {
			t.Errorf("Timeline pages of %d (-want +got):\n%s", limit, diff)
		}
		if limit == 2 && pages != 3 {
			t.Errorf("6 memories in pages of 2 took %d pages, want 3", pages)
		}
	}
	got, _ := read(TimelineRequest{Space: "work"})
	if diff := cmp.Diff([]day{{"2026-11-30", []int64{work30}}}, got, cmpDays); diff != "" {
		t.Errorf("Timeline of space work (-want +got):\n%s", diff)
	}
	if _, err := e.Timeline(ctx, TimelineRequest{Limit: -1}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Timeline(limit -1) error = %v, want ErrBadRequest", err)
	}
}

// timelineKey names an entry for a test: "fact 12" or "doc 3 <title>".
func timelineKey(en TimelineEntry) string {
	if en.Document != nil {
		return fmt.Sprintf("doc %d %s", en.Document.ID, en.Document.Title)
	}
	return fmt.Sprintf("fact %d", en.Fact.ID)
}

// TestTimelineDatedDocuments: chat conversations and notes with a date property show on the
// day they were written, among the memories; notes without a date stay out. Paging through
// the mix in pages of any size shows every entry once, in the timeline's order, a memory
// written in the same millisecond as a conversation among them; a space narrows both.
func TestTimelineDatedDocuments(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	export := filepath.Join(t.TempDir(), "export")
	for _, fixture := range []string{"chatgpt/conversations.json", "claude/conversations.json"} {
		path := copyFixture(t, fixture, filepath.Join(export, filepath.Dir(fixture)))
		if res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}}); err != nil || res.Failed > 0 {
			t.Fatalf("KBAdd(%s) = %+v, %v", fixture, res, err)
		}
	}
	vault := copyVault(t)
	if res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{vault}, Space: "notes"}); err != nil || res.Failed > 0 {
		t.Fatalf("KBAdd(vault) = %+v, %v", res, err)
	}
	list, err := e.KBList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var dated, undated []DocumentView
	for _, d := range list.Documents {
		if d.Written != nil {
			dated = append(dated, d)
		} else {
			undated = append(undated, d)
		}
	}
	// Four conversations and three notes with a date property; the vault's other notes have none.
	if len(dated) != 7 || len(undated) == 0 {
		t.Fatalf("%d dated and %d undated documents, want 7 dated and some undated: %+v", len(dated), len(undated), list.Documents)
	}
	conv := dated[slices.IndexFunc(dated, func(d DocumentView) bool { return d.Title == "Sourdough starter troubleshooting" })]
	importDated(t, e, []ExportedMemory{
		{Text: "fed the starter", CreatedAt: *conv.Written}, // the conversation's very millisecond
		{Text: "baked the loaf", CreatedAt: conv.Written.Add(26 * time.Hour)},
		{Text: "an older memory", CreatedAt: time.Date(2022, 1, 2, 10, 0, 0, 0, time.UTC)},
		{Text: "a note's day", CreatedAt: time.Date(2024, 5, 1, 20, 0, 0, 0, time.UTC), Space: "notes"},
	})
	facts, err := e.List(ctx, ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(facts.Facts, func(f FactView) bool { return f.CreatedAt.UnixMilli() == conv.Written.UnixMilli() }) {
		t.Fatalf("no memory shares the millisecond of %q (%v): %+v", conv.Title, conv.Written, facts.Facts)
	}

	// The timeline's order: newest first, a memory before a document of the same
	// millisecond, the higher id first.
	type item struct {
		at    time.Time
		doc   bool
		id    int64
		key   string
		space string
	}
	var all []item
	for _, f := range facts.Facts {
		all = append(all, item{f.CreatedAt, false, f.ID, fmt.Sprintf("fact %d", f.ID), f.Space})
	}
	for _, d := range dated {
		all = append(all, item{*d.Written, true, d.ID, fmt.Sprintf("doc %d %s", d.ID, d.Title), d.Space})
	}
	slices.SortFunc(all, func(a, b item) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		if a.doc != b.doc {
			if a.doc {
				return 1
			}
			return -1
		}
		return int(b.id - a.id)
	})
	want := func(space string) []string {
		var keys []string
		for _, it := range all {
			if space == "" || it.space == space {
				keys = append(keys, it.key)
			}
		}
		return keys
	}

	read := func(req TimelineRequest) []string {
		t.Helper()
		req.Location = time.UTC
		var got []string
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatalf("Timeline(%+v) does not end", req)
			}
			page, err := e.Timeline(ctx, req)
			if err != nil {
				t.Fatalf("Timeline(%+v): %v", req, err)
			}
			for _, d := range page.Days {
				for _, en := range d.Entries {
					if at := en.At().In(time.UTC); !at.Truncate(24 * time.Hour).Equal(d.Day) {
						t.Errorf("%s written %v is under day %v", timelineKey(en), at, d.Day)
					}
					if en.Document != nil && (en.Document.Path == "" || en.Document.Format == "") {
						t.Errorf("%s lacks its path or format: %+v", timelineKey(en), en.Document)
					}
					got = append(got, timelineKey(en))
				}
			}
			if page.Next == nil {
				return got
			}
			req.Before = page.Next
		}
	}
	for _, space := range []string{"", "notes", "default"} {
		for _, limit := range []int{1, 2, 3, 5, 0} {
			t.Run(fmt.Sprintf("space %q pages of %d", space, limit), func(t *testing.T) {
				if diff := cmp.Diff(want(space), read(TimelineRequest{Space: space, Limit: limit})); diff != "" {
					t.Errorf("timeline (-want +got):\n%s", diff)
				}
			})
		}
	}
	if n := len(want("")); n != 7+4 {
		t.Errorf("the timeline holds %d entries, want the 7 dated documents and 4 memories", n)
	}
	whole := read(TimelineRequest{})
	for _, d := range undated {
		if slices.Contains(whole, fmt.Sprintf("doc %d %s", d.ID, d.Title)) {
			t.Errorf("undated document %q is on the timeline", d.Path)
		}
	}
}
