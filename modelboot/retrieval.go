package modelboot

import (
	"context"
	"errors"
)

// Retrieval presents a Boot the way a retrieval index wants it: an input that embeds to the
// zero vector comes back as an empty vector (no semantic evidence, not a failure), other
// failed inputs as nil (try again later), and the vector space is named only once the model
// is ready. It satisfies memdesk's engine.Embedder without either package knowing the other.
type Retrieval struct{ Boot *Boot }

// Embed embeds texts; see Retrieval for what failed inputs become.
func (r Retrieval) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := r.Boot.Embed(ctx, texts)
	var be *BatchError
	if errors.As(err, &be) {
		for _, f := range be.Failed {
			if errors.Is(f.Err, ErrZeroVector) && f.Index < len(vecs) {
				vecs[f.Index] = []float32{}
			}
		}
	}
	return vecs, err
}

// EmbedQuery embeds a search query on the query side; a query that embeds to the zero vector
// comes back as an empty vector with no error.
func (r Retrieval) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := r.Boot.EmbedQuery(ctx, text)
	if errors.Is(err, ErrZeroVector) {
		return []float32{}, nil
	}
	return v, err
}

// Fingerprint is the declared representation once the model is ready, "" before.
func (r Retrieval) Fingerprint() string {
	if st := r.Boot.State(); st.Phase != PhaseReady || st.Dims == 0 {
		return ""
	}
	return r.Boot.Representation().String()
}

// Ready reports whether the model answers embeddings now.
func (r Retrieval) Ready() bool { return r.Boot.State().Phase == PhaseReady }
