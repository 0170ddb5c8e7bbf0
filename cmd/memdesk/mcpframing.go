package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP server's own stdio framing. The SDK's IOTransport ends the session on the first
// line it cannot decode, so one bad write by an agent took memdesk away from every later
// call. Here a line is the unit: each is read with a bounded size, decoded on its own, and a
// line that is not a JSON-RPC message is answered with the error the JSON-RPC 2.0 spec names
// (-32700 parse error, -32600 invalid request) while reading goes on.

const (
	// maxMCPLineBytes bounds one inbound line. The largest message memdesk needs is a
	// remember of engine.MaxFactBytes (64 KB) of text, which JSON escaping can at most
	// multiply by six (\u00XX); 1 MB is room for that with headroom, and keeps a runaway
	// writer from making the server buffer hundreds of megabytes for one line.
	maxMCPLineBytes = 1 << 20

	// maxAnswerErrorBytes bounds the text of an error answer. Errors quote what they refuse
	// (the SDK quotes an unknown tool or method, a value outside an enum or of the wrong
	// type; the engine quotes a space name), and a 500 KB argument came back whole. A
	// kilobyte says what was wrong; the client has the rest.
	maxAnswerErrorBytes = 1 << 10

	// maxSafeID is the largest integer id that survives the SDK's decoding exactly: ids
	// are decoded as float64, and past 2^53 integers are rounded (or wrapped to MinInt64).
	maxSafeID = 1<<53 - 1
)

// utf8BOM is what some Windows writers put before the first JSON text; RFC 8259 lets a
// reader ignore it, and nothing else could be meant by it.
const utf8BOM = "\uFEFF"

// lineTransport serves one MCP session over newline-delimited JSON-RPC on in and out.
// Neither stream is closed by it: they belong to the process.
type lineTransport struct {
	in      io.Reader
	out     io.Writer
	maxLine int // longest line accepted, in bytes; 0 means maxMCPLineBytes
	// stop, when closed, ends the input as its end would: no line is read after it, and
	// the calls already read are answered first (the server is stopping).
	stop <-chan struct{}
}

func (t lineTransport) Connect(context.Context) (mcp.Connection, error) {
	lines := make(chan inboundLine)
	c := &lineConn{
		stop:    t.stop,
		out:     t.out,
		maxLine: t.maxLine,
		lines:   lines,
		closed:  make(chan struct{}),
		pending: map[jsonrpc.ID]bool{},
		batches: map[jsonrpc.ID]*responseBatch{},
	}
	if c.maxLine <= 0 {
		c.maxLine = maxMCPLineBytes
	}
	// The reader runs apart from Read so that Close can unblock a Read waiting for input. A
	// read blocked on a stdin that never ends stays blocked until the process exits; it
	// holds nothing and nothing waits for it.
	go readLines(bufio.NewReaderSize(t.in, 64<<10), c.maxLine, lines, c.closed)
	return c, nil
}

// inboundLine is one line of input, or the end of it.
type inboundLine struct {
	data    []byte // without the newline
	tooLong bool   // the line passed maxLine and was discarded; data is empty
	err     error  // the input ended (io.EOF) or failed; no more lines follow
}

// readLines sends every line of r on lines, then the error that ended r. A line longer than
// maxLine is not kept: the rest of it is read and dropped, and it is reported as tooLong.
func readLines(r *bufio.Reader, maxLine int, lines chan<- inboundLine, closed <-chan struct{}) {
	send := func(l inboundLine) bool {
		select {
		case lines <- l:
			return true
		case <-closed:
			return false
		}
	}
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			n := len(line) + len(chunk)
			if bytes.HasSuffix(chunk, []byte("\n")) {
				n-- // the newline is not part of the line
			}
			if n > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil || len(line) > 0 || tooLong {
			l := inboundLine{data: bytes.TrimSuffix(line, []byte("\n")), tooLong: tooLong}
			if !send(l) {
				return
			}
			line, tooLong = nil, false
		}
		if err != nil {
			send(inboundLine{err: err})
			return
		}
	}
}

// lineConn is one session's connection. Besides the framing, it holds back the end of the
// input until every call read has been answered: the SDK, on reading EOF, cancels the calls
// still in flight and refuses to write their responses, so a client that writes its
// requests and closes stdin (a script, a test, an agent shutting down) would lose the
// answers it is waiting for. (A handler that called back to the client after EOF would wait
// for ever; memdesk's tools never do.)
//
// It does not implement the SDK's unexported session-state hook, whose only use in the
// SDK's stdio connection is to refuse JSON-RPC batches under protocol 2025-06-18 and later;
// memdesk accepts batches under every version.
type lineConn struct {
	out     io.Writer
	maxLine int        // longest line read, in bytes
	writeMu sync.Mutex // one message per line: writes never interleave

	lines  <-chan inboundLine
	stop   <-chan struct{}   // lineTransport.stop; nil never stops
	queue  []jsonrpc.Message // the rest of the batch being read; Read is never concurrent
	closed chan struct{}     // closed by Close: stop reading and waiting
	close  sync.Once

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool           // calls read and not yet answered; true: the end of input waits for it
	awaited  int                           // pending calls marked true
	answered chan struct{}                 // closed when awaited reaches 0; nil when nobody waits
	batches  map[jsonrpc.ID]*responseBatch // the batch each pending batched call came in
}

// responseBatch collects the answers to one inbound batch: the JSON-RPC spec answers a
// batch with one array, sent when every call in it has been answered.
type responseBatch struct {
	answers    []json.RawMessage // in the order written; the client matches them by id
	unanswered int               // calls in the batch the SDK has not answered yet
}

// methodSubscriptionsListen opens a notification stream (SEP-2575); the SDK does not export it.
const methodSubscriptionsListen = "subscriptions/listen"

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			msg := c.queue[0]
			c.queue = c.queue[1:]
			return msg, nil
		}
		var in inboundLine
		select {
		case <-c.stop: // before any line still waiting: a stop reads nothing more
			in = inboundLine{err: io.EOF}
		default:
			select {
			case in = <-c.lines:
			case <-c.stop:
				in = inboundLine{err: io.EOF}
			case <-c.closed:
				return nil, io.EOF
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if in.err != nil {
			c.waitAnswered(ctx)
			return nil, in.err
		}
		msgs, err := c.frame(in)
		if err != nil {
			return nil, err // the output is broken: nobody can be answered any more
		}
		c.queue = msgs
	}
}

// frame turns one line into the messages to hand to the SDK, and answers what is wrong with
// it itself. The error is a failed write.
func (c *lineConn) frame(in inboundLine) ([]jsonrpc.Message, error) {
	if in.tooLong {
		return nil, c.writeRaw(errorAnswer(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("message too large: memdesk reads messages of at most %s and discarded this one", byteSize(c.maxLine))))
	}
	line := bytes.TrimSpace(bytes.TrimPrefix(in.data, []byte(utf8BOM)))
	if len(line) == 0 {
		return nil, nil // a blank line holds no message; keep-alive writers send them
	}
	if !json.Valid(line) {
		return nil, c.writeRaw(errorAnswer(nil, jsonrpc.CodeParseError, "parse error: the line is not one JSON value (each message must be complete JSON on a single line)"))
	}
	if line[0] != '[' {
		msg, answer := c.admit(line, nil)
		if answer != nil {
			return nil, c.writeRaw(answer)
		}
		return []jsonrpc.Message{msg}, nil
	}
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return nil, c.writeRaw(errorAnswer(nil, jsonrpc.CodeParseError, "parse error: "+err.Error()))
	}
	if len(members) == 0 {
		return nil, c.writeRaw(errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: the batch is empty"))
	}
	batch := &responseBatch{}
	var msgs []jsonrpc.Message
	for _, m := range members {
		msg, answer := c.admit(m, batch)
		if answer != nil {
			batch.answers = append(batch.answers, answer)
			continue
		}
		msgs = append(msgs, msg)
	}
	c.mu.Lock()
	done := batch.unanswered == 0
	c.mu.Unlock()
	if done && len(batch.answers) > 0 { // nothing in it for the SDK to answer
		return msgs, c.writeBatch(batch)
	}
	return msgs, nil
}

// admit checks one message and records a call as pending (in batch, when it came in one). It
// returns the message for the SDK, or the error answer to send instead.
func (c *lineConn) admit(raw json.RawMessage, batch *responseBatch) (jsonrpc.Message, json.RawMessage) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message must be a JSON object")
	}
	rawID, hasID := fields["id"]
	id, err := checkID(rawID)
	if err != nil {
		// A number the SDK cannot keep is still sent back as written, so that the client
		// can tell which call failed; anything else has no id to send back.
		var echo json.RawMessage
		if len(rawID) <= 64 && bytes.IndexByte([]byte("-0123456789"), rawID[0]) >= 0 {
			echo = rawID
		}
		return nil, errorAnswer(echo, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	if !hasID || id == nil {
		rawID = nil
	}
	// JSON text must be UTF-8 (RFC 8259). Go's decoder would quietly turn bad bytes, and
	// escapes of half a UTF-16 pair, into U+FFFD, and remember would then keep text the
	// user never wrote, where the CLI refuses it. Refusing the message says what is wrong.
	if i := invalidUTF8(raw); i >= 0 {
		return nil, errorAnswer(rawID, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: the message is not valid UTF-8 at byte %d (an invalid byte or half of a \\u surrogate pair); send UTF-8 text", i))
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, errorAnswer(rawID, jsonrpc.CodeInvalidRequest, "invalid request: "+decodeProblem(err))
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return msg, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.pending[req.ID]; dup {
		return nil, errorAnswer(rawID, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: id %.40s is already in use by a call that has not been answered yet", rawID))
	}
	// A subscriptions/listen call is a stream the client ends by cancelling it, not a call
	// it waits on: waiting for its answer would keep a finished session open for ever.
	awaited := req.Method != methodSubscriptionsListen
	c.pending[req.ID] = awaited
	if awaited {
		c.awaited++
	}
	if batch != nil {
		c.batches[req.ID] = batch
		batch.unanswered++
	}
	return msg, nil
}

// checkID returns the id's value, nil for none. A number must be an integer the SDK keeps
// exactly: it decodes ids as float64, and 123456789012345678901234567890 came back as
// -9223372036854775808, an answer the client could not match to its call.
func checkID(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, errors.New("the id is not readable")
	}
	switch v := v.(type) {
	case nil, string:
		return v, nil
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil || n > maxSafeID || n < -maxSafeID {
			return nil, fmt.Errorf("id %.40s is not supported: use a string or an integer between -%d and %d", v, int64(maxSafeID), int64(maxSafeID))
		}
		return n, nil
	}
	return nil, errors.New("the id must be a string, an integer or null")
}

// decodeProblem words the SDK's decoding error for the client.
func decodeProblem(err error) string {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code == jsonrpc.CodeInvalidRequest {
		return "a message needs a method (a request) or an id (a response)"
	}
	return err.Error()
}

// invalidUTF8 returns the offset of the first invalid UTF-8 byte in raw, or of a \u escape
// of an unpaired UTF-16 surrogate inside a string; -1 when there is none. raw is valid JSON.
func invalidUTF8(raw []byte) int {
	if !utf8.Valid(raw) {
		for i := 0; i < len(raw); {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return i
			}
			i += size
		}
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch b := raw[i]; {
		case !inString:
			inString = b == '"'
		case b == '"':
			inString = false
		case b == '\\':
			if i+1 < len(raw) && raw[i+1] != 'u' {
				i++ // an escaped character; \" does not end the string
				continue
			}
			r := hex4(raw[i+2:])
			if !utf16.IsSurrogate(r) {
				i += 5
				continue
			}
			if r < 0xDC00 && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if low := hex4(raw[i+8:]); low >= 0xDC00 && low < 0xE000 {
					i += 11
					continue
				}
			}
			return i
		}
	}
	return -1
}

// hex4 reads the four hex digits of a \u escape (valid JSON has them).
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}

// byteSize words n for a message: 1 MB, 64 KB, 512 bytes.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errorAnswer is a JSON-RPC error response with id as sent (null when none could be read).
// It is built here rather than by the SDK, whose encoder leaves a null id out.
func errorAnswer(id json.RawMessage, code int64, message string) json.RawMessage {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		panic(fmt.Sprintf("encode a JSON-RPC error: %v", err)) // id was checked; a bug
	}
	return b
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		msg = shortenErrors(resp)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode an MCP message: %w", err)
	}
	// Agents' clients print tool results to terminals too: C1 controls and bidi overrides
	// go out escaped, as in the CLI's JSON; decoded, the text is the same.
	data = escapeJSONControls(data)
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeRaw(data)
	}
	c.mu.Lock()
	// The id is free again before the answer is out, as in the SDK: a client may reuse it
	// the moment it reads the answer. The end of input waits until the answer is written.
	awaited, wasPending := c.pending[resp.ID]
	delete(c.pending, resp.ID)
	batch := c.batches[resp.ID]
	complete := false
	if batch != nil {
		delete(c.batches, resp.ID)
		batch.answers = append(batch.answers, data)
		batch.unanswered--
		complete = batch.unanswered == 0
	}
	c.mu.Unlock()
	switch {
	case batch == nil:
		err = c.writeRaw(data)
	case complete:
		err = c.writeBatch(batch)
	}
	// Written or failed, the call is over: a broken writer must not hold the reader.
	if wasPending && awaited {
		c.mu.Lock()
		c.awaited--
		if c.awaited == 0 && c.answered != nil {
			close(c.answered)
			c.answered = nil
		}
		c.mu.Unlock()
	}
	return err
}

// shortenErrors returns resp with the text of a JSON-RPC error, or of a tool error, cut to
// maxAnswerErrorBytes. This is the one place every answer passes, the SDK's own included.
func shortenErrors(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error != nil {
		if msg := resp.Error.Error(); len(msg) > maxAnswerErrorBytes {
			short := &jsonrpc.Error{Message: shorten(msg)}
			var wire *jsonrpc.Error
			if errors.As(resp.Error, &wire) {
				short.Code = wire.Code
			}
			cut := *resp
			cut.Error = short
			return &cut
		}
		return resp
	}
	// Only a long result can hold a long tool error; results of any length are left alone.
	if len(resp.Result) <= maxAnswerErrorBytes || !bytes.Contains(resp.Result, []byte(`"isError":true`)) {
		return resp
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil || !res.IsError {
		return resp
	}
	for _, content := range res.Content {
		if text, ok := content.(*mcp.TextContent); ok && len(text.Text) > maxAnswerErrorBytes {
			text.Text = shorten(text.Text)
		}
	}
	data, err := json.Marshal(&res)
	if err != nil {
		return resp
	}
	cut := *resp
	cut.Result = data
	return &cut
}

// shorten cuts s to maxAnswerErrorBytes, on a character boundary, and says how much went.
func shorten(s string) string {
	keep := maxAnswerErrorBytes - 64 // room for the note
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return fmt.Sprintf("%s… (%d more bytes not shown)", s[:keep], len(s)-keep)
}

func (c *lineConn) writeBatch(batch *responseBatch) error {
	data, err := json.Marshal(batch.answers)
	if err != nil {
		return fmt.Errorf("encode a batch answer: %w", err)
	}
	return c.writeRaw(data)
}

// writeRaw writes one message and its newline.
func (c *lineConn) writeRaw(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.out.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write to the MCP client: %w", err)
	}
	return nil
}

func (c *lineConn) Close() error {
	c.close.Do(func() { close(c.closed) })
	return nil
}

// waitAnswered blocks until no awaited call is pending, the connection is closed or ctx is
// done.
func (c *lineConn) waitAnswered(ctx context.Context) {
	c.mu.Lock()
	if c.awaited == 0 {
		c.mu.Unlock()
		return
	}
	if c.answered == nil {
		c.answered = make(chan struct{})
	}
	answered := c.answered
	c.mu.Unlock()
	select {
	case <-answered:
	case <-c.closed:
	case <-ctx.Done():
	}
}
