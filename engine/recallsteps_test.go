package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSkipMeaningNeverAsksTheModel: a SkipMeaning recall answers from the lexical and
// entity legs without embedding the query and says the model could add to it; the same
// request without SkipMeaning is the full recall, which finds the fact by meaning.
func TestSkipMeaningNeverAsksTheModel(t *testing.T) {
	const lexical = "the manager likes green tea"
	vecs := semanticVectors()
	vecs[lexical] = []float32{0, 0, 0, 1} // cosine ≈ 0.1 with the question: found by its words only
	emb := newFakeEmbedder("fake/steps@1/4", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	byMeaning := remember(t, e, "", manager)
	byWords := remember(t, e, "", lexical)
	mustEmbedPending(t, e)
	ctx := context.Background()
	ids := func(res RecallResult) map[int64]bool {
		got := map[int64]bool{}
		for _, h := range res.Hits {
			got[h.ID] = true
		}
		return got
	}

	first, err := e.Recall(ctx, RecallRequest{Query: question, SkipMeaning: true})
	if err != nil {
		t.Fatal(err)
	}
	emb.set(func(f *fakeEmbedder) {
		if n := f.calls[question]; n != 0 {
			t.Errorf("the model embedded the query %d times for a SkipMeaning recall, want never", n)
		}
	})
	if got := ids(first); !got[byWords] || got[byMeaning] || !first.MeaningLeft {
		t.Errorf("SkipMeaning recall: hits %v, meaning left %v; want fact %d, not %d, and meaning left", got, first.MeaningLeft, byWords, byMeaning)
	}
	for _, h := range first.Hits {
		if h.Legs.Semantic != 0 {
			t.Errorf("SkipMeaning hit %d has semantic score %v, want none", h.ID, h.Legs.Semantic)
		}
	}

	full, err := e.Recall(ctx, RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(full); !got[byWords] || !got[byMeaning] || full.MeaningLeft {
		t.Errorf("full recall: hits %v, meaning left %v; want facts %d and %d, nothing left", got, full.MeaningLeft, byWords, byMeaning)
	}

	// With the model down there is nothing for a second step to add.
	emb.set(func(f *fakeEmbedder) { f.down = true })
	off, err := e.Recall(ctx, RecallRequest{Query: question, SkipMeaning: true})
	if err != nil {
		t.Fatal(err)
	}
	if off.MeaningLeft {
		t.Errorf("SkipMeaning recall with the model down says meaning is left, want not")
	}
}

func TestSkipMeaningWithMeaningOnlyIsABadRequest(t *testing.T) {
	emb := newFakeEmbedder("fake/steps@1/4", semanticVectors())
	e := openSemanticEngine(t, emb, emb.state)
	_, err := e.Recall(context.Background(), RecallRequest{Query: question, SkipMeaning: true, MeaningOnly: true})
	if !errors.Is(err, ErrBadRequest) {
		t.Errorf("Recall(SkipMeaning and MeaningOnly) error = %v, want ErrBadRequest", err)
	}
}

// lateQueryEmbedder answers the question's embedding only after the engine's usual bound on
// it has passed: a model that is slow but not down.
type lateQueryEmbedder struct{ *fakeEmbedder }

func (l lateQueryEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if text == question {
		select {
		case <-time.After(queryEmbedTimeout + 300*time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return l.fakeEmbedder.EmbedQuery(ctx, text)
}

// TestMeaningWaitOutlastsASlowModel: the window's second step (RecallRequest.MeaningWait)
// waits for a model slower than the bound a surface someone waits on gives it, and gets the
// hit found by meaning; the same recall without it gives up and says why.
func TestMeaningWaitOutlastsASlowModel(t *testing.T) {
	fake := newFakeEmbedder("fake/late@1/4", semanticVectors())
	emb := lateQueryEmbedder{fake}
	e := openSemanticEngine(t, emb, fake.state)
	byMeaning := remember(t, e, "", manager)
	mustEmbedPending(t, e)
	has := func(res RecallResult) bool {
		for _, h := range res.Hits {
			if h.ID == byMeaning {
				return true
			}
		}
		return false
	}
	ctx := context.Background()

	waited, err := e.Recall(ctx, RecallRequest{Query: question, MeaningWait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !has(waited) {
		t.Errorf("recall with MeaningWait: hits %+v, notes %v; want fact %d found by meaning", waited.Hits, waited.Notes, byMeaning)
	}

	usual, err := e.Recall(ctx, RecallRequest{Query: question})
	if err != nil {
		t.Fatal(err)
	}
	if has(usual) || !strings.Contains(strings.Join(usual.Notes, "\n"), "did not answer within") {
		t.Errorf("recall without MeaningWait: hits %+v, notes %q; want no hit by meaning and a note that the model was late", usual.Hits, usual.Notes)
	}
}
