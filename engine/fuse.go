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

// fusedLeg is one leg's scores with its weight. Absolute legs (scores already on a fixed
// [0, 1] scale, like the entity leg's Jaccard) enter as they are; relative ones (bm25) are
// divided by their best score in this query first.
type fusedLeg struct {
	scores   []legScore
	weight   float64
	absolute bool
}

// fuse adds each leg's (normalized) scores times the leg's weight, then sorts by score,
// memories before knowledge, then id, so equal scores always come out in the same order. The
// fused number is only comparable within one query: never threshold on it.
func fuse(legs []fusedLeg) []fused {
	total := map[candidateKey]float64{}
	for _, leg := range legs {
		if leg.absolute {
			for _, s := range leg.scores {
				if s.raw > 0 && s.raw <= 1 {
					total[s.key] += leg.weight * s.raw
				}
			}
			continue
		}
		for key, norm := range headNormalize(leg.scores) {
			total[key] += leg.weight * norm
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
