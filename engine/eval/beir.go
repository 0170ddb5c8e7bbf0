package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Sentinel errors of the loader, wrapped in a *LineError that says where.
var (
	ErrBadJSON      = errors.New("bad JSON")
	ErrMissingField = errors.New("missing field")
	ErrDuplicateID  = errors.New("duplicate id")
	ErrUnknownID    = errors.New("unknown id")
	ErrLineTooLong  = errors.New("line too long")
)

// MaxLineBytes bounds one JSONL line. Corpus lines hold whole documents, so the bound is
// generous; a longer line is almost surely not JSONL.
const MaxLineBytes = 64 << 20

// The files of a benchmark directory.
const (
	CorpusFile  = "corpus.jsonl"
	QueriesFile = "queries.jsonl"
	QrelsFile   = "qrels.jsonl"
)

// LineError is a problem with one line of a JSONL file.
type LineError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Doc is one corpus document.
type Doc struct {
	ID   string
	Text string
}

// Query is one benchmark query.
type Query struct {
	ID   string
	Text string
}

// Qrel is one relevance judgement; Relevance > 0 means relevant.
type Qrel struct {
	QueryID   string
	DocID     string
	Relevance float64
}

// Dataset is a loaded benchmark. Relevant holds, per query id, the documents judged
// relevant; a query without any is an unrelated query, which should get no hit at all.
type Dataset struct {
	Name     string
	Docs     []Doc
	Queries  []Query
	Relevant map[string]Relevance
}

// Related reports whether the query has at least one relevant document.
func (d *Dataset) Related(queryID string) bool { return len(d.Relevant[queryID]) > 0 }

// LoadBEIR reads corpus.jsonl, queries.jsonl and qrels.jsonl from dir. The dataset is named
// after the directory.
func LoadBEIR(dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(filepath.Clean(dir)), Relevant: map[string]Relevance{}}
	docIDs := map[string]bool{}
	err := readJSONL(filepath.Join(dir, CorpusFile), func(line []byte) error {
		d, err := ParseDocLine(line)
		if err != nil {
			return err
		}
		if docIDs[d.ID] {
			return fmt.Errorf("%w: document %q appears twice", ErrDuplicateID, d.ID)
		}
		docIDs[d.ID] = true
		ds.Docs = append(ds.Docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	queryIDs := map[string]bool{}
	err = readJSONL(filepath.Join(dir, QueriesFile), func(line []byte) error {
		q, err := ParseQueryLine(line)
		if err != nil {
			return err
		}
		if queryIDs[q.ID] {
			return fmt.Errorf("%w: query %q appears twice", ErrDuplicateID, q.ID)
		}
		queryIDs[q.ID] = true
		ds.Queries = append(ds.Queries, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = readJSONL(filepath.Join(dir, QrelsFile), func(line []byte) error {
		r, err := ParseQrelLine(line)
		if err != nil {
			return err
		}
		if !queryIDs[r.QueryID] {
			return fmt.Errorf("%w: query %q is not in %s", ErrUnknownID, r.QueryID, QueriesFile)
		}
		if !docIDs[r.DocID] {
			return fmt.Errorf("%w: document %q is not in %s", ErrUnknownID, r.DocID, CorpusFile)
		}
		if r.Relevance > 0 {
			if ds.Relevant[r.QueryID] == nil {
				ds.Relevant[r.QueryID] = Relevance{}
			}
			ds.Relevant[r.QueryID][r.DocID] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// readJSONL streams path line by line into fn; blank lines are skipped. An error from fn
// becomes a *LineError naming the file and line.
func readJSONL(path string, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open benchmark file: %w", err)
	}
	defer f.Close()
	return scanJSONL(f, filepath.Base(path), MaxLineBytes, fn)
}

func scanJSONL(r io.Reader, name string, maxLine int, fn func(line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(maxLine, 1<<20)), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return &LineError{File: name, Line: n, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("%w: longer than %d bytes", ErrLineTooLong, maxLine)
		}
		return &LineError{File: name, Line: n + 1, Err: err}
	}
	return nil
}

// id is a JSON string or number: some BEIR exports write numeric ids unquoted.
type id struct {
	set   bool
	value string
}

func (v *id) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = id{set: true, value: s}
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an id must be a string or a number, not %s", clipJSON(b))
	}
	*v = id{set: true, value: n.String()}
	return nil
}

// ParseDocLine parses one corpus line: {"id","text"}, with BEIR's "_id" accepted for "id"
// and an optional "title" put before the text.
func ParseDocLine(line []byte) (Doc, error) {
	var raw struct {
		ID    id      `json:"id"`
		BEIR  id      `json:"_id"`
		Title string  `json:"title"`
		Text  *string `json:"text"`
	}
	if err := decodeLine(line, &raw); err != nil {
		return Doc{}, err
	}
	docID, err := requireID(raw.ID, raw.BEIR, "id")
	if err != nil {
		return Doc{}, err
	}
	if raw.Text == nil {
		return Doc{}, fmt.Errorf("%w: document %q has no \"text\"", ErrMissingField, docID)
	}
	text := *raw.Text
	if t := strings.TrimSpace(raw.Title); t != "" {
		text = t + " " + text
	}
	return Doc{ID: docID, Text: text}, nil
}

// ParseQueryLine parses one queries line: {"id","text"} ("_id" accepted).
func ParseQueryLine(line []byte) (Query, error) {
	var raw struct {
		ID   id      `json:"id"`
		BEIR id      `json:"_id"`
		Text *string `json:"text"`
	}
	if err := decodeLine(line, &raw); err != nil {
		return Query{}, err
	}
	qid, err := requireID(raw.ID, raw.BEIR, "id")
	if err != nil {
		return Query{}, err
	}
	if raw.Text == nil {
		return Query{}, fmt.Errorf("%w: query %q has no \"text\"", ErrMissingField, qid)
	}
	return Query{ID: qid, Text: *raw.Text}, nil
}

// ParseQrelLine parses one qrels line: {"query_id","doc_id","relevance"}.
func ParseQrelLine(line []byte) (Qrel, error) {
	var raw struct {
		QueryID   id       `json:"query_id"`
		DocID     id       `json:"doc_id"`
		Relevance *float64 `json:"relevance"`
	}
	if err := decodeLine(line, &raw); err != nil {
		return Qrel{}, err
	}
	qid, err := requireID(raw.QueryID, id{}, "query_id")
	if err != nil {
		return Qrel{}, err
	}
	did, err := requireID(raw.DocID, id{}, "doc_id")
	if err != nil {
		return Qrel{}, err
	}
	if raw.Relevance == nil {
		return Qrel{}, fmt.Errorf("%w: \"relevance\"", ErrMissingField)
	}
	return Qrel{QueryID: qid, DocID: did, Relevance: *raw.Relevance}, nil
}

func decodeLine(line []byte, v any) error {
	if err := json.Unmarshal(line, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("%w: field %q must be a %s, not %s", ErrBadJSON, typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return fmt.Errorf("%w: %v", ErrBadJSON, err)
	}
	return nil
}

// requireID returns the first set, non-empty id of primary and alt.
func requireID(primary, alt id, name string) (string, error) {
	for _, v := range []id{primary, alt} {
		if v.set && strings.TrimSpace(v.value) != "" {
			return v.value, nil
		}
	}
	if primary.set || alt.set {
		return "", fmt.Errorf("%w: %q is empty", ErrMissingField, name)
	}
	return "", fmt.Errorf("%w: %q", ErrMissingField, name)
}

func clipJSON(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// QueriesMetaFile is a benchmark's optional side file of per-query fields (question type,
// category, answer), one JSON object with an "id" per line.
const QueriesMetaFile = "queries_meta.jsonl"

// LoadQueryGroups reads field of every line of dir's queries_meta.jsonl: query id -> the
// field's value as text (a string as it is, anything else as its JSON). A line without the
// field is left out. It is an error for the file to be missing or for no line to have the
// field: a breakdown over nothing is a typo.
func LoadQueryGroups(dir, field string) (map[string]string, error) {
	groups := map[string]string{}
	err := readJSONL(filepath.Join(dir, QueriesMetaFile), func(line []byte) error {
		var raw map[string]json.RawMessage
		if err := decodeLine(line, &raw); err != nil {
			return err
		}
		var qid id
		if b, ok := raw["id"]; !ok || json.Unmarshal(b, &qid) != nil || !qid.set {
			return fmt.Errorf("%w: \"id\"", ErrMissingField)
		}
		v, ok := raw[field]
		if !ok {
			return nil
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(bytes.TrimSpace(v))
		}
		groups[qid.value] = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: no line of %s has the field %q", ErrMissingField, QueriesMetaFile, field)
	}
	return groups, nil
}
