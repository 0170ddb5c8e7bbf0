//go:build integration

// Integration tests against a real Ollama server: the testbed in
// ../shared/ollama-testbed serves two small embedding models on loopback.
//
//	../shared/ollama-testbed/testbed.sh build   # once, ~10 minutes
//	../shared/ollama-testbed/testbed.sh models  # once
//	../shared/ollama-testbed/testbed.sh start
//	eval "$(../shared/ollama-testbed/testbed.sh env)"
//	go test -tags integration -race -run Integration -v ./modelboot/
//	../shared/ollama-testbed/testbed.sh stop

package modelboot

import (
	"context"
	"errors"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"go.uber.org/goleak"
)

// testbed returns the server and model named by the testbed's env, or skips.
func testbed(t *testing.T, modelVar string) (host, model string) {
	t.Helper()
	host, model = os.Getenv("OLLAMA_HOST"), os.Getenv(modelVar)
	if host == "" || model == "" {
		t.Skipf("OLLAMA_HOST and %s unset; run ../shared/ollama-testbed/testbed.sh start and eval its env", modelVar)
	}
	return host, model
}

func realSettings(host, model string) Settings {
	return Settings{
		Host: host, Model: model,
		MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, HealthInterval: time.Second,
	}
}

// runReal runs a Boot against the real server until the test ends.
func runReal(t *testing.T, set Settings) *Boot {
	t.Helper()
	b, err := New(set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() { goleak.VerifyNone(t) })
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return b
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s // both unit length
}

func TestIntegrationTinyBert(t *testing.T) {
	host, model := testbed(t, "MEMDESK_TEST_MODEL_TINY")
	b := runReal(t, realSettings(host, model))
	st := waitFor(t, b, "ready", phaseIs(PhaseReady))
	t.Logf("state %+v", st)
	t.Logf("representation %s", b.Representation())
	if st.Dims != 32 || st.ContextLength != 512 || st.Pooling != "mean" || st.Digest == "" {
		t.Errorf("state %+v, want 32 dims, window 512, mean pooling, a digest", st)
	}

	long := strings.Repeat("the quarterly report lists numbers 12345 and names ", 400)
	longCJK := strings.Repeat("老王喜欢简约风格的设计", 200)
	texts := []string{"hello world", "老王喜欢简约风格", long, longCJK, rejectedUncut, ""}
	vecs, err := b.Embed(t.Context(), texts)
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Index != 5 || !errors.Is(err, ErrZeroVector) {
		t.Fatalf("Embed: %v, want only the empty text to fail, with ErrZeroVector", err)
	}
	for i, v := range vecs[:5] {
		if v == nil || len(v) != 32 || math.Abs(norm(v)-1) > 1e-4 {
			t.Errorf("vector %d: len %d norm %.4f, want a 32-dim unit vector", i, len(v), norm(v))
		}
	}
	again, err := b.Embed(t.Context(), texts[:1])
	if err != nil || !sameVector(again[0], vecs[0]) {
		t.Errorf("re-embedding %q gave another vector (err %v)", texts[0], err)
	}
}

// rejectedUncut is an input Ollama 0.17.4 answers 400 "the input length
// exceeds the context length" for with the tiny model, truncation on or not
// (its own truncation goes wrong on the [UNK] tokens); plain long English or
// Chinese text it truncates fine.
var rejectedUncut = strings.Repeat("😀 ", 1000)

// The failure TruncateToWindow guards against: uncut, one input sinks the
// whole batch on the real server.
func TestIntegrationServerRejectsUncutInput(t *testing.T) {
	host, model := testbed(t, "MEMDESK_TEST_MODEL_TINY")
	base, err := hostURL(host)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	c := api.NewClient(base, hc)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	_, err = c.Embed(ctx, &api.EmbedRequest{Model: model, Input: []string{"short", rejectedUncut}})
	t.Logf("uncut batch: err = %v", err)
	if !tooLong(err) {
		t.Errorf("uncut batch: %v, want 400 %q (has the server changed?)", err, "the input length exceeds the context length")
	}
}

func TestIntegrationGloveZeroVectorAndSemantics(t *testing.T) {
	host, model := testbed(t, "MEMDESK_TEST_MODEL_GLOVE")
	b := runReal(t, realSettings(host, model))
	st := waitFor(t, b, "ready", phaseIs(PhaseReady))
	t.Logf("representation %s", b.Representation())
	if st.Dims != 100 {
		t.Errorf("dims %d, want 100", st.Dims)
	}

	texts := []string{"my manager likes a simple style", "老王喜欢简约风格", "cat", "dog", "economy"}
	vecs, err := b.Embed(t.Context(), texts)
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Index != 1 || !errors.Is(err, ErrZeroVector) {
		t.Fatalf("Embed: %v, want only the Chinese text to fail, with ErrZeroVector", err)
	}
	catDog, catEconomy := cosine(vecs[2], vecs[3]), cosine(vecs[2], vecs[4])
	t.Logf("cos(cat, dog) = %.3f, cos(cat, economy) = %.3f", catDog, catEconomy)
	if catDog <= catEconomy {
		t.Errorf("cat is no closer to dog than to economy")
	}
}

func TestIntegrationMissingModelFails(t *testing.T) {
	host, _ := testbed(t, "MEMDESK_TEST_MODEL_TINY")
	b := runReal(t, realSettings(host, "memdesk-no-such-model"))
	st := waitFor(t, b, "failed", phaseIs(PhaseFailed))
	t.Logf("state: %s", st)
}

func TestIntegrationNoServerIsOffline(t *testing.T) {
	testbed(t, "MEMDESK_TEST_MODEL_TINY")
	b := runReal(t, realSettings("127.0.0.1:1", "memdesk-tiny-bert"))
	st := waitFor(t, b, "offline", phaseIs(PhaseOffline))
	t.Logf("state: %s (%s)", st, st.Reason)
}
