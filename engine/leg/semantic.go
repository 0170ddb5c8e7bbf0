package leg

import (
	"context"
	"math"

	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/rank"
)

// VectorIndex is the vector index as the semantic leg reads it: the engine's in-memory
// snapshots of each vector space, whose lifecycle (loading, catching up, the model's
// calibration) stays with the engine.
type VectorIndex interface {
	// Nearest returns the limit vectors of kind in space, in vector space fingerprint,
	// closest to the unit vector q, with no floor applied.
	Nearest(ctx context.Context, kind, space, fingerprint string, q []float32, limit int) (Nearest, error)
}

// Nearest is one vector search.
type Nearest struct {
	// Hits are the closest vectors by exact cosine, best first (ties by id).
	Hits []VectorHit
	// All are the query's cosines with every vector of the space.
	All rank.CosineStats
	// Noise is the space's own noise floor (0: too few texts to measure).
	Noise float64
}

// VectorHit is one text the vector search found.
type VectorHit struct {
	ID  int64
	Cos float64
}

// Owners says what the lexical index knows of texts no lexical or entity match brought
// (*lexicon.Index): their time and length, without reading the store.
type Owners interface {
	Describe(kind string, ids []int64) map[int64]lexicon.Owner
}

// Semantic is the semantic leg: the texts whose vectors are nearest the query's. Its
// floors and its role (supporting or leading) are decided in package rank (semantic.go);
// the leg keeps only what could clear the loosest floor.
type Semantic struct {
	Vectors VectorIndex
	Owners  Owners
	// Floors are the strict floors, of which the loosest semantic one bounds what is kept.
	Floors rank.Floors
}

// Gather records in into the candidates above the loosest semantic floor with their cosine
// (for a model with a say: its nearest, whatever their cosine), the noise floor of the space
// (the larger of the model's and the space's own), and, where it keeps them all, the query's
// cosine statistics over the rest of the space: the chance level ranking holds its finds to
// and trusts its vector by. It does nothing when the plan has no query vector.
func (l Semantic) Gather(ctx context.Context, plan Plan, sc Scope, into *rank.Source) error {
	q := plan.Semantic
	if q.Vec == nil {
		return nil
	}
	near, err := l.Vectors.Nearest(ctx, sc.Kind, sc.Space, q.Fingerprint, q.Vec, sc.Limit)
	if err != nil {
		return err
	}
	noise := max(q.Noise, near.Noise)
	floor := rank.LoosestSemanticFloor(l.Floors, noise, q.Model)
	cosines := map[rank.Key]float64{}
	var missing []int64
	for _, h := range near.Hits {
		if h.Cos >= floor && h.Cos > 0 {
			key := rank.Key{Kind: sc.Kind, ID: h.ID}
			cosines[key] = h.Cos
			if _, ok := into.Candidates[key]; !ok {
				missing = append(missing, h.ID)
			}
		}
	}
	into.Semantic, into.SemanticNoise = cosines, noise
	if floor == 0 {
		into.SemanticStats = withoutBest(near.All, near.Hits, statsExcluded(near.All.N, sc.Limit))
	}
	for id, o := range l.Owners.Describe(sc.Kind, missing) {
		into.Candidates[rank.Key{Kind: sc.Kind, ID: id}] = rank.Candidate{CreatedAt: o.CreatedAt, TextLen: o.TextLen}
	}
	return nil
}

// statsExcluded is how many of a space's best candidates are left out of the query's
// statistics: the texts about the query would raise the chance level they are held to. It
// is at most limit, the candidates searched.
func statsExcluded(n, limit int) int { return min(limit, max(10, n/100)) }

// withoutBest removes the best `exclude` of hits (best first) from the statistics of a
// query's cosines with the whole space.
func withoutBest(all rank.CosineStats, hits []VectorHit, exclude int) rank.CosineStats {
	n := float64(all.N)
	sum := all.Mean * n
	sumSq := (all.SD*all.SD + all.Mean*all.Mean) * n
	for _, h := range hits[:min(exclude, len(hits))] {
		sum -= h.Cos
		sumSq -= h.Cos * h.Cos
		n--
	}
	if n < 2 {
		return rank.CosineStats{}
	}
	mean := sum / n
	return rank.CosineStats{N: int(n), Mean: mean, SD: math.Sqrt(max(sumSq/n-mean*mean, 0))}
}
