package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memdesk/memdesk/store"
)

// Timeline page sizes.
const (
	defaultTimelineLimit = 200
	maxTimelineLimit     = 2000
)

// TimelineRequest asks for one page of the active memories by the day they were written,
// newest first.
type TimelineRequest struct {
	Space string `json:"space,omitempty"` // "" for every space
	// Before continues after the page that returned it as Next; nil starts at the newest.
	Before *TimelineCursor `json:"before,omitempty"`
	Limit  int             `json:"limit,omitempty"` // memories per page; 0 means 200
	// Location is whose calendar the days are of; nil means the machine's.
	Location *time.Location `json:"-"`
}

// TimelineCursor marks where a page of the timeline ended.
type TimelineCursor = store.TimelineCursor

// TimelineDay is one calendar day's memories, newest first.
type TimelineDay struct {
	// Day is the day's midnight in the request's location.
	Day   time.Time  `json:"day"`
	Facts []FactView `json:"facts"`
}

// TimelinePage is one page of the timeline. A day can go on in the next page: its first
// day is then the same as this one's last.
type TimelinePage struct {
	Days []TimelineDay `json:"days"`
	// Next continues the timeline; nil when this page reached the oldest memory.
	Next *TimelineCursor `json:"next,omitempty"`
}

// Timeline returns a page of the active memories grouped by the day they were written. It
// reads one index range per page, so the 1000th page costs what the first does.
func (e *Engine) Timeline(ctx context.Context, req TimelineRequest) (TimelinePage, error) {
	limit := req.Limit
	switch {
	case limit < 0 || limit > maxTimelineLimit:
		return TimelinePage{}, fmt.Errorf("%w: a timeline page holds 1 to %d memories (got %d); 0 means %d", ErrBadRequest, maxTimelineLimit, limit, defaultTimelineLimit)
	case limit == 0:
		limit = defaultTimelineLimit
	}
	loc := req.Location
	if loc == nil {
		loc = time.Local
	}
	// One more than the page tells whether another page follows.
	facts, err := e.st.TimelineFacts(ctx, strings.TrimSpace(req.Space), req.Before, limit+1)
	if err != nil {
		return TimelinePage{}, err
	}
	var page TimelinePage
	if len(facts) > limit {
		facts = facts[:limit]
		last := facts[len(facts)-1]
		page.Next = &TimelineCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	views := make([]FactView, len(facts))
	for i, f := range facts {
		views[i] = factView(f)
	}
	page.Days = groupByDay(views, loc)
	return page, nil
}

// groupByDay splits facts, newest first, into the calendar days of loc they were written on.
func groupByDay(facts []FactView, loc *time.Location) []TimelineDay {
	days := []TimelineDay{}
	for _, f := range facts {
		at := f.CreatedAt.In(loc)
		day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, loc)
		if n := len(days); n > 0 && days[n-1].Day.Equal(day) {
			days[n-1].Facts = append(days[n-1].Facts, f)
			continue
		}
		days = append(days, TimelineDay{Day: day, Facts: []FactView{f}})
	}
	return days
}
