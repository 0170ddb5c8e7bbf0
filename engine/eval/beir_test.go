package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var docLineCases = []struct {
	name    string
	line    string
	want    Doc
	wantErr error
}{
	{"plain", `{"id": "d1", "text": "Hello world"}`, Doc{ID: "d1", Text: "Hello world"}, nil},
	{"beir _id", `{"_id": "d2", "text": "x"}`, Doc{ID: "d2", Text: "x"}, nil},
	{"numeric id", `{"id": 4983, "text": "x"}`, Doc{ID: "4983", Text: "x"}, nil},
	{"title goes first", `{"id": "d3", "title": "Title", "text": "body"}`, Doc{ID: "d3", Text: "Title body"}, nil},
	{"empty text is a document", `{"id": "d4", "text": ""}`, Doc{ID: "d4", Text: ""}, nil},
	{"chinese", `{"id": "DEV_0-s0", "text": "《战国无双3》是由光荣开发的。"}`, Doc{ID: "DEV_0-s0", Text: "《战国无双3》是由光荣开发的。"}, nil},
	{"extra fields ignored", `{"id": "d5", "text": "x", "metadata": {"a": 1}}`, Doc{ID: "d5", Text: "x"}, nil},
	{"missing id", `{"text": "x"}`, Doc{}, ErrMissingField},
	{"empty id", `{"id": " ", "text": "x"}`, Doc{}, ErrMissingField},
	{"null id", `{"id": null, "text": "x"}`, Doc{}, ErrMissingField},
	{"missing text", `{"id": "d6"}`, Doc{}, ErrMissingField},
	{"text not a string", `{"id": "d7", "text": 3}`, Doc{}, ErrBadJSON},
	{"id an object", `{"id": {}, "text": "x"}`, Doc{}, ErrBadJSON},
	{"truncated", `{"id": "d8", "text": "x`, Doc{}, ErrBadJSON},
	{"not an object", `["d9", "x"]`, Doc{}, ErrBadJSON},
	{"trailing garbage", `{"id": "d10", "text": "x"} y`, Doc{}, ErrBadJSON},
}

func TestParseDocLine(t *testing.T) {
	for _, tc := range docLineCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDocLine([]byte(tc.line))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ParseDocLine(%s) error = %v, want %v", tc.line, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseDocLine(%s) mismatch (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

var queryLineCases = []struct {
	name    string
	line    string
	want    Query
	wantErr error
}{
	{"plain", `{"id": "1", "text": "0-dimensional biomaterials show inductive properties."}`,
		Query{ID: "1", Text: "0-dimensional biomaterials show inductive properties."}, nil},
	{"beir _id", `{"_id": "q2", "text": "锣鼓经是什么？"}`, Query{ID: "q2", Text: "锣鼓经是什么？"}, nil},
	{"missing text", `{"id": "q3"}`, Query{}, ErrMissingField},
	{"missing id", `{"text": "q"}`, Query{}, ErrMissingField},
	{"bad json", `{"id": "q4", text: "q"}`, Query{}, ErrBadJSON},
}

func TestParseQueryLine(t *testing.T) {
	for _, tc := range queryLineCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseQueryLine([]byte(tc.line))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ParseQueryLine(%s) error = %v, want %v", tc.line, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseQueryLine(%s) mismatch (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

var qrelLineCases = []struct {
	name    string
	line    string
	want    Qrel
	wantErr error
}{
	{"plain", `{"query_id": "1", "doc_id": "31715818", "relevance": 1}`, Qrel{QueryID: "1", DocID: "31715818", Relevance: 1}, nil},
	{"numeric ids", `{"query_id": 1, "doc_id": 2, "relevance": 2}`, Qrel{QueryID: "1", DocID: "2", Relevance: 2}, nil},
	{"zero relevance", `{"query_id": "1", "doc_id": "2", "relevance": 0}`, Qrel{QueryID: "1", DocID: "2"}, nil},
	{"missing relevance", `{"query_id": "1", "doc_id": "2"}`, Qrel{}, ErrMissingField},
	{"missing doc", `{"query_id": "1", "relevance": 1}`, Qrel{}, ErrMissingField},
	{"missing query", `{"doc_id": "2", "relevance": 1}`, Qrel{}, ErrMissingField},
	{"relevance a string", `{"query_id": "1", "doc_id": "2", "relevance": "1"}`, Qrel{}, ErrBadJSON},
}

func TestParseQrelLine(t *testing.T) {
	for _, tc := range qrelLineCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseQrelLine([]byte(tc.line))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ParseQrelLine(%s) error = %v, want %v", tc.line, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseQrelLine(%s) mismatch (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

func FuzzParseLine(f *testing.F) {
	for _, tc := range docLineCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range queryLineCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range qrelLineCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if d, err := ParseDocLine(line); err == nil {
			if strings.TrimSpace(d.ID) == "" || !utf8.ValidString(d.ID) {
				t.Errorf("ParseDocLine(%q) = id %q without error", line, d.ID)
			}
		}
		if q, err := ParseQueryLine(line); err == nil && strings.TrimSpace(q.ID) == "" {
			t.Errorf("ParseQueryLine(%q) = empty id without error", line)
		}
		if r, err := ParseQrelLine(line); err == nil && (strings.TrimSpace(r.QueryID) == "" || strings.TrimSpace(r.DocID) == "") {
			t.Errorf("ParseQrelLine(%q) = %+v without error", line, r)
		}
	})
}

// writeBEIR writes a benchmark directory; a file left "" is not written.
func writeBEIR(t *testing.T, corpus, queries, qrels string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{CorpusFile: corpus, QueriesFile: queries, QrelsFile: qrels} {
		if body == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	tinyCorpus = "\uFEFF" + `{"id": "d1", "text": "the cat sat on the mat"}
{"id": "d2", "text": "dogs chase cats"}

{"id": "d3", "text": "老王喜欢简约风格"}
`
	tinyQueries = `{"id": "q1", "text": "cat on a mat"}
{"id": "q2", "text": "老王的风格"}
{"id": "q3", "text": "quantum chromodynamics"}
`
	tinyQrels = `{"query_id": "q1", "doc_id": "d1", "relevance": 1}
{"query_id": "q1", "doc_id": "d2", "relevance": 1}
{"query_id": "q2", "doc_id": "d3", "relevance": 1}
{"query_id": "q3", "doc_id": "d2", "relevance": 0}
`
)

func TestLoadBEIR(t *testing.T) {
	dir := writeBEIR(t, tinyCorpus, tinyQueries, tinyQrels)
	got, err := LoadBEIR(dir)
	if err != nil {
		t.Fatalf("LoadBEIR: %v", err)
	}
	want := &Dataset{
		Name:     "tiny",
		Docs:     []Doc{{"d1", "the cat sat on the mat"}, {"d2", "dogs chase cats"}, {"d3", "老王喜欢简约风格"}},
		Queries:  []Query{{"q1", "cat on a mat"}, {"q2", "老王的风格"}, {"q3", "quantum chromodynamics"}},
		Relevant: map[string]Relevance{"q1": rel("d1", "d2"), "q2": rel("d3")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadBEIR mismatch (-want +got):\n%s", diff)
	}
	if got, want := got.CountUnrelated(), 1; got != want {
		t.Errorf("CountUnrelated() = %d, want %d", got, want)
	}
}

func TestLoadBEIRLongLine(t *testing.T) {
	long := strings.Repeat("word ", 100_000) // 500 kB: far past bufio.Scanner's default
	dir := writeBEIR(t, `{"id": "d1", "text": "`+long+`"}`+"\n", `{"id": "q1", "text": "word"}`, `{"query_id": "q1", "doc_id": "d1", "relevance": 1}`)
	ds, err := LoadBEIR(dir)
	if err != nil {
		t.Fatalf("LoadBEIR: %v", err)
	}
	if got, want := len(ds.Docs[0].Text), len(long); got != want {
		t.Errorf("document length = %d, want %d", got, want)
	}
}

func TestLoadBEIRErrors(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		corpus, queries, qrels string
		wantErr                error
		wantMsg                string
	}{
		{"bad json in corpus", tinyCorpus + "{oops\n", tinyQueries, tinyQrels, ErrBadJSON, "corpus.jsonl:5:"},
		{"duplicate document", tinyCorpus + `{"id": "d2", "text": "again"}`, tinyQueries, tinyQrels, ErrDuplicateID, `corpus.jsonl:5: duplicate id: document "d2"`},
		{"duplicate query", tinyCorpus, tinyQueries + `{"id": "q1", "text": "again"}`, tinyQrels, ErrDuplicateID, `queries.jsonl:4: duplicate id: query "q1"`},
		{"missing text in queries", tinyCorpus, `{"id": "q1"}`, tinyQrels, ErrMissingField, "queries.jsonl:1:"},
		{"qrel with unknown document", tinyCorpus, tinyQueries, tinyQrels + `{"query_id": "q1", "doc_id": "nope", "relevance": 1}`, ErrUnknownID, `qrels.jsonl:5: unknown id: document "nope"`},
		{"qrel with unknown query", tinyCorpus, tinyQueries, `{"query_id": "q9", "doc_id": "d1", "relevance": 1}`, ErrUnknownID, `qrels.jsonl:1: unknown id: query "q9"`},
		{"qrel without relevance", tinyCorpus, tinyQueries, `{"query_id": "q1", "doc_id": "d1"}`, ErrMissingField, "qrels.jsonl:1:"},
		{"no qrels file", tinyCorpus, tinyQueries, "", os.ErrNotExist, "qrels.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadBEIR(writeBEIR(t, tc.corpus, tc.queries, tc.qrels))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("LoadBEIR error = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("LoadBEIR error = %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestScanJSONLTooLong(t *testing.T) {
	err := scanJSONL(strings.NewReader("{}\n"+strings.Repeat("x", 100)+"\n"), "corpus.jsonl", 64, func([]byte) error { return nil })
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("scanJSONL error = %v, want %v", err, ErrLineTooLong)
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("scanJSONL error = %#v, want a *LineError for line 2", err)
	}
}

func TestLoadQueryGroups(t *testing.T) {
	dir := t.TempDir()
	meta := `{"id": "q1", "question_type": "multi-session", "n": 3}
{"id": 7, "question_type": "temporal"}
{"id": "q3"}
`
	if err := os.WriteFile(filepath.Join(dir, QueriesMetaFile), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadQueryGroups(dir, "question_type")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"q1": "multi-session", "7": "temporal"}, got); diff != "" {
		t.Errorf("groups mismatch (-want +got):\n%s", diff)
	}
	if got, err := LoadQueryGroups(dir, "n"); err != nil || got["q1"] != "3" {
		t.Errorf("numeric field: got %v, %v; want q1 -> 3", got, err)
	}
	if _, err := LoadQueryGroups(dir, "categroy"); !errors.Is(err, ErrMissingField) {
		t.Errorf("a field no line has: err = %v, want ErrMissingField", err)
	}
	if _, err := LoadQueryGroups(t.TempDir(), "question_type"); err == nil {
		t.Error("no queries_meta.jsonl: want an error")
	}
}
