package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/engine/rank"
)

// recallByMeaning answers a MeaningOnly request: the model's nearest texts by cosine, no
// floor, no other leg. It is how eval measures "the model alone" against the fused legs, and
// how a person can see what the model thinks is close.
func (e *Engine) recallByMeaning(ctx context.Context, req RecallRequest, kinds []string, space string, k int) (RecallResult, error) {
	res := RecallResult{Query: req.Query, Hits: []Hit{}, Semantic: e.opts.SemanticState()}
	plan := leg.PlanQuery(req.Query, e.opts.Now())
	q, fp, _, note := e.queryVector(ctx, plan.SemanticText, req.MeaningWait)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	if q == nil {
		if note == "" {
			res.Notes = append(res.Notes, fmt.Sprintf("meaning-only search needs the semantic leg, which is %s", e.opts.SemanticState()))
		}
		return res, nil
	}
	vectors := vectorSearch{x: &e.vectors, st: e.st, oneShot: !e.semanticRunning.Load()}
	var ranked []rank.Hit
	for _, kind := range kinds {
		near, err := vectors.Nearest(ctx, kind, space, fp, q, k)
		if err != nil {
			return RecallResult{}, err
		}
		for _, h := range near.Hits {
			ranked = append(ranked, rank.Hit{Key: rank.Key{Kind: kind, ID: h.ID}, Score: h.Cos,
				Legs: rank.LegScores{Semantic: h.Cos}})
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Score > ranked[j].Score })
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	shown, err := e.hits(ctx, ranked, nil, req.lang())
	if err != nil {
		return RecallResult{}, err
	}
	res.Hits = append(res.Hits, shown...)
	return res, nil
}
