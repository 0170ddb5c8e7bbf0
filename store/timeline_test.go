package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimelineReadsOneIndexRange: a page of the timeline, from the start or from a cursor
// after a fact or a document, with or without a space, walks facts_timeline and
// documents_timeline in order: no sort of every fact or dated document.
func TestTimelineReadsOneIndexRange(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	type query func(space string, before *TimelineCursor, limit int) (string, []any)
	for _, kind := range []struct {
		index string
		query query
	}{{"facts_timeline", timelineQuery}, {"documents_timeline", timelineDocumentsQuery}} {
		for _, space := range []string{"", "work"} {
			for _, before := range []*TimelineCursor{nil, {CreatedAt: time.Now(), ID: 7}, {CreatedAt: time.Now(), ID: 7, Document: true}} {
				q, args := kind.query(space, before, 10)
				q = "EXPLAIN QUERY PLAN " + q
				rows, err := s.db.QueryContext(ctx, q, args...)
				if err != nil {
					t.Fatal(err)
				}
				var plan []string
				for rows.Next() {
					var id, parent, unused int
					var detail string
					if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
						t.Fatal(err)
					}
					plan = append(plan, detail)
				}
				rows.Close()
				if got := strings.Join(plan, "; "); strings.Contains(got, "TEMP B-TREE") || !strings.Contains(got, kind.index) {
					t.Errorf("space %q, cursor %+v: plan %q, want %s walked in order", space, before, got, kind.index)
				}
			}
		}
	}
	if _, err := s.TimelineFacts(ctx, "", &TimelineCursor{CreatedAt: time.Now(), ID: 1}, 10); err != nil {
		t.Errorf("TimelineFacts: %v", err)
	}
	if _, err := s.TimelineDocuments(ctx, "work", &TimelineCursor{CreatedAt: time.Now(), ID: 1}, 10); err != nil {
		t.Errorf("TimelineDocuments: %v", err)
	}
}

// TestTimelinePagesThroughOneInstant: facts written in the same millisecond (a batch, an
// import) come newest id first, and a cursor in the middle of them resumes after it: the
// index orders by created_at, the rowid it ends with breaks the ties.
func TestTimelinePagesThroughOneInstant(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	at := time.UnixMilli(1_700_000_000_000)
	var batch []NewFact
	for _, c := range []string{"a", "b", "c", "d", "e"} {
		batch = append(batch, NewFact{Content: c, Hash: c, CreatedAt: at, UpdatedAt: at})
	}
	ids, _, err := s.AddFacts(ctx, "default", batch)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	var cursor *TimelineCursor
	for {
		page, err := s.TimelineFacts(ctx, "", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, f := range page {
			got = append(got, f.ID)
		}
		last := page[len(page)-1]
		cursor = &TimelineCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	want := []int64{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if !slices.Equal(got, want) {
		t.Errorf("timeline in pages of 2 = %v, want %v", got, want)
	}
}
