package ollamatest_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
	"go.uber.org/goleak"

	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client talks to srv through the official Ollama client, so these tests
// check the fake against the real wire types.
func client(t *testing.T, srv *ollamatest.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return api.NewClient(u, hc)
}

func newServer(t *testing.T, models ...ollamatest.Model) *ollamatest.Server {
	t.Helper()
	srv, err := ollamatest.NewServer(models...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func TestVersionTagsShow(t *testing.T) {
	srv := newServer(t, ollamatest.Model{Name: "tiny", Dims: 8, ContextLength: 256, Pooling: "mean"})
	c := client(t, srv)
	ctx := t.Context()

	v, err := c.Version(ctx)
	if err != nil || v != ollamatest.Version {
		t.Errorf("Version = %q, %v; want %q", v, err, ollamatest.Version)
	}
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].Name != "tiny:latest" || list.Models[0].Digest != srv.Digest("tiny") {
		t.Errorf("List = %+v, want tiny:latest with its digest", list.Models)
	}
	show, err := c.Show(ctx, &api.ShowRequest{Model: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	wantInfo := map[string]any{
		"general.architecture": "bert", "general.parameter_count": 1e6, "bert.block_count": 2.0,
		"bert.embedding_length": 8.0, "bert.context_length": 256.0, "bert.pooling_type": 1.0,
	}
	if diff := cmp.Diff(wantInfo, show.ModelInfo); diff != "" {
		t.Errorf("model_info (-want +got):\n%s", diff)
	}
	if show.Details.Family != "bert" || len(show.Capabilities) != 1 || show.Capabilities[0] != "embedding" {
		t.Errorf("details %+v capabilities %v", show.Details, show.Capabilities)
	}
	_, err = c.Show(ctx, &api.ShowRequest{Model: "absent"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.ErrorMessage != "model 'absent' not found" {
		t.Errorf("Show(absent) error %v, want 404 model 'absent' not found", err)
	}
}

func TestPull(t *testing.T) {
	srv := newServer(t)
	srv.AddPullable(ollamatest.Model{Name: "tiny", Size: 800})
	c := client(t, srv)

	var statuses []string
	var completed []int64
	err := c.Pull(t.Context(), &api.PullRequest{Model: "tiny"}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		if p.Total > 0 {
			if p.Total != 800 || !strings.HasPrefix(p.Digest, "sha256:") {
				t.Errorf("progress %+v, want total 800 and a sha256 digest", p)
			}
			completed = append(completed, p.Completed)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if statuses[0] != "pulling manifest" || statuses[len(statuses)-1] != "success" {
		t.Errorf("statuses %v, want pulling manifest ... success", statuses)
	}
	if len(completed) < 3 || completed[len(completed)-1] != 800 {
		t.Errorf("completed %v, want a climb to 800", completed)
	}
	if srv.Digest("tiny") == "" {
		t.Error("the pulled model is not installed")
	}
}

func TestPullFailures(t *testing.T) {
	srv := newServer(t)
	srv.AddPullable(ollamatest.Model{Name: "tiny"})
	srv.FailPulls(1)
	c := client(t, srv)
	noop := func(api.ProgressResponse) error { return nil }

	if err := c.Pull(t.Context(), &api.PullRequest{Model: "tiny"}, noop); err == nil || !strings.Contains(err.Error(), "max retries exceeded") {
		t.Errorf("failing pull: %v, want max retries exceeded", err)
	}
	if srv.Digest("tiny") != "" {
		t.Error("a failed pull installed the model")
	}
	if err := c.Pull(t.Context(), &api.PullRequest{Model: "unknown"}, noop); err == nil || !strings.Contains(err.Error(), "file does not exist") {
		t.Errorf("pull of an unknown model: %v, want file does not exist", err)
	}
	if err := c.Pull(t.Context(), &api.PullRequest{Model: "tiny"}, noop); err != nil {
		t.Errorf("second pull: %v", err)
	}
}

func TestEmbed(t *testing.T) {
	srv := newServer(t, ollamatest.Model{Name: "tiny", Dims: 8, ContextLength: 16, Vocabulary: []string{"known", "words"}})
	c := client(t, srv)
	ctx := t.Context()

	one, err := c.Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: "known words"})
	if err != nil {
		t.Fatal(err)
	}
	if one.Model != "tiny" || len(one.Embeddings) != 1 || len(one.Embeddings[0]) != 8 || one.PromptEvalCount != 4 {
		t.Errorf("Embed(string) = %+v", one)
	}
	many, err := c.Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: []string{"known", "未知"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(many.Embeddings) != 2 {
		t.Fatalf("Embed([2]) returned %d vectors", len(many.Embeddings))
	}
	for _, x := range many.Embeddings[1] {
		if x != 0 {
			t.Errorf("text without known words embedded to %v, want the zero vector", many.Embeddings[1])
			break
		}
	}
	_, err = c.Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: []string{"known", strings.Repeat("words ", 20)}})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || se.ErrorMessage != ollamatest.MsgTooLong {
		t.Errorf("too long: %v, want 400 %q", err, ollamatest.MsgTooLong)
	}
	if _, err := c.Embed(ctx, &api.EmbedRequest{Model: "absent", Input: "x"}); !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Errorf("absent model: %v, want 404", err)
	}
	empty, err := c.Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: ""})
	if err != nil || len(empty.Embeddings) != 0 {
		t.Errorf("Embed(\"\") = %+v, %v; want no vectors", empty, err)
	}
}

func TestFaults(t *testing.T) {
	srv := newServer(t, ollamatest.Model{Name: "tiny"})
	c := client(t, srv)

	srv.SetDelay("/api/embed", time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: "x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow embed: %v, want deadline exceeded", err)
	}
	srv.SetDelay("/api/embed", 0)

	srv.SetStatus("/api/embed", http.StatusInternalServerError, "boom")
	var se api.StatusError
	if _, err := c.Embed(t.Context(), &api.EmbedRequest{Model: "tiny", Input: "x"}); !errors.As(err, &se) || se.StatusCode != 500 {
		t.Errorf("500 fault: %v", err)
	}
	srv.SetStatus("/api/embed", 0, "")

	srv.Down()
	if _, err := c.Version(t.Context()); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Version while down: %v, want connection refused", err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Version(t.Context()); err != nil {
		t.Errorf("Version after Up: %v", err)
	}
	if got := srv.Requests("/api/version"); got != 1 {
		t.Errorf("Requests(/api/version) = %d, want 1", got)
	}
}

func TestEmbeddingIsDeterministic(t *testing.T) {
	a, b := ollamatest.Embedding("the manager likes simple style", 32), ollamatest.Embedding("the manager likes simple style", 32)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two embeddings of one text differ:\n%s", diff)
	}
	if got := ollamatest.Tokens("Hello, 老王! x2"); cmp.Diff([]string{"hello", ",", "老", "王", "!", "x2"}, got) != "" {
		t.Errorf("Tokens = %q", got)
	}
}

func TestFailAfter(t *testing.T) {
	srv := newServer(t, ollamatest.Model{Name: "tiny"})
	c := client(t, srv)
	srv.FailAfter("/api/embed", 2, 2, http.StatusInternalServerError, "llama runner process has terminated")

	var got []int
	for range 6 {
		code := http.StatusOK
		if _, err := c.Embed(t.Context(), &api.EmbedRequest{Model: "tiny", Input: "x"}); err != nil {
			var se api.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("embed: %v, want a status error", err)
			}
			code = se.StatusCode
		}
		got = append(got, code)
	}
	want := []int{200, 200, 500, 500, 200, 200}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses of six embeds (-want +got):\n%s", diff)
	}
}

func TestCutPulls(t *testing.T) {
	srv := newServer(t)
	srv.AddPullable(ollamatest.Model{Name: "tiny"})
	srv.CutPulls(1)
	c := client(t, srv)
	var statuses []string
	err := c.Pull(t.Context(), &api.PullRequest{Model: "tiny"}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		return nil
	})
	// The ollama client ends quietly when the stream breaks: no error, no "success".
	if err != nil || len(statuses) == 0 || statuses[len(statuses)-1] == "success" {
		t.Errorf("cut pull: err %v, statuses %q; want nil and no success", err, statuses)
	}
	if srv.Digest("tiny") != "" {
		t.Error("a cut pull installed the model")
	}
	statuses = nil
	if err := c.Pull(t.Context(), &api.PullRequest{Model: "tiny"}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		return nil
	}); err != nil || statuses[len(statuses)-1] != "success" {
		t.Errorf("second pull: err %v, statuses %q; want success", err, statuses)
	}
}

func TestZeroVectors(t *testing.T) {
	srv := newServer(t, ollamatest.Model{Name: "tiny", Dims: 4})
	c := client(t, srv)
	srv.SetZeroVectors(true)
	got, err := c.Embed(t.Context(), &api.EmbedRequest{Model: "tiny", Input: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{{0, 0, 0, 0}, {0, 0, 0, 0}}, got.Embeddings); diff != "" {
		t.Errorf("embeddings while zero (-want +got):\n%s", diff)
	}
	srv.SetZeroVectors(false)
	got, err = c.Embed(t.Context(), &api.EmbedRequest{Model: "tiny", Input: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{ollamatest.Embedding("a", 4)}, got.Embeddings); diff != "" {
		t.Errorf("embeddings after zero (-want +got):\n%s", diff)
	}
}

// TestSerial: inputs are computed one at a time in arrival order across requests, and a
// request whose client gave up leaves the queue to the ones after it.
func TestSerial(t *testing.T) {
	srv := newServer(t, ollamatest.Model{Name: "tiny", Dims: 8})
	c := client(t, srv)
	held, release := make(chan struct{}), make(chan struct{})
	srv.SetSerial(true, func(in string) {
		if in == "a1" {
			close(held)
			<-release
		}
	})
	waitQueue := func(want []string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !cmp.Equal(srv.Queue(), want) {
			if time.Now().After(deadline) {
				close(release)
				t.Fatalf("Queue() = %q, want %q", srv.Queue(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	embed := func(ctx context.Context, inputs ...string) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := c.Embed(ctx, &api.EmbedRequest{Model: "tiny", Input: inputs})
			done <- err
		}()
		return done
	}
	a := embed(t.Context(), "a1", "a2")
	<-held
	gone, cancel := context.WithCancel(t.Context())
	b := embed(gone, "b1", "b2")
	waitQueue([]string{"a1", "a2", "b1", "b2"})
	cancel()
	if err := <-b; err == nil {
		t.Error("the cancelled request answered")
	}
	waitQueue([]string{"a1", "a2"})
	cc := embed(t.Context(), "c1")
	waitQueue([]string{"a1", "a2", "c1"})
	close(release)
	if err := <-a; err != nil {
		t.Errorf("first request: %v", err)
	}
	if err := <-cc; err != nil {
		t.Errorf("request after the cancelled one: %v", err)
	}
	if got, want := srv.Computed(), []string{"a1", "a2", "c1"}; !cmp.Equal(got, want) {
		t.Errorf("Computed() = %q, want %q", got, want)
	}
}
