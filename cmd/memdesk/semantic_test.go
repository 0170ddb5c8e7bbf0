package main

import (
	"bytes"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// runWithOllama runs the CLI with the Ollama host and model set through the environment.
func runWithOllama(t *testing.T, host string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWithModel(t, host, "tiny", args...)
}

// runWithModel is runWithOllama with another model.
func runWithModel(t *testing.T, host, model string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	env := map[string]string{"MEMDESK_CONFIG": cfg, "MEMDESK_OLLAMA_HOST": host, "MEMDESK_OLLAMA_MODEL": model}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, streams{in: strings.NewReader(""), out: &out, err: &errOut}, lookup)
	return code, out.String(), errOut.String()
}

func TestAdminVectorsOverOllama(t *testing.T) {
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "tiny", Dims: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "m.db")
	// Written while Ollama was down, so they have no vectors.
	for _, text := range []string{"the build runs on port 8080", "lunch is at noon"} {
		if code, _, stderr := runWithOllama(t, downHost(t), "--db", db, "remember", text); code != 0 {
			t.Fatalf("remember: exit %d: %s", code, stderr)
		}
	}

	var res struct {
		OK     bool               `json:"ok"`
		Counts map[string]int     `json:"counts"`
		Next   []engine.AdminStep `json:"next"`
	}
	// Problems found: exit 1, and the one fix that fixes them all.
	code, stdout, stderr := runWithOllama(t, srv.Host(), "--db", db, "--json", "admin", "vectors-diagnose")
	if code != 1 || json.Unmarshal([]byte(stdout), &res) != nil || res.OK || res.Counts["stale"] != 2 {
		t.Fatalf("vectors-diagnose = %d %s %s; want exit 1 and 2 stale", code, stdout, stderr)
	}
	if len(res.Next) != 1 || res.Next[0].Action != "vectors-fix" || !res.Next[0].All || !strings.Contains(stderr, "memdesk admin vectors-fix --all") {
		t.Errorf("vectors-diagnose recommends %+v (stderr %q), want vectors-fix --all", res.Next, stderr)
	}
	code, stdout, stderr = runWithOllama(t, srv.Host(), "--db", db, "--json", "admin", "vectors-fix", "--all")
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || !res.OK || res.Counts["reembedded"] != 2 {
		t.Fatalf("vectors-fix = %d %s %s; want 2 re-embedded", code, stdout, stderr)
	}
	code, stdout, _ = runWithOllama(t, srv.Host(), "--db", db, "--json", "admin", "vectors-diagnose")
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || !res.OK || res.Counts["current"] != 2 {
		t.Errorf("vectors-diagnose after the fix = %d %s; want clean", code, stdout)
	}
	// The fix measured the model: stats names its role.
	var st engine.Stats
	code, stdout, _ = runWithOllama(t, srv.Host(), "--db", db, "--json", "stats")
	if code != 0 || json.Unmarshal([]byte(stdout), &st) != nil || st.SemanticRole == "" {
		t.Errorf("stats after the fix = %d %s; want the model's role", code, stdout)
	}
}

// downHost is an address nothing listens on.
func downHost(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close()
	return host
}

func TestAdminVectorsOllamaOffline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close() // nothing listens here now
	code, _, stderr := runWithOllama(t, host, "--db", filepath.Join(t.TempDir(), "m.db"), "admin", "vectors-fix")
	want := "Ollama is not reachable at " + host + ": start it (ollama serve) and run this again"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("vectors-fix offline = exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// TestOneShotSemanticState: recall and stats look at the model (briefly) and say what the
// semantic leg can do, and what to do about it: never "off" with Ollama up and the model in.
func TestOneShotSemanticState(t *testing.T) {
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "tiny", Dims: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "m.db")
	// Written while Ollama was down, so they have no vectors.
	for _, text := range []string{"the build runs on port 8080", "lunch is at noon"} {
		if code, _, stderr := runWithOllama(t, downHost(t), "--db", db, "remember", text); code != 0 {
			t.Fatalf("remember: exit %d: %s", code, stderr)
		}
	}
	semanticOf := func(model string, args ...string) string {
		t.Helper()
		code, stdout, stderr := runWithModel(t, srv.Host(), model, append([]string{"--db", db, "--json"}, args...)...)
		var res struct {
			Semantic string   `json:"semantic"`
			Notes    []string `json:"notes"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
			t.Fatalf("%v: exit %d, %s %s", args, code, stdout, stderr)
		}
		for _, n := range res.Notes {
			if strings.Contains(n, "semantic leg skipped") {
				t.Errorf("%v: note %q", args, n)
			}
		}
		return res.Semantic
	}
	wantStale := "ready, but 2 of 2 facts and chunks have no vector in this model's space yet and are found only by the other legs (run: memdesk admin vectors-fix --all; the app and memdesk mcp embed them in the background)"
	if got := semanticOf("tiny", "stats"); got != wantStale {
		t.Errorf("stats before the fix: semantic %q, want %q", got, wantStale)
	}
	if code, _, stderr := runWithOllama(t, srv.Host(), "--db", db, "admin", "vectors-fix", "--all"); code != 0 {
		t.Fatalf("vectors-fix: exit %d: %s", code, stderr)
	}
	if got := semanticOf("tiny", "stats"); got != "ready" {
		t.Errorf("stats after the fix: semantic %q, want ready", got)
	}
	queries := srv.Requests("/api/embed")
	if got := semanticOf("tiny", "recall", "build port"); got != "ready" {
		t.Errorf("recall after the fix: semantic %q, want ready", got)
	}
	if srv.Requests("/api/embed") == queries {
		t.Error("recall did not embed the query")
	}

	missing := semanticOf("no-such-model", "stats")
	for _, want := range []string{"no-such-model is not installed", "ollama pull no-such-model", "ollama.model"} {
		if !strings.Contains(missing, want) {
			t.Errorf("stats with a model not installed: semantic %q, want it to say %q", missing, want)
		}
	}
	if n := srv.Requests("/api/pull"); n != 0 {
		t.Errorf("a one-shot command pulled the model %d times, want never", n)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	code, stdout, stderr := runWithOllama(t, down, "--db", db, "--json", "stats")
	want := "offline: Ollama is not reachable at " + down + " (start it: ollama serve)"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("stats with Ollama down = exit %d, %s %s; want %q", code, stdout, stderr, want)
	}
}

// TestVectorsDiagnoseOffline: diagnose needs only the database: with Ollama down (or the model
// missing) it counts per stored vector space and says the model was not checked.
func TestVectorsDiagnoseOffline(t *testing.T) {
	srv, err := ollamatest.NewServer(ollamatest.Model{Name: "tiny", Dims: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "m.db")
	for _, text := range []string{"the build runs on port 8080", "lunch is at noon"} {
		if code, _, stderr := runWithOllama(t, srv.Host(), "--db", db, "remember", text); code != 0 {
			t.Fatalf("remember: exit %d: %s", code, stderr)
		}
	}
	if code, _, stderr := runWithOllama(t, srv.Host(), "--db", db, "admin", "vectors-fix", "--all"); code != 0 {
		t.Fatalf("vectors-fix: exit %d: %s", code, stderr)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close() // nothing listens here now
	for _, tt := range []struct{ name, host, model, why string }{
		{"model not installed", srv.Host(), "no-such-model", "no-such-model is not installed"},
		{"ollama down", down, "tiny", "offline: Ollama is not reachable at " + down},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runWithModel(t, tt.host, tt.model, "--db", db, "admin", "vectors-diagnose")
			if code != 0 {
				t.Fatalf("vectors-diagnose: exit %d: %s", code, stderr)
			}
			for _, want := range []string{"could not be checked", tt.why, "vector space v1/ollama/tiny:latest@", ": 2 vectors", "0 have no vector in any space"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("vectors-diagnose said %q, want %q in it", stdout, want)
				}
			}
		})
	}
}
