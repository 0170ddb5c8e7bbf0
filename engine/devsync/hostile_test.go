package devsync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/devsynctest"
)

// hostileLog is a log of a device "c0ffee" that holds two good changes among torn and
// hostile lines, and ends with a torn line.
func hostileLog(now time.Time) (log string, tornRest string) {
	good := func(seq int, uid, text string) string {
		return fmt.Sprintf(`{"v":1,"id":"c0ffee:%d","dev":"c0ffee","seq":%d,"wall":%d,"ctr":0,"op":"add","uid":"%s","space":"default","text":"%s","status":"active","created":%d}`,
			seq, seq, now.UnixMilli(), uid, text, now.UnixMilli())
	}
	lines := []string{
		good(1, "11111111111111111111111111111111", "the first good line"), // line 1
		`{"v":1,"id":"c0ffee:2","dev":`,                                    // 2: torn mid-line, then written over
		strings.Repeat("A", 2<<20),                                         // 3: huge
		`{"v":1,"id":"c0ffee:4","dev":"c0ffee","seq":"4"}`,                 // 4: wrong types
		"{\"v\":1,\"text\":\"\xc3\x28\"}",                                  // 5: invalid UTF-8
		fmt.Sprintf(`{"v":1,"id":"c0ffee:6","dev":"c0ffee","seq":6,"wall":%d,"ctr":0,"op":"add","uid":"66666666666666666666666666666666","space":"default","text":"from the future","status":"active"}`,
			now.AddDate(3, 0, 0).UnixMilli()), // 6: an id from the future
		`{"v":1,"id":"c0ffee:7","dev":"c0ffee","seq":7,"wall":1,"ctr":0,"op":"add","uid":"x'); DELETE FROM facts; --","space":"default","text":"t","status":"active"}`, // 7
		"", // 8: an empty line
		good(9, "99999999999999999999999999999999", "the second good line"), // 9
	}
	torn := good(10, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "the torn line")
	return strings.Join(lines, "\n") + "\n" + torn[:40], torn[40:] + "\n"
}

// TestHostileLines: torn and hostile lines are reported with their file and line, skipped,
// and stop nothing; a torn last line is read once it is whole.
func TestHostileLines(t *testing.T) {
	ctx := context.Background()
	folder := t.TempDir()
	b := devsynctest.Open(ctx, t, "b", t.TempDir(), folder, nil)
	dir := filepath.Join(folder, "memdesk", "c0ffee")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "00000000000000000001.jsonl")
	log, rest := hostileLog(time.Now())
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := b.Engine.SyncNow(ctx)
	if err != nil {
		t.Fatalf("sync now over a hostile log: %v", err)
	}
	if rep.Applied != 2 {
		t.Errorf("applied %d changes, want the 2 good ones", rep.Applied)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, fmt.Sprintf("%s:%d", p.File, p.Line))
	}
	file := "memdesk/c0ffee/00000000000000000001.jsonl"
	want := []string{file + ":2", file + ":3", file + ":4", file + ":5", file + ":6", file + ":7"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("problems reported (-want +got):\n%s", d)
	}
	st, err := b.Engine.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Problems) != len(want) || !strings.Contains(st.Problems[4].Reason, "future") {
		t.Errorf("sync status shows problems %+v, want the %d lines with line 6 from the future", st.Problems, len(want))
	}
	if mem := devsynctest.ActiveMemories(ctx, t, b); len(mem) != 2 {
		t.Errorf("active memories %q, want the 2 good lines", mem)
	}
	// The torn line becomes whole: it is read then, and nothing else again.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(rest)
	f.Close()
	rep, err = b.Engine.SyncNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Applied != 1 || rep.Read != 1 || len(rep.Problems) != 0 {
		t.Errorf("after the torn line was completed: read %d, applied %d, problems %v; want 1, 1, none", rep.Read, rep.Applied, rep.Problems)
	}
	res, err := b.Engine.Admin(ctx, engine.AdminRequest{Action: "integrity"})
	if err != nil || !res.OK {
		t.Errorf("integrity after hostile lines: %+v, %v", res, err)
	}
}

// TestInitAgainRefillsAnEmptiedFolder: a folder that lost this device's log (emptied,
// replaced) gets the whole log again from sync init, and another device replays it.
func TestInitAgainRefillsAnEmptiedFolder(t *testing.T) {
	ctx := context.Background()
	folder := t.TempDir()
	a := devsynctest.Open(ctx, t, "a", t.TempDir(), folder, nil)
	for _, text := range []string{"one", "two", "three"} {
		if _, err := a.Engine.Remember(ctx, engine.RememberRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(folder, "memdesk")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Engine.SyncInit(ctx, folder); err != nil {
		t.Fatal(err)
	}
	b := devsynctest.Open(ctx, t, "b", t.TempDir(), folder, nil)
	if got := devsynctest.ActiveMemories(ctx, t, b); len(got) != 3 {
		t.Errorf("b holds %q after a's log was written again, want the 3 memories", got)
	}
	// A conflict copy a sync tool makes beside a log is not read.
	logs, _ := filepath.Glob(filepath.Join(folder, "memdesk", "*", "*.jsonl"))
	for _, p := range logs {
		data, _ := os.ReadFile(p)
		os.WriteFile(strings.TrimSuffix(p, ".jsonl")+".sync-conflict-20261205-000000-ABCDEFG.jsonl", append(data, []byte("not a change\n")...), 0o600)
	}
	if rep, err := b.Engine.SyncNow(ctx); err != nil || rep.Read != 0 {
		t.Errorf("sync now beside conflict copies: read %d lines, %v; want none", rep.Read, err)
	}
}
