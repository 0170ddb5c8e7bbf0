package engine

import (
	"context"
	"errors"
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
				for _, f := range d.Facts {
					got = append(got, f.ID)
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
