package engine

import (
	"sort"

	"github.com/memdesk/memdesk/store"
)

// legScore is one leg's raw score for one candidate.
type legScore struct {
	key candidateKey
	raw float64
}

// candidateKey identifies a fact or a chunk.
type candidateKey struct {
	kind string
	id   int64
}

// headNormalize divides each raw score by the leg's best in this query, so every leg's head
// is 1.0 whatever its scale (bm25, Jaccard, cosine). Non-positive and non-finite scores are
// dropped: they are no evidence.
func headNormalize(scores []legScore) map[candidateKey]float64 {
	var head float64
	for _, s := range scores {
		if s.raw > head && s.raw < inf {
			head = s.raw
		}
	}
	out := make(map[candidateKey]float64, len(scores))
	if head <= 0 {
		return out
	}
	for _, s := range scores {
		if s.raw > 0 && s.raw < inf {
			out[s.key] = max(out[s.key], s.raw/head)
		}
	}
	return out
}

const inf = 1e308

// fused is a candidate's combined score.
type fused struct {
	key   candidateKey
	score float64
}

// fuse adds each leg's head-normalized scores times the leg's weight, then sorts by score,
// memories before knowledge, then id, so equal scores always come out in the same order. The
// fused number is only comparable within one query: never threshold on it.
func fuse(legs [][]legScore, weights []float64) []fused {
	total := map[candidateKey]float64{}
	for i, leg := range legs {
		for key, norm := range headNormalize(leg) {
			total[key] += weights[i] * norm
		}
	}
	out := make([]fused, 0, len(total))
	for key, score := range total {
		if score > 0 {
			out = append(out, fused{key: key, score: score})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.key.kind != b.key.kind {
			return a.key.kind == store.KindFact
		}
		return a.key.id < b.key.id
	})
	return out
}
