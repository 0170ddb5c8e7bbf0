package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLegs(t *testing.T) {
	tests := []struct {
		in                 string
		entities, semantic bool
		wantErr            string
	}{
		{"fts,entity", true, false, ""},
		{"fts", false, false, ""},
		{" lexical , entity ", true, false, ""},
		{"fts,entity,semantic", true, true, ""},
		{"entity", false, false, "must include fts"},
		{"fts,vibes", false, false, "unknown leg"},
	}
	for _, tc := range tests {
		ent, sem, err := parseLegs(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseLegs(%q) err = %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || ent != tc.entities || sem != tc.semantic {
			t.Errorf("parseLegs(%q) = %v, %v, %v; want entities %v semantic %v", tc.in, ent, sem, err, tc.entities, tc.semantic)
		}
	}
}

// writeTinyBEIR writes a three-query benchmark (one unrelated query) with a question-type
// side file to a new directory.
func writeTinyBEIR(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("corpus.jsonl", `{"id":"d1","text":"老王喜欢简约风格的家具"}
{"id":"d2","text":"CI uses Python 3.12 on every pull request"}
{"id":"d3","text":"The staging cluster runs in Frankfurt"}
`)
	write("queries.jsonl", `{"id":"q1","text":"老王喜欢什么风格"}
{"id":"q2","text":"which python version does CI use"}
{"id":"q3","text":"submarine volcano eruption"}
`)
	write("qrels.jsonl", `{"query_id":"q1","doc_id":"d1","relevance":1}
{"query_id":"q2","doc_id":"d2","relevance":1}
`)
	write("queries_meta.jsonl", `{"id":"q1","kind":"zh"}
{"id":"q2","kind":"en"}
{"id":"q3","kind":"en"}
`)
	return dir
}

// TestEvalPerQueryAndBreakdown: --per-query writes one line per query with its hits, which
// hits are relevant and why they came back; --breakdown groups the metrics by a side field.
func TestEvalPerQueryAndBreakdown(t *testing.T) {
	dir := writeTinyBEIR(t)
	trace := filepath.Join(t.TempDir(), "q.jsonl")
	var out, errOut bytes.Buffer
	env := map[string]string{"MEMDESK_CONFIG": filepath.Join(t.TempDir(), "config.toml")}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := run(context.Background(), []string{"--json", "eval", "--beir", dir, "--legs", "fts",
		"--breakdown", "kind", "--per-query", trace}, streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup)
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errOut.String())
	}
	var rep struct {
		Breakdown map[string]struct {
			Recall10 float64  `json:"recall@10"`
			Empty    *float64 `json:"empty_rate_unrelated"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out.String())
	}
	if rep.Breakdown["zh"].Recall10 != 1 || rep.Breakdown["en"].Recall10 != 1 {
		t.Errorf("breakdown = %+v; want recall@10 1 for zh and en", rep.Breakdown)
	}
	if e := rep.Breakdown["en"].Empty; e == nil || *e != 1 {
		t.Errorf("breakdown en empty rate = %v, want 1 (q3 is unrelated and empty)", e)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("per-query file has %d lines, want 3:\n%s", len(lines), b)
	}
	var first struct {
		ID   string
		Hits []struct {
			Docs     []string
			Relevant bool
			Why      string
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.ID != "q1" || len(first.Hits) == 0 || !cmp.Equal(first.Hits[0].Docs, []string{"d1"}) ||
		!first.Hits[0].Relevant || first.Hits[0].Why == "" {
		t.Errorf("first per-query line = %+v; want q1 with d1 first, relevant, with a why", first)
	}
	code = run(context.Background(), []string{"eval", "--beir", dir, "--breakdown", "nosuchfield"},
		streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup)
	if code != 2 {
		t.Errorf("--breakdown over a field no query has: exit %d, want 2 (usage)", code)
	}
}

// TestEvalBEIRLexicalOnly runs `memdesk --json eval --beir DIR --legs fts --baseline` on a
// tiny benchmark written here and checks the report the README's table comes from.
func TestEvalBEIRLexicalOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("corpus.jsonl", `{"id":"d1","text":"老王喜欢简约风格的家具"}
{"id":"d2","text":"CI uses Python 3.12 on every pull request"}
{"id":"d3","text":"The staging cluster runs in Frankfurt"}
`)
	write("queries.jsonl", `{"id":"q1","text":"老王喜欢什么风格"}
{"id":"q2","text":"which python version does CI use"}
{"id":"q3","text":"submarine volcano eruption"}
`)
	write("qrels.jsonl", `{"query_id":"q1","doc_id":"d1","relevance":1}
{"query_id":"q2","doc_id":"d2","relevance":1}
`)
	var out, errOut bytes.Buffer
	env := map[string]string{"MEMDESK_CONFIG": filepath.Join(t.TempDir(), "config.toml")}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := run(context.Background(), []string{"--json", "eval", "--beir", dir, "--legs", "fts", "--baseline"},
		streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup)
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errOut.String())
	}
	var rep struct {
		NQueries   int      `json:"n_queries"`
		NUnrelated int      `json:"n_unrelated"`
		Legs       []string `json:"legs"`
		Metrics    map[string]*float64
		Baseline   *struct{ Metrics map[string]*float64 }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out.String())
	}
	if rep.NQueries != 3 || rep.NUnrelated != 1 || !cmp.Equal(rep.Legs, []string{"fts"}) || rep.Baseline == nil {
		t.Fatalf("report = %+v; want 3 queries, 1 unrelated, legs [fts], a baseline", rep)
	}
	if r := rep.Metrics["recall@10"]; r == nil || *r != 1 {
		t.Errorf("recall@10 = %v, want 1: both answerable queries find their document", r)
	}
	if e := rep.Metrics["empty_rate_unrelated"]; e == nil || *e != 1 {
		t.Errorf("empty_rate_unrelated = %v, want 1: the unrelated query comes back empty", e)
	}
}
