package main

// Crash tests: real memdesk processes killed with SIGKILL at seeded random moments, then the
// database is reopened with the real CLI and checked. They test issue 8's promise that what
// `remember` or an import reported as done survives a crash, and that nothing half-written
// becomes visible. doc/reliability.md records the latest figures.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var crashSeed = flag.Uint64("crash.seed", 0, "seed for the crash and concurrency tests (0: from the clock)")

// testBinary is the memdesk binary the process tests run, built once per test binary and only
// when such a test asks for it, so unrelated -short tests do not pay for the Fyne link.
var testBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if testBinary.dir != "" {
		os.RemoveAll(testBinary.dir)
	}
	os.Exit(code)
}

// memdeskBinary builds ./cmd/memdesk with the go tool that runs the tests.
func memdeskBinary(t *testing.T) string {
	t.Helper()
	testBinary.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			testBinary.err = fmt.Errorf("find the go tool: %w", err)
			return
		}
		dir, err := os.MkdirTemp("", "memdesk-bin-")
		if err != nil {
			testBinary.err = err
			return
		}
		testBinary.dir = dir
		path := filepath.Join(dir, "memdesk")
		out, err := exec.Command(goTool, "build", "-o", path, ".").CombinedOutput()
		if err != nil {
			testBinary.err = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		testBinary.path = path
	})
	if testBinary.err != nil {
		t.Fatal(testBinary.err)
	}
	return testBinary.path
}

// testSeed is the seed for one test: -crash.seed if given, else the clock. Logged so a failing
// run can be replayed with -crash.seed.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -crash.seed=%d)", seed, seed)
	return seed
}

// memdeskRun runs memdesk commands against one database with an isolated config and home,
// so a developer's own config or data never leaks into a test.
type memdeskRun struct {
	bin string
	db  string
	env []string
}

func newMemdeskRun(t *testing.T, bin string) memdeskRun {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"MEMDESK_CONFIG="+filepath.Join(dir, "no-config.toml"),
	)
	return memdeskRun{bin: bin, db: filepath.Join(dir, "memdesk.db"), env: env}
}

// command prepares `memdesk --db DB --json args...` with stdout and stderr captured.
func (r memdeskRun) command(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(r.bin, append([]string{"--db", r.db, "--json"}, args...)...)
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// mustJSON runs a command that must succeed and decodes its JSON output into v.
func (r memdeskRun) mustJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	cmd, stdout, stderr := r.command(args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("memdesk %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout, stderr)
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("memdesk %s: decode %q: %v", strings.Join(args, " "), stdout, err)
	}
}

// checkIntegrity fails the test unless `admin integrity` reports ok.
func (r memdeskRun) checkIntegrity(t *testing.T) {
	t.Helper()
	var res struct {
		OK      bool     `json:"ok"`
		Details []string `json:"details"`
	}
	r.mustJSON(t, &res, "admin", "integrity")
	if !res.OK {
		t.Fatalf("admin integrity: ok = false, details %q; want ok", res.Details)
	}
}

type listedFact struct {
	ID     int64  `json:"id"`
	Text   string `json:"text"`
	Status string `json:"status"`
}

func (r memdeskRun) listAll(t *testing.T) []listedFact {
	t.Helper()
	var res struct {
		Facts []listedFact `json:"facts"`
	}
	r.mustJSON(t, &res, "list", "--all")
	return res.Facts
}

type listedDocument struct {
	ID     int64  `json:"id"`
	Path   string `json:"path"`
	Chunks int    `json:"chunks"`
}

func (r memdeskRun) kbList(t *testing.T) []listedDocument {
	t.Helper()
	var res struct {
		Documents []listedDocument `json:"documents"`
	}
	r.mustJSON(t, &res, "kb", "list")
	return res.Documents
}

// startAndMaybeKill starts cmd and, when kill is set, sends SIGKILL after delay. It reports
// whether the kill landed (the process died of SIGKILL rather than finishing first).
func startAndMaybeKill(t *testing.T, cmd *exec.Cmd, kill bool, delay time.Duration) (killed bool, runErr error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	if kill {
		time.Sleep(delay)
		if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatalf("kill: %v", err)
		}
	}
	runErr = cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true, runErr
		}
	}
	return false, runErr
}

// TestCrashDuringRemember runs a stream of `remember` processes and SIGKILLs a seeded random
// subset 0-30 ms after start. Every process that printed status "added" (exit 0, or killed
// after printing) is an acknowledged write; afterwards the database must be intact, hold
// every acknowledged fact with exactly its text, and hold nothing that was not sent (no torn
// or duplicated rows).
func TestCrashDuringRemember(t *testing.T) {
	wantKills := 50
	if testing.Short() {
		wantKills = 8
	}
	bin := memdeskBinary(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	r := newMemdeskRun(t, bin)

	start := time.Now()
	sent := map[string]bool{}
	acked := map[int64]string{} // fact id -> text, for processes that reported "added"
	kills, attempts, failedOther, killedAfterAck := 0, 0, 0, 0
	for i := 0; kills < wantKills; i++ {
		if i >= wantKills*20 {
			t.Fatalf("only %d of %d kills landed in %d processes: the processes finish before the kill", kills, wantKills, i)
		}
		// Some texts repeat words across facts so the FTS index and entity tables see real work.
		text := fmt.Sprintf("crash fact %d of seed %d: deploy host%d uses port %d and owner %s",
			i, seed, rng.IntN(20), 8000+rng.IntN(1000), []string{"Alice", "Bob", "Chen", "Dana"}[rng.IntN(4)])
		sent[text] = true
		kill := rng.IntN(100) < 70
		delay := time.Duration(rng.Int64N(int64(30 * time.Millisecond)))
		cmd, stdout, stderr := r.command("remember", text)
		attempts++
		killed, err := startAndMaybeKill(t, cmd, kill, delay)
		if killed {
			kills++
		} else if err != nil {
			// A non-kill failure is a bug too (e.g. a crash left the database unopenable).
			failedOther++
			t.Errorf("remember %d exited with %v (not a kill)\nstderr: %s", i, err, stderr)
		}
		if stdout.Len() == 0 {
			continue
		}
		// Output the user saw is an acknowledgement, even if the kill came after it and
		// before the process exited.
		var res struct {
			FactID int64  `json:"fact_id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("remember %d printed %q: %v", i, stdout, err)
		}
		if res.Status != "added" {
			t.Errorf("remember %d: status %q, want added (every text is new)", i, res.Status)
			continue
		}
		acked[res.FactID] = text
		if killed {
			killedAfterAck++
		}
	}

	r.checkIntegrity(t)
	facts := r.listAll(t)
	byID := map[int64]listedFact{}
	seenText := map[string]int64{}
	for _, f := range facts {
		byID[f.ID] = f
		if !sent[f.Text] {
			t.Errorf("fact %d has text %q, which no process sent (torn write?)", f.ID, f.Text)
		}
		if prev, dup := seenText[f.Text]; dup {
			t.Errorf("facts %d and %d both hold %q; want each text once", prev, f.ID, f.Text)
		}
		seenText[f.Text] = f.ID
	}
	lost := 0
	for id, text := range acked {
		f, ok := byID[id]
		switch {
		case !ok:
			lost++
			t.Errorf("acknowledged fact %d (%q) is missing after the crashes", id, text)
		case f.Text != text:
			lost++
			t.Errorf("acknowledged fact %d text = %q, want %q", id, f.Text, text)
		}
	}
	t.Logf("remember crash: %d processes, %d killed (%d after printing their acknowledgement), %d acknowledged, %d lost, %d other failures, %d facts stored (%d committed but never acknowledged), %s",
		attempts, kills, killedAfterAck, len(acked), lost, failedOther, len(facts), len(facts)-len(acked), time.Since(start).Round(time.Millisecond))
}

// writeImportCorpus writes n small Markdown notes, several sections each, into a new folder.
func writeImportCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "notes")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		for s := 1; s <= 4; s++ {
			fmt.Fprintf(&b, "## Section %d of note %d\n\n", s, i)
			for l := 1; l <= 12; l++ {
				fmt.Fprintf(&b, "Line %d of section %d in note %d is about topic%d and widget%d.\n", l, s, i, i, s)
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note%02d.md", i)), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type importResult struct {
	Added     int `json:"added"`
	Unchanged int `json:"unchanged"`
	Failed    int `json:"failed"`
	Files     []struct {
		Path   string `json:"path"`
		Chunks int    `json:"chunks"`
	} `json:"files"`
}

// TestCrashDuringImport kills `kb add DIR` (40 notes) at seeded random moments. After every
// kill the database must be intact and each listed document must have exactly the chunks a
// clean import gives it (a document is there whole or not at all); re-running the import to
// completion must then list all 40 documents, each once.
func TestCrashDuringImport(t *testing.T) {
	const notes = 40
	wantKills := 50 // rounds continue until this many kills landed mid-import
	if testing.Short() {
		wantKills = 6
	}
	bin := memdeskBinary(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x1a9f))
	dir := writeImportCorpus(t, notes)

	// Reference: what a clean import gives each file, and how long it takes, so kills land
	// across the whole run instead of only before the first file.
	ref := newMemdeskRun(t, bin)
	refStart := time.Now()
	var clean importResult
	ref.mustJSON(t, &clean, "kb", "add", dir)
	cleanTime := time.Since(refStart)
	if clean.Added != notes || clean.Failed != 0 {
		t.Fatalf("clean import: added %d, failed %d; want %d, 0", clean.Added, clean.Failed, notes)
	}
	wantChunks := map[string]int{}
	for _, f := range clean.Files {
		wantChunks[f.Path] = f.Chunks
	}
	window := cleanTime + cleanTime/2

	start := time.Now()
	kills, attempts, partialSeen := 0, 0, 0
	rounds := 0
	for ; kills < wantKills; rounds++ {
		if rounds >= wantKills*4 {
			t.Fatalf("only %d of %d kills landed in %d rounds: the import finishes before the kill", kills, wantKills, rounds)
		}
		round := rounds
		r := newMemdeskRun(t, bin)
		killsThisRound := 1 + rng.IntN(3)
		for k := 0; k < killsThisRound; k++ {
			delay := time.Duration(rng.Int64N(int64(window)))
			cmd, _, stderr := r.command("kb", "add", dir)
			attempts++
			killed, err := startAndMaybeKill(t, cmd, true, delay)
			if killed {
				kills++
			} else if err != nil {
				t.Fatalf("round %d: kb add exited with %v (not a kill)\nstderr: %s", round, err, stderr)
			}
			r.checkIntegrity(t)
			docs := r.kbList(t)
			if len(docs) > 0 && len(docs) < notes {
				partialSeen++
			}
			for _, d := range docs {
				if d.Chunks != wantChunks[d.Path] {
					t.Errorf("round %d after kill %d: document %d (%s) has %d chunks, want %d (half-imported)",
						round, k, d.ID, d.Path, d.Chunks, wantChunks[d.Path])
				}
			}
		}
		var finish importResult
		r.mustJSON(t, &finish, "kb", "add", dir)
		if finish.Failed != 0 {
			t.Errorf("round %d: completing import: %d files failed", round, finish.Failed)
		}
		r.checkIntegrity(t)
		docs := r.kbList(t)
		perPath := map[string]int{}
		for _, d := range docs {
			perPath[d.Path]++
			if d.Chunks != wantChunks[d.Path] {
				t.Errorf("round %d after completion: document %s has %d chunks, want %d", round, d.Path, d.Chunks, wantChunks[d.Path])
			}
		}
		if len(perPath) != notes || len(docs) != notes {
			t.Errorf("round %d after completion: %d documents over %d paths, want %d each once", round, len(docs), len(perPath), notes)
		}
		for p, n := range perPath {
			if n != 1 {
				t.Errorf("round %d: %s listed %d times, want once", round, p, n)
			}
		}
	}
	t.Logf("import crash: %d rounds, %d kb add processes, %d killed mid-run (window %s, clean import %s), %d kills left a partial import that was still consistent, %s",
		rounds, attempts, kills, window.Round(time.Millisecond), cleanTime.Round(time.Millisecond), partialSeen, time.Since(start).Round(time.Millisecond))
}
