package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
)

// malformedLine is one bad line an agent may write, and the answer it must get.
type malformedLine struct {
	name string
	line []byte
	// code is the JSON-RPC error the line is answered with; 0 means it is a good call after
	// all (a BOM is ignored) and gets a result.
	code int64
	id   string // the answer's id as JSON: null, or the id the line carried, as written
}

// malformedLines are the lines reported to end the session (issue 15, item 1), and the
// invalid UTF-8 that was stored with U+FFFD (item 13).
func malformedLines() []malformedLine {
	remember := func(text string) string {
		return `"method":"tools/call","params":{"name":"remember","arguments":{"text":"` + text + `"}}}`
	}
	return []malformedLine{
		{"plain text", []byte("hello memdesk, please remember this"), jsonrpc.CodeParseError, "null"},
		{"BOM before the JSON", []byte("\uFEFF" + `{"jsonrpc":"2.0","id":"bom","method":"ping"}`), 0, `"bom"`},
		{"jsonrpc 1.0", []byte(`{"jsonrpc":"1.0","id":"v1","method":"ping"}`), jsonrpc.CodeInvalidRequest, `"v1"`},
		{"empty batch", []byte(`[]`), jsonrpc.CodeInvalidRequest, "null"},
		{"nesting deeper than 10,000", []byte(strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)), jsonrpc.CodeParseError, "null"},
		{"nesting deeper than the SDK reads", []byte(`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`), jsonrpc.CodeInvalidRequest, `"deep"`},
		{"raw NUL in a string", []byte(`{"jsonrpc":"2.0","id":"nul","method":"ping","params":{"a":"x` + "\x00" + `y"}}`), jsonrpc.CodeParseError, "null"},
		{"line over 16 MB", []byte(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}`), jsonrpc.CodeInvalidRequest, "null"},
		{"truncated JSON", []byte(`{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"recall","argu`), jsonrpc.CodeParseError, "null"},
		{"id past int64", []byte(`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`), jsonrpc.CodeInvalidRequest, "123456789012345678901234567890"},
		{"id past 2^53", []byte(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`), jsonrpc.CodeInvalidRequest, "9007199254740993"},
		{"fractional id", []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`), jsonrpc.CodeInvalidRequest, "1.5"},
		{"invalid UTF-8 to remember", []byte(`{"jsonrpc":"2.0","id":"utf8",` + remember("bad \xff byte")), jsonrpc.CodeInvalidRequest, `"utf8"`},
		{"half a surrogate pair to remember", []byte(`{"jsonrpc":"2.0","id":"surrogate",` + remember(`bad \ud800 escape`)), jsonrpc.CodeInvalidRequest, `"surrogate"`},
		{"a number, not a message", []byte(`42`), jsonrpc.CodeInvalidRequest, "null"},
		{"a batch of junk", []byte(`[1]`), jsonrpc.CodeInvalidRequest, "null"},
	}
}

const (
	stdioInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"malformed","version":"0"}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	stdioStatsBefore = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stats","arguments":{}}}` + "\n"
	stdioStatsAfter  = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stats","arguments":{}}}` + "\n"
)

// wireAnswer is one line the server wrote, read loosely enough to check any of them.
type wireAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// readAnswers splits stdout into answers; a batch answer contributes each of its members.
func readAnswers(t *testing.T, out []byte) []wireAnswer {
	t.Helper()
	var all []wireAnswer
	for line := range bytes.Lines(out) {
		if bytes.HasPrefix(line, []byte("[")) {
			var batch []wireAnswer
			if err := json.Unmarshal(line, &batch); err != nil {
				t.Fatalf("stdout line %.200q is not a JSON-RPC batch answer: %v", line, err)
			}
			all = append(all, batch...)
			continue
		}
		var a wireAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("stdout line %.200q is not a JSON-RPC message: %v", line, err)
		}
		if a.ID == nil {
			t.Errorf("stdout line %.200q has no id member; JSON-RPC answers carry one, null when unknown", line)
		}
		all = append(all, a)
	}
	return all
}

// TestMCPStdioMalformedLines writes each malformed line between two good calls to a real
// `memdesk mcp` process: both good calls are answered, the bad line gets its JSON-RPC error
// (or, for a BOM, its result), nothing else is written, nothing is stored, and the process
// exits 0 when stdin ends.
func TestMCPStdioMalformedLines(t *testing.T) {
	bin := memdeskBinary(t)
	for _, tc := range malformedLines() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newMemdeskRun(t, bin).withEnv("MEMDESK_OLLAMA_ENABLED=false")
			in := slices.Concat([]byte(stdioInitialize+stdioStatsBefore), tc.line, []byte("\n"+stdioStatsAfter))
			cmd := exec.Command(bin, "--db", r.db, "mcp")
			cmd.Env = r.env
			var stdout, stderr bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("memdesk mcp: %v, want exit 0\nstderr: %s", err, stderr.String())
			}
			answers := readAnswers(t, stdout.Bytes())
			byID := map[string][]wireAnswer{}
			for _, a := range answers {
				byID[string(a.ID)] = append(byID[string(a.ID)], a)
			}
			wantIDs := []string{"1", "2", "3", tc.id}
			slices.Sort(wantIDs)
			var gotIDs []string
			for _, a := range answers {
				gotIDs = append(gotIDs, string(a.ID))
			}
			slices.Sort(gotIDs)
			if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
				t.Fatalf("answer ids (-want +got):\n%s\nstdout: %.2000s", diff, stdout.String())
			}
			for _, id := range []string{"1", "2", "3"} {
				if a := byID[id][0]; a.Error != nil || a.Result == nil {
					t.Errorf("good call %s: error %v, want a result", id, a.Error)
				}
			}
			bad := byID[tc.id][0]
			switch {
			case tc.code == 0 && (bad.Error != nil || bad.Result == nil):
				t.Errorf("line answered with error %v, want a result", bad.Error)
			case tc.code != 0 && (bad.Error == nil || bad.Error.Code != tc.code):
				t.Errorf("line answered with %+v (result %.100s), want error code %d", bad.Error, bad.Result, tc.code)
			case tc.code != 0 && len(bad.Error.Message) > 300:
				t.Errorf("error message is %d bytes, want a short sentence: %.300q", len(bad.Error.Message), bad.Error.Message)
			}
			var stats mcp.CallToolResult
			if err := json.Unmarshal(byID["3"][0].Result, &stats); err != nil {
				t.Fatal(err)
			}
			var s engine.Stats
			if err := json.Unmarshal([]byte(resultText(&stats)), &s); err != nil {
				t.Fatalf("stats after the line: %v", err)
			}
			if s.FactsActive != 0 {
				t.Errorf("facts_active = %d after the line, want 0: a refused message stored something", s.FactsActive)
			}
		})
	}
}

// notifyWriter collects a process's stdout and says when the first line is complete.
type notifyWriter struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	firstLine chan struct{}
	once      sync.Once
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte("\n")) {
		w.once.Do(func() { close(w.firstLine) })
	}
	return len(p), nil
}

// TestMCPStdioExitsPromptly stops a real `memdesk mcp` right after the handshake, while the
// engine's entity extractor is still loading, by closing stdin and by SIGTERM: it must exit
// 0 well before an MCP client gives up on it (the official client kills it after 4 s). The
// deadline is generous; it checks that nothing waits on work that cannot be cancelled, which
// took 4.5-7.7 s on a busy machine.
func TestMCPStdioExitsPromptly(t *testing.T) {
	const exitDeadline = 3 * time.Second
	bin := memdeskBinary(t)
	for _, stop := range []string{"stdin closed", "SIGTERM"} {
		t.Run(stop, func(t *testing.T) {
			r := newMemdeskRun(t, bin).withEnv("MEMDESK_OLLAMA_ENABLED=false")
			cmd := exec.Command(bin, "--db", r.db, "mcp")
			cmd.Env = r.env
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout := &notifyWriter{firstLine: make(chan struct{})}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				stdin.Close()
				cmd.Process.Kill()
				<-exited
			})
			if _, err := stdin.Write([]byte(stdioInitialize)); err != nil {
				t.Fatal(err)
			}
			select {
			case <-stdout.firstLine:
			case <-time.After(30 * time.Second):
				t.Fatalf("no answer to initialize; stderr: %s", stderr.String())
			}
			start := time.Now()
			if stop == "SIGTERM" {
				err = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				err = stdin.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				if err != nil {
					t.Errorf("memdesk mcp after %s: %v, want exit 0\nstderr: %s", stop, err, stderr.String())
				}
				t.Logf("exited %s after %s", time.Since(start).Round(time.Millisecond), stop)
			case <-time.After(exitDeadline):
				t.Errorf("memdesk mcp still running %s after %s", exitDeadline, stop)
			}
		})
	}
}

// Fuzz probes: calls with ids the seeds never use, so junk cannot answer or clash with them.
const (
	fuzzProbeBefore = `{"jsonrpc":"2.0","id":"memdesk-fuzz-probe-before","method":"ping"}` + "\n"
	fuzzProbeAfter  = `{"jsonrpc":"2.0","id":"memdesk-fuzz-probe-after","method":"ping"}` + "\n"
	fuzzInitialize  = `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	// fuzzMaxLine is small so that the fuzzer reaches the over-long path with small inputs.
	fuzzMaxLine = 512
)

// FuzzMCPFraming serves junk between two good calls: the session must end cleanly when the
// input does, every line written must be JSON, and both good calls must be answered.
func FuzzMCPFraming(f *testing.F) {
	for _, tc := range malformedLines() {
		if len(tc.line) <= 4<<10 {
			f.Add(tc.line)
		}
	}
	for _, seed := range []string{
		stdioStatsBefore,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},3]`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"remember","arguments":{"text":"the tide is at six"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"recall","arguments":{"query":"tide \ud83c\udf0a"}}}`,
		`{"jsonrpc":"2.0","id":10,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"s","method":5}`,
		"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}\r\n\n  \n",
		strings.Repeat("x", fuzzMaxLine+1),
		"\"\\\\u\"",
	} {
		f.Add([]byte(seed))
	}
	e, err := engine.Open(f.Context(), filepath.Join(f.TempDir(), "m.db"), engine.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	log := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, junk []byte) {
		in := slices.Concat([]byte(fuzzInitialize+fuzzProbeBefore), junk, []byte("\n"+fuzzProbeAfter))
		var out lockedBuffer
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		session, err := newMCPServer(e, log).Connect(ctx, lineTransport{in: bytes.NewReader(in), out: &out, maxLine: fuzzMaxLine}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() { ended <- session.Wait() }()
		select {
		case err := <-ended:
			if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
				t.Fatalf("session ended with %v", err)
			}
		case <-ctx.Done():
			session.Close()
			t.Fatalf("the session did not end after its input did")
		}
		answered := map[string]bool{}
		for line := range bytes.Lines(out.Bytes()) {
			if !json.Valid(line) {
				t.Fatalf("wrote a line that is not JSON: %.200q", line)
			}
			var a wireAnswer
			if json.Unmarshal(line, &a) == nil && a.Error == nil && a.Result != nil {
				answered[string(a.ID)] = true
			}
		}
		for _, id := range []string{`"memdesk-fuzz-probe-before"`, `"memdesk-fuzz-probe-after"`} {
			if !answered[id] {
				t.Fatalf("good call %s got no result among the junk %q\nstdout: %.2000s", id, junk, out.Bytes())
			}
		}
	})
}

// lockedBuffer is a bytes.Buffer a test may read while the server writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.buf.Bytes())
}

// TestMCPQueryTooLong: a query over maxQueryBytes is refused with a short tool error that
// names the bound and does not carry the query back; one at the bound is searched.
func TestMCPQueryTooLong(t *testing.T) {
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	cs := connectMCP(t, e, legacyProtocol)
	huge := strings.Repeat("lighthouse ", (5<<20)/len("lighthouse "))
	for _, tool := range []string{"recall", "kb_search"} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"query": huge}})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		text := resultText(res)
		if !res.IsError || !strings.Contains(text, fmt.Sprintf("at most %d KB", maxQueryBytes>>10)) {
			t.Errorf("%s of a 5 MB query = error %v %.200q, want a tool error naming the %d KB bound", tool, res.IsError, text, maxQueryBytes>>10)
		}
		if len(text) > 1<<10 || res.StructuredContent != nil {
			t.Errorf("%s of a 5 MB query: answer text %d bytes, structured %v; want a short error without the query", tool, len(text), res.StructuredContent != nil)
		}
	}
	atBound := strings.Repeat("lighthouse ", maxQueryBytes/len("lighthouse "))
	callTool[engine.RecallResult](t, cs, "recall", map[string]any{"query": atBound})
}

// TestMCPErrorsDoNotEchoHugeInputs sends 500 KB where a short value belongs (a tool name, a
// method, an enum, a number, a space): each is refused, and no answer carries it back whole.
func TestMCPErrorsDoNotEchoHugeInputs(t *testing.T) {
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	big := strings.Repeat("x", 500<<10)
	var in bytes.Buffer
	in.WriteString(stdioInitialize)
	calls := map[string]any{
		"unknown tool":   map[string]any{"name": big, "arguments": map[string]any{}},
		"source enum":    map[string]any{"name": "recall", "arguments": map[string]any{"query": "tide", "source": big}},
		"k type":         map[string]any{"name": "recall", "arguments": map[string]any{"query": "tide", "k": big}},
		"recall space":   map[string]any{"name": "recall", "arguments": map[string]any{"query": "tide", "space": big}},
		"remember space": map[string]any{"name": "remember", "arguments": map[string]any{"text": "the tide is at six", "space": big}},
	}
	for name, params := range calls {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": name, "method": "tools/call", "params": params})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(b, '\n'))
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"unknown method","method":"` + big + `"}` + "\n")
	var out bytes.Buffer
	if err := serveMCP(t.Context(), newMCPServer(e, testLogger(t)), &in, &out); err != nil {
		t.Fatal(err)
	}
	answered := 0
	for line := range bytes.Lines(out.Bytes()) {
		var a wireAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatal(err)
		}
		if string(a.ID) == "1" {
			continue
		}
		answered++
		if len(line) > 4<<10 {
			t.Errorf("answer to %s is %d bytes, want the refusal without the 500 KB input: %.300s", a.ID, len(line), line)
		}
		var res mcp.CallToolResult
		if a.Error == nil && (json.Unmarshal(a.Result, &res) != nil || !res.IsError) {
			t.Errorf("answer to %s = %.300s, want an error", a.ID, line)
		}
	}
	if want := len(calls) + 1; answered != want {
		t.Errorf("%d answers, want %d", answered, want)
	}
}

// TestReadLinesBound checks the line bound at its edges, with lines longer than the read
// buffer: a line of maxLine bytes is kept, one byte more is dropped whole, and the lines
// around it are not touched.
func TestReadLinesBound(t *testing.T) {
	const maxLine = 40
	fits, over := strings.Repeat("a", maxLine), strings.Repeat("b", maxLine+1)
	tests := []struct {
		name string
		in   string
		want []string // each line, "TOO LONG" for a dropped one
	}{
		{"fits", fits + "\n", []string{fits}},
		{"over", over + "\n", []string{"TOO LONG"}},
		{"fits with CRLF", fits[1:] + "\r\n", []string{fits[1:] + "\r"}},
		{"over between two", "x\n" + over + "\ny\n", []string{"x", "TOO LONG", "y"}},
		{"last line without newline", "x\n" + fits, []string{"x", fits}},
		{"last line over without newline", "x\n" + over, []string{"x", "TOO LONG"}},
		{"blank lines", "\n\nx\n", []string{"", "", "x"}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := make(chan inboundLine)
			go readLines(bufio.NewReaderSize(strings.NewReader(tc.in), 16), maxLine, lines, make(chan struct{}))
			var got []string
			for l := range lines {
				if l.err != nil {
					if !errors.Is(l.err, io.EOF) {
						t.Errorf("input ended with %v, want EOF", l.err)
					}
					break
				}
				if l.tooLong {
					got = append(got, "TOO LONG")
				} else {
					got = append(got, string(l.data))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMCPOutputEscapesControls: a fact holding C1 controls and a bidi override, remembered
// and recalled over a real `memdesk mcp` session, comes back with them escaped on the wire
// (\u009b, \u202e), so a client that prints the stream to a terminal prints no CSI, while
// the decoded text is exactly what was stored.
func TestMCPOutputEscapesControls(t *testing.T) {
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin).withEnv("MEMDESK_OLLAMA_ENABLED=false")
	const text = "deploy key \u009b2J rotated on host\u202egnp.exe"
	// Stored first, through the CLI: the server answers pipelined calls concurrently.
	var added struct {
		Status string `json:"status"`
	}
	r.mustJSON(t, &added, "remember", "--", text)
	in := stdioInitialize +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"query":"deploy key rotated"}}}` + "\n"
	cmd := exec.Command(bin, "--db", r.db, "mcp")
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("memdesk mcp: %v\nstderr: %s", err, stderr.String())
	}
	if bytes.ContainsAny(stdout.Bytes(), "\u009b\u202e") {
		t.Errorf("stdout holds a raw C1 control or bidi override:\n%q", stdout.String())
	}
	var recalled bool
	for _, a := range readAnswers(t, stdout.Bytes()) {
		if string(a.ID) != "3" {
			continue
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(a.Result, &res); err != nil {
			t.Fatal(err)
		}
		var got engine.RecallResult
		if err := json.Unmarshal([]byte(resultText(&res)), &got); err != nil {
			t.Fatalf("recall answer: %v", err)
		}
		recalled = len(got.Hits) > 0 && got.Hits[0].Text == text
	}
	if !recalled {
		t.Errorf("recall did not return the stored text exactly\nstdout: %.2000s", stdout.String())
	}
}
