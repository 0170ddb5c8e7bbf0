package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

	// The days are of the machine's calendar: the conversation started at 10:00 UTC on
	// 14 Nov 2023, the daily note is dated 2024-05-01 (midnight UTC).
	convDay := time.UnixMilli(1699956000512).Local().Format("Mon 2006-01-02")
	noteDay := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Local().Format("Mon 2006-01-02")
	out := cli("timeline")
	for _, want := range []string{
		convDay, "conversation #", "Sourdough starter troubleshooting", "(chatgpt",
		"周末去杭州的行程",
		noteDay, "note #", "(markdown, " + filepath.Join(vault, "Daily", "2024-05-01.md") + ")",
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
	day, entry := strings.Index(out, convDay), strings.Index(out, "Sourdough starter troubleshooting")
	if day < 0 {
		t.Fatalf("no %s in:\n%s", convDay, out)
	}
	if next := strings.Index(out[day+1:], "\n\n"); entry < day || (next >= 0 && entry > day+1+next) {
		t.Errorf("the conversation is not under %s:\n%s", convDay, out)
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
