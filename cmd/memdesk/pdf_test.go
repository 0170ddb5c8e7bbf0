package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestPDFHitsShowTheirPage: a PDF's recall hits and kb show chunks say which page they are
// on, and a Markdown file's keep their plain path:lines form.
func TestPDFHitsShowTheirPage(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "memdesk.db")
	cli := cliOn(t, ctx, db)
	dir := t.TempDir()
	pdf, err := os.ReadFile(filepath.Join("..", "..", "engine", "testdata", "kb", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n\nThe move cut costs.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var added engine.KBAddResult
	if err := json.Unmarshal([]byte(cli("--json", "kb", "add", dir)), &added); err != nil {
		t.Fatal(err)
	}
	pdfID := ""
	for _, f := range added.Files {
		if filepath.Base(f.Path) == "report.pdf" {
			pdfID = strconv.FormatInt(f.DocID, 10)
		}
	}
	out := cli("recall", "--source", "knowledge", "quarterly revenue")
	if !strings.Contains(out, "report.pdf, p. 1, lines 1-1") {
		t.Errorf("recall output does not give the PDF hit's page:\n%s", out)
	}
	out = cli("recall", "--source", "knowledge", "move cut costs")
	if !strings.Contains(out, "notes.md:1-3") || strings.Contains(out, "notes.md, p.") {
		t.Errorf("recall output for a Markdown hit is not path:lines:\n%s", out)
	}
	if out := cli("kb", "show", pdfID); !strings.Contains(out, "p. 1, lines 1-1") || !strings.Contains(out, "p. 2, lines 1-1") {
		t.Errorf("kb show of the PDF does not give its chunks' pages:\n%s", out)
	}
}
