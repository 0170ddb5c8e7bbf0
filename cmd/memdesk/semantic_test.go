package main

import (
	"bytes"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

// runWithOllama runs the CLI with the Ollama host and model set through the environment.
func runWithOllama(t *testing.T, host string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	env := map[string]string{"MEMDESK_CONFIG": cfg, "MEMDESK_OLLAMA_HOST": host, "MEMDESK_OLLAMA_MODEL": "tiny"}
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
	for _, text := range []string{"the build runs on port 8080", "lunch is at noon"} {
		if code, _, stderr := runWithOllama(t, srv.Host(), "--db", db, "remember", text); code != 0 {
			t.Fatalf("remember: exit %d: %s", code, stderr)
		}
	}
	if n := srv.Requests("/api/version"); n != 0 {
		t.Errorf("short commands reached Ollama %d times, want 0", n)
	}

	var res struct {
		OK     bool           `json:"ok"`
		Counts map[string]int `json:"counts"`
	}
	code, stdout, stderr := runWithOllama(t, srv.Host(), "--db", db, "--json", "admin", "vectors-diagnose")
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.OK || res.Counts["stale"] != 2 {
		t.Fatalf("vectors-diagnose = %d %s %s; want 2 stale", code, stdout, stderr)
	}
	code, stdout, stderr = runWithOllama(t, srv.Host(), "--db", db, "--json", "admin", "vectors-fix", "--all")
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || !res.OK || res.Counts["reembedded"] != 2 {
		t.Fatalf("vectors-fix = %d %s %s; want 2 re-embedded", code, stdout, stderr)
	}
	code, stdout, _ = runWithOllama(t, srv.Host(), "--db", db, "--json", "admin", "vectors-diagnose")
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || !res.OK || res.Counts["current"] != 2 {
		t.Errorf("vectors-diagnose after the fix = %d %s; want clean", code, stdout)
	}
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
