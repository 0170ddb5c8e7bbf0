//go:build unix

package main

// Hostile input through the built memdesk binary (issue 8): the folder of testdata/hostile
// plus files made at run time imported with `kb add`, hostile queries through `recall` and
// through `memdesk mcp`. engine/hostile_test.go drives the same inputs through the engine
// API; testdata/hostile/README.md lists each input and its expected outcome.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/hostile"
)

var hostileCorpus = filepath.Join("..", "..", "testdata", "hostile")

const keptFactText = "The harbour master keeps the tide ledger in room 7"

// readHostileList reads a .list file of the corpus: one Go double-quoted string per line,
// # comments and blank lines ignored.
func readHostileList(t *testing.T, name string) []string {
	t.Helper()
	out, err := hostile.ReadList(filepath.Join(hostileCorpus, name))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// hostileFolder copies the committed corpus into a new folder and adds what is made at run
// time. It reports whether unreadable.md is really unreadable (not when running as root).
func hostileFolder(t *testing.T) (dir string, unreadable bool) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "hostile")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(hostileCorpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if en.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(hostileCorpus, en.Name()))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, en.Name()), data)
		}
	}
	// 50 MB of text lines: refused by size before a byte is read.
	big := bytes.Repeat([]byte("The big file repeats the keeper's ledger line again and again.\n"), (50<<20)/63+1)
	writeFile(t, filepath.Join(dir, "big-50mb.txt"), big[:50<<20])
	f, err := os.Create(filepath.Join(dir, "sparse-1gb.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Skipf("this file system cannot hold a 1 GB sparse file: %v", err)
	}
	f.Close()
	for name, target := range map[string]string{
		"loop-self": ".", "sub/loop-up": "..", "self.md": "self.md", "ping.md": "pong.md",
		"pong.md": "ping.md", "gone.md": "missing.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub", "line\nbreak.md"), []byte("# Newline\n\nA file whose name holds a newline mentions the cormorant.\n"))
	longLine := 1 << 20
	if testing.Short() {
		longLine = 128 << 10
	}
	writeFile(t, filepath.Join(dir, "long-line.md"), bytes.Repeat([]byte("x"), longLine))
	locked := filepath.Join(dir, "unreadable.md")
	writeFile(t, locked, []byte("The pelican secret.\n"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o600) })
	if os.Geteuid() == 0 {
		t.Log("running as root: chmod 000 does not stop root from reading, so unreadable.md imports here; TestHostileUnreadableAsNobody checks the refusal")
		return dir, false
	}
	return dir, true
}

type fileOutcome struct {
	Outcome string
	Reason  string // a substring of the reported reason
}

func hostileOutcomes(unreadable bool) map[string]fileOutcome {
	w := map[string]fileOutcome{
		"README.md":           {"added", ""},
		"good-note.md":        {"added", ""},
		"crlf-bom.md":         {"added", ""},
		"ansi-escapes.md":     {"added", ""},
		"unicode-spaces.md":   {"added", ""},
		"combining-marks.txt": {"added", ""},
		"html-bomb.html":      {"added", ""},
		"long-line.md":        {"added", ""},
		"line\nbreak.md":      {"added", ""},
		"unreadable.md":       {"added", ""},
		"invalid-utf8.md":     {"added", ""},
		"nul-bytes.txt":       {"skipped", "binary file: not imported"},
		"binary-renamed.md":   {"skipped", "image (png): not imported"},
		"utf16.txt":           {"added", ""},
		"empty.md":            {"skipped", "empty or only whitespace"},
		"spaces-only.md":      {"skipped", "empty or only whitespace"},
		"no-text-layer.pdf":   {"skipped", "no extractable text"},
		"big-50mb.txt":        {"skipped", "file too large (50 MB > limit 20 MB)"},
		"sparse-1gb.md":       {"skipped", "file too large (1024 MB > limit 20 MB)"},
		"fifo.md":             {"skipped", "not a regular file"},
		"self.md":             {"skipped", "too many levels of symbolic links"},
		"ping.md":             {"skipped", "too many levels of symbolic links"},
		"pong.md":             {"skipped", "too many levels of symbolic links"},
		"gone.md":             {"skipped", "no such file or directory"},
		"report.docx":         {"skipped", "is not a readable Word document (zip: not a valid zip file)"},
		"queries.list":        {"added", ""},
		"escapes.list":        {"added", ""},
		"injection.list":      {"added", ""},
	}
	if unreadable {
		w["unreadable.md"] = fileOutcome{"skipped", "permission denied"}
	}
	return w
}

// checkOutcomes compares an import's per-file outcomes with want, by base name.
func checkOutcomes(t *testing.T, res engine.KBAddResult, want map[string]fileOutcome) {
	t.Helper()
	got := map[string]fileOutcome{}
	for _, f := range res.Files {
		name := filepath.Base(f.Path)
		if w, ok := want[name]; ok && w.Reason != "" && strings.Contains(f.Reason, w.Reason) {
			got[name] = fileOutcome{f.Outcome, w.Reason}
		} else {
			got[name] = fileOutcome{f.Outcome, f.Reason}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kb add outcomes by file (-want +got; a want reason is a substring):\n%s", diff)
	}
}

// seedHostileRun makes a database holding one fact and one document, the things every
// hostile input must leave alone.
func seedHostileRun(t *testing.T, r memdeskRun) (keep int64) {
	t.Helper()
	var added struct {
		FactID int64 `json:"fact_id"`
	}
	r.mustJSON(t, &added, "remember", keptFactText)
	seed := filepath.Join(t.TempDir(), "seed.md")
	writeFile(t, seed, []byte("# Seed\n\nThe seed note mentions the osprey.\n"))
	var res engine.KBAddResult
	r.mustJSON(t, &res, "kb", "add", seed)
	if res.Added != 1 {
		t.Fatalf("seed import = %+v, want 1 added", res)
	}
	return added.FactID
}

// checkUnchanged checks that the facts are exactly as before, every document listed before
// is still there with its chunks, and `admin integrity` is ok.
func checkUnchanged(t *testing.T, r memdeskRun, facts []listedFact, docs []listedDocument, keep int64) {
	t.Helper()
	r.checkIntegrity(t)
	if diff := cmp.Diff(facts, r.listAll(t)); diff != "" {
		t.Errorf("facts changed (-before +after):\n%s", diff)
	}
	after := map[string]int{}
	for _, d := range r.kbList(t) {
		after[d.Path] = d.Chunks
	}
	for _, d := range docs {
		if after[d.Path] != d.Chunks {
			t.Errorf("document %s has %d chunks, want %d as before", d.Path, after[d.Path], d.Chunks)
		}
	}
	i := slices.IndexFunc(r.listAll(t), func(f listedFact) bool { return f.ID == keep })
	if i < 0 || r.listAll(t)[i].Text != keptFactText {
		t.Errorf("fact %d is missing or changed; want %q", keep, keptFactText)
	}
}

// TestHostileImportCLI imports the hostile folder with `memdesk kb add` and checks each
// file's outcome, that the good files were imported and can be recalled, and that nothing
// already stored changed.
func TestHostileImportCLI(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	keep := seedHostileRun(t, r)
	r.checkIntegrity(t)
	factsBefore, docsBefore := r.listAll(t), r.kbList(t)

	dir, unreadable := hostileFolder(t)
	docx := filepath.Join(t.TempDir(), "report.docx")
	writeFile(t, docx, []byte("PK\x03\x04 not really a docx"))
	start := time.Now()
	var res engine.KBAddResult
	r.mustJSON(t, &res, "kb", "add", dir, docx)
	t.Logf("kb add of the hostile folder: %d files (%d added, %d skipped, %d failed) in %s",
		len(res.Files), res.Added, res.Skipped, res.Failed, time.Since(start).Round(time.Millisecond))
	checkOutcomes(t, res, hostileOutcomes(unreadable))
	if res.Failed != 0 {
		t.Errorf("failed = %d, want 0", res.Failed)
	}

	checkUnchanged(t, r, factsBefore, docsBefore, keep)
	if got, want := len(r.kbList(t)), len(docsBefore)+res.Added; got != want {
		t.Errorf("%d documents after the import, want %d", got, want)
	}
	for _, tc := range []struct{ query, wantPath string }{
		{"zephyrine tide", filepath.Join(dir, "good-note.md")},
		{"quokka nesting", filepath.Join(dir, "html-bomb.html")},
		{"albatross", filepath.Join(dir, "unicode-spaces.md")},
		{"narwhal", filepath.Join(dir, "combining-marks.txt")},
		{"cormorant", filepath.Join(dir, "sub", "line\nbreak.md")},
	} {
		t.Run("recall "+tc.query, func(t *testing.T) {
			var rr engine.RecallResult
			r.mustJSON(t, &rr, "recall", "--source", "knowledge", "--", tc.query)
			if len(rr.Hits) == 0 || rr.Hits[0].Doc == nil || rr.Hits[0].Doc.Path != tc.wantPath {
				t.Errorf("recall %q = %+v; want %q first", tc.query, rr.Hits, tc.wantPath)
			}
		})
	}
}

// TestHostileUnreadableAsNobody checks the permission error that root never sees: as root
// it runs `kb add` as user nobody (uid 65534) on a folder holding a mode-000 file and a
// readable one.
func TestHostileUnreadableAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: TestHostileImportCLI already meets the permission error as this user")
	}
	bin := memdeskBinary(t)
	const nobody = 65534
	dir, err := os.MkdirTemp("", "memdesk-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ownBin := filepath.Join(dir, "memdesk")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ownBin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	locked, readable := filepath.Join(docs, "unreadable.md"), filepath.Join(docs, "readable.md")
	if err := os.WriteFile(locked, []byte("The pelican secret.\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readable, []byte("The readable puffin note.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Skipf("cannot hand a folder to nobody: %v", err)
	}
	// In dir itself: memdesk makes no folder for a --db (TestDatabasePathCLI).
	cmd := exec.Command(ownBin, "--db", filepath.Join(dir, "memdesk.db"), "--json", "kb", "add", docs)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(dir, "home", ".config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "home", ".local", "share"), "MEMDESK_CONFIG="+filepath.Join(dir, "none.toml"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Skipf("cannot run a process as nobody here: %v", err)
		}
		t.Fatalf("kb add as nobody: %v\nstderr: %s", err, stderr.String())
	}
	var res engine.KBAddResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("decode %q: %v", stdout.String(), err)
	}
	checkOutcomes(t, res, map[string]fileOutcome{
		"unreadable.md": {"skipped", "permission denied"},
		"readable.md":   {"added", ""},
	})
}

// hundredKBQueries are the 100 KB queries: one word repeated, CJK, a single 100 KB token,
// ~11,000 distinct words, FTS5 operators, combining marks, spaces and invalid UTF-8.
func hundredKBQueries() []string {
	fill := func(unit string) string {
		s := strings.Repeat(unit, (100<<10)/len(unit)+1)[:100<<10]
		if utf8.ValidString(unit) {
			s = strings.ToValidUTF8(s, "") // drop a rune cut in half at the end
		}
		return s
	}
	var distinct strings.Builder
	for i := 0; distinct.Len() < 100<<10; i++ {
		fmt.Fprintf(&distinct, "word%d ", i)
	}
	var marks, spaces []rune
	for r := rune(0); r <= 0x3100; r++ {
		if unicode.Is(unicode.Mn, r) {
			marks = append(marks, r)
		}
		if unicode.IsSpace(r) {
			spaces = append(spaces, r)
		}
	}
	return []string{
		fill("lighthouse keeper "),
		fill("灯塔看守人记录潮汐"),
		strings.Repeat("a", 100<<10),
		distinct.String(),
		fill(`"( AND OR NOT NEAR * ^ - :col {a} `),
		fill(string(marks)),
		fill(string(spaces)),
		fill("\xfflighthouse "),
	}
}

// TestHostileQueriesCLI sends each hostile query through `memdesk recall`: it must exit 0
// with hits or none, or 2 ("the query is empty") when nothing but white space was typed;
// never 1, and never an SQL error. Queries holding NUL cannot be passed in argv; they go
// through the MCP server in TestHostileQueriesMCP.
func TestHostileQueriesCLI(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	keep := seedHostileRun(t, r)
	var rr engine.RememberResult
	r.mustJSON(t, &rr, "remember", "The lighthouse keeper logs the tide every evening")
	var kres engine.KBAddResult
	r.mustJSON(t, &kres, "kb", "add", filepath.Join(hostileCorpus, "good-note.md"))
	factsBefore, docsBefore := r.listAll(t), r.kbList(t)

	queries := append(readHostileList(t, "queries.list"), readHostileList(t, "injection.list")...)
	queries = append(queries, hundredKBQueries()...)
	var (
		durations          []time.Duration
		hits, empty, usage int
		skippedNUL         int
	)
	for i, q := range queries {
		if strings.ContainsRune(q, 0) {
			skippedNUL++
			continue
		}
		cmd, stdout, stderr := r.command("recall", "--", q)
		start := time.Now()
		err := cmd.Run()
		durations = append(durations, time.Since(start))
		code := cmd.ProcessState.ExitCode()
		if strings.Contains(strings.ToLower(stderr.String()), "sql") {
			t.Errorf("query %d (%.40q): stderr mentions SQL: %s", i, q, stderr)
		}
		switch {
		case err == nil:
			var res engine.RecallResult
			if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
				t.Errorf("query %d (%.40q): stdout is not a recall result: %v", i, q, jerr)
			} else if len(res.Hits) > 0 {
				hits++
			} else {
				empty++
			}
		case code == 2 && strings.TrimSpace(q) == "" && strings.Contains(stderr.String(), "query is empty"):
			usage++
		default:
			t.Errorf("query %d (%d bytes, %.40q): exit %d, stderr %s; want 0 (or 2 for an all-space query)", i, len(q), q, code, stderr)
		}
	}
	slices.Sort(durations)
	t.Logf("recall processes: %d queries: %d with hits, %d empty, %d refused as empty (exit 2), %d with NUL left to MCP; process time p50 %s, max %s",
		len(durations), hits, empty, usage, skippedNUL, durations[len(durations)/2].Round(time.Millisecond), durations[len(durations)-1].Round(time.Millisecond))
	checkUnchanged(t, r, factsBefore, docsBefore, keep)
}

// mcpSession is a scripted MCP client: requests written to the server's stdin at once,
// answers read from its stdout after stdin ends.
type mcpSession struct {
	buf   bytes.Buffer
	next  int
	calls map[int]string // id -> what the call was, for messages
}

func newMCPSession() *mcpSession {
	s := &mcpSession{next: 2, calls: map[int]string{}}
	s.buf.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}` + "\n")
	s.buf.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return s
}

// call adds a tools/call and returns its id.
func (s *mcpSession) call(t *testing.T, tool string, args any) int {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	s.buf.Write(b)
	s.buf.WriteByte('\n')
	s.calls[s.next] = fmt.Sprintf("%s %.60q", tool, fmt.Sprint(args))
	s.next++
	return s.next - 1
}

// run feeds the session to `memdesk --db DB mcp` and returns each call's tool result by
// id. Under -short it serves the session in process (serveMCP over an engine on the same
// database, the server code the binary runs) instead: the binary's exit waits for its entity
// extractor to finish loading, seconds on an idle machine and far more on a busy one.
func (s *mcpSession) run(t *testing.T, r memdeskRun, extraEnv ...string) map[int]mcp.CallToolResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if testing.Short() {
		e := openMCPTestEngine(t, r.db)
		if err := serveMCP(t.Context(), newMCPServer(e, testLogger(t)), bytes.NewReader(s.buf.Bytes()), &stdout); err != nil {
			t.Fatalf("serveMCP: %v", err)
		}
	} else {
		cmd := exec.Command(r.bin, "--db", r.db, "mcp")
		cmd.Env = append(slices.Clone(r.env), extraEnv...)
		cmd.Stdin = bytes.NewReader(s.buf.Bytes())
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("memdesk mcp: %v\nstderr: %s", err, stderr.String())
		}
	}
	out := map[int]mcp.CallToolResult{}
	for line := range strings.Lines(stdout.String()) {
		var resp rpcResponse
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("stdout line %.200q is not JSON-RPC: %v", line, err)
		}
		if resp.Error != nil {
			t.Errorf("call %d (%s): protocol error %q", resp.ID, s.calls[resp.ID], resp.Error.Message)
			continue
		}
		if resp.ID == 1 {
			continue
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			t.Fatalf("call %d: result %.200s: %v", resp.ID, resp.Result, err)
		}
		out[resp.ID] = res
	}
	for id := range s.calls {
		if _, ok := out[id]; !ok && !t.Failed() {
			t.Errorf("call %d (%s) got no answer", id, s.calls[id])
		}
	}
	return out
}

// TestHostileQueriesMCP sends every hostile query, NUL included, to the recall and
// kb_search tools of a real `memdesk mcp` process (in process under -short): each gets a
// result, or a tool error only for an all-space query or one over maxQueryBytes (the 100 KB
// ones); the server answers every call and exits 0.
func TestHostileQueriesMCP(t *testing.T) {
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	keep := seedHostileRun(t, r)
	factsBefore, docsBefore := r.listAll(t), r.kbList(t)
	queries := append(readHostileList(t, "queries.list"), readHostileList(t, "injection.list")...)
	queries = append(queries, hundredKBQueries()...)
	s := newMCPSession()
	ids := map[int]string{}
	for _, q := range queries {
		ids[s.call(t, "recall", map[string]any{"query": q})] = q
		ids[s.call(t, "kb_search", map[string]any{"query": q})] = q
	}
	start := time.Now()
	results := s.run(t, r, "MEMDESK_OLLAMA_ENABLED=false")
	took := time.Since(start)
	var hits, refused, tooLong int
	for id, q := range ids {
		res, ok := results[id]
		if !ok {
			continue
		}
		text := resultText(&res)
		switch {
		case res.IsError && strings.TrimSpace(strings.ToValidUTF8(q, "\uFFFD")) == "":
			refused++
		case len(q) > maxQueryBytes:
			// Over the MCP bound: refused with the reason, not searched and not echoed.
			if !res.IsError || !strings.Contains(text, "at most 16 KB") || len(text) > 1<<10 {
				t.Errorf("call %d (%d-byte query): got error=%v %.200q; want a short tool error naming the 16 KB bound", id, len(q), res.IsError, text)
			}
			tooLong++
		case res.IsError:
			t.Errorf("call %d (%.40q): tool error %q; want hits or none", id, q, text)
			if strings.Contains(strings.ToLower(text), "sql") {
				t.Errorf("call %d: an SQL error reached the agent: %s", id, text)
			}
		default:
			var rr engine.RecallResult
			if err := json.Unmarshal([]byte(text), &rr); err != nil {
				t.Errorf("call %d: %v", id, err)
			}
			if len(rr.Hits) > 0 {
				hits++
			}
		}
	}
	t.Logf("mcp: %d calls (recall and kb_search) answered in one session of %s: %d with hits, %d refused as empty, %d refused as over %d KB",
		len(ids), took.Round(time.Millisecond), hits, refused, tooLong, maxQueryBytes>>10)
	checkUnchanged(t, r, factsBefore, docsBefore, keep)
}
