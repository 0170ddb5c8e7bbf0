package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTimelineReadsOneIndexRange: a page of the timeline, from the start or from a cursor,
// with or without a space, walks facts_timeline in order: no sort of every fact.
func TestTimelineReadsOneIndexRange(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for _, space := range []string{"", "work"} {
		for _, before := range []*TimelineCursor{nil, {CreatedAt: time.Now(), ID: 7}} {
			q, args := timelineQuery(space, before, 10)
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
			if got := strings.Join(plan, "; "); strings.Contains(got, "TEMP B-TREE") || !strings.Contains(got, "facts_timeline") {
				t.Errorf("space %q, cursor %v: plan %q, want facts_timeline walked in order", space, before != nil, got)
			}
		}
	}
	if _, err := s.TimelineFacts(ctx, "", &TimelineCursor{CreatedAt: time.Now(), ID: 1}, 10); err != nil {
		t.Errorf("TimelineFacts: %v", err)
	}
}
