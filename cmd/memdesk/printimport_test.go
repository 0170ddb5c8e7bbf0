package main

import (
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
)

// TestPrintImport checks that the text report of kb add names every skipped file with its
// reason, and says what a decoded file was decoded from.
func TestPrintImport(t *testing.T) {
	res := engine.KBAddResult{Added: 2, Skipped: 2, Files: []engine.ImportedFile{
		{Path: "/notes/README", DocID: 1, Outcome: engine.ImportAdded, Chunks: 2},
		{Path: "/notes/会议.txt", DocID: 2, Outcome: engine.ImportAdded, Chunks: 1, Encoding: "GB18030"},
		{Path: "/notes/photo.png", Outcome: engine.ImportSkipped, Reason: "image (png): not imported"},
		{Path: "/notes/backup.zip", Outcome: engine.ImportSkipped, Reason: "compressed archive (zip): not imported"},
	}}
	var b strings.Builder
	printImport(&b, res)
	for _, want := range []string{
		"added /notes/README (document 1, 2 chunks)\n",
		"added /notes/会议.txt (document 2, 1 chunks, decoded from GB18030)\n",
		"skipped /notes/photo.png: image (png): not imported\n",
		"skipped /notes/backup.zip: compressed archive (zip): not imported\n",
		"2 added, 0 updated, 0 unchanged, 2 skipped, 0 failed\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printImport wrote\n%s\nwant it to hold %q", b.String(), want)
		}
	}
}

func TestPrintRecallSuggestsASpelling(t *testing.T) {
	var b strings.Builder
	printRecall(&b, engine.RecallResult{Query: "pyhton", Hits: []engine.Hit{}, DidYouMean: "python", Semantic: "off"}, false)
	if want := "nothing relevant found: no text holds any of its words\ndid you mean: python\nsemantic leg: off\n"; b.String() != want {
		t.Errorf("printRecall = %q, want %q", b.String(), want)
	}
}
