package rank

import "math"

// Entity-leg constants (see doc/retrieval.md for why).
const (
	// anchorRate and anchorMin bound how common an entity may be and still anchor a query:
	// df <= max(anchorMin, ceil(anchorRate*N)). Rarer means more discriminating; a small
	// corpus is forgiven.
	anchorRate = 0.2
	anchorMin  = 4
	// entityUnionCap saturates how much a fact's other entities can dilute its score, so a
	// wide fact that names a rare query entity stays reachable.
	entityUnionCap = 3
)

// EntityEvidence is one candidate of the entity leg.
type EntityEvidence struct {
	Score  float64 // AnchoredJaccard
	Shared int     // anchors the candidate carries
	W      int     // the query's entity count
	// Anchors names the shared anchors, when the leg read them (for explanations).
	Anchors []string
}

// AnchorCeiling is the largest document frequency an anchor may have among n owners.
func AnchorCeiling(n int) int {
	return max(anchorMin, int(math.Ceil(anchorRate*float64(n))))
}

// Anchors returns the query entities that anchor it among n owners: those held by at least
// one owner and at most AnchorCeiling(n), in query order.
func Anchors(entities []string, df map[string]int, n int) []string {
	ceiling := AnchorCeiling(n)
	var anchors []string
	for _, name := range entities {
		if f := df[name]; f >= 1 && f <= ceiling {
			anchors = append(anchors, name)
		}
	}
	return anchors
}

// AnchoredJaccard scores a candidate that carries shared of the query's anchors among its
// total entities: the shared anchors over the query's full entity count w plus, saturated at
// entityUnionCap, the candidate's entities that are not anchors. For a narrow fact it equals
// plain Jaccard; for a wide one the cap keeps a rare shared entity worth something. 0 without
// overlap; always in [0, 1].
func AnchoredJaccard(shared, total, w int) float64 {
	if shared <= 0 || w <= 0 {
		return 0
	}
	rest := min(max(total-shared, 0), entityUnionCap)
	return min(float64(shared)/float64(w+rest), 1)
}

// passes applies the entity floor: the Jaccard bar and two shared anchors when the query
// names two or more entities, under the loose profile too; one only when the evidence floor
// is switched off (min_evidence 0). A single shared word of a two-entity query ("port" of
// "redis port") scores exactly 1/(2+rest) and would otherwise ride in on the Jaccard bar
// alone.
func (ev EntityEvidence) passes(f profile) bool {
	need := min(2, ev.W)
	if f.MinEvidence == 0 {
		need = 1
	}
	return ev.Score >= f.MinJaccard && ev.Shared >= need
}
