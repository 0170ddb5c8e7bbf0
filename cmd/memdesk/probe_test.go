package main

// Probe tests: a word list and a question list asked the way a person asks them, each
// reporting every failure in one summary rather than stopping at the first, so that a change
// to the ranking shows as a count and a list. TestChineseWordProbe asks for common Chinese
// words through a one-shot recall; TestSameAnswerEverySurface asks the same questions of the
// one-shot CLI, a fresh MCP session and a warm engine and wants the same top 5 from each.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
)

// probeDir holds the probe tests' word, fact and question lists.
var probeDir = filepath.Join("testdata", "probe")

// probeLookup is the environment of an in-process memdesk for the probe tests: a config file
// that does not exist (every setting at its default), the shared cache, and Ollama switched
// off, so no leg waits for a model and the answers are the lexical and entity legs' alone.
func probeLookup(t *testing.T) func(string) (string, bool) {
	env := map[string]string{
		"MEMDESK_CONFIG":         filepath.Join(t.TempDir(), "no-config.toml"),
		"XDG_CACHE_HOME":         sharedCacheHome(t),
		"MEMDESK_OLLAMA_ENABLED": "false",
	}
	return func(name string) (string, bool) { v, ok := env[name]; return v, ok }
}

// readProbeLines returns the lines of a probe file that are neither blank nor a # comment,
// each with its line number.
func readProbeLines(t *testing.T, name string) (lines []string, numbers []int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(probeDir, name))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, line)
		numbers = append(numbers, n)
	}
	return lines, numbers
}

// readProbeTSV returns the two columns of each line of a probe file written as a<TAB>b.
func readProbeTSV(t *testing.T, name string) [][2]string {
	t.Helper()
	lines, numbers := readProbeLines(t, name)
	rows := make([][2]string, 0, len(lines))
	for i, line := range lines {
		a, b, ok := strings.Cut(line, "\t")
		if !ok || a == "" || b == "" || strings.Contains(b, "\t") {
			t.Fatalf("%s:%d: %q is not two columns separated by one tab", name, numbers[i], line)
		}
		rows = append(rows, [2]string{a, b})
	}
	return rows
}

// probeHit is the part of a recalled hit the probes compare: which text, from where, and
// which legs found it (for the report).
type probeHit struct {
	Source string             `json:"source"`
	ID     int64              `json:"id"`
	Text   string             `json:"text"`
	Legs   map[string]float64 `json:"legs"`
}

// key names the hit as the comparison sees it: its source and id.
func (h probeHit) key() string { return fmt.Sprintf("%s#%d", h.Source, h.ID) }

// String is the hit as a report shows it: key, text and the legs that scored it.
func (h probeHit) String() string {
	var legs []string
	for _, leg := range []string{"fts", "entity", "semantic"} {
		if h.Legs[leg] != 0 {
			legs = append(legs, leg)
		}
	}
	return fmt.Sprintf("%s %s [%s]", h.key(), h.Text, strings.Join(legs, "+"))
}

// probeAnswer is one surface's answer to one question: its hits in order, or why it has none.
type probeAnswer struct {
	Hits []probeHit `json:"hits"`
	Err  string     `json:"-"`
}

func (a probeAnswer) keys() []string {
	keys := make([]string, len(a.Hits))
	for i, h := range a.Hits {
		keys[i] = h.key()
	}
	return keys
}

// String lists the answer one hit a line, indented for a report.
func (a probeAnswer) String() string {
	if a.Err != "" {
		return "      error: " + a.Err
	}
	if len(a.Hits) == 0 {
		return "      (nothing)"
	}
	var b strings.Builder
	for i, h := range a.Hits {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "      %d. %s", i+1, h)
	}
	return b.String()
}

// recallCLI runs `memdesk --db DB --json recall -k K QUERY` in process, as a one-shot memdesk
// would, and returns its hits; a failed command is an answer with Err set.
func recallCLI(ctx context.Context, lookup func(string) (string, bool), db string, k int, query string) probeAnswer {
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"--db", db, "--json", "recall", "-k", fmt.Sprint(k), query},
		streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup)
	if code != 0 {
		return probeAnswer{Err: fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(errOut.String()))}
	}
	var a probeAnswer
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		return probeAnswer{Err: fmt.Sprintf("decode %q: %v", out.String(), err)}
	}
	return a
}

// TestChineseWordProbe asks a one-shot `memdesk recall -k 10 WORD` for each of a few hundred
// everyday Chinese words, over one store that holds one short fact per word, and wants the
// word's own fact among the hits. Many of the words hold a character that is also grammar
// (过敏, 现在, 一起, 没有, 对面); a person searching their memories for one means the word.
func TestChineseWordProbe(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	start := time.Now()
	ctx := t.Context()
	lookup := probeLookup(t)

	words, _ := readProbeLines(t, "zh-words.txt")
	rows := readProbeTSV(t, "zh-facts.tsv")
	if len(words) < 220 {
		t.Fatalf("zh-words.txt holds %d words, want at least 220", len(words))
	}
	factOf := map[string]string{}
	owner := map[string]string{} // fact -> word
	for _, r := range rows {
		word, fact := r[0], r[1]
		if _, dup := factOf[word]; dup {
			t.Fatalf("zh-facts.tsv: %s has two facts", word)
		}
		if w, dup := owner[fact]; dup {
			t.Fatalf("zh-facts.tsv: %s and %s share the fact %q", w, word, fact)
		}
		factOf[word], owner[fact] = fact, word
	}
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			t.Fatalf("zh-words.txt lists %s twice", w)
		}
		seen[w] = true
		if n := len([]rune(w)); n < 2 || n > 3 {
			t.Errorf("zh-words.txt: %s has %d characters, want 2 or 3", w, n)
		}
		if _, ok := factOf[w]; !ok {
			t.Errorf("zh-facts.tsv has no fact for %s", w)
		}
	}
	for _, r := range rows {
		if !seen[r[0]] {
			t.Errorf("zh-facts.tsv has a fact for %s, which zh-words.txt does not list", r[0])
		}
	}
	// A fact must hold its word; one that also holds another probe word is allowed (不一定
	// holds 一定) but noted, as that word's answer then has two facts to rank.
	var missing, shared []string
	for _, w := range words {
		fact := factOf[w]
		if strings.Count(fact, w) == 0 {
			missing = append(missing, fmt.Sprintf("%s: %q", w, fact))
		}
		for _, other := range words {
			if other != w && strings.Contains(fact, other) {
				shared = append(shared, fmt.Sprintf("%s's fact %q also holds %s", w, fact, other))
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d facts do not hold their own word (fix zh-facts.tsv):\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	if len(shared) > 0 {
		t.Logf("%d facts hold another probe word too:\n  %s", len(shared), strings.Join(shared, "\n  "))
	}
	if t.Failed() {
		t.FailNow()
	}

	// One store, written as a person's export is imported: `memdesk memories import FILE`.
	dir := t.TempDir()
	db := filepath.Join(dir, "probe.db")
	var md strings.Builder
	md.WriteString("# memdesk memories\n\n## default\n\n")
	for _, w := range words {
		fmt.Fprintf(&md, "- %s\n", factOf[w])
	}
	importFile := filepath.Join(dir, "facts.md")
	if err := os.WriteFile(importFile, []byte(md.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"--db", db, "--json", "memories", "import", importFile},
		streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup); code != 0 {
		t.Fatalf("memories import: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	var imported struct {
		Added, Duplicate int
		Refused          []string
	}
	if err := json.Unmarshal(out.Bytes(), &imported); err != nil {
		t.Fatalf("memories import: decode %q: %v", out.String(), err)
	}
	if imported.Added != len(words) || imported.Duplicate != 0 || len(imported.Refused) != 0 {
		t.Fatalf("memories import = %+v, want %d added", imported, len(words))
	}
	seeded := time.Since(start)

	// The one-shot recall of each word, through the code path a memdesk process runs.
	answers := map[string]probeAnswer{}
	var failures []string
	var failed []string
	for _, w := range words {
		a := recallCLI(ctx, lookup, db, 10, w)
		answers[w] = a
		if slices.ContainsFunc(a.Hits, func(h probeHit) bool { return h.Source == "memory" && h.Text == factOf[w] }) {
			continue
		}
		failed = append(failed, w)
		var got string
		switch {
		case a.Err != "":
			got = "error: " + a.Err
		case len(a.Hits) == 0:
			got = "nothing"
		default:
			texts := make([]string, 0, 3)
			for _, h := range a.Hits[:min(3, len(a.Hits))] {
				texts = append(texts, h.Text)
			}
			got = fmt.Sprintf("%d hits, none its fact: %s", len(a.Hits), strings.Join(texts, " / "))
		}
		failures = append(failures, fmt.Sprintf("%s (fact %q): %s", w, factOf[w], got))
	}
	recalled := time.Since(start) - seeded

	// A few of the same queries through the built binary: the one-shot process must answer
	// as run() does (the same store, the same settings, nothing warm).
	bin := memdeskBinary(t)
	env := isolatedEnv(dir)
	var disagree []string
	for _, w := range []string{"过敏", "现在", "一起", "咖啡", "电冰箱"} {
		cmd := exec.Command(bin, "--db", db, "--json", "recall", "-k", "10", w)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("memdesk recall %s: %v\n%s", w, err, stderr.String())
			continue
		}
		var a probeAnswer
		if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
			t.Errorf("memdesk recall %s: decode %q: %v", w, stdout.String(), err)
			continue
		}
		if got, want := a.keys(), answers[w].keys(); !slices.Equal(got, want) {
			disagree = append(disagree, fmt.Sprintf("%s: binary %v, run() %v", w, got, want))
		}
	}
	if len(disagree) > 0 {
		t.Errorf("the memdesk binary and run() answer differently:\n  %s", strings.Join(disagree, "\n  "))
	}
	t.Logf("%d words, one fact each: seeded in %v, recalled in %v, %v in all",
		len(words), seeded.Round(time.Millisecond), recalled.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	if len(failed) > 0 {
		t.Errorf("%d of %d words do not find their own fact in a one-shot recall -k 10: %s\n  %s",
			len(failed), len(words), strings.Join(failed, " "), strings.Join(failures, "\n  "))
	}
}

// surfaceQuestion is one question of the surface probe; unrelated ones must find nothing.
type surfaceQuestion struct {
	text      string
	unrelated bool
	miss      bool // answerable, but known to find nothing (kind miss in the file)
}

// TestSameAnswerEverySurface asks each question of one store of a person's memories through
// three surfaces and wants the same top 5 from each: (a) a one-shot `memdesk recall`, (b) a
// fresh `memdesk mcp` session that gets every call at once, before its entity extractor can
// have loaded, and (c) a warm engine whose extractor is loaded. The store's entity rows are
// all written, so a surface that answers differently does so because of how it is run.
func TestSameAnswerEverySurface(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	start := time.Now()
	ctx := t.Context()
	lookup := probeLookup(t)

	facts, _ := readProbeLines(t, "surface-facts.txt")
	var questions []surfaceQuestion
	for _, r := range readProbeTSV(t, "surface-questions.tsv") {
		switch r[0] {
		case "ask", "unrelated", "miss":
			questions = append(questions, surfaceQuestion{text: r[1], unrelated: r[0] == "unrelated", miss: r[0] == "miss"})
		default:
			t.Fatalf("surface-questions.tsv: kind %q of %q, want ask, miss or unrelated", r[0], r[1])
		}
	}
	if len(questions) < 50 {
		t.Fatalf("surface-questions.tsv holds %d questions, want at least 50", len(questions))
	}

	// Seed with the extractor loaded, then sweep until no row waits for its entities.
	db := filepath.Join(t.TempDir(), "surface.db")
	seedStore(t, ctx, db, facts)
	seeded := time.Since(start)

	// (a) one-shot CLI, one process per question.
	oneShot := make([]probeAnswer, len(questions))
	for i, q := range questions {
		oneShot[i] = recallCLI(ctx, lookup, db, 5, q.text)
	}
	cliDone := time.Since(start)

	// (b) one fresh MCP session: the handshake and every call written at once.
	session := recallMCPSession(t, ctx, lookup, db, questions)
	mcpDone := time.Since(start)

	// (c) a warm engine: the extractor loaded before the first question.
	warm := make([]probeAnswer, len(questions))
	e := openMCPTestEngine(t, db)
	if err := e.LoadEntities(ctx); err != nil {
		t.Fatal(err)
	}
	for i, q := range questions {
		res, err := e.Recall(ctx, engine.RecallRequest{Query: q.text, K: 5})
		if err != nil {
			warm[i] = probeAnswer{Err: err.Error()}
			continue
		}
		for _, h := range res.Hits {
			warm[i].Hits = append(warm[i].Hits, probeHit{Source: string(h.Source), ID: h.ID, Text: h.Text,
				Legs: map[string]float64{"fts": h.Legs.FTS, "entity": h.Legs.Entity, "semantic": h.Legs.Semantic}})
		}
	}
	t.Logf("%d facts, %d questions: seeded in %v, one-shot CLI %v, MCP session %v, warm engine %v",
		len(facts), len(questions), seeded.Round(time.Millisecond), (cliDone - seeded).Round(time.Millisecond),
		(mcpDone - cliDone).Round(time.Millisecond), (time.Since(start) - mcpDone).Round(time.Millisecond))

	var differ, answered, silent []string
	cliVsMCP, cliVsWarm, mcpVsWarm := 0, 0, 0
	entityHits := 0 // hits of the one-shot CLI the entity leg scored
	for i, q := range questions {
		a, b, c := oneShot[i], session[i], warm[i]
		ab := a.Err == "" && b.Err == "" && slices.Equal(a.keys(), b.keys())
		ac := a.Err == "" && c.Err == "" && slices.Equal(a.keys(), c.keys())
		bc := b.Err == "" && c.Err == "" && slices.Equal(b.keys(), c.keys())
		if !ab {
			cliVsMCP++
		}
		if !ac {
			cliVsWarm++
		}
		if !bc {
			mcpVsWarm++
		}
		if !ab || !ac {
			differ = append(differ, fmt.Sprintf("%q\n    (a) one-shot CLI:\n%s\n    (b) fresh MCP session:\n%s\n    (c) warm engine:\n%s",
				q.text, a, b, c))
		}
		if q.unrelated && (len(a.Hits) > 0 || len(b.Hits) > 0 || len(c.Hits) > 0) {
			answered = append(answered, fmt.Sprintf("%q: CLI %v, MCP %v, warm %v", q.text, a.keys(), b.keys(), c.keys()))
		}
		// Agreeing on nothing is no agreement: a question the store answers must be answered.
		// A known miss is held to it too, the other way: once it is answered, it is an ask.
		if !q.unrelated && !q.miss && len(c.Hits) == 0 {
			silent = append(silent, q.text)
		}
		if q.miss && len(c.Hits) > 0 {
			t.Errorf("%q is answered now (%v): make it an ask in surface-questions.tsv", q.text, c.keys())
		}
		for _, h := range a.Hits {
			if h.Legs["entity"] > 0 {
				entityHits++
			}
		}
	}
	if len(silent) > 0 {
		t.Errorf("%d questions the store answers found nothing on the warm engine: %q", len(silent), silent)
	}
	// The point of the store's own entity vocabulary: a one-shot process has the entity leg.
	if entityHits == 0 {
		t.Error("no hit of the one-shot CLI was scored by the entity leg")
	}
	if len(answered) > 0 {
		t.Errorf("%d unrelated questions found something:\n  %s", len(answered), strings.Join(answered, "\n  "))
	}
	if len(differ) > 0 {
		t.Errorf("%d of %d questions get a different top 5 on different surfaces (CLI vs MCP %d, CLI vs warm %d, MCP vs warm %d):\n  %s",
			len(differ), len(questions), cliVsMCP, cliVsWarm, mcpVsWarm, strings.Join(differ, "\n  "))
	}
}

// seedStore writes facts into a new store at db with the entity extractor loaded, sweeps
// until no fact waits for its entity rows, and closes the store.
func seedStore(t *testing.T, ctx context.Context, db string, facts []string) {
	t.Helper()
	e, err := engine.Open(ctx, db, engine.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	if err := e.LoadEntities(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		res, err := e.Remember(ctx, engine.RememberRequest{Text: f})
		if err != nil {
			t.Fatalf("remember %q: %v", f, err)
		}
		if res.Status != engine.StatusAdded {
			t.Fatalf("remember %q: status %s, want added", f, res.Status)
		}
	}
	for pass := 0; ; pass++ {
		rep, err := e.SweepEntities(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Deferred == 0 && rep.Skipped == 0 {
			break
		}
		if pass == 10 {
			t.Fatalf("entity sweep: %+v after %d passes, want nothing deferred", rep, pass+1)
		}
	}
}

// recallMCPSession runs `memdesk --db DB mcp` in process with stdin holding the initialize
// handshake and one recall call (k 5) per question, all at once, and returns each call's
// answer in question order.
func recallMCPSession(t *testing.T, ctx context.Context, lookup func(string) (string, bool), db string, questions []surfaceQuestion) []probeAnswer {
	t.Helper()
	const firstCall = 2 // id 1 is initialize
	var in bytes.Buffer
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i, q := range questions {
		line, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": firstCall + i, "method": "tools/call",
			"params": map[string]any{"name": "recall", "arguments": map[string]any{"query": q.text, "k": 5}},
		})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(line)
		in.WriteByte('\n')
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"--db", db, "mcp"}, streams{in: &in, out: &out, err: &errOut}, lookup); code != 0 {
		t.Fatalf("memdesk mcp: exit %d\n%s", code, errOut.String())
	}
	answers := make([]probeAnswer, len(questions))
	got := make([]bool, len(questions))
	lines := bufio.NewScanner(&out)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var r rpcResponse
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("memdesk mcp: stdout line %q is not a JSON-RPC message: %v", lines.Text(), err)
		}
		i := r.ID - firstCall
		if i < 0 || i >= len(questions) {
			continue
		}
		got[i] = true
		if r.Error != nil {
			answers[i] = probeAnswer{Err: "protocol error: " + r.Error.Message}
			continue
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			answers[i] = probeAnswer{Err: fmt.Sprintf("decode %s: %v", r.Result, err)}
			continue
		}
		if res.IsError {
			answers[i] = probeAnswer{Err: "tool error: " + resultText(&res)}
			continue
		}
		if err := json.Unmarshal([]byte(resultText(&res)), &answers[i]); err != nil {
			answers[i] = probeAnswer{Err: fmt.Sprintf("decode %q: %v", resultText(&res), err)}
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	for i, ok := range got {
		if !ok {
			answers[i] = probeAnswer{Err: "no answer"}
		}
	}
	return answers
}
