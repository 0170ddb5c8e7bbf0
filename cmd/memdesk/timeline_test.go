package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestTimelineCLI: `timeline` prints chat conversations and notes with a date property
// under the day they were written, among the memories, with their title, kind, format and
// path; a note without a date is not there; --json carries the same entries; --space
// narrows; a --limit the timeline outgrows says so.
func TestTimelineCLI(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	cli := cliOn(t, ctx, filepath.Join(dir, "m.db"))
	export := filepath.Join(dir, "chatgpt", "conversations.json")
	data, err := os.ReadFile(filepath.Join("..", "..", "engine", "ingest", "testdata", "chatgpt", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(export), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(export, data, 0o644); err != nil {
		t.Fatal(err)
	}
	vault := filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join("..", "..", "engine", "testdata", "vault"))); err != nil {
		t.Fatal(err)
	}
	cli("kb", "add", export)
	cli("kb", "add", "--space", "notes", vault)
	cli("remember", "the sourdough starter is alive again")

	out := cli("timeline")
	for _, want := range []string{
		"Tue 2023-11-14", "conversation #", "Sourdough starter troubleshooting", "(chatgpt",
		"Sat 2024-03-02", "周末去杭州的行程",
		"Wed 2024-05-01", "note #", "(markdown, " + filepath.Join(vault, "Daily", "2024-05-01.md") + ")",
		"Memdesk project", "读书笔记",
		"memory #", "the sourdough starter is alive again",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "entries shown") {
		t.Errorf("timeline of 6 entries says there are more:\n%s", out)
	}
	// The conversation comes under its own day, not under the day it was imported.
	day, entry := strings.Index(out, "Tue 2023-11-14"), strings.Index(out, "Sourdough starter troubleshooting")
	if next := strings.Index(out[day+1:], "\n\n"); day < 0 || entry < day || (next >= 0 && entry > day+1+next) {
		t.Errorf("the conversation is not under Tue 2023-11-14:\n%s", out)
	}

	var page engine.TimelinePage
	if err := json.Unmarshal([]byte(cli("--json", "timeline", "--space", "notes")), &page); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, d := range page.Days {
		for _, en := range d.Entries {
			if en.Document == nil || en.Document.Written == nil {
				t.Errorf("space notes holds %+v, want dated notes only", en)
				continue
			}
			titles = append(titles, en.Document.Title)
		}
	}
	// Newest first; the vault's notes without a date stay out.
	if got, want := strings.Join(titles, "|"), "2024-05-01|读书笔记|Memdesk project"; got != want {
		t.Errorf("timeline --space notes = %s, want %s", got, want)
	}

	if out := cli("timeline", "--limit", "2"); !strings.Contains(out, "2 entries shown") {
		t.Errorf("timeline --limit 2 does not say more are left:\n%s", out)
	}
}
