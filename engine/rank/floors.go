package rank

// Floors are the absolute per-leg bars a candidate must reach on its raw score. A candidate
// equal to its floor is kept; 0 disables a floor.
type Floors struct {
	MinFTSTerms int     `json:"min_fts_terms"`
	MinJaccard  float64 `json:"min_jaccard"`
	// MinSemanticSimilarity is the semantic floor as configured: a minimum, raised to the
	// embedding model's measured noise floor (see semanticFloor). A FloorReport carries the
	// floor actually applied.
	MinSemanticSimilarity float64 `json:"min_semantic_similarity"`
}

// DefaultFloors are the strict profile.
func DefaultFloors() Floors {
	return Floors{MinFTSTerms: 2, MinJaccard: 0.2, MinSemanticSimilarity: 0.5}
}

// profile is the set of floors one ranking pass applies: the strict floors, or the loose ones
// of the relaxed retry, where the term bar becomes half of each reading's graded terms (see
// Graded.barFor) instead of MinFTSTerms.
type profile struct {
	Floors
	loose bool
}

func (f Floors) strict() profile { return profile{Floors: f} }

// loose is the profile of the relaxed retry: the term bar becomes half of each reading's
// graded terms, a lower Jaccard bar and a lower semantic bar. A genuinely unrelated query
// still clears nothing and stays empty.
func (f Floors) loose() profile {
	l := f
	l.MinJaccard = min(f.MinJaccard, 0.15)
	l.MinSemanticSimilarity = f.MinSemanticSimilarity * 0.85
	return profile{Floors: l, loose: f.MinFTSTerms > 0}
}
