//go:build unix

package main

// Files an import must not read, disks that fill up, and backups nobody else may read
// (issue 15), through the built memdesk binary.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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

// TestImportExitStatus: an import where a file was only skipped (not a document) exits 0; one
// where the disk refused the writes exits 1, says what to do in words, and stops at the first
// such file rather than failing each of the rest. The disk is made to refuse with a file size
// limit on the process (ulimit -f; Go ignores SIGXFSZ, so writes fail with EFBIG), which the
// driver reports as the "disk I/O error" people saw on a full disk.
func TestImportExitStatus(t *testing.T) {
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	dir := filepath.Join(t.TempDir(), "notes")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	docx := filepath.Join(dir, "report.docx")
	writeFile(t, docx, []byte("PK\x03\x04\x14\x00\x06\x00 word/document.xml")) // a .docx is a ZIP
	var skipped importResult
	r.mustJSON(t, &skipped, "kb", "add", docx) // mustJSON: exit 0
	if skipped.Failed != 0 || len(skipped.Files) != 1 {
		t.Errorf("kb add of an unsupported file = %+v, want it skipped", skipped)
	}

	const files = 12
	writeBigDocuments(t, dir, files, 400, "one")
	cmd := exec.Command("/bin/sh", "-c", `ulimit -f 400 && exec "$0" "$@"`, r.bin, "--db", r.db, "--json", "kb", "add", dir)
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("kb add with the disk refusing writes: %v, want exit status 1\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var res importResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("decode %q: %v", stdout.String(), err)
	}
	if res.Failed != 1 || res.Added >= files {
		t.Errorf("kb add with the disk refusing writes: added %d, failed %d; want it to stop at the first failure", res.Added, res.Failed)
	}
	for _, want := range []string{"the disk holding " + r.db, "run again; nothing acknowledged was lost"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr = %s\nwant it to say %q", stderr.String(), want)
		}
	}

	// Nothing acknowledged was lost, and the import completes once the disk has room.
	added := res.Added
	r.checkIntegrity(t)
	if docs := r.kbList(t); len(docs) != added {
		t.Errorf("after the refused import kb list shows %d documents, want the %d acknowledged", len(docs), added)
	}
	var done importResult
	r.mustJSON(t, &done, "kb", "add", dir)
	if done.Failed != 0 || done.Added+done.Unchanged != files {
		t.Errorf("kb add with room again = %+v, want all %d files in", done, files)
	}
	checkNoLeftovers(t, r, 0)
}
