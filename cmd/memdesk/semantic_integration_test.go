//go:build integration

// The semantic leg end to end against a real Ollama server, the way a person meets it: the
// memdesk binary, its CLI and its MCP server, with the testbed's two models.
//
//	../shared/ollama-testbed/testbed.sh start
//	eval "$(../shared/ollama-testbed/testbed.sh env)"
//	go test -tags integration -run Integration -v ./cmd/memdesk/

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
)

// testbedModels returns the testbed server and its two models, or skips.
func testbedModels(t *testing.T) (host, tiny, glove string) {
	t.Helper()
	host, tiny, glove = os.Getenv("OLLAMA_HOST"), os.Getenv("MEMDESK_TEST_MODEL_TINY"), os.Getenv("MEMDESK_TEST_MODEL_GLOVE")
	if host == "" || tiny == "" || glove == "" {
		t.Skip("OLLAMA_HOST and MEMDESK_TEST_MODEL_{TINY,GLOVE} unset; run ../shared/ollama-testbed/testbed.sh start and eval its env")
	}
	return host, tiny, glove
}

// TestIntegrationModelSwap: facts embedded under one model, the model changed, diagnose
// names the stale space and the fix, the fix re-embeds, and the MCP server's recall then runs
// on three legs in the new space.
func TestIntegrationModelSwap(t *testing.T) {
	host, tiny, glove := testbedModels(t)
	base := newMemdeskRun(t, memdeskBinary(t))
	texts := []string{"I drive a red car to work", "The cat sleeps on the sofa", "Our team meets every Tuesday morning"}
	for _, text := range texts {
		var res engine.RememberResult
		base.mustJSON(t, &res, "remember", text)
	}

	diagnose := func(r memdeskRun) engine.AdminResult {
		t.Helper()
		var d engine.AdminResult
		// Diagnose exits 1 when it finds problems; its JSON is the report either way.
		cmd, stdout, stderr := r.command("admin", "vectors-diagnose")
		cmd.Run()
		if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
			t.Fatalf("vectors-diagnose: %v\nstdout %s\nstderr %s", err, stdout, stderr)
		}
		return d
	}
	fix := func(r memdeskRun) engine.AdminResult {
		t.Helper()
		var f engine.AdminResult
		r.mustJSON(t, &f, "admin", "vectors-fix", "--all")
		return f
	}

	first := base.withModel(host, tiny)
	if d := diagnose(first); d.Counts["stale"] != len(texts) || d.Counts["space_stale"] != 0 {
		t.Fatalf("before any fix: %v, want %d missing vectors", d.Counts, len(texts))
	}
	if f := fix(first); f.Counts["reembedded"] != len(texts) || f.Counts["remaining"] != 0 {
		t.Fatalf("first fix: %v", f.Counts)
	}
	if d := diagnose(first); !d.OK || d.Counts["current"] != len(texts) {
		t.Fatalf("after the first fix: %+v, want every vector current", d)
	}

	swapped := base.withModel(host, glove)
	d := diagnose(swapped)
	if d.OK || d.Counts["space_stale"] != len(texts) {
		t.Fatalf("after the model change: %v, want %d vectors from another space", d.Counts, len(texts))
	}
	if !strings.Contains(strings.Join(d.Details, "\n"), "memdesk admin vectors-fix") {
		t.Errorf("diagnose does not name the fix: %q", d.Details)
	}
	if f := fix(swapped); f.Counts["reembedded"] != len(texts) || f.Counts["failed"] != 0 {
		t.Fatalf("fix after the change: %v", f.Counts)
	}
	if d := diagnose(swapped); !d.OK || d.Counts["current"] != len(texts) || d.Counts["space_stale"] != 0 {
		t.Fatalf("after the second fix: %+v", d)
	}

	// An agent's recall through the MCP server: the semantic leg comes up in the background
	// and recall answers from the first call, on two legs until it is ready.
	args := []string{"--db", swapped.db, "mcp"}
	cmd := exec.Command(swapped.bin, args...)
	cmd.Env = swapped.env
	client := mcp.NewClient(&mcp.Implementation{Name: "integration", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var res engine.RecallResult
	states := map[string]bool{}
	for deadline := time.Now().Add(time.Minute); ; {
		out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "red car"}})
		if err != nil || out.IsError {
			t.Fatalf("recall: %v %+v", err, out)
		}
		raw, _ := json.Marshal(out.StructuredContent)
		res = engine.RecallResult{}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].ID != 1 {
			t.Fatalf("recall in state %q = %+v, want fact 1 first", res.Semantic, res.Hits)
		}
		states[res.Semantic] = true
		if res.Semantic == "ready" || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if res.Semantic != "ready" {
		t.Fatalf("semantic state never became ready: saw %v", states)
	}
	t.Logf("states seen: %v; hit legs once ready: %+v", states, res.Hits[0].Legs)
	if res.Hits[0].Legs.Semantic <= 0 {
		t.Errorf("fact 1's semantic score = %v once ready: the re-embedded space was not searched", res.Hits[0].Legs.Semantic)
	}
}
