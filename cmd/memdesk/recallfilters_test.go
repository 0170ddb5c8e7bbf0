package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 30, 15, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		end  bool
		want time.Time
	}{
		{"", false, time.Time{}},
		{"2026-11-01", false, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-11-01", true, time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}, // the whole day
		{"2026-11-01T09:30:00+08:00", true, time.Date(2026, 11, 1, 1, 30, 0, 0, time.UTC)},
		{"7d", false, now.Add(-7 * 24 * time.Hour)},
		{"2w", false, now.Add(-14 * 24 * time.Hour)},
		{" 12h ", false, now.Add(-12 * time.Hour)},
		{"50h", false, now.Add(-50 * time.Hour)},
		// 292 years: as a Duration it overflowed into the future and matched nothing.
		{"106752d", false, now.AddDate(0, 0, -106752)},
		{"2562048h", false, now.AddDate(0, 0, -106752)},
		// Words, through the query's own time expressions (issue 28: "yesterday" was refused).
		{"yesterday", false, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)},
		{"yesterday", true, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		{"last week", false, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{"上周", true, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		got, err := parseWhen("since", tc.in, now, tc.end)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("parseWhen(%q, end %v) = %v, %v; want %v", tc.in, tc.end, got, err, tc.want)
		}
	}
	for _, huge := range []string{"9999999d", "999999999999w", "99999999999h"} {
		if _, err := parseWhen("since", huge, now, false); err == nil || !strings.Contains(err.Error(), "further back than any memory") {
			t.Errorf("parseWhen(%q) error = %v, want it refused as too far back", huge, err)
		}
	}
	for _, bad := range []string{"yesterday's budget", "tomorrow", "7", "d", "-3d", "2026-13-01", "7y"} {
		if _, err := parseWhen("since", bad, now, false); err == nil || !strings.Contains(err.Error(), "--since takes a day") {
			t.Errorf("parseWhen(%q) error = %v, want a usage error naming the forms", bad, err)
		}
	}
}

// TestRecallFilterFlags: --since, --until, --folder and --sort narrow and order what
// `memdesk recall` prints, and a bad value is a usage error (exit 2).
func TestRecallFilterFlags(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	cli := cliOn(t, ctx, db)
	now := time.Now()
	ex := engine.MemoryExport{Format: engine.MemoryExportFormat}
	for _, m := range []struct {
		text string
		age  time.Duration
	}{
		{"orchard pears by the river", 400 * 24 * time.Hour},
		{"orchard plums need pruning", 10 * 24 * time.Hour},
		{"orchard apples", time.Hour},
	} {
		at := now.Add(-m.age).UTC()
		ex.Memories = append(ex.Memories, engine.ExportedMemory{Text: m.text, Space: "default", CreatedAt: at, UpdatedAt: at})
	}
	file := filepath.Join(dir, "dated.json")
	data, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cli("memories", "import", file)
	docs := filepath.Join(dir, "docs")
	for _, rel := range []string{"farm/orchard.md", "town/orchard.md"} {
		p := filepath.Join(docs, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# Orchard\n\nThe orchard of "+rel+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cli("kb", "add", docs)

	texts := func(args ...string) []string {
		t.Helper()
		var res engine.RecallResult
		out := cli(append([]string{"--json", "recall"}, args...)...)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("recall %v: %v\n%s", args, err, out)
		}
		got := []string{}
		for _, h := range res.Hits {
			got = append(got, h.Text)
		}
		return got
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--source", "memory", "--since", "30d", "orchard"}, nil}, // order: the ranking's; checked below
		{[]string{"--source", "memory", "--sort", "newest", "orchard"}, []string{"orchard apples", "orchard plums need pruning", "orchard pears by the river"}},
		{[]string{"--source", "memory", "--until", now.AddDate(0, 0, -30).Format(time.DateOnly), "orchard"}, []string{"orchard pears by the river"}},
		{[]string{"--folder", filepath.Join(docs, "farm"), "orchard"}, []string{"# Orchard\n\nThe orchard of farm/orchard.md."}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := texts(tc.args...)
			want := tc.want
			if want == nil {
				all := texts("--source", "memory", "orchard")
				for _, s := range all {
					if s != "orchard pears by the river" {
						want = append(want, s)
					}
				}
			}
			if !cmp.Equal(got, want) {
				t.Errorf("recall %v = %q, want %q", tc.args, got, want)
			}
		})
	}
	// A relative --folder is read from the working directory, as kb add reads paths.
	t.Chdir(docs)
	if got := texts("--folder", "town", "orchard"); !cmp.Equal(got, []string{"# Orchard\n\nThe orchard of town/orchard.md."}) {
		t.Errorf("recall --folder town (relative) = %q", got)
	}
	if out := cli("recall", "--until", "2000-01-01", "orchard"); !strings.Contains(out, "no hit matches the date range or folder; 5 without them") {
		t.Errorf("recall emptied by --until says:\n%s", out)
	}
	for _, bad := range [][]string{{"--since", "the day before"}, {"--sort", "oldest"}, {"--since", "2026-02-01", "--until", "2026-01-01"}} {
		code, out, errOut := runCLI(t, ctx, append(append([]string{"--db", db, "recall"}, bad...), "orchard")...)
		if code != 2 {
			t.Errorf("recall %v: exit %d, want 2 (usage)\n%s%s", bad, code, out, errOut)
		}
	}
}

// TestPrintRecallSaysTheNotes (issue 28): the plain output carries the notes the JSON does,
// so a hit written today under "budget last week" comes with why it is there.
func TestPrintRecallSaysTheNotes(t *testing.T) {
	var b strings.Builder
	printRecall(&b, engine.RecallResult{Query: "budget last week", Semantic: "off",
		Notes: []string{"nothing was written last week; showing matches from any time"},
		Hits:  []engine.Hit{{ID: 1, Text: "the budget is 2000 euros", WhyPlain: "matched budget · written today"}}}, false)
	out := b.String()
	note := strings.Index(out, "note: nothing was written last week; showing matches from any time")
	if note < 0 || note > strings.Index(out, "1. [memory #1]") {
		t.Errorf("plain recall output:\n%s\nwant the note before the hits", out)
	}
}
