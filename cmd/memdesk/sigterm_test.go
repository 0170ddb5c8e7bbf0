package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memdesk/memdesk/engine"
)

// TestMCPStopAnswersCallsInFlight: when the server is told to stop (SIGTERM, Ctrl-C) with
// calls running, each is still answered before it returns (issue 27: 0 of 5 were, and
// remembers were committed but never acknowledged). Calls that arrive after the stop are
// refused, not left hanging.
func TestMCPStopAnswersCallsInFlight(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "memdesk", Version: "v0"}, nil)
	var started atomic.Int32
	addTool(s, testLogger(t), &mcp.Tool{Name: "slow", Description: "takes a while"},
		func(ctx context.Context, _ statsArgs) (engine.RememberResult, error) {
			started.Add(1)
			time.Sleep(300 * time.Millisecond) // a write waiting its turn on a busy store
			return engine.RememberResult{FactID: 7}, nil
		})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveMCP(ctx, s, inR, outW) }()
	answers := make(chan string, 16)
	go func() {
		lines := bufio.NewScanner(outR)
		for lines.Scan() {
			answers <- lines.Text()
		}
		close(answers)
	}()
	var req strings.Builder
	req.WriteString(strings.SplitAfter(stdioRequests, "\n")[0])
	req.WriteString(strings.SplitAfter(stdioRequests, "\n")[1])
	for id := 10; id < 15; id++ {
		fmt.Fprintf(&req, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n", id)
	}
	if _, err := io.WriteString(inW, req.String()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for started.Load() < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveMCP: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serveMCP did not return within 30 s of the stop")
	}
	outW.Close()
	got := map[int]bool{}
	for line := range answers {
		for id := 10; id < 15; id++ {
			if strings.Contains(line, fmt.Sprintf(`"id":%d,`, id)) && strings.Contains(line, `"fact_id":7`) {
				got[id] = true
			}
		}
	}
	if len(got) != 5 {
		t.Errorf("%d of the 5 calls in flight were answered after the stop, want all: %v", len(got), got)
	}
}
