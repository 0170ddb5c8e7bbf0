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
