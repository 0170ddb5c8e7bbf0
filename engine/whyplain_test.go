package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestRecallWhyPlain: each hit says in plain words why it was found, in the query's language
// unless the request names one, with the date read against the engine's clock; the raw
// account stays in Why.
func TestRecallWhyPlain(t *testing.T) {
	ctx := context.Background()
	// The clock is a week ahead of the writes: the same weekday of last week, whatever day
	// the test runs.
	ahead := 7 * 24 * time.Hour
	e, err := Open(ctx, filepath.Join(t.TempDir(), "memdesk.db"), Options{Now: func() time.Time { return time.Now().Add(ahead) }})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer e.Close()
	remember(t, e, "", "项目预算由李娜负责，下周二前提交")
	written := time.Now()
	weekday := written.Weekday()
	zhDays := []string{"日", "一", "二", "三", "四", "五", "六"}

	tests := []struct {
		name string
		req  RecallRequest
		want string
	}{
		{"Chinese query", RecallRequest{Query: "预算 李娜"}, "匹配 预算、李娜 · 上周" + zhDays[weekday] + "写的"},
		{"asked for in English", RecallRequest{Query: "预算 李娜", Lang: "en"}, "matched 预算 and 李娜 · written last " + weekday.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Recall(ctx, tt.req)
			if err != nil {
				t.Fatalf("Recall: %v", err)
			}
			if len(res.Hits) != 1 {
				t.Fatalf("%d hits, want 1", len(res.Hits))
			}
			h := res.Hits[0]
			// The write and the test's clock may straddle midnight: then the weekday is the
			// one after, and the test says so rather than failing on the calendar.
			if h.WhyPlain != tt.want && time.Now().Weekday() != weekday {
				t.Skipf("the day changed during the test; why_plain = %q", h.WhyPlain)
			}
			if h.WhyPlain != tt.want {
				t.Errorf("why_plain = %q, want %q", h.WhyPlain, tt.want)
			}
			if h.Why == "" || h.Why == h.WhyPlain {
				t.Errorf("why = %q, want the ranking stage's own account beside the plain one", h.Why)
			}
		})
	}
}
