package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
)

// Protocol versions the tests speak: the initialize handshake today's desktop clients use,
// and the SDK client's default (stateless, server/discover).
const (
	legacyProtocol = "2025-11-25"
	latestProtocol = ""
)

func openMCPTestEngine(t *testing.T, path string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(t.Context(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// connectMCP serves e over an in-process transport and returns an initialized client.
func connectMCP(t *testing.T, e *engine.Engine, protocol string) *mcp.ClientSession {
	t.Helper()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(e, testLogger(t)).Connect(t.Context(), serverSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "memdesk-test", Version: "v0"}, nil)
	cs, err := client.Connect(t.Context(), clientSide, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// callTool calls a tool that must succeed and decodes its structured result.
func callTool[Out any](t *testing.T, cs *mcp.ClientSession, name string, args any) Out {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error %q", name, args, resultText(res))
	}
	var out Out
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, raw, err)
	}
	// The text content is the same JSON, for clients that do not read structured content.
	var fromText Out
	if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil {
		t.Fatalf("%s: text content is not the result as JSON: %v", name, err)
	}
	if diff := cmp.Diff(out, fromText); diff != "" {
		t.Errorf("%s: text content differs from structured content (-structured +text):\n%s", name, diff)
	}
	return out
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestMCPListTools(t *testing.T) {
	for _, protocol := range []string{legacyProtocol, latestProtocol} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
			cs := connectMCP(t, e, protocol)

			init := cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "memdesk" {
				t.Errorf("server info = %+v, want name memdesk", init.ServerInfo)
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil {
				t.Fatalf("capabilities = %+v, want tools", init.Capabilities)
			}
			if init.Capabilities.Tools.ListChanged {
				t.Errorf("tools advertise listChanged; the set is fixed, and a client would hold a listen stream open for nothing")
			}
			if !strings.Contains(init.Instructions, "recall") {
				t.Errorf("instructions = %q, want guidance on when to recall", init.Instructions)
			}

			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			// Required arguments per tool: what an agent must always send.
			wantRequired := map[string][]string{
				"forget":        {"id"},
				"kb_search":     {"query"},
				"list_memories": nil,
				"recall":        {"query"},
				"remember":      {"text"},
				"stats":         nil,
			}
			got := map[string][]string{}
			for _, tool := range res.Tools {
				schema, ok := tool.InputSchema.(map[string]any)
				if !ok || schema["type"] != "object" {
					t.Errorf("%s: input schema %v is not an object schema", tool.Name, tool.InputSchema)
					continue
				}
				if len(tool.Description) < 40 {
					t.Errorf("%s: description %q is too thin for an agent to act on", tool.Name, tool.Description)
				}
				if tool.OutputSchema == nil {
					t.Errorf("%s: no output schema", tool.Name)
				}
				props, _ := schema["properties"].(map[string]any)
				for name, p := range props {
					if d, _ := p.(map[string]any)["description"].(string); d == "" {
						t.Errorf("%s.%s: argument has no description", tool.Name, name)
					}
				}
				var required []string
				reqs, _ := schema["required"].([]any)
				for _, r := range reqs {
					required = append(required, r.(string))
				}
				got[tool.Name] = required
			}
			if diff := cmp.Diff(wantRequired, got); diff != "" {
				t.Errorf("tools and their required arguments (-want +got):\n%s", diff)
			}
			callTool[engine.Stats](t, cs, "stats", nil) // and the tools answer
		})
	}
}

func TestMCPTools(t *testing.T) {
	dir := t.TempDir()
	e := openMCPTestEngine(t, filepath.Join(dir, "m.db"))
	doc := filepath.Join(dir, "deploy.md")
	if err := os.WriteFile(doc, []byte("# Deploy\n\nThe staging cluster runs on Kubernetes 1.31.\n\n## 回滚\n\n回滚时先暂停流水线，再恢复上一个镜像。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBAdd(t.Context(), engine.KBAddRequest{Paths: []string{doc}}); err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, e, legacyProtocol)

	var pythonID int64
	t.Run("remember", func(t *testing.T) {
		added := callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "CI uses Python 3.12"})
		if added.Status != engine.StatusAdded || added.FactID <= 0 {
			t.Fatalf("remember = %+v, want a new fact added", added)
		}
		pythonID = added.FactID
		again := callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "CI  uses Python 3.12 "})
		if want := (engine.RememberResult{FactID: pythonID, Status: engine.StatusDuplicate}); !cmp.Equal(again, want) {
			t.Errorf("remember the same text again = %+v, want %+v", again, want)
		}
		callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "老王喜欢简约风格"})
		callTool[engine.RememberResult](t, cs, "remember", map[string]any{"text": "The design review is on Fridays", "space": "work"})
	})

	t.Run("recall", func(t *testing.T) {
		for _, req := range []engine.RecallRequest{
			{Query: "python version"},
			{Query: "老王喜欢什么风格", K: 1},
			{Query: "kubernetes", Source: engine.SourceKnowledge},
			{Query: "design review", Space: "work", Source: engine.SourceMemory},
		} {
			args := map[string]any{"query": req.Query}
			if req.K > 0 {
				args["k"] = req.K
			}
			if req.Space != "" {
				args["space"] = req.Space
			}
			if req.Source != "" {
				args["source"] = req.Source
			}
			got := callTool[engine.RecallResult](t, cs, "recall", args)
			// The MCP answer is exactly what `memdesk --json recall` prints: the engine's result.
			want, err := e.Recall(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("recall %+v: MCP result differs from the engine's (-engine +mcp):\n%s", req, diff)
			}
			if len(got.Hits) == 0 || got.Hits[0].Why == "" {
				t.Errorf("recall %+v: hits %+v, want a first hit with a why", req, got.Hits)
			}
		}
	})

	// The filters reach the engine as the CLI's do: the tool's answer is the engine's.
	t.Run("recall filters", func(t *testing.T) {
		dir := filepath.Dir(doc)
		for _, tc := range []struct {
			args map[string]any
			req  engine.RecallRequest
		}{
			{map[string]any{"query": "python kubernetes", "sort": "newest"}, engine.RecallRequest{Query: "python kubernetes", Sort: engine.SortNewest}},
			{map[string]any{"query": "kubernetes", "folder": dir}, engine.RecallRequest{Query: "kubernetes", Folder: dir}},
			{map[string]any{"query": "python", "until": "2000-01-01"}, engine.RecallRequest{Query: "python", Until: time.Date(2000, 1, 2, 0, 0, 0, 0, time.Local)}},
		} {
			got := callTool[engine.RecallResult](t, cs, "recall", tc.args)
			want, err := e.Recall(t.Context(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("recall %v: MCP result differs from the engine's (-engine +mcp):\n%s", tc.args, diff)
			}
		}
		if got := callTool[engine.RecallResult](t, cs, "recall", map[string]any{"query": "python", "until": "2000-01-01"}); len(got.Hits) != 0 || got.Filtered == 0 {
			t.Errorf("recall until 2000: %d hits, filtered %d; want none shown and the answer counted as filtered", len(got.Hits), got.Filtered)
		}
	})

	t.Run("kb_search", func(t *testing.T) {
		got := callTool[engine.RecallResult](t, cs, "kb_search", map[string]any{"query": "回滚 流水线"})
		if len(got.Hits) == 0 {
			t.Fatalf("kb_search found nothing")
		}
		for _, h := range got.Hits {
			if h.Source != engine.SourceKnowledge || h.Doc == nil || h.Doc.Path != doc {
				t.Errorf("kb_search hit %+v, want knowledge from %s", h, doc)
			}
		}
		// Memories stay out even when they match.
		if got := callTool[engine.RecallResult](t, cs, "kb_search", map[string]any{"query": "python"}); len(got.Hits) != 0 {
			t.Errorf("kb_search python = %+v, want no hits (memories are not knowledge)", got.Hits)
		}
	})

	t.Run("list_memories", func(t *testing.T) {
		all := callTool[engine.ListResult](t, cs, "list_memories", map[string]any{})
		if len(all.Facts) != 3 {
			t.Errorf("list_memories = %d facts, want 3 across spaces", len(all.Facts))
		}
		work := callTool[engine.ListResult](t, cs, "list_memories", map[string]any{"space": "work"})
		if len(work.Facts) != 1 || work.Facts[0].Text != "The design review is on Fridays" {
			t.Errorf("list_memories space=work = %+v", work.Facts)
		}
		page := callTool[engine.ListResult](t, cs, "list_memories", map[string]any{"limit": 1, "offset": 1})
		if len(page.Facts) != 1 || page.Facts[0].ID != all.Facts[1].ID {
			t.Errorf("list_memories limit=1 offset=1 = %+v, want the second newest %+v", page.Facts, all.Facts[1])
		}
		filtered := callTool[engine.ListResult](t, cs, "list_memories", map[string]any{"filter": "Python"})
		if len(filtered.Facts) != 1 || filtered.Facts[0].ID != pythonID {
			t.Errorf("list_memories filter=Python = %+v", filtered.Facts)
		}
	})

	t.Run("forget", func(t *testing.T) {
		got := callTool[engine.RememberResult](t, cs, "forget", map[string]any{"id": pythonID})
		if want := (engine.RememberResult{FactID: pythonID, Status: engine.StatusForgotten}); !cmp.Equal(got, want) {
			t.Errorf("forget = %+v, want %+v", got, want)
		}
		again := callTool[engine.RememberResult](t, cs, "forget", map[string]any{"id": pythonID})
		if again.Status != engine.StatusUnchanged {
			t.Errorf("forget twice = %+v, want unchanged", again)
		}
		if r := callTool[engine.RecallResult](t, cs, "recall", map[string]any{"query": "python version"}); len(r.Hits) != 0 {
			t.Errorf("recall after forget = %+v, want nothing", r.Hits)
		}
		all := callTool[engine.ListResult](t, cs, "list_memories", map[string]any{"all": true, "filter": "Python"})
		if len(all.Facts) != 1 || all.Facts[0].Status != "deleted" {
			t.Errorf("list_memories all=true = %+v, want the forgotten fact kept", all.Facts)
		}
	})

	t.Run("stats", func(t *testing.T) {
		got := callTool[engine.Stats](t, cs, "stats", nil)
		want, err := e.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stats (-engine +mcp):\n%s", diff)
		}
		if got.FactsActive != 2 || got.FactsDeleted != 1 || got.Documents != 1 {
			t.Errorf("stats = %+v, want 2 active, 1 forgotten, 1 document", got)
		}
	})
}

func TestMCPBadArguments(t *testing.T) {
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	cs := connectMCP(t, e, legacyProtocol)

	tests := []struct {
		name string
		tool string
		args map[string]any
		want string // in the tool error's text
	}{
		{"remember without text", "remember", map[string]any{}, "text"},
		{"remember blank text", "remember", map[string]any{"text": " \n "}, "the text is empty"},
		{"remember text of the wrong type", "remember", map[string]any{"text": 42}, "text"},
		{"remember a bad space", "remember", map[string]any{"text": "x", "space": strings.Repeat("s", 65)}, "space name"},
		{"remember an unknown argument", "remember", map[string]any{"text": "x", "importance": 3}, "importance"},
		{"remember superseding a missing memory", "remember", map[string]any{"text": "x is y", "supersedes": 999}, "999"},
		{"recall without query", "recall", map[string]any{}, "query"},
		{"recall empty query", "recall", map[string]any{"query": "   "}, "the query is empty"},
		{"recall unknown source", "recall", map[string]any{"query": "x", "source": "web"}, "source"},
		{"recall k of zero", "recall", map[string]any{"query": "x", "k": 0}, "k"},
		{"kb_search empty query", "kb_search", map[string]any{"query": ""}, "the query is empty"},
		{"forget unknown id", "forget", map[string]any{"id": 999}, "no memory has id 999"},
		{"forget id zero", "forget", map[string]any{"id": 0}, "id"},
		{"forget id as text", "forget", map[string]any{"id": "seven"}, "id"},
		{"list_memories limit too large", "list_memories", map[string]any{"limit": 100000}, "limit"},
		{"recall since not a date", "recall", map[string]any{"query": "python", "since": "last tuesday"}, "an age (12h, 7d, 2w)"},
		{"recall unknown sort", "recall", map[string]any{"query": "python", "sort": "oldest"}, "sort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("got protocol error %v, want a tool error", err)
			}
			if !res.IsError {
				t.Fatalf("got success %q, want a tool error", resultText(res))
			}
			if msg := resultText(res); !strings.Contains(msg, tt.want) {
				t.Errorf("tool error %q, want it to mention %q", msg, tt.want)
			}
			// The server keeps serving.
			if s := callTool[engine.Stats](t, cs, "stats", nil); s.FactsActive != 0 {
				t.Errorf("after a refused call, %d facts are active, want 0", s.FactsActive)
			}
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_everything"})
		if err == nil {
			t.Fatal("calling an unknown tool succeeded")
		}
		callTool[engine.Stats](t, cs, "stats", nil)
	})
}

// TestMCPToolPanic checks that a panicking tool becomes a tool error and the server lives on.
func TestMCPToolPanic(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "memdesk", Version: "v0"}, nil)
	var logged bytes.Buffer // written only by the handler, read after the calls returned
	var calls atomic.Int32
	addTool(s, slog.New(slog.NewTextHandler(&logged, nil)), &mcp.Tool{Name: "fragile", Description: "panics on its first call"},
		func(context.Context, statsArgs) (engine.RememberResult, error) {
			if calls.Add(1) == 1 {
				var m map[string]int
				m["boom"]++ // a nil-map write: the kind of bug a recover must contain
			}
			return engine.RememberResult{FactID: 1, Status: engine.StatusAdded}, nil
		})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), serverSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "memdesk-test", Version: "v0"}, nil).Connect(t.Context(), clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fragile"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "fragile failed inside memdesk") {
		t.Errorf("panicking call = %q (isError %v), want a tool error", resultText(res), res.IsError)
	}
	if got := callTool[engine.RememberResult](t, cs, "fragile", nil); got.Status != engine.StatusAdded {
		t.Errorf("second call = %+v, want it served", got)
	}
	if !strings.Contains(logged.String(), "MCP tool panicked") || !strings.Contains(logged.String(), "stack=") {
		t.Errorf("log = %q, want the panic and its stack for the person running the server", logged.String())
	}
}

// TestMCPConcurrentWriter runs MCP calls while another engine (another process, as far as
// SQLite can tell) writes to the same file: no call may fail with a busy database.
func TestMCPConcurrentWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	e := openMCPTestEngine(t, path)
	other := openMCPTestEngine(t, path)
	cs := connectMCP(t, e, legacyProtocol)

	const (
		writerFacts = 100
		agents      = 4
		perAgent    = 15
	)
	var wg sync.WaitGroup
	errs := make(chan error, writerFacts+agents*perAgent*2)
	wg.Go(func() {
		for i := range writerFacts {
			if _, err := other.Remember(t.Context(), engine.RememberRequest{Text: fmt.Sprintf("deploy note %d: the release train leaves at %d:00", i, i%24)}); err != nil {
				errs <- fmt.Errorf("other writer: %w", err)
			}
		}
	})
	for a := range agents {
		wg.Go(func() {
			for i := range perAgent {
				calls := []mcp.CallToolParams{
					{Name: "remember", Arguments: map[string]any{"text": fmt.Sprintf("agent %d learned fact %d about the release train", a, i)}},
					{Name: "recall", Arguments: map[string]any{"query": "release train"}},
				}
				for _, p := range calls {
					res, err := cs.CallTool(t.Context(), &p)
					switch {
					case err != nil:
						errs <- fmt.Errorf("%s: %w", p.Name, err)
					case res.IsError:
						errs <- fmt.Errorf("%s: tool error %s", p.Name, resultText(res))
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := callTool[engine.Stats](t, cs, "stats", nil)
	if want := writerFacts + agents*perAgent; s.FactsActive != want {
		t.Errorf("facts_active = %d, want %d", s.FactsActive, want)
	}
}

// stdioRequests is what a client writes: the handshake, then calls. Ids 1-5 expect answers.
const stdioRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"python version"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"The staging cluster runs Kubernetes 1.31"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"query":""}}}
{"jsonrpc":"2.0","id":5,"method":"tools/list"}
`

type rpcResponse struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// checkStdioAnswers checks that out holds one answer to each of stdioRequests' calls.
func checkStdioAnswers(t *testing.T, out string) {
	t.Helper()
	byID := map[int]rpcResponse{}
	for line := range strings.Lines(out) {
		var r rpcResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("stdout line %q is not a JSON-RPC message: %v", line, err)
		}
		if _, dup := byID[r.ID]; dup {
			t.Errorf("two answers to request %d", r.ID)
		}
		byID[r.ID] = r
	}
	ids := slices.Sorted(maps.Keys(byID))
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, ids); diff != "" {
		t.Fatalf("answered request ids (-want +got):\n%s\nstdout:\n%s", diff, out)
	}
	for id, r := range byID {
		if r.Error != nil {
			t.Errorf("request %d: protocol error %q", id, r.Error.Message)
		}
	}
	var recall mcp.CallToolResult
	if err := json.Unmarshal(byID[2].Result, &recall); err != nil {
		t.Fatal(err)
	}
	var hits engine.RecallResult
	if err := json.Unmarshal([]byte(resultText(&recall)), &hits); err != nil {
		t.Fatal(err)
	}
	if recall.IsError || len(hits.Hits) != 1 || hits.Hits[0].Text != "CI uses Python 3.12" {
		t.Errorf("recall over stdio = %s, want the seeded fact", byID[2].Result)
	}
	var empty mcp.CallToolResult
	if err := json.Unmarshal(byID[4].Result, &empty); err != nil {
		t.Fatal(err)
	}
	if !empty.IsError {
		t.Errorf("recall of an empty query = %s, want a tool error", byID[4].Result)
	}
}

// TestMCPStdioAnswersBeforeEOF writes every request at once and ends the input right after:
// each must still be answered before serveMCP returns.
func TestMCPStdioAnswersBeforeEOF(t *testing.T) {
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	if _, err := e.Remember(t.Context(), engine.RememberRequest{Text: "CI uses Python 3.12"}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 { // the race between EOF and the answers goes either way; try it often
		var out bytes.Buffer
		if err := serveMCP(t.Context(), newMCPServer(e, testLogger(t)), strings.NewReader(stdioRequests), &out); err != nil {
			t.Fatalf("run %d: serveMCP: %v", i, err)
		}
		checkStdioAnswers(t, out.String())
		if t.Failed() {
			t.Fatalf("run %d failed", i)
		}
	}
}

// TestMCPStdioCancel stops a server whose input never ends, as Ctrl-C or SIGTERM does.
func TestMCPStdioCancel(t *testing.T) {
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveMCP(ctx, newMCPServer(e, testLogger(t)), inR, outW) }()

	lines := bufio.NewScanner(outR)
	if _, err := io.WriteString(inW, strings.SplitAfter(stdioRequests, "\n")[0]); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":1`) {
		t.Fatalf("no answer to initialize: %q %v", lines.Text(), lines.Err())
	}
	go io.Copy(io.Discard, outR) // nothing more is expected; keep the writer unblocked
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveMCP after cancel: %v, want nil (a normal stop)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serveMCP did not return after its context was cancelled")
	}
}

// TestMCPCommand runs `memdesk --db PATH mcp` as main does: the engine's background work
// starts, every request is answered, and the command exits 0 once stdin ends.
func TestMCPCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the entity extractor (seconds)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	seed := openMCPTestEngine(t, db)
	if _, err := seed.Remember(t.Context(), engine.RememberRequest{Text: "CI uses Python 3.12"}); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) (string, bool) {
		if name == "MEMDESK_CONFIG" {
			return filepath.Join(dir, "config.toml"), true
		}
		return "", false
	}
	var out, stderr bytes.Buffer
	code := run(t.Context(), []string{"--db", db, "mcp"}, streams{in: strings.NewReader(stdioRequests), out: &out, err: &stderr}, lookup)
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", code, stderr.String())
	}
	checkStdioAnswers(t, out.String())
	if stderr.Len() > 0 {
		t.Errorf("stderr = %q, want quiet without -v", stderr.String())
	}
}

// TestMCPStdioListenDoesNotHoldEOF: a subscriptions/listen call is a stream that ends when
// the client cancels it; the end of the input must still end the session.
func TestMCPStdioListenDoesNotHoldEOF(t *testing.T) {
	// A server that advertises list changes (memdesk's own does not), so the listen parks.
	s := mcp.NewServer(&mcp.Implementation{Name: "memdesk", Version: "v0"}, nil)
	addTool(s, testLogger(t), &mcp.Tool{Name: "noop", Description: "does nothing"},
		func(context.Context, statsArgs) (engine.RememberResult, error) { return engine.RememberResult{}, nil })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	served := make(chan error, 1)
	go func() { served <- serveMCP(t.Context(), s, inR, outW) }()

	listen := `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	if _, err := io.WriteString(inW, listen); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(outR)
	if !lines.Scan() || !strings.Contains(lines.Text(), "subscriptions/acknowledged") {
		t.Fatalf("got %q (%v), want the listen acknowledged: it is open and parked", lines.Text(), lines.Err())
	}
	go io.Copy(io.Discard, outR)
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveMCP: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an open subscriptions/listen kept the session alive after the input ended")
	}
}

// TestMCPAnswersAreBounded: list_memories and recall over memories of 60 KB each stay near
// maxAnswerBytes, say what they left out, and list_memories goes on from next_offset (issue
// 27: 63 MB and 30 MB answer lines, which the official client refuses).
func TestMCPAnswersAreBounded(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
	var texts []string
	for i := range 40 {
		texts = append(texts, fmt.Sprintf("ledger %d: %s", i, strings.Repeat(fmt.Sprintf("entry%d ", i), 7000)))
	}
	if _, err := e.RememberBatch(t.Context(), "", texts, nil); err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, e, "")

	seen := 0
	for offset := 0; ; {
		page := callTool[listAnswer](t, cs, "list_memories", map[string]any{"limit": 500, "offset": offset})
		bytes := 0
		for _, f := range page.Facts {
			bytes += len(f.Text)
		}
		if bytes > maxAnswerBytes {
			t.Fatalf("a list page holds %d bytes of text, want at most %d", bytes, maxAnswerBytes)
		}
		seen += len(page.Facts)
		if page.NextOffset == 0 {
			break
		}
		if page.NextOffset != offset+len(page.Facts) {
			t.Fatalf("next_offset %d after %d facts from %d", page.NextOffset, len(page.Facts), offset)
		}
		offset = page.NextOffset
	}
	if seen != 40 {
		t.Errorf("paging from next_offset listed %d memories, want all 40", seen)
	}

	res := callTool[engine.RecallResult](t, cs, "recall", map[string]any{"query": "ledger", "k": 1000})
	bytes := 0
	for _, h := range res.Hits {
		bytes += len(h.Text)
	}
	if len(res.Hits) == 0 || len(res.Hits) >= 40 || bytes > maxAnswerBytes {
		t.Errorf("recall with k 1000: %d hits, %d bytes of text; want some, cut short under %d bytes", len(res.Hits), bytes, maxAnswerBytes)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "left out") }) {
		t.Errorf("recall notes %q, want one saying hits were left out", res.Notes)
	}
}
