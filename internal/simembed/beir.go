package simembed

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// LoadBEIR registers a benchmark in corpus/queries/qrels JSONL form (the dev sets' layout):
// its documents, and its queries with their relevant documents. Queries without a
// relevant document are left unregistered: they embed on their own direction, as an
// unrelated question should.
func (m *Model) LoadBEIR(dir string) error {
	type line struct {
		ID, Text, QueryID, DocID string
		Relevance                float64
	}
	read := func(name string, fn func(line) error) error {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("simulated model: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var raw struct {
				ID        string  `json:"id"`
				Text      string  `json:"text"`
				Title     string  `json:"title"`
				QueryID   string  `json:"query_id"`
				DocID     string  `json:"doc_id"`
				Relevance float64 `json:"relevance"`
			}
			if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
				return fmt.Errorf("simulated model: %s: %w", name, err)
			}
			text := raw.Text
			if raw.Title != "" {
				text = raw.Title + "\n" + text
			}
			if err := fn(line{ID: raw.ID, Text: text, QueryID: raw.QueryID, DocID: raw.DocID, Relevance: raw.Relevance}); err != nil {
				return err
			}
		}
		return sc.Err()
	}
	if err := read("corpus.jsonl", func(l line) error { m.AddDocument(l.ID, l.Text); return nil }); err != nil {
		return err
	}
	relevant := map[string]map[string]float64{}
	if err := read("qrels.jsonl", func(l line) error {
		if relevant[l.QueryID] == nil {
			relevant[l.QueryID] = map[string]float64{}
		}
		relevant[l.QueryID][l.DocID] = l.Relevance
		return nil
	}); err != nil {
		return err
	}
	return read("queries.jsonl", func(l line) error {
		if rel := relevant[l.ID]; len(rel) > 0 {
			m.AddQuery(l.Text, rel)
		}
		return nil
	})
}
