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

// TimelineRequest asks for one page of the timeline: the active memories and the dated
// documents by the day they were written, newest first.
type TimelineRequest struct {
	Space string `json:"space,omitempty"` // "" for every space; narrows memories and documents
	// Before continues after the page that returned it as Next; nil starts at the newest.
	Before *TimelineCursor `json:"before,omitempty"`
	Limit  int             `json:"limit,omitempty"` // entries per page; 0 means 200
	// Location is whose calendar the days are of; nil means the machine's.
	Location *time.Location `json:"-"`
}

// TimelineCursor marks where a page of the timeline ended.
type TimelineCursor = store.TimelineCursor

// TimelineEntry is one event of a day: a memory, or a document whose own text says when it
// was written (a chat conversation, a note with a date). Exactly one is set.
type TimelineEntry struct {
	Fact     *FactView     `json:"fact,omitempty"`
	Document *DocumentView `json:"document,omitempty"`
}

// At is when the entry was written.
func (t TimelineEntry) At() time.Time {
	if t.Document != nil {
		return *t.Document.Written
	}
	return t.Fact.CreatedAt
}

// cursor is the place in the timeline just after t.
func (t TimelineEntry) cursor() *TimelineCursor {
	if t.Document != nil {
		return &TimelineCursor{CreatedAt: *t.Document.Written, ID: t.Document.ID, Document: true}
	}
	return &TimelineCursor{CreatedAt: t.Fact.CreatedAt, ID: t.Fact.ID}
}

// TimelineDay is one calendar day's entries, newest first.
type TimelineDay struct {
	// Day is the day's midnight in the request's location.
	Day     time.Time       `json:"day"`
	Entries []TimelineEntry `json:"entries"`
}

// TimelinePage is one page of the timeline. A day can go on in the next page: its first
// day is then the same as this one's last.
type TimelinePage struct {
	Days []TimelineDay `json:"days"`
	// Next continues the timeline; nil when this page reached the oldest entry.
	Next *TimelineCursor `json:"next,omitempty"`
}

// Timeline returns a page of the active memories and the dated documents grouped by the day
// they were written. Documents without a written date (an ordinary imported file) are left
// out: the day of their import is not an event of the person's life. It reads one range of
// each kind per page, so the 1000th page of memories costs what the first does.
func (e *Engine) Timeline(ctx context.Context, req TimelineRequest) (TimelinePage, error) {
	limit := req.Limit
	switch {
	case limit < 0 || limit > maxTimelineLimit:
		return TimelinePage{}, fmt.Errorf("%w: a timeline page holds 1 to %d entries (got %d); 0 means %d", ErrBadRequest, maxTimelineLimit, limit, defaultTimelineLimit)
	case limit == 0:
		limit = defaultTimelineLimit
	}
	loc := req.Location
	if loc == nil {
		loc = time.Local
	}
	space := strings.TrimSpace(req.Space)
	// One more than the page tells whether another page follows. Either kind may fill the
	// page alone, so each is read that far.
	facts, err := e.st.TimelineFacts(ctx, space, req.Before, limit+1)
	if err != nil {
		return TimelinePage{}, err
	}
	docs, err := e.st.TimelineDocuments(ctx, space, req.Before, limit+1)
	if err != nil {
		return TimelinePage{}, err
	}
	entries := mergeTimeline(facts, docs, limit+1)
	var page TimelinePage
	if len(entries) > limit {
		entries = entries[:limit]
		page.Next = entries[len(entries)-1].cursor()
	}
	page.Days = groupByDay(entries, loc)
	return page, nil
}

// mergeTimeline merges facts and documents, each newest first, into up to limit entries in
// the timeline's order: (time, kind, id) descending, a fact before a document of the same
// millisecond, the store's cursor order (store.TimelineCursor).
func mergeTimeline(facts []store.Fact, docs []store.Document, limit int) []TimelineEntry {
	out := make([]TimelineEntry, 0, min(limit, len(facts)+len(docs)))
	for len(out) < limit && (len(facts) > 0 || len(docs) > 0) {
		takeFact := len(docs) == 0 ||
			len(facts) > 0 && facts[0].CreatedAt.UnixMilli() >= docs[0].Written.UnixMilli()
		if takeFact {
			f := factView(facts[0])
			out = append(out, TimelineEntry{Fact: &f})
			facts = facts[1:]
			continue
		}
		d := documentView(docs[0])
		out = append(out, TimelineEntry{Document: &d})
		docs = docs[1:]
	}
	return out
}

// groupByDay splits entries, newest first, into the calendar days of loc they were written on.
func groupByDay(entries []TimelineEntry, loc *time.Location) []TimelineDay {
	days := []TimelineDay{}
	for _, en := range entries {
		at := en.At().In(loc)
		day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, loc)
		if n := len(days); n > 0 && days[n-1].Day.Equal(day) {
			days[n-1].Entries = append(days[n-1].Entries, en)
			continue
		}
		days = append(days, TimelineDay{Day: day, Entries: []TimelineEntry{en}})
	}
	return days
}
