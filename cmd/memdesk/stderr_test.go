package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
)

// TestMCPStderrNeverRead: a client that never reads the server's stderr (here a pipe with no
// reader: every write to it blocks) still gets every answer, with -v logging each call.
func TestMCPStderrNeverRead(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	seed := openMCPTestEngine(t, db)
	if _, err := seed.Remember(t.Context(), engine.RememberRequest{Text: "CI uses Python 3.12"}); err != nil {
		t.Fatal(err)
	}
	_, stderr := io.Pipe() // never read
	lookup := func(name string) (string, bool) {
		if name == "MEMDESK_CONFIG" {
			return filepath.Join(dir, "config.toml"), true
		}
		return "", false
	}
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(t.Context(), []string{"--db", db, "-v", "mcp"}, streams{in: strings.NewReader(stdioRequests), out: &out, err: stderr}, lookup)
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit status %d, want 0", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the server is still stuck 60 s after its input ended, blocked on a stderr nobody reads")
	}
	checkStdioAnswers(t, out.String())
}

// TestMCPStderrClosed: a client that closes the server's stderr does not kill it (SIGPIPE);
// the real binary, logging with -v, answers every request and exits 0.
func TestMCPStderrClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the memdesk binary, which loads the entity extractor")
	}
	r := newMemdeskRun(t, memdeskBinary(t))
	r.mustJSON(t, new(map[string]any), "remember", "CI uses Python 3.12")
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	rd.Close() // the reader is gone before the server writes a byte
	cmd := exec.Command(r.bin, "--db", r.db, "-v", "mcp")
	cmd.Env = r.env
	cmd.Stdin = strings.NewReader(stdioRequests)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, wr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("memdesk mcp with its stderr closed: %v (SIGPIPE is %v)", err, diedOfSIGPIPE(err))
	}
	checkStdioAnswers(t, out.String())
}

func diedOfSIGPIPE(err error) bool {
	return err != nil && strings.Contains(err.Error(), "broken pipe")
}

// TestClipLongValues: a logged value past maxLogValue is cut, with its length, at a rune
// boundary; short ones and other kinds pass as they are.
func TestClipLongValues(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: clipLongValues}))
	long := strings.Repeat("老王", 200000) // 1.2 MB
	log.Warn("bad argument", "arg", long, "err", io.ErrUnexpectedEOF, "n", 3)
	if b.Len() > 3*maxLogValue {
		t.Errorf("the log line is %d bytes, want about %d", b.Len(), maxLogValue)
	}
	if !strings.Contains(b.String(), "(1200000 bytes in all)") || !strings.Contains(b.String(), "n=3") ||
		!strings.Contains(b.String(), "unexpected EOF") {
		t.Errorf("log line %q", b.String())
	}
	if strings.ContainsRune(b.String(), '\uFFFD') {
		t.Error("the cut split a character")
	}
}
