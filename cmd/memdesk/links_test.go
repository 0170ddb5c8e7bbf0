package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestKBLinksOfVaultNote: kb links lists a note's links with the notes they lead to, the
// line of a linked heading, and which ones lead nowhere.
func TestKBLinksOfVaultNote(t *testing.T) {
	ctx := context.Background()
	cli := cliOn(t, ctx, filepath.Join(t.TempDir(), "memdesk.db"))
	vault, err := filepath.Abs(filepath.Join("..", "..", "engine", "testdata", "vault"))
	if err != nil {
		t.Fatal(err)
	}
	var added engine.KBAddResult
	if err := json.Unmarshal([]byte(cli("--json", "kb", "add", vault)), &added); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, f := range added.Files {
		if filepath.Base(f.Path) == "读书笔记.md" {
			id = strconv.FormatInt(f.DocID, 10)
		}
	}
	if id == "" {
		t.Fatalf("读书笔记.md not imported: %+v", added.Files)
	}
	out := cli("kb", "links", id)
	for _, want := range []string{
		"line 8: link 路线图 -> " + filepath.Join(vault, "Projects", "Memdesk.md") + ":16 (document ",
		"line 10: embed Memdesk#Design -> " + filepath.Join(vault, "Projects", "Memdesk.md") + ":12 (document ",
		"line 12: link 不存在的笔记 -> not imported",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kb links output lacks %q:\n%s", want, out)
		}
	}
}
