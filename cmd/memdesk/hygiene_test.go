package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestCLIContradictionWorkflow walks what a person does from the terminal: remember a fact,
// remember a change, read the report, supersede the old fact, check the history, and import
// a document that disagrees with a memory.
func TestCLIContradictionWorkflow(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "m.db")
	cli := cliOn(t, ctx, db)

	cli("remember", "CI uses Python 3.11")
	out := cli("remember", "CI uses Python 3.12")
	for _, want := range []string{"remembered as fact 2", "contradicts #1", "memdesk supersede 1 2", "memdesk dismiss 1 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("remember output lacks %q:\n%s", want, out)
		}
	}
	if out := cli("admin", "contradictions"); !strings.Contains(out, "#1") || !strings.Contains(out, "#2") {
		t.Errorf("admin contradictions does not list the pair:\n%s", out)
	}
	// Recall marks both, and which is newer, in words and in the JSON.
	out = cli("recall", "python")
	for _, want := range []string{"older: conflicts with #2", "newer: conflicts with #1", "matched python · written today"} {
		if !strings.Contains(out, want) {
			t.Errorf("recall output lacks %q:\n%s", want, out)
		}
	}
	// The scores are for -v (and --json's why), not the plain answer.
	if strings.Contains(out, "score") {
		t.Errorf("recall output without -v shows scores:\n%s", out)
	}
	if out := cli("-v", "recall", "python"); !strings.Contains(out, "score 1.000 · lexical") {
		t.Errorf("recall -v lacks the scores:\n%s", out)
	}
	var recalled engine.RecallResult
	if err := json.Unmarshal([]byte(cli("--json", "recall", "python")), &recalled); err != nil {
		t.Fatal(err)
	}
	for _, h := range recalled.Hits {
		if len(h.Conflicts) != 1 || h.Conflicts[0].Newer != (h.ID == 1) {
			t.Errorf("recall --json hit #%d conflicts = %+v, want one, newer when the hit is #1", h.ID, h.Conflicts)
		}
	}
	cli("supersede", "1", "2")
	if out := cli("list", "--all"); !strings.Contains(out, "superseded by #2") {
		t.Errorf("list --all does not show the history link:\n%s", out)
	}
	var res engine.AdminResult
	if err := json.Unmarshal([]byte(cli("--json", "admin", "contradictions")), &res); err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Counts["pairs"] != 0 {
		t.Errorf("after superseding, admin contradictions = %+v, want none", res)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ci.md"), []byte("# CI\n\nCI uses Python 3.10.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = cli("kb", "add", dir)
	if !strings.Contains(out, "contradicts memory #2") || !strings.Contains(out, "ci.md:3") {
		t.Errorf("kb add does not report the conflict with its place:\n%s", out)
	}

	for _, args := range [][]string{{"supersede", "2"}, {"dismiss", "1", "x"}, {"remember", "--supersedes", "-3", "x"}} {
		if code, _, _ := runCLI(t, ctx, append([]string{"--db", db}, args...)...); code != 2 {
			t.Errorf("memdesk %s: exit %d, want 2 (usage)", strings.Join(args, " "), code)
		}
	}
	if code, _, errOut := runCLI(t, ctx, "--db", db, "supersede", "2", "1"); code == 0 || !strings.Contains(errOut, "fact 1 is superseded") {
		t.Errorf("superseding by a superseded fact: exit %d, %q; want a clear error", code, errOut)
	}
}

// TestMCPRememberContradictionAndSupersede is the agent's side: remember reports the
// contradiction, and remembering the same text with supersedes resolves it.
func TestMCPRememberContradictionAndSupersede(t *testing.T) {
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	cs := connectMCP(t, e, "")
	old := callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "老王住在北京"})
	changed := callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "老王住在上海"})
	if len(changed.Contradicts) != 1 || changed.Contradicts[0].FactID != old.FactID || changed.Contradicts[0].Reason == "" {
		t.Fatalf("remember a change = %+v, want a contradiction of %d with a reason", changed, old.FactID)
	}
	resolved := callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "老王住在上海", "supersedes": old.FactID})
	if resolved.Status != engine.StatusDuplicate || resolved.FactID != changed.FactID || resolved.Superseded != old.FactID {
		t.Fatalf("resolve = %+v, want duplicate of %d superseding %d", resolved, changed.FactID, old.FactID)
	}
	hits := callTool[engine.RecallResult](t, cs, "recall", map[string]any{"query": "老王住在哪里"})
	var ids []int64
	for _, h := range hits.Hits {
		ids = append(ids, h.ID)
	}
	if len(ids) != 1 || ids[0] != changed.FactID {
		t.Errorf("recall hits = %v, want only the current fact %d (not the superseded %d)", ids, changed.FactID, old.FactID)
	}
}

func TestWorthCompacting(t *testing.T) {
	for _, c := range []struct {
		free, file int64
		want       bool
	}{
		{24 << 20, 100 << 20, true},
		{4 << 20, 10 << 20, false}, // small: the next writes reuse it
		{9 << 20, 100 << 20, false},
		{0, 0, false},
	} {
		if got := worthCompacting(c.free, c.file); got != c.want {
			t.Errorf("worthCompacting(%d, %d) = %v, want %v", c.free, c.file, got, c.want)
		}
	}
}
