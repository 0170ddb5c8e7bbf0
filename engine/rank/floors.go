package rank

import "math"

// Floors are the bars recall holds candidates to. A candidate equal to its floor is kept;
// 0 disables a floor.
type Floors struct {
	// MinEvidence is the significance (evidence.go) the best candidate of a query needs for
	// the store to hold an answer at all: 0 means at most one text of the scope would match
	// as well by chance, -1.4 about four; lower is more permissive.
	MinEvidence float64 `json:"min_evidence"`
	// HitEvidence is the share of the chance level each hit of an answered query must reach:
	// an answered query returns the whole evidence list, down to texts that share a single
	// informative term with it, but not a stopword's worth.
	HitEvidence float64 `json:"hit_evidence"`
	// MinCoverage is the share of one clause of the query, its words weighed by how specific
	// they are in general language (coverage.go), that some text must hold for the store to
	// hold an answer; a text that holds it is a hit below HitEvidence too. 0 disables it.
	MinCoverage float64 `json:"min_coverage"`
	// CoverageGrowth is how much the share MinCoverage asks for rises each time the scope
	// grows by a factor of e past coverageReference texts (see coverageBar); 0: never.
	CoverageGrowth float64 `json:"coverage_growth"`
	// MinJaccard is the entity leg's floor on its anchored Jaccard.
	MinJaccard float64 `json:"min_jaccard"`
	// MinSemanticSimilarity is the semantic floor as configured: a minimum, raised to the
	// embedding model's measured noise floor (see semanticFloor). A FloorReport carries the
	// floor actually applied.
	MinSemanticSimilarity float64 `json:"min_semantic_similarity"`
}

// DefaultFloors are the strict profile.
func DefaultFloors() Floors {
	return Floors{MinEvidence: -1.4, HitEvidence: 0.5, MinCoverage: 0.25, CoverageGrowth: 0.05, MinJaccard: 0.2,
		MinSemanticSimilarity: 0.5}
}

// coverageReference is the size of scope MinCoverage holds for unchanged: a person's own
// store of facts, or one conversation's turns, is smaller.
const coverageReference = 1000

// coverageBar is the share of a clause some text of a scope of n texts must hold for the store
// to hold an answer. The more texts a scope has, the more of a clause the best of them holds
// by chance, so the bar rises with ln n, as the best of n draws from a tail that falls off
// exponentially does. Measured on the dev sets (doc/retrieval.md, "Memory-grade ranking,
// part three"): the share of a clause nine in ten science claims stay under in a store of
// chat turns that knows nothing of them is 0.25 or less at 500 turns, 0.27 at 2,000, 0.36 at
// 8,000 and 0.43 at 32,000: about 0.05 for each factor of e.
func (f Floors) coverageBar(n int) float64 {
	if n <= coverageReference || f.CoverageGrowth <= 0 {
		return f.MinCoverage
	}
	return f.MinCoverage + f.CoverageGrowth*math.Log(float64(n)/coverageReference)
}

// profile is the set of floors one ranking pass applies: the strict floors, or the loose ones
// of the relaxed retry.
type profile struct {
	Floors
	loose bool
}

func (f Floors) strict() profile { return profile{Floors: f} }

// looseSignificance is how much less significant a match the relaxed retry accepts: it
// answers a query the strict floors leave empty when as many as four times more texts could
// match as well by chance, and says so (relaxed). Below it the answer stays empty.
// looseEvidence lowers the per-hit bar with it.
const (
	looseSignificance = 1.3862943611198906 // ln 4
	looseEvidence     = 0.75
)

// loose is the profile of the relaxed retry: a lower evidence bar, a lower Jaccard bar and a
// lower semantic bar. A genuinely unrelated query still clears nothing and stays empty.
func (f Floors) loose() profile {
	l := f
	l.MinEvidence = f.MinEvidence - looseSignificance
	l.HitEvidence = f.HitEvidence * looseEvidence
	l.MinJaccard = min(f.MinJaccard, 0.15)
	l.MinSemanticSimilarity = f.MinSemanticSimilarity * 0.85
	return profile{Floors: l, loose: true}
}
