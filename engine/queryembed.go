package engine

import "context"

// embedQueryAsList embeds a query on the Embedder's query side and answers in Embed's shape
// (one entry, nil when it failed), so the semantic leg reads both sides the same way.
func embedQueryAsList(ctx context.Context, emb Embedder, text string) ([][]float32, error) {
	v, err := emb.EmbedQuery(ctx, text)
	if err != nil {
		return nil, err
	}
	return [][]float32{v}, nil
}
