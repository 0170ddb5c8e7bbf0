package engine

import (
	"context"
	"errors"
	"testing"
)

// sidedEmbedder has a query side of its own, as a model with a query instruction does: a
// query embeds only through EmbedQuery, a stored text only through Embed.
type sidedEmbedder struct {
	*fakeEmbedder
	queries map[string][]float32
}

func (s *sidedEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	v, ok := s.queries[text]
	if !ok {
		return nil, errors.New("not a known query")
	}
	return append([]float32(nil), v...), nil
}

// TestRecallEmbedsTheQueryOnTheQuerySide: recall asks the embedder's query side for the
// query vector, and the document side for what it stores.
func TestRecallEmbedsTheQueryOnTheQuerySide(t *testing.T) {
	docs := semanticVectors()
	delete(docs, question) // the document side does not know the query
	emb := &sidedEmbedder{fakeEmbedder: newFakeEmbedder("fake/sided@1/4", docs),
		queries: map[string][]float32{question: {0.9, 0.3, 0, 0.1}}}
	e := openSemanticEngine(t, emb, emb.state)
	want := remember(t, e, "", manager)
	remember(t, e, "", build)
	mustEmbedPending(t, e)

	res, err := e.Recall(t.Context(), RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != want || res.Hits[0].Legs.Semantic < 0.9 {
		t.Fatalf("hits = %+v, notes %q; want fact %d found by its query-side vector", res.Hits, res.Notes, want)
	}
	emb.mu.Lock()
	defer emb.mu.Unlock()
	if n := emb.calls[question]; n != 0 {
		t.Errorf("the query went through the document side %d times, want 0", n)
	}
}
