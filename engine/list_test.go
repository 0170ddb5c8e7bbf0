package engine

import (
	"context"
	"strings"
	"testing"
)

// TestListFilter: --filter is a literal, ASCII-case-insensitive substring of any length, with
// LIKE's wildcards and escape character taken as text. A filter the length of the longest
// fact (over LIKE's 50,000-byte pattern limit) finds that fact.
func TestListFilter(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	long := strings.Repeat("guillemot ", MaxFactBytes/10-1) + "end"
	ids := map[string]int64{}
	for _, text := range []string{"CI uses Python 3.12", "100% done_now", `C:\Windows\System32`, long} {
		ids[text] = remember(t, e, "", text)
	}
	tests := []struct {
		filter string
		want   []int64
	}{
		{"python", []int64{ids["CI uses Python 3.12"]}},
		{"PYTHON 3.1", []int64{ids["CI uses Python 3.12"]}},
		{"%", []int64{ids["100% done_now"]}},
		{"_", []int64{ids["100% done_now"]}},
		{"0% d", []int64{ids["100% done_now"]}},
		{`\windows\`, []int64{ids[`C:\Windows\System32`]}},
		{long, []int64{ids[long]}},
		{long + "x", nil},
		{strings.Repeat("%", 60000), nil},
	}
	for _, tc := range tests {
		name := tc.filter
		if len(name) > 20 {
			name = name[:20] + "…"
		}
		t.Run(name, func(t *testing.T) {
			res, err := e.List(ctx, ListRequest{Filter: tc.filter})
			if err != nil {
				t.Fatalf("List(filter of %d bytes): %v", len(tc.filter), err)
			}
			var got []int64
			for _, f := range res.Facts {
				got = append(got, f.ID)
			}
			if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
				t.Errorf("List(filter of %d bytes) = %v, want %v", len(tc.filter), got, tc.want)
			}
		})
	}
}
