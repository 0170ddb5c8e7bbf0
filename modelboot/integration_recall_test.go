//go:build integration

// The Ollama fault matrix's real-server row: a real `ollama serve` killed in the middle of a
// recall loop. The test starts a server of its own (the testbed's binary, a models folder
// and a port of its own) so that killing it never disturbs a testbed someone else runs:
//
//	../shared/ollama-testbed/testbed.sh build    # once
//	../shared/ollama-testbed/testbed.sh models   # once
//	go test -tags integration -race -run IntegrationServerKilled -v ./modelboot/

package modelboot_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/modelboot"
)

// ownOllama starts `ollama serve` from the testbed on a free loopback port with an empty
// models folder, registers memdesk-tiny-bert in it, and returns its host and process. The
// process is killed when the test ends if the test has not killed it.
func ownOllama(t *testing.T) (host string, server *exec.Cmd) {
	t.Helper()
	tb := os.Getenv("MEMDESK_TESTBED")
	if tb == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Skip("no home directory to find the testbed in; set MEMDESK_TESTBED")
		}
		tb = filepath.Join(home, ".cache", "memdesk-ollama-testbed")
	}
	bin, gguf := filepath.Join(tb, "bin", "ollama"), filepath.Join(tb, "gguf", "tiny-bert.gguf")
	for _, p := range []string{bin, gguf} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s missing: run ../shared/ollama-testbed/testbed.sh build and models", p)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host = ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "OLLAMA_HOST="+host,
		"OLLAMA_MODELS="+filepath.Join(dir, "models"))
	server = exec.Command(bin, "serve")
	server.Env = env
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	server.Stdout, server.Stderr = log, log
	if err := server.Start(); err != nil {
		t.Fatalf("start ollama serve: %v", err)
	}
	t.Cleanup(func() {
		if server.ProcessState == nil {
			server.Process.Kill()
			server.Wait()
		}
		log.Close()
	})
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get("http://" + host + "/api/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ollama serve did not answer within 30 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	modelfile := filepath.Join(dir, "tiny-bert.Modelfile")
	if err := os.WriteFile(modelfile, []byte("FROM "+gguf+"\nPARAMETER num_thread 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	create := exec.Command(bin, "create", "memdesk-tiny-bert", "-f", modelfile)
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create: %v\n%s", err, out)
	}
	return host, server
}

// TestIntegrationServerKilledDuringRecall brings the semantic leg up on a real server, then
// SIGKILLs the server in the middle of a loop of recalls: every recall must still return the
// lexical answer, none may wait on the dead server (each under the engine's 2 s query
// timeout), the state must turn offline, and nothing may leak once the engine and the
// bootstrap are closed.
func TestIntegrationServerKilledDuringRecall(t *testing.T) {
	host, server := ownOllama(t)
	leaks := goleak.IgnoreCurrent()
	boot, err := modelboot.New(modelboot.Settings{Host: host, Model: "memdesk-tiny-bert"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- boot.Run(ctx) }()
	e, err := engine.Open(ctx, filepath.Join(t.TempDir(), "memdesk.db"), engine.Options{
		Embedder:      modelboot.Retrieval{Boot: boot},
		SemanticState: func() string { return boot.State().String() },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Errorf("close engine: %v", err)
		}
		cancel()
		if err := <-runDone; err != nil {
			t.Errorf("Run: %v", err)
		}
		goleak.VerifyNone(t, leaks)
	}()

	res, err := e.Remember(ctx, engine.RememberRequest{Text: "the build server listens on port 8080"})
	if err != nil {
		t.Fatal(err)
	}
	target := res.FactID
	for i := range 10 {
		if _, err := e.Remember(ctx, engine.RememberRequest{Text: fmt.Sprintf("note %d about lunch at noon", i)}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rep, err := e.EmbedPending(ctx, 0)
		if err == nil && rep.Remaining == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the semantic leg did not come up: state %s, %+v, %v", boot.State(), rep, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	const recalls, killAt = 60, 10
	var lat []time.Duration
	states := map[string]int{}
	for i := range recalls {
		if i == killAt {
			if err := server.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			server.Wait()
		}
		start := time.Now()
		got, err := e.Recall(ctx, engine.RecallRequest{Query: "build server port"})
		took := time.Since(start)
		lat = append(lat, took)
		if err != nil {
			t.Fatalf("recall %d: %v", i, err)
		}
		if len(got.Hits) == 0 || got.Hits[0].ID != target || got.Hits[0].Legs.FTS <= 0 {
			t.Fatalf("recall %d (semantic %q) = %+v; want fact %d from the lexical leg", i, got.Semantic, got.Hits, target)
		}
		if took >= 2*time.Second {
			t.Errorf("recall %d took %s with semantic %q: it waited on the dead server", i, took, got.Semantic)
		}
		states[got.Semantic]++
		if i >= killAt+20 && got.Semantic == "offline" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Recall's failed embed asks the bootstrap to look at once; give it its probe timeout.
	wait := time.Now().Add(10 * time.Second)
	for boot.State().Phase != modelboot.PhaseOffline && time.Now().Before(wait) {
		time.Sleep(20 * time.Millisecond)
	}
	if st := boot.State(); st.Phase != modelboot.PhaseOffline || !strings.Contains(st.Reason, "refused") {
		t.Errorf("state after the kill %q (%s), want offline: connection refused", st, st.Reason)
	}
	if _, err := e.EmbedPending(ctx, 0); !errors.Is(err, engine.ErrSemanticOff) {
		t.Errorf("EmbedPending after the kill: %v, want ErrSemanticOff", err)
	}
	var before, after []time.Duration
	before, after = lat[:killAt], lat[killAt:]
	t.Logf("recall before the kill: max %s over %d; after: max %s over %d; states reported %v",
		maxDuration(before), len(before), maxDuration(after), len(after), states)
}

func maxDuration(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
