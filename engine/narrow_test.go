package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// importDated stores memories written at the given times (ImportMemories keeps an export's
// times) and returns their ids in the order given.
func importDated(t *testing.T, e *Engine, memories []ExportedMemory) []int64 {
	t.Helper()
	ctx := context.Background()
	for i := range memories {
		if memories[i].Space == "" {
			memories[i].Space = "default"
		}
		memories[i].UpdatedAt = memories[i].CreatedAt
	}
	res, err := e.ImportMemories(ctx, MemoryExport{Format: MemoryExportFormat, Memories: memories}, nil)
	if err != nil || res.Added != len(memories) {
		t.Fatalf("ImportMemories: %+v, %v; want %d added", res, err, len(memories))
	}
	list, err := e.List(ctx, ListRequest{})
	if err != nil {
		t.Fatalf("List after import: %v", err)
	}
	byText := map[string]int64{}
	for _, f := range list.Facts {
		byText[f.Text] = f.ID
	}
	ids := make([]int64, len(memories))
	for i, m := range memories {
		if ids[i] = byText[m.Text]; ids[i] == 0 {
			t.Fatalf("memory %q not listed after import", m.Text)
		}
	}
	return ids
}

// isSubsequence reports whether every id of sub appears in all, in the same order.
func isSubsequence(sub, all []int64) bool {
	i := 0
	for _, id := range all {
		if i < len(sub) && sub[i] == id {
			i++
		}
	}
	return i == len(sub)
}

// TestRecallDateRangeAndNewest: Since and Until keep the answers written inside the range,
// in the ranking's order (a subsequence of the unfiltered answer); Sort newest reorders the
// same answers by time written.
func TestRecallDateRangeAndNewest(t *testing.T) {
	now := time.Now()
	e := openTestEngine(t)
	day := 24 * time.Hour
	ids := importDated(t, e, []ExportedMemory{
		{Text: "the orchard by the river has pear trees", CreatedAt: now.Add(-400 * day)},
		{Text: "orchard", CreatedAt: now.Add(-40 * day)},
		{Text: "our orchard needs pruning in March before the buds open up", CreatedAt: now.Add(-10 * day)},
		{Text: "orchard apples", CreatedAt: now.Add(-time.Hour)},
	})
	veryOld, old, recent, today := ids[0], ids[1], ids[2], ids[3]
	all := recallIDs(t, e, RecallRequest{Query: "orchard"})
	if len(all) != 4 {
		t.Fatalf("unfiltered recall = %v, want all four memories", all)
	}
	tests := []struct {
		name string
		req  RecallRequest
		want []int64 // nil: the unfiltered order, only those kept
		keep []int64
	}{
		{name: "last 7 days", req: RecallRequest{Since: now.Add(-7 * day)}, keep: []int64{today}},
		{name: "last 30 days", req: RecallRequest{Since: now.Add(-30 * day)}, keep: []int64{recent, today}},
		{name: "until a month ago", req: RecallRequest{Until: now.Add(-30 * day)}, keep: []int64{veryOld, old}},
		{name: "from-to", req: RecallRequest{Since: now.Add(-50 * day), Until: now.Add(-5 * day)}, keep: []int64{old, recent}},
		{name: "nothing in range", req: RecallRequest{Since: now.Add(-800 * day), Until: now.Add(-500 * day)}, keep: []int64{}},
		{name: "newest", req: RecallRequest{Sort: SortNewest}, want: []int64{today, recent, old, veryOld}},
		{name: "newest in the last year", req: RecallRequest{Sort: SortNewest, Since: now.Add(-365 * day)}, want: []int64{today, recent, old}},
		{name: "relevance is the default order", req: RecallRequest{Sort: SortRelevance}, want: all},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Query = "orchard"
			got := recallIDs(t, e, tc.req)
			want := tc.want
			if want == nil {
				for _, id := range all {
					if slices.Contains(tc.keep, id) {
						want = append(want, id)
					}
				}
			}
			if !cmp.Equal(got, want, cmpEmptyIsNil) {
				t.Errorf("Recall(%s) = %v, want %v (unfiltered %v)", tc.name, got, want, all)
			}
			if tc.req.Sort != SortNewest && !isSubsequence(got, all) {
				t.Errorf("Recall(%s) = %v reorders the unfiltered answer %v", tc.name, got, all)
			}
		})
	}
}

var cmpEmptyIsNil = cmp.Comparer(func(a, b []int64) bool { return slices.Equal(a, b) })

// TestRecallFilterLooksPastK: a date range keeps a match that ranks below k, and below the
// word index's usual candidate count, instead of showing an empty list; the result says how
// many answers the filter left out.
func TestRecallFilterLooksPastK(t *testing.T) {
	now := time.Now()
	e := openTestEngine(t)
	var memories []ExportedMemory
	for i := range candidateLimit + 60 {
		memories = append(memories, ExportedMemory{Text: fmt.Sprintf("orchard note %d", i), CreatedAt: now.Add(-time.Duration(500+i) * time.Hour)})
	}
	// Long, so bm25 ranks it below every short note.
	memories = append(memories, ExportedMemory{CreatedAt: now.Add(-time.Hour),
		Text: "yesterday the orchard crew met at the gate, talked about the weather, the tractor, the fence, lunch, the new hires and the schedule for the rest of the season"})
	ids := importDated(t, e, memories)
	target := ids[len(ids)-1]

	plain := recallIDs(t, e, RecallRequest{Query: "orchard", K: 5})
	if slices.Contains(plain, target) {
		t.Fatalf("precondition: the long memory #%d ranks in the unfiltered top 5 %v; the test needs it below", target, plain)
	}
	res, err := e.Recall(context.Background(), RecallRequest{Query: "orchard", K: 5, Since: now.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, h := range res.Hits {
		got = append(got, h.ID)
	}
	if !cmp.Equal(got, []int64{target}) {
		t.Errorf("Recall(last day, k=5) = %v, want [%d]", got, target)
	}
	if res.Filtered == 0 {
		t.Errorf("Filtered = 0, want the older answers counted")
	}
	if res.DidYouMean != "" {
		t.Errorf("DidYouMean = %q on a spelled-right query", res.DidYouMean)
	}
}

// TestRecallFolder: a folder keeps the knowledge hits of documents inside it (not of a
// sibling whose name starts the same) and no memory; a copy of a file inside the folder
// counts, though it is stored once under the path it was first imported from.
func TestRecallFolder(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inA := write("notes/orchard.md", "# Orchard\n\nThe orchard needs pruning.\n")
	deep := write("notes/2026/plan.md", "# Plan\n\nPlant an orchard of plums.\n")
	sibling := write("notes-old/orchard.md", "# Old\n\nThe old orchard was sold.\n")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	remember(t, e, "", "the orchard is on the hill")
	copyDir := write("elsewhere/copy.md", "# Old\n\nThe old orchard was sold.\n")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{copyDir}}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		folder string
		want   []string
	}{
		{filepath.Join(dir, "notes"), []string{deep, inA}},
		{filepath.Join(dir, "notes") + string(filepath.Separator), []string{deep, inA}},
		{filepath.Join(dir, "notes", "2026"), []string{deep}},
		{filepath.Join(dir, "elsewhere"), []string{sibling}}, // the copy's hit names the first path
		{filepath.Join(dir, "nowhere"), nil},
	}
	for _, tc := range tests {
		t.Run(strings.TrimPrefix(tc.folder, dir), func(t *testing.T) {
			res, err := e.Recall(ctx, RecallRequest{Query: "orchard", Folder: tc.folder})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				if h.Doc == nil {
					t.Errorf("memory #%d in a folder filter's answer", h.ID)
					continue
				}
				got = append(got, h.Doc.Path)
			}
			slices.Sort(got)
			if !cmp.Equal(got, tc.want) {
				t.Errorf("Recall(folder %s) paths = %v, want %v", tc.folder, got, tc.want)
			}
		})
	}
}

func TestUnderFolder(t *testing.T) {
	tests := []struct {
		path, folder string
		want         bool
	}{
		{"/home/me/notes/a.md", "/home/me/notes", true},
		{"/home/me/notes/a.md", "/home/me/notes/", true},
		{"/home/me/notes", "/home/me/notes", true},
		{"/home/me/notes-old/a.md", "/home/me/notes", false},
		{"/home/me/no/a.md", "/home/me/notes", false},
		{"/home/me/notes/a.md", "/", true},
	}
	for _, tc := range tests {
		if got := underFolder(tc.path, tc.folder); got != tc.want {
			t.Errorf("underFolder(%q, %q) = %v, want %v", tc.path, tc.folder, got, tc.want)
		}
	}
}

func TestRecallNarrowingBadRequests(t *testing.T) {
	e := openTestEngine(t)
	remember(t, e, "", "the orchard is on the hill")
	now := time.Now()
	tests := []struct {
		name string
		req  RecallRequest
		want string
	}{
		{"unknown sort", RecallRequest{Sort: "oldest"}, "unknown sort"},
		{"range backwards", RecallRequest{Since: now, Until: now.Add(-time.Hour)}, "swap the two dates"},
		{"meaning only", RecallRequest{MeaningOnly: true, Sort: SortNewest}, "meaning-only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Query = "orchard"
			_, err := e.Recall(context.Background(), tc.req)
			if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Recall(%s) error = %v, want ErrBadRequest saying %q", tc.name, err, tc.want)
			}
		})
	}
}
