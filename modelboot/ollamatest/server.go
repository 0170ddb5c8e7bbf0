// Package ollamatest is an in-process Ollama server for tests. It speaks the
// wire format of Ollama 0.17's /api/version, /api/tags, /api/show,
// /api/pull (NDJSON progress) and /api/embed, embeds text deterministically,
// and has switches for the faults a real server shows: down, slow, failing
// with a status (always, or after some requests succeeded), a model to pull,
// a pull that reports an error or whose stream breaks off, dimensions that
// change, inputs the server rejects, and zero vectors.
//
// The JSON is written from structs of its own, not from the ollama api
// package, so a client that decodes it is tested against the wire format.
package ollamatest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Version is what /api/version reports.
const Version = "0.17.4"

// MsgTooLong is Ollama's answer to an input past the context length.
const MsgTooLong = "the input length exceeds the context length"

// Model describes a model the server has or can pull.
type Model struct {
	// Name as given to the server; "tiny" means "tiny:latest".
	Name string
	// Dims is the embedding width (default 16).
	Dims int
	// ContextLength is the window /api/show declares (default 512).
	ContextLength int
	// NoContextLength leaves "<arch>.context_length" out of model_info, as
	// for a model that does not declare it.
	NoContextLength bool
	// EnforcedContext is the token count past which /api/embed answers 400
	// MsgTooLong, failing the whole request, as Ollama 0.17.4 does for some
	// inputs past the window (default ContextLength; tokens are counted as
	// this server tokenises: words, CJK characters and punctuation, plus 2).
	EnforcedContext int
	// Pooling is the declared pooling ("mean", "cls", "last", "none"); empty
	// leaves pooling_type out of model_info.
	Pooling string
	// Vocabulary, when set, is the only words that embed, lower case: a text
	// with none of them embeds to the zero vector, as a bag-of-words GloVe
	// model does. Nil means every word embeds.
	Vocabulary []string
	// Size is the byte count a pull reports (default 1 MiB).
	Size int64
	// Embed, when set, is the model: it returns each input's vector, of width Dims (a
	// simulated model of known quality, see internal/simembed). It must be safe for
	// concurrent use. Nil embeds as Embedding does.
	Embed func(text string) []float32
}

type model struct {
	Model
	name   string // canonical
	digest string
	vocab  map[string]bool
}

func newModel(m Model, generation int) *model {
	if m.Dims <= 0 {
		m.Dims = 16
	}
	if m.ContextLength <= 0 && !m.NoContextLength {
		m.ContextLength = 512
	}
	if m.EnforcedContext <= 0 {
		m.EnforcedContext = m.ContextLength
	}
	if m.Size <= 0 {
		m.Size = 1 << 20
	}
	mm := &model{Model: m, name: canonical(m.Name)}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d/%d", mm.name, m.Dims, generation))
	mm.digest = hex.EncodeToString(sum[:])
	if m.Vocabulary != nil {
		mm.vocab = make(map[string]bool, len(m.Vocabulary))
		for _, w := range m.Vocabulary {
			mm.vocab[w] = true
		}
	}
	return mm
}

func canonical(name string) string {
	name = strings.ToLower(name)
	if i := strings.LastIndexByte(name, '/'); !strings.Contains(name[i+1:], ":") {
		name += ":latest"
	}
	return name
}

// EmbedCall records one /api/embed request as received.
type EmbedCall struct {
	Model     string
	Inputs    []string
	KeepAlive json.RawMessage // as sent; nil when absent
	Truncate  *bool
}

type fault struct {
	delay  time.Duration
	status int
	msg    string
	broken Broken
	// after counts down the requests still answered normally before status
	// applies; failN, when positive, is how many requests then fail before
	// the fault clears itself.
	after, failN int
}

// Server is a fake Ollama server on a loopback port. Its methods are safe for
// concurrent use. Close it when done.
type Server struct {
	addr string

	mu        sync.Mutex
	installed map[string]*model
	registry  map[string]Model // pullable
	faults    map[string]fault // by path
	reject    []string
	failPulls int
	cutPulls  int
	zero      bool
	pullHook  func(step, steps int)
	counts    map[string]int
	lastEmbed EmbedCall
	gen       int
	serial    *runner // nil: every request computes at once

	life   sync.Mutex // serialises Up, Down and Close
	hs     *http.Server
	served chan struct{}
	cancel context.CancelFunc // cancels request contexts of the current listener
	closed bool

	active int           // handlers running, under mu
	idle   chan struct{} // closed when active drops to zero, for Close
}

// NewServer starts a server on 127.0.0.1 holding the given models.
func NewServer(models ...Model) (*Server, error) { return NewServerAt("127.0.0.1:0", models...) }

// NewServerAt starts a server listening on addr ("127.0.0.1:0": any free port).
func NewServerAt(addr string, models ...Model) (*Server, error) {
	s := &Server{
		installed: map[string]*model{},
		registry:  map[string]Model{},
		faults:    map[string]fault{},
		counts:    map[string]int{},
	}
	for _, m := range models {
		s.AddModel(m)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ollamatest: listen: %w", err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	return s, nil
}

// Host is the server's "127.0.0.1:port", as OLLAMA_HOST would say it.
func (s *Server) Host() string { return s.addr }

// URL is the server's base URL.
func (s *Server) URL() string { return "http://" + s.addr }

func (s *Server) serve(ln net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	hs := &http.Server{
		Handler:     s.handler(),
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = hs.Serve(ln) // returns when Down or Close shuts hs
	}()
	s.hs, s.served, s.cancel = hs, served, cancel
}

// Down closes the listener and every connection: calls fail as they do
// against a stopped server, and handlers in flight see their context end.
// Down may be called from a pull hook.
func (s *Server) Down() {
	s.life.Lock()
	defer s.life.Unlock()
	s.down()
}

func (s *Server) down() {
	if s.hs == nil {
		return
	}
	s.cancel()
	_ = s.hs.Close()
	<-s.served
	s.hs = nil
}

// Up listens again on the same address after Down.
func (s *Server) Up() error {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return errors.New("ollamatest: server closed")
	}
	if s.hs != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("ollamatest: listen again: %w", err)
	}
	s.serve(ln)
	return nil
}

// Close stops the server and waits for its handlers to return.
func (s *Server) Close() {
	s.life.Lock()
	s.closed = true
	s.down()
	s.life.Unlock()
	for {
		s.mu.Lock()
		if s.active == 0 {
			s.mu.Unlock()
			return
		}
		if s.idle == nil {
			s.idle = make(chan struct{})
		}
		idle := s.idle
		s.mu.Unlock()
		<-idle
	}
}

// AddModel installs m, replacing a model of the same name with a new digest.
func (s *Server) AddModel(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	mm := newModel(m, s.gen)
	s.installed[mm.name] = mm
}

// AddPullable puts m in the registry: /api/show and /api/embed answer 404
// for it until a pull installs it.
func (s *Server) AddPullable(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.registry[canonical(m.Name)] = m
}

// RemoveModel deletes an installed model, as `ollama rm` does.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.installed, canonical(name))
}

// SetDims changes an installed model's width without changing its digest or
// what /api/show says: the fault "dimensions change between calls".
func (s *Server) SetDims(name string, dims int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.installed[canonical(name)]; m != nil {
		cp := *m
		cp.Dims = dims
		s.installed[cp.name] = &cp
	}
}

// SetDelay makes every request to path (e.g. "/api/embed") wait d before
// answering, or until the client gives up. Zero clears it.
func (s *Server) SetDelay(path string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults[path]
	f.delay = d
	s.faults[path] = f
}

// Broken is a way an answer can go wrong after the server accepted the request.
type Broken int

const (
	// Whole answers normally.
	Whole Broken = iota
	// Garbled answers 200 with a body that is not JSON: a proxy's error page, a
	// server bug.
	Garbled
	// Cut sends the status and half the body, then closes the connection: a
	// runner that crashed mid-answer, a proxy timeout.
	Cut
)

// SetBroken makes every request to path (e.g. "/api/embed") answer as b says;
// Whole clears it.
func (s *Server) SetBroken(path string, b Broken) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults[path]
	f.broken = b
	s.faults[path] = f
}

// SetStatus makes every request to path answer code with {"error": msg}.
// Zero clears it.
func (s *Server) SetStatus(path string, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults[path]
	f.status, f.msg, f.after, f.failN = code, msg, 0, 0
	s.faults[path] = f
}

// FailAfter lets the next ok requests to path through, then answers the n
// requests after them with code and {"error": msg}, then clears itself: the
// fault "HTTP 500 mid-batch" when a client sends a long list as several
// requests. n <= 0 fails every request after the first ok.
func (s *Server) FailAfter(path string, ok, n, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults[path]
	f.status, f.msg, f.after, f.failN = code, msg, ok, n
	s.faults[path] = f
}

// RejectInputsContaining makes /api/embed answer 400 for any request with an
// input containing substr: one bad input fails its whole batch, as in Ollama.
func (s *Server) RejectInputsContaining(substr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject = append(s.reject, substr)
}

// FailPulls makes the next n pulls break off halfway with an error line.
func (s *Server) FailPulls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failPulls = n
}

// CutPulls makes the next n pulls stop halfway by closing the connection,
// with no error line and no final status: what a client sees when the
// stream breaks off (a proxy timeout, a dropped connection).
func (s *Server) CutPulls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cutPulls = n
}

// SetZeroVectors makes /api/embed return the zero vector of the model's
// width for every input while on, as a bag-of-words model does for text
// with no word it knows.
func (s *Server) SetZeroVectors(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zero = on
}

// SetPullHook calls hook before each progress step of a pull (step 0..steps)
// on the handler's goroutine; it may block to hold the pull at a step.
func (s *Server) SetPullHook(hook func(step, steps int)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullHook = hook
}

// SetSerial makes /api/embed compute inputs one at a time across all requests, in the order
// they arrive, as Ollama's model runner does with OLLAMA_NUM_PARALLEL=1: a request's inputs
// join the queue together when it arrives, so an input waits for every input that arrived
// before it. hook, when set, is called with each input (as sent, prefix included) when its
// turn comes, before it is computed, on the handler's goroutine; it may block to hold the
// runner, and must return before Close. Requests already queued keep the runner they joined.
func (s *Server) SetSerial(on bool, hook func(input string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serial = nil
	if on {
		s.serial = newRunner(hook)
	}
}

// Queue returns the inputs the serial runner holds, the one being computed first; nil when
// the server is not serial.
func (s *Server) Queue() []string {
	s.mu.Lock()
	r := s.serial
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.queue()
}

// Computed returns the inputs the serial runner computed, in order.
func (s *Server) Computed() []string {
	s.mu.Lock()
	r := s.serial
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.done()
}

// Requests counts the requests made to path.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

// LastEmbed returns the last /api/embed request.
func (s *Server) LastEmbed() EmbedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastEmbed
}

// Digest returns an installed model's digest as /api/tags reports it.
func (s *Server) Digest(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.installed[canonical(name)]; m != nil {
		return m.digest
	}
	return ""
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", s.version)
	mux.HandleFunc("HEAD /{$}", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "Ollama is running") })
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("POST /api/pull", s.pull)
	mux.HandleFunc("POST /api/embed", s.embed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.active++
		defer func() {
			s.mu.Lock()
			if s.active--; s.active == 0 && s.idle != nil {
				close(s.idle)
				s.idle = nil
			}
			s.mu.Unlock()
		}()
		s.counts[r.URL.Path]++
		f := s.faults[r.URL.Path]
		switch {
		case f.status == 0:
		case f.after > 0:
			f.status = 0 // answered normally; count it
			cur := s.faults[r.URL.Path]
			cur.after--
			s.faults[r.URL.Path] = cur
		case f.failN > 0:
			cur := s.faults[r.URL.Path]
			if cur.failN--; cur.failN == 0 {
				cur.status, cur.msg = 0, ""
			}
			s.faults[r.URL.Path] = cur
		}
		s.mu.Unlock()
		if f.delay > 0 {
			t := time.NewTimer(f.delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if f.status != 0 {
			writeError(w, f.status, f.msg)
			return
		}
		switch f.broken {
		case Garbled:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
			return
		case Cut:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"model":"`)
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			// Abort: the connection closes without ending the chunked body.
			panic(http.ErrAbortHandler)
		}
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": Version})
}

type wireDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

var bertDetails = wireDetails{Format: "gguf", Family: "bert", Families: []string{"bert"}, ParameterSize: "1M", QuantizationLevel: "F16"}

type wireListModel struct {
	Name       string      `json:"name"`
	Model      string      `json:"model"`
	ModifiedAt time.Time   `json:"modified_at"`
	Size       int64       `json:"size"`
	Digest     string      `json:"digest"`
	Details    wireDetails `json:"details"`
}

var modified = time.Date(2025, 11, 30, 12, 0, 0, 0, time.UTC)

func (s *Server) tags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	models := []wireListModel{}
	for _, m := range s.installed {
		models = append(models, wireListModel{
			Name: m.name, Model: m.name, ModifiedAt: modified, Size: m.Size, Digest: m.digest, Details: bertDetails,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

var poolingTypes = map[string]int{"none": 0, "mean": 1, "cls": 2, "last": 3, "rank": 4}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	s.mu.Lock()
	m := s.installed[canonical(name)]
	s.mu.Unlock()
	if m == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	info := map[string]any{
		"general.architecture":    "bert",
		"general.parameter_count": 1_000_000,
		"bert.embedding_length":   m.Dims,
		"bert.block_count":        2,
	}
	if !m.NoContextLength {
		info["bert.context_length"] = m.ContextLength
	}
	if p, ok := poolingTypes[m.Pooling]; ok {
		info["bert.pooling_type"] = p
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":    "# Modelfile generated by \"ollama show\"\nFROM " + m.name + "\n",
		"parameters":   "num_thread                     1",
		"template":     "{{ .Prompt }}",
		"details":      bertDetails,
		"model_info":   info,
		"capabilities": []string{"embedding"},
		"modified_at":  modified,
	})
}

type wireProgress struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`
}

// pullSteps is the number of progress lines of a pull after the first.
const pullSteps = 8

func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Name   string `json:"name"`
		Stream *bool  `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := canonical(req.Model + req.Name)
	s.mu.Lock()
	m, known := s.registry[name]
	fail := s.failPulls > 0
	if fail {
		s.failPulls--
	}
	cut := !fail && s.cutPulls > 0
	if cut {
		s.cutPulls--
	}
	hook := s.pullHook
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	send := func(v any) bool {
		if r.Context().Err() != nil {
			return false
		}
		_ = enc.Encode(v)
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	send(wireProgress{Status: "pulling manifest"})
	if !known {
		send(map[string]string{"error": "pull model manifest: file does not exist"})
		return
	}
	mm := newModel(m, 0)
	size := mm.Size
	layer := "sha256:" + mm.digest
	for step := 0; step <= pullSteps; step++ {
		if hook != nil {
			hook(step, pullSteps)
		}
		if fail && step == pullSteps/2 {
			send(map[string]string{"error": "max retries exceeded: unexpected EOF"})
			return
		}
		if cut && step == pullSteps/2 {
			// Abort the response: the server closes the connection without
			// ending the chunked body, so the client reads an unexpected EOF.
			panic(http.ErrAbortHandler)
		}
		p := wireProgress{Status: "pulling " + mm.digest[:12], Digest: layer, Total: size, Completed: size * int64(step) / pullSteps}
		if !send(p) {
			return
		}
	}
	s.mu.Lock()
	s.gen++
	s.installed[mm.name] = newModel(m, s.gen)
	s.mu.Unlock()
	send(wireProgress{Status: "verifying sha256 digest"})
	send(wireProgress{Status: "writing manifest"})
	send(wireProgress{Status: "success"})
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req struct {
		Model     string          `json:"model"`
		Input     json.RawMessage `json:"input"`
		KeepAlive json.RawMessage `json:"keep_alive"`
		Truncate  *bool           `json:"truncate"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var inputs []string
	if len(req.Input) > 0 && string(req.Input) != "null" {
		var one string
		if err := json.Unmarshal(req.Input, &one); err == nil {
			if one != "" {
				inputs = []string{one}
			}
		} else if err := json.Unmarshal(req.Input, &inputs); err != nil {
			writeError(w, http.StatusBadRequest, "invalid input type")
			return
		}
	}
	s.mu.Lock()
	s.lastEmbed = EmbedCall{Model: req.Model, Inputs: inputs, KeepAlive: req.KeepAlive, Truncate: req.Truncate}
	m := s.installed[canonical(req.Model)]
	reject, zero, serial := s.reject, s.zero, s.serial
	s.mu.Unlock()
	if m == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	first, taken := 0, 0 // serial tickets: first, and how many inputs have had their turn
	if serial != nil {
		first = serial.enqueue(inputs)
		defer func() { serial.abandon(first+taken, first+len(inputs)) }()
	}
	tokens := 0
	embeddings := make([][]float32, len(inputs))
	for i, in := range inputs {
		if serial != nil {
			if !serial.compute(r.Context(), first+i) {
				return // the client gave up
			}
			taken++
		}
		for _, bad := range reject {
			if bad != "" && strings.Contains(in, bad) {
				writeError(w, http.StatusBadRequest, "embedding contains NaN or Inf values")
				return
			}
		}
		n := len(Tokens(in)) + 2
		if m.EnforcedContext > 0 && n > m.EnforcedContext {
			writeError(w, http.StatusBadRequest, MsgTooLong)
			return
		}
		tokens += n
		if zero {
			embeddings[i] = make([]float32, m.Dims)
			continue
		}
		if m.Embed != nil {
			embeddings[i] = m.Embed(in)
			continue
		}
		embeddings[i] = embedWith(in, m.Dims, m.vocab)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"model":             req.Model,
		"embeddings":        embeddings,
		"total_duration":    time.Since(start).Nanoseconds(),
		"load_duration":     0,
		"prompt_eval_count": tokens,
	})
}

// Tokens splits text as this server's models do: runs of letters and digits
// are words (lower-cased), and every CJK character and every punctuation
// mark or symbol is a token of its own.
func Tokens(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, strings.ToLower(text[start:end]))
			start = -1
		}
	}
	for i, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush(i)
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if start < 0 {
				start = i
			}
		case unicode.IsSpace(r):
			flush(i)
		default:
			flush(i)
			out = append(out, string(r))
		}
	}
	flush(len(text))
	return out
}

// Embedding is the vector the server returns for text from a model of width
// dims with no vocabulary: the mean of a pseudo-random vector per token,
// seeded by the token, L2-normalised. Texts that share tokens are close.
func Embedding(text string, dims int) []float32 { return embedWith(text, dims, nil) }

func embedWith(text string, dims int, vocab map[string]bool) []float32 {
	sum := make([]float64, dims)
	for _, tok := range Tokens(text) {
		if vocab != nil && !vocab[tok] {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(tok))
		seed := h.Sum64()
		for d := range sum {
			seed = splitmix64(seed)
			sum[d] += float64(seed>>11)/(1<<52) - 1 // uniform in [-1, 1)
		}
	}
	var norm float64
	for _, x := range sum {
		norm += x * x
	}
	// Ollama divides by max(norm, 1e-12): a zero vector stays zero.
	inv := 1 / math.Max(math.Sqrt(norm), 1e-12)
	out := make([]float32, dims)
	for d, x := range sum {
		out[d] = float32(x * inv)
	}
	return out
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
