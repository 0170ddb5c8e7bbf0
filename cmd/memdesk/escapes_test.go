//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine"
)

// human runs `memdesk --db DB args...` without --json and returns its exit status, stdout
// and stderr.
func (r memdeskRun) human(t *testing.T, args ...string) (code int, stdout, stderr []byte) {
	t.Helper()
	cmd := exec.Command(r.bin, append([]string{"--db", r.db}, args...)...)
	cmd.Env = r.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("memdesk %s: %v", strings.Join(args, " "), err)
		}
	}
	return cmd.ProcessState.ExitCode(), out.Bytes(), errOut.Bytes()
}

// terminalUnsafe returns a description of the first thing in out that a terminal would act
// on or that disguises text: a control character other than newline and tab (ESC, BEL,
// backspace, CR...), a C1 control as a raw byte or as a code point, a bidirectional
// override or isolate, or "" when there is none.
func terminalUnsafe(out []byte) string {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return fmt.Sprintf("raw byte %#x at %d", out[i], i)
		case r == '\n' || r == '\t':
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return fmt.Sprintf("control %U at %d", r, i)
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return fmt.Sprintf("bidi control %U at %d", r, i)
		}
		i += size
	}
	return ""
}

// TestSecurityEscapesCLI stores every string of escapes.list and injection.list as a fact,
// imports ansi-escapes.md and a document per escape string named after it, and runs each
// human-readable command that shows them: no raw escape, BEL, C1 control or bidi override
// may reach stdout or stderr (issue 15). The JSON output keeps the exact text, escaped.
func TestSecurityEscapesCLI(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	escapes := readHostileList(t, "escapes.list")
	texts := append(append([]string(nil), escapes...), readHostileList(t, "injection.list")...)
	docDir := filepath.Join(t.TempDir(), "docs")
	if err := os.Mkdir(docDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ansi, err := os.ReadFile(filepath.Join(hostileCorpus, "ansi-escapes.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(docDir, "ansi-escapes.md"), ansi)
	for i, s := range escapes {
		name := strings.ReplaceAll(s, "/", "\u2215") + ".md"
		writeFile(t, filepath.Join(docDir, name), []byte(fmt.Sprintf("# %s\n\nEscape document %d: %s\n", s, i, s)))
	}

	check := func(args ...string) (code int, stdout []byte) {
		t.Helper()
		code, stdout, stderr := r.human(t, args...)
		for _, o := range []struct {
			name string
			b    []byte
		}{{"stdout", stdout}, {"stderr", stderr}} {
			if what := terminalUnsafe(o.b); what != "" {
				t.Errorf("memdesk %q: %s holds %s:\n%q", args, o.name, what, o.b)
			}
		}
		return code, stdout
	}
	for i, s := range texts {
		if code, _ := check("remember", "--", s); code != 0 {
			t.Errorf("remember %q: exit %d, want 0", s, code)
		}
		if i < len(escapes) {
			check("remember", "--", s) // already remembered: the report names the fact
		}
	}
	check("kb", "add", docDir)
	check("kb", "add", docDir) // unchanged: the report lists every file name again
	check("list")
	check("list", "--all")
	check("kb", "list")
	check("stats")
	for _, s := range escapes {
		check("recall", "--", s)
		check("list", "--filter", s)
		check("recall", "--space", s, "--", "puffin")           // refused: the error echoes the space
		check("kb", "add", filepath.Join(docDir, "missing "+s)) // refused: the error echoes the path
		check("--db", filepath.Join(t.TempDir(), s+".db"), "stats")
	}
	check("recall", "-k", "100", "puffin")
	check("recall", "heron")
	var docs struct {
		Documents []engine.DocumentView `json:"documents"`
	}
	r.mustJSON(t, &docs, "kb", "list")
	// Two escape documents are skipped as binary (their text holds C0 controls); their
	// names are in the import report all the same.
	if len(docs.Documents) < len(escapes)-1 {
		t.Errorf("kb list: %d documents, want at least %d", len(docs.Documents), len(escapes)-1)
	}
	for i, d := range docs.Documents {
		check("kb", "show", fmt.Sprint(d.ID))
		if i < 3 { // the same report as kb add's, which named every file already
			check("kb", "reimport", fmt.Sprint(d.ID))
		}
	}
	// --json errors echo the text too.
	for _, s := range escapes {
		cmd, stdout, stderr := r.command("kb", "add", filepath.Join(docDir, "missing "+s))
		cmd.Run()
		for _, b := range [][]byte{stdout.Bytes(), stderr.Bytes()} {
			if what := terminalUnsafe(b); what != "" {
				t.Errorf("--json kb add of a missing %q: output holds %s: %q", s, what, b)
			}
		}
	}
	// --json keeps the exact text: encoding/json writes ESC as \u001b.
	cmd, stdout, _ := r.command("list")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if what := terminalUnsafe(stdout.Bytes()); what != "" {
		t.Errorf("list --json holds %s", what)
	}
	if !bytes.Contains(stdout.Bytes(), []byte(`\u001b]52;c;`)) {
		t.Errorf("list --json does not hold the OSC 52 text escaped as \\u001b: %s", stdout)
	}
}
