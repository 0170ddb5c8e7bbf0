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

// fused is a candidate's combined score. Uncorroborated candidates were found only by
// supporting legs; they rank after every corroborated one.
type fused struct {
	key            candidateKey
	score          float64
	uncorroborated bool
}

// fusedLeg is one leg's scores with its weight. Absolute legs (scores already on a fixed
// [0, 1] scale, like the entity leg's Jaccard) enter as they are; relative ones (bm25) are
// divided by their best score in this query first.
type fusedLeg struct {
	scores   []legScore
	weight   float64
	absolute bool
	// supporting legs only add answers: their finds that no primary leg found come after
	// every primary find, ordered by the supporting score, and they leave the primary legs'
	// order alone (the semantic leg: a weak model can add answers but never push a lexical
	// or entity answer down).
	supporting bool
}

// fuse adds each leg's (normalized) scores times the leg's weight, then sorts by score,
// memories before knowledge, then id, so equal scores always come out in the same order. The
// fused number is only comparable within one query: never threshold on it.
func fuse(legs []fusedLeg) []fused {
	total := map[candidateKey]float64{}
	corroborated := map[candidateKey]bool{}
	add := func(leg fusedLeg, key candidateKey, v float64) {
		if leg.supporting && corroborated[key] {
			return
		}
		total[key] += leg.weight * v
		if !leg.supporting && leg.weight*v > 0 {
			corroborated[key] = true
		}
	}
	// Primary legs first, so a supporting leg knows what they found.
	for _, supporting := range []bool{false, true} {
		for _, leg := range legs {
			if leg.supporting != supporting {
				continue
			}
			if leg.absolute {
				for _, s := range leg.scores {
					if s.raw > 0 && s.raw <= 1 {
						add(leg, s.key, s.raw)
					}
				}
				continue
			}
			for key, norm := range headNormalize(leg.scores) {
				add(leg, key, norm)
			}
		}
	}
	out := make([]fused, 0, len(total))
	for key, score := range total {
		if score > 0 {
			out = append(out, fused{key: key, score: score, uncorroborated: !corroborated[key]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.uncorroborated != b.uncorroborated {
			return !a.uncorroborated
		}
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
