//go:build unix

package main

// Files an import must not read, disks that fill up, and backups nobody else may read
// (issue 15), through the built memdesk binary.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const secretWord = "shadowpelican"

// TestImportStaysInsideTheChosenFolder imports a folder holding links out of it (to a file,
// to a folder), then swaps an imported file for a link to a secret and re-imports it: the
// secret must never be stored, whatever the links say.
func TestImportStaysInsideTheChosenFolder(t *testing.T) {
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	base := t.TempDir()
	notes, outside := filepath.Join(base, "notes"), filepath.Join(base, "outside")
	for _, d := range []string{notes, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(notes, "harbour.md"), []byte("# Harbour\n\nThe harbour master keeps the tide ledger.\n"))
	secret := filepath.Join(outside, "passwd.md")
	writeFile(t, secret, []byte("root:"+secretWord+":19000:0:99999:7:::\n"))
	for name, target := range map[string]string{"passwd.md": secret, "etc": outside} {
		if err := os.Symlink(target, filepath.Join(notes, name)); err != nil {
			t.Fatal(err)
		}
	}

	var res struct {
		Added int `json:"added"`
		Files []struct {
			Path    string `json:"path"`
			DocID   int64  `json:"doc_id"`
			Outcome string `json:"outcome"`
			Reason  string `json:"reason"`
		} `json:"files"`
	}
	r.mustJSON(t, &res, "kb", "add", notes)
	if res.Added != 1 {
		t.Errorf("kb add: added %d, want 1 (harbour.md only)", res.Added)
	}
	reasons := map[string]string{}
	var harbourID int64
	for _, f := range res.Files {
		reasons[filepath.Base(f.Path)] = f.Outcome + ": " + f.Reason
		if filepath.Base(f.Path) == "harbour.md" {
			harbourID = f.DocID
		}
	}
	for name, target := range map[string]string{"passwd.md": secret, "etc": outside} {
		want := "skipped: symbolic link leads outside the folder you chose: " + target
		if reasons[name] != want {
			t.Errorf("kb add: %s reported %q, want %q", name, reasons[name], want)
		}
	}
	assertSecretNotStored(t, r)

	// The imported file is swapped for a link to the secret, then re-imported.
	harbour := filepath.Join(notes, "harbour.md")
	if err := os.Remove(harbour); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, harbour); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := r.command("kb", "reimport", itoa(harbourID))
	if err := cmd.Run(); err == nil {
		t.Errorf("kb reimport of a file swapped for a link out: exit 0, want an error\nstdout: %s", stdout)
	}
	if want := "symbolic link leads outside the folder you chose: " + secret; !strings.Contains(stderr.String(), want) {
		t.Errorf("kb reimport stderr = %q, want it to say %q", stderr, want)
	}
	assertSecretNotStored(t, r)

	// The folder itself swapped for a link to the secret's folder (which has a harbour.md).
	writeFile(t, filepath.Join(outside, "harbour.md"), []byte(secretWord+"\n"))
	if err := os.Rename(notes, notes+"-moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, notes); err != nil {
		t.Fatal(err)
	}
	if cmd, _, _ := r.command("kb", "reimport", itoa(harbourID)); cmd.Run() == nil {
		t.Errorf("kb reimport through a folder swapped for a link: exit 0, want an error")
	}
	assertSecretNotStored(t, r)

	// A file named on the command line is followed, and stored under its real path.
	var named struct {
		Files []struct {
			Path    string `json:"path"`
			Outcome string `json:"outcome"`
		} `json:"files"`
	}
	other := filepath.Join(base, "other.md")
	writeFile(t, other, []byte("# Other\n\nA plain note about cormorants.\n"))
	link := filepath.Join(base, "link-to-other.md")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	r.mustJSON(t, &named, "kb", "add", link)
	if len(named.Files) != 1 || named.Files[0].Path != other || named.Files[0].Outcome != "added" {
		t.Errorf("kb add of a named link = %+v, want %s added under its real path", named.Files, other)
	}
}

// assertSecretNotStored fails the test if any stored chunk holds secretWord.
func assertSecretNotStored(t *testing.T, r memdeskRun) {
	t.Helper()
	for _, d := range r.kbList(t) {
		var shown struct {
			Chunks []struct {
				Text string `json:"text"`
			} `json:"chunks"`
		}
		r.mustJSON(t, &shown, "kb", "show", itoa(d.ID))
		for _, c := range shown.Chunks {
			if strings.Contains(c.Text, secretWord) {
				t.Fatalf("document %d (%s) holds the secret: %q", d.ID, d.Path, c.Text)
			}
		}
	}
	// The query echoes the word itself; the rest of the secret line must not appear.
	cmd, stdout, _ := r.command("recall", secretWord)
	cmd.Run()
	if strings.Contains(stdout.String(), "19000:0:99999") {
		t.Fatalf("recall %s returns the secret: %s", secretWord, stdout)
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
