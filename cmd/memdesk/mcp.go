package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
)

// The MCP front-end: the same engine requests and results as the CLI and the GUI, served to
// AI agents as Model Context Protocol tools over stdio. Engine errors become tool errors in
// one place (toolError); schemas, validation and the protocol are the SDK's, the stdio
// framing (lines, bounds, answers to malformed input) is ours (mcpframing.go).

const (
	// listDefaultLimit and listMaxLimit bound list_memories: an agent reads every row it
	// gets into its context window, so a list is a page, not the whole store.
	listDefaultLimit = 50
	listMaxLimit     = 500

	// maxQueryBytes bounds a recall or kb_search query. A query is key words or a
	// question: the longest in the hostile corpus of real-looking ones is 674 bytes, and
	// 16 KB is still ~2,500 English words or ~5,400 Chinese characters, a long pasted
	// paragraph. The answer carries the query back twice (text and structured content), so
	// this bound is also the bound on that echo: a 5 MB query made a 10 MB answer line that
	// the official TypeScript client refused. Longer text is a document, for kb add.
	maxQueryBytes = 16 << 10

	// maxAnswerBytes bounds the texts one answer carries. The SDK sends an answer twice (as
	// text content and as structured content) on one line, and the official TypeScript
	// client refused a 10 MB line: list_memories of 500 long memories made 63 MB, recall
	// with a large k 30 MB. What does not fit is left out and said so.
	maxAnswerBytes = 1 << 20

	// mcpWriteEmbedWait bounds how long remember waits to embed the fact it wrote, so the
	// agent's next recall finds it by meaning; a slower model leaves it to the server's
	// background catch-up, which the write wakes.
	mcpWriteEmbedWait = time.Second
)

// fitting returns how many of n items, the i-th taking size(i) bytes of an answer, fit in
// maxAnswerBytes; always at least one, which fits on its own (a memory is at most 64 KB).
func fitting(n int, size func(i int) int) int {
	total := 0
	for i := range n {
		total += size(i)
		if total > maxAnswerBytes && i > 0 {
			return i
		}
	}
	return n
}

// answerOverhead is what an item's fields besides its texts take, roughly, in JSON.
const answerOverhead = 512

// capHits leaves out the hits past maxAnswerBytes, with a note saying how many.
func capHits(res engine.RecallResult) engine.RecallResult {
	n := fitting(len(res.Hits), func(i int) int {
		h := res.Hits[i]
		return len(h.Text) + len(h.Why) + len(h.WhyPlain) + answerOverhead
	})
	if n < len(res.Hits) {
		res.Notes = append(res.Notes, fmt.Sprintf("%d more hits were left out to keep this answer under %d MB: ask for fewer (k) or narrow the query",
			len(res.Hits)-n, maxAnswerBytes>>20))
		res.Hits = res.Hits[:n]
	}
	return res
}

// listAnswer is list_memories' answer: a page of memories, cut short where it would pass
// maxAnswerBytes.
type listAnswer struct {
	engine.ListResult
	// NextOffset, when set, is the offset of the first memory left out to keep the answer
	// small: list again from it.
	NextOffset int `json:"next_offset,omitempty"`
}

// mcpInstructions tells a connected agent what memdesk is for and when to call it.
const mcpInstructions = `memdesk is the user's local long-term memory (facts worth keeping, written by the user or by you) and knowledge base (documents the user imported). Chinese and English both work.
Call recall before answering questions about the user, their projects, preferences or earlier decisions. Call remember to keep a durable fact: one self-contained statement per call, e.g. "CI uses Python 3.12" or "老王喜欢简约风格".
Recall returns hits best first, each with a "why". No hits is a valid answer: nothing stored is relevant enough.`

// mcp serves the configured database to one MCP client over stdin and stdout until stdin
// closes or ctx is cancelled (Ctrl-C, SIGTERM). Logs go to stderr: stdout is the protocol.
func (c *cli) mcp(ctx context.Context, args []string) (err error) {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("mcp: takes no arguments, got %q (choose the database with memdesk --db PATH mcp)", joinArgs(pos))
	}
	// stderr is the client's to read or not: a client that closes it must not kill the server
	// with SIGPIPE (writes then fail, and lossyWriter ignores that), and one that never reads
	// it must not block the answers.
	signal.Ignore(syscall.SIGPIPE)
	stderr := newLossyWriter(c.err, 1024)
	orig := c.err
	c.err = stderr
	defer func() {
		stderr.Flush(time.Second)
		c.err = orig // the exit message is written by run, after this returns
	}()
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelDebug
	}
	c.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: clipLongValues}))
	e, closeEngine, err := c.openLongLived(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeEngine(); err == nil {
			err = cerr
		}
	}()

	c.log.Info("serving MCP on stdio", "db", e.Path())
	return serveMCP(ctx, newMCPServer(e, c.log), c.in, c.out)
}

// serveMCP runs one MCP session over newline-delimited JSON-RPC on in and out. It returns
// when in ends or ctx is cancelled; either way every request already read is answered
// first. Cancellation is the normal way to stop a server and returns nil.
func serveMCP(ctx context.Context, server *mcp.Server, in io.Reader, out io.Writer) error {
	stop := make(chan struct{})
	t := lineTransport{in: in, out: out, maxLine: maxMCPLineBytes, stop: stop}
	// The session does not end with ctx: a stop (SIGTERM, Ctrl-C) cancelled every call in
	// flight with it and closed the connection before their answers, so a remember was
	// committed and never acknowledged. A stop ends the input instead, which answers every
	// call already read before the session ends; the session's own context is cancelled only
	// if they outlast stopGrace.
	life, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	session, err := server.Connect(life, t, nil)
	if err != nil {
		return fmt.Errorf("start MCP session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- session.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			return fmt.Errorf("MCP session: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	close(stop)
	select {
	case <-ended:
	case <-time.After(stopGrace):
		kill()
		session.Close()
		<-ended
	}
	return nil
}

// stopGrace is how long a stopping server gives the calls in flight to answer.
const stopGrace = 10 * time.Second

// Tool inputs. Field descriptions (the jsonschema tags) are what an agent reads to fill
// them in; bounds and enums the tags cannot say are added in newMCPServer.

type rememberArgs struct {
	Text       string `json:"text" jsonschema:"The fact to remember: one self-contained statement in the user's language, e.g. CI uses Python 3.12 or 老王喜欢简约风格."`
	Space      string `json:"space,omitempty" jsonschema:"Space (namespace) to keep the fact in, e.g. a project name; omit for the default space."`
	Supersedes int64  `json:"supersedes,omitempty" jsonschema:"Id of an active memory in the same space that this fact replaces, e.g. one a previous remember reported under contradicts. The old memory is kept as history, marked superseded, and leaves recall."`
}

type recallArgs struct {
	Query  string        `json:"query" jsonschema:"What to look for: keywords or a question, in Chinese or English. Time words such as yesterday or 上周 limit memories to when they were written. At most 16 KB."`
	K      int           `json:"k,omitempty" jsonschema:"Most hits to return; omit for the configured default (10 unless the user changed it)."`
	Space  string        `json:"space,omitempty" jsonschema:"Space to search; omit for the default space. One recall searches one space."`
	Source engine.Source `json:"source,omitempty" jsonschema:"What to search: all (the default), memory (remembered facts only) or knowledge (imported documents only)."`
	Since  string        `json:"since,omitempty" jsonschema:"Only hits written (memories) or imported (documents) since then: a day like 2026-11-30 (local time), an RFC 3339 moment, an age like 12h, 7d or 2w, or words like yesterday, last week or 上周."`
	Until  string        `json:"until,omitempty" jsonschema:"Only hits written before then, same forms as since; a day counts whole."`
	Folder string        `json:"folder,omitempty" jsonschema:"Only knowledge hits from documents in this folder (an absolute path) or below it; leaves out memories."`
	Sort   engine.Sort   `json:"sort,omitempty" jsonschema:"Order of the hits: relevance (the default) or newest (the hits that answer the query, latest first)."`
}

type forgetArgs struct {
	ID int64 `json:"id" jsonschema:"The memory's id, as returned by remember, recall or list_memories."`
}

type listArgs struct {
	Space  string `json:"space,omitempty" jsonschema:"Only memories in this space; omit to list every space."`
	All    bool   `json:"all,omitempty" jsonschema:"Also list forgotten and superseded memories; their status says which."`
	Filter string `json:"filter,omitempty" jsonschema:"Only memories whose text contains this substring."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Most memories to return, newest first."`
	Offset int    `json:"offset,omitempty" jsonschema:"Skip this many memories first, to page through a long list."`
}

type kbSearchArgs struct {
	Query string `json:"query" jsonschema:"What to look for in the imported documents: keywords or a question, in Chinese or English. At most 16 KB."`
	K     int    `json:"k,omitempty" jsonschema:"Most hits to return; omit for the configured default (10 unless the user changed it)."`
	Space string `json:"space,omitempty" jsonschema:"Space to search; omit for the default space."`
}

type statsArgs struct{}

// newMCPServer builds the MCP server over e: six tools, each a thin mapping onto one engine
// call that returns the engine's own result struct, so agents see what `memdesk --json`
// prints. It starts nothing; serveMCP or a test connects it to a transport.
func newMCPServer(e *engine.Engine, log *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "memdesk", Title: "memdesk", Version: buildVersion()}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		Logger:       log,
		// Tools only, and a fixed set of them; memdesk logs to stderr, not to the client.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
	})
	closedWorld := new(false) // every tool works on the local database only
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: closedWorld}

	addTool(s, log, &mcp.Tool{
		Name: "remember",
		Description: "Keep one fact in the user's long-term memory. Write a single self-contained statement " +
			"(who or what, and the fact); documents belong in the knowledge base, not here. Text identical to an " +
			"active fact in the same space writes nothing and comes back as status \"duplicate\" with that fact's id. " +
			"Returns {fact_id, status: added|duplicate, similar_to?: [ids of active memories that seem to say the same], " +
			"contradicts?: [{fact_id, text, kind, reason}], superseded?: id}. Both facts stay active after a contradiction " +
			"is reported; when the new one is the current truth, call remember again with the same text and supersedes " +
			"set to the old id (nothing is written twice; the old one is kept as history).",
		InputSchema: inputSchema[rememberArgs](func(p map[string]*jsonschema.Schema) {
			p["supersedes"].Minimum = new(1.0)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Remember a fact", IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: closedWorld},
	}, func(ctx context.Context, a rememberArgs) (engine.RememberResult, error) {
		res, err := e.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: a.Text, Space: a.Space, Supersedes: a.Supersedes})
		if err == nil && res.Status == engine.StatusAdded {
			// The agent's next recall should find it by meaning: embed it now, within
			// mcpWriteEmbedWait; a slower model leaves it to the background catch-up.
			embedCtx, cancel := context.WithTimeout(ctx, mcpWriteEmbedWait)
			if _, eerr := e.EmbedWritten(embedCtx, engine.Written{Facts: []int64{res.FactID}}); eerr != nil && !errors.Is(eerr, engine.ErrSemanticOff) {
				log.Debug("a remembered fact was not embedded at once; the background catch-up embeds it", "err", eerr)
			}
			cancel()
		}
		return res, err
	})

	addTool(s, log, &mcp.Tool{
		Name: "recall",
		Description: "Search the user's memories and imported documents. Returns {query, hits, relaxed, semantic, floors, notes, did_you_mean}. " +
			"Hits come best first; each has source (memory|knowledge), id, text, space, created_at, score (comparable only " +
			"within one answer), legs (each retrieval leg's raw score), why (what matched, with its numbers), why_plain (the same in plain words), " +
			"conflicts on a memory that others contradict ({fact_id, newer, reason}; the one no other is newer than is the latest word), and for knowledge a doc " +
			"{path, title, heading, page (PDFs only; the lines are then of that page), line_start, line_end} to cite. Empty hits is a valid answer: nothing cleared the " +
			"relevance floors. relaxed=true means only looser matches were found. notes explain time filtering; filtered counts the answers since, until and folder left out. did_you_mean, " +
			"when hits is empty, is the query respelled as the user's own texts spell it, checked to find something: ask again with it.",
		InputSchema: inputSchema[recallArgs](func(p map[string]*jsonschema.Schema) {
			p["k"].Minimum = new(1.0)
			p["source"].Enum = []any{string(engine.SourceAll), string(engine.SourceMemory), string(engine.SourceKnowledge)}
			p["sort"].Enum = []any{string(engine.SortRelevance), string(engine.SortNewest)}
		}),
		Annotations: withTitle(readOnly, "Recall memories and knowledge"),
	}, func(ctx context.Context, a recallArgs) (engine.RecallResult, error) {
		if err := checkQuerySize(a.Query); err != nil {
			return engine.RecallResult{}, err
		}
		req := engine.RecallRequest{Query: a.Query, K: a.K, Space: a.Space, Source: a.Source}
		if err := (recallFilters{since: a.Since, until: a.Until, folder: a.Folder, sort: string(a.Sort)}).narrow(&req, time.Now()); err != nil {
			return engine.RecallResult{}, err
		}
		res, err := e.Recall(ctx, req)
		return capHits(res), err
	})

	addTool(s, log, &mcp.Tool{
		Name: "forget",
		Description: "Forget one memory by id. It stops appearing in recall and list_memories but is kept: the user " +
			"can bring it back with `memdesk restore ID`. Returns {fact_id, status: forgotten|unchanged}; unchanged " +
			"means it was already forgotten.",
		InputSchema: inputSchema[forgetArgs](func(p map[string]*jsonschema.Schema) {
			p["id"].Minimum = new(1.0)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", IdempotentHint: true, DestructiveHint: new(true), OpenWorldHint: closedWorld},
	}, func(ctx context.Context, a forgetArgs) (engine.RememberResult, error) {
		res, err := e.Remember(ctx, engine.RememberRequest{Action: engine.ActionForget, ID: a.ID})
		if errors.Is(err, engine.ErrNotFound) {
			err = fmt.Errorf("%w: no memory has id %d; recall and list_memories show the ids", engine.ErrNotFound, a.ID)
		}
		return res, err
	})

	addTool(s, log, &mcp.Tool{
		Name: "list_memories",
		Description: fmt.Sprintf("List remembered facts newest first, with id, text, space, status and times. Use it to "+
			"browse or to find an id; use recall to search. Returns {facts, next_offset}: at most limit facts (default %d), page "+
			"with offset; next_offset, when present, is where a page cut short to stay under 1 MB goes on.", listDefaultLimit),
		InputSchema: inputSchema[listArgs](func(p map[string]*jsonschema.Schema) {
			p["limit"].Minimum = new(1.0)
			p["limit"].Maximum = new(float64(listMaxLimit))
			p["limit"].Default = json.RawMessage(fmt.Sprint(listDefaultLimit))
			p["offset"].Minimum = new(0.0)
		}),
		Annotations: withTitle(readOnly, "List memories"),
	}, func(ctx context.Context, a listArgs) (listAnswer, error) {
		if a.Limit <= 0 {
			a.Limit = listDefaultLimit
		}
		res, err := e.List(ctx, engine.ListRequest{Space: a.Space, All: a.All, Filter: a.Filter, Limit: a.Limit, Offset: a.Offset})
		if err != nil {
			return listAnswer{}, err
		}
		out := listAnswer{ListResult: res}
		if n := fitting(len(res.Facts), func(i int) int { return len(res.Facts[i].Text) + answerOverhead }); n < len(res.Facts) {
			out.Facts, out.NextOffset = res.Facts[:n], a.Offset+n
		}
		return out, nil
	})

	addTool(s, log, &mcp.Tool{
		Name: "kb_search",
		Description: "Search only the knowledge base: documents the user imported (Markdown, text, HTML, PDF) with " +
			"`memdesk kb add`. Same answer as recall; each hit's doc gives the file path, title, heading and line " +
			"range to cite.",
		InputSchema: inputSchema[kbSearchArgs](func(p map[string]*jsonschema.Schema) {
			p["k"].Minimum = new(1.0)
		}),
		Annotations: withTitle(readOnly, "Search the knowledge base"),
	}, func(ctx context.Context, a kbSearchArgs) (engine.RecallResult, error) {
		if err := checkQuerySize(a.Query); err != nil {
			return engine.RecallResult{}, err
		}
		res, err := e.Recall(ctx, engine.RecallRequest{Query: a.Query, K: a.K, Space: a.Space, Source: engine.SourceKnowledge})
		return capHits(res), err
	})

	addTool(s, log, &mcp.Tool{
		Name: "stats",
		Description: "What the memdesk database holds: active, superseded and forgotten facts, documents, chunks, " +
			"spaces, file size, schema version and the semantic leg's state.",
		InputSchema: inputSchema[statsArgs](nil),
		Annotations: withTitle(readOnly, "Database statistics"),
	}, func(ctx context.Context, _ statsArgs) (engine.Stats, error) {
		return e.Stats(ctx)
	})
	return s
}

// addTool registers one tool whose handler is a plain engine call. A failed call, and a
// panic, become a tool error (isError with a message) so the agent can correct itself and
// the server keeps serving.
func addTool[In, Out any](s *mcp.Server, log *slog.Logger, tool *mcp.Tool, call func(context.Context, In) (Out, error)) {
	mcp.AddTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, out Out, err error) {
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				log.Error("MCP tool panicked", "tool", tool.Name, "panic", p, "stack", string(debug.Stack()))
				err = fmt.Errorf("%s failed inside memdesk (a bug; the server is still running): %v", tool.Name, p)
			}
			log.Debug("MCP tool call", "tool", tool.Name, "took", time.Since(start), "err", err)
		}()
		out, err = call(ctx, in)
		if err != nil {
			return nil, out, toolError(log, tool.Name, err)
		}
		return nil, out, nil
	})
}

// checkQuerySize refuses a query over maxQueryBytes, before the engine reads it and before
// the answer would carry it back.
func checkQuerySize(q string) error {
	if len(q) > maxQueryBytes {
		return fmt.Errorf("%w: the query is %d KB and a query may be at most %d KB: send the key words or the question, not a whole text", engine.ErrBadRequest, (len(q)+1023)>>10, maxQueryBytes>>10)
	}
	return nil
}

// toolError is the MCP server's one mapping from engine errors to tool errors. Mistakes
// the agent can fix come back as the engine's sentence without the sentinel's own words;
// anything else is also logged, since the agent cannot fix it and the person running the
// server may need to.
func toolError(log *slog.Logger, tool string, err error) error {
	for _, sentinel := range []error{engine.ErrBadRequest, engine.ErrInvalidText, engine.ErrNotFound, engine.ErrDuplicate} {
		if errors.Is(err, sentinel) {
			return errors.New(strings.TrimPrefix(err.Error(), sentinel.Error()+": "))
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s was cancelled", tool)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s took too long and was stopped; try again", tool)
	}
	log.Warn("MCP tool failed", "tool", tool, "err", err)
	return fmt.Errorf("%s failed: %w", tool, err)
}

// inputSchema infers In's JSON schema, descriptions included, and lets refine add what
// struct tags cannot express (bounds, enums, defaults).
func inputSchema[In any](refine func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema for %T: %v", *new(In), err)) // a bug in the types above
	}
	if refine != nil {
		refine(s.Properties)
	}
	return s
}

func withTitle(a *mcp.ToolAnnotations, title string) *mcp.ToolAnnotations {
	c := *a
	c.Title = title
	return &c
}

// buildVersion is memdesk's module version as the Go toolchain recorded it.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
