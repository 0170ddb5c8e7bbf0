package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine/probes"
)

// slowEmbedder answers like inner, but only after delay (or when the caller gives up).
type slowEmbedder struct {
	*fakeEmbedder
	delay atomic.Int64 // nanoseconds
}

func (s *slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-time.After(time.Duration(s.delay.Load())):
		return s.fakeEmbedder.Embed(ctx, texts)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *slowEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return embedOneText(ctx, s, text)
}

// TestRecallDoesNotWaitOnASlowModel: a model that answers slower than recall can wait costs
// the first recall queryEmbedTimeout and each later one slowEmbedTimeout, and one answer on
// time brings the semantic leg back. Every recall answers on the lexical leg meanwhile.
func TestRecallDoesNotWaitOnASlowModel(t *testing.T) {
	vecs := map[string][]float32{}
	for i, p := range probes.Noise() {
		v := make([]float32, 128)
		v[i] = 1
		vecs[p] = v
	}
	for i, p := range probes.Paraphrases() {
		v := make([]float32, 128)
		v[64+i] = 1
		vecs[p[0]], vecs[p[1]] = v, v
	}
	fact := "the build server runs on port 8080"
	v := make([]float32, 128)
	v[120] = 1
	vecs[fact], vecs["build server port"] = v, v
	slow := &slowEmbedder{fakeEmbedder: newFakeEmbedder("fake/slow@1/128", vecs)}
	e := openSemanticEngine(t, slow, slow.state)
	id := remember(t, e, "", fact)
	mustEmbedPending(t, e)

	recall := func() (RecallResult, time.Duration) {
		t.Helper()
		start := time.Now()
		res, err := e.Recall(context.Background(), RecallRequest{Query: "build server port"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Hits[0].ID != id {
			t.Fatalf("recall = %+v, want fact %d", res.Hits, id)
		}
		return res, time.Since(start)
	}
	if res, _ := recall(); res.Hits[0].Legs.Semantic == 0 {
		t.Fatalf("a model on time gave no semantic score: %+v", res.Hits[0])
	}

	slow.delay.Store(int64(5 * time.Second))
	res, took := recall()
	if took >= 2*queryEmbedTimeout || !strings.Contains(strings.Join(res.Notes, " "), "did not answer within") {
		t.Errorf("first recall on a slow model took %s, notes %q; want it bounded near %s and said", took, res.Notes, queryEmbedTimeout)
	}
	for range 3 {
		if _, took := recall(); took >= queryEmbedTimeout {
			t.Errorf("a later recall on a slow model took %s, want about %s", took, slowEmbedTimeout)
		}
	}

	slow.delay.Store(0)
	recall() // on time again: ends the slow window
	if res, _ := recall(); res.Hits[0].Legs.Semantic == 0 {
		t.Errorf("the semantic leg did not come back once the model answered on time: %+v", res.Hits[0])
	}
}
