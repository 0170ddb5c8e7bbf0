package rank

import (
	"cmp"
	"slices"
)

// headNormalize divides each raw score by the list's best in this query, so a relative
// score's head is 1.0 whatever its scale. Non-positive and non-finite scores are dropped:
// they are no evidence.
func headNormalize(scores []Score) map[Key]float64 {
	var head float64
	for _, s := range scores {
		if s.Raw > head && s.Raw < inf {
			head = s.Raw
		}
	}
	out := make(map[Key]float64, len(scores))
	if head <= 0 {
		return out
	}
	for _, s := range scores {
		if s.Raw > 0 && s.Raw < inf {
			out[s.Key] = max(out[s.Key], s.Raw/head)
		}
	}
	return out
}

const inf = 1e308

// fused is a candidate's combined score. Uncorroborated candidates were found only by
// supporting legs; they rank after every corroborated one.
type fused struct {
	key            Key
	score          float64
	uncorroborated bool
}

// fusedLeg is one leg's scores with its weight. Absolute legs (scores already on a fixed
// [0, 1] scale, like the entity leg's Jaccard) enter as they are; relative ones (bm25) are
// divided by their best score in this query first.
type fusedLeg struct {
	scores   []Score
	weight   float64
	absolute bool
	// supporting legs only add answers: their finds that no primary leg found come after
	// every primary find, and they leave the primary legs' order alone (the semantic leg: a
	// weak model can add answers but never push a lexical or entity answer down).
	supporting bool
}

// fuse adds each leg's (normalized) scores times the leg's weight. The fused number is only
// comparable within one query: never threshold on it. The order is left to order.
func fuse(legs []fusedLeg) []fused {
	n := 0
	for _, leg := range legs {
		n = max(n, len(leg.scores))
	}
	total := make(map[Key]float64, n)
	corroborated := make(map[Key]bool, n)
	add := func(leg fusedLeg, key Key, v float64) {
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
					if s.Raw > 0 && s.Raw <= 1 {
						add(leg, s.Key, s.Raw)
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
	return out
}

// order sorts hits once, for every source together: corroborated before semantic-only, then
// by score, then memories before knowledge, then the shorter text (with the same evidence,
// the text that says less else is the closer match), then id: a total order, so equal
// scores always come out the same way.
//
// Hits are large, so the sort moves their indices and each hit moves once, to its place.
func order(hits []Hit) {
	perm := make([]int, len(hits))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(i, j int) int { return compareHits(&hits[i], &hits[j]) })
	// perm[i] is the hit that belongs at i: follow each cycle once.
	for start := range perm {
		if perm[start] == start {
			continue
		}
		held := hits[start]
		at := start
		for perm[at] != start {
			next := perm[at]
			hits[at] = hits[next]
			perm[at] = at
			at = next
		}
		hits[at] = held
		perm[at] = at
	}
}

func compareHits(a, b *Hit) int {
	if a.SemanticOnly != b.SemanticOnly {
		if !a.SemanticOnly {
			return -1
		}
		return 1
	}
	if a.Score != b.Score {
		if a.Score > b.Score {
			return -1
		}
		return 1
	}
	if a.Key.Kind != b.Key.Kind {
		if a.Key.Kind == KindFact {
			return -1
		}
		return 1
	}
	if a.textLen != b.textLen {
		return cmp.Compare(a.textLen, b.textLen)
	}
	return cmp.Compare(a.Key.ID, b.Key.ID)
}
