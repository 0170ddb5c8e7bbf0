package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestKBAddChatExports: `kb add` of a ChatGPT and a Claude conversations.json says how many
// conversations each holds, and `recall --since/--until` goes by the conversations' own
// dates (2023 and 2024), not by today, when they were imported.
func TestKBAddChatExports(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	cli := cliOn(t, ctx, filepath.Join(dir, "m.db"))
	var exports []string
	for _, kind := range []string{"chatgpt", "claude"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "engine", "ingest", "testdata", kind, "conversations.json"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, kind, "conversations.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		exports = append(exports, p)
	}
	out := cli(append([]string{"kb", "add"}, exports...)...)
	for _, p := range exports {
		if !strings.Contains(out, "added "+p+" (2 conversations, ") {
			t.Errorf("kb add does not say %s added with its 2 conversations:\n%s", p, out)
		}
	}
	if !strings.Contains(out, "2 added, 0 updated") {
		t.Errorf("kb add sums up:\n%s\nwant the two files added", out)
	}

	titles := func(args ...string) []string {
		t.Helper()
		var res engine.RecallResult
		out := cli(append([]string{"--json", "recall", "--source", "knowledge"}, args...)...)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("recall %v: %v\n%s", args, err, out)
		}
		got := []string{}
		for _, h := range res.Hits {
			got = append(got, h.Doc.Title)
		}
		return got
	}
	tests := []struct {
		args []string
		want string // the conversation's title; "" for none
	}{
		{[]string{"nail polish remover"}, "Sourdough starter troubleshooting"},
		// --until takes in its whole day; a day apart each side keeps the zone out of it.
		{[]string{"--since", "2023-11-13", "--until", "2023-11-15", "nail polish remover"}, "Sourdough starter troubleshooting"},
		{[]string{"--since", "2023-11-16", "nail polish remover"}, ""},
		{[]string{"紫砂花盆"}, "给奶奶的生日礼物"},
		{[]string{"--until", "2023-06-16", "紫砂花盆"}, ""},
		{[]string{"--until", "2023-06-19", "紫砂花盆"}, "给奶奶的生日礼物"},
		{[]string{"--since", "2024-01-01", "--until", "2024-02-01", "autovacuum"}, "Postgres vacuum tuning"},
		{[]string{"--since", "7d", "autovacuum"}, ""}, // imported today, written in 2024
	}
	for _, tt := range tests {
		got := titles(tt.args...)
		if tt.want == "" && len(got) != 0 || tt.want != "" && (len(got) == 0 || got[0] != tt.want) {
			t.Errorf("recall %q = %q, want %q first (or nothing when empty)", tt.args, got, tt.want)
		}
	}

	out = cli("kb", "rm", exports[1])
	if !strings.Contains(out, "removed with its 2 conversations") {
		t.Errorf("kb rm of the Claude export says:\n%s", out)
	}
	if got := titles("autovacuum"); len(got) != 0 {
		t.Errorf("recall after kb rm still finds %q", got)
	}
}
