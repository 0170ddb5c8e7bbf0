package rank

import "math"

// The semantic leg plays the role the engine measured its model deserves (engine/semantic.go
// measures it on a bilingual probe set, once per vector space):
//
//   - Supporting, for a weak, one-language or unmeasured model: what only it found ranks after
//     every lexical or entity answer, and it leaves their order alone (fuse.go). Measured with
//     a weak model (GloVe on SciFact), adding 0.6 x cosine to the other legs' answers cost
//     0.064 nDCG@10 and 0.2 x cosine still 0.010; as a supporter it can only add answers.
//     Its floor is the configured one raised to the model's and the space's noise.
//   - Leading, for a model that tells paraphrases from unrelated text: a full leg, weighted by
//     the model's strength, that can reorder the others and answer alone. Its floor is the
//     query's own chance level: how close the best of N unrelated texts would come to the
//     query (leadingFloor), so an unrelated question still finds nothing.

// Model is what the engine measured of the embedding model behind a query's vector.
type Model struct {
	// Leading says the model may lead (see above); otherwise it supports.
	Leading bool
	// Strength in [0, 1] is the share of the probe paraphrases the model puts closer than
	// any two unrelated probes: the leading leg's weight is scaled by it.
	Strength float64
	// ProbeMean and ProbeSD describe the cosines between unrelated probe sentences: the
	// model's chance level where a space is too small to measure its own.
	ProbeMean, ProbeSD float64
}

// CosineStats describe a query's cosines with the texts of one space that are not among its
// best candidates: the space's own chance level for this query.
type CosineStats struct {
	N        int
	Mean, SD float64
}

// Leading-floor constants.
const (
	// chanceMargin is how far (in standard deviations) beyond the expected best of N
	// unrelated texts a cosine must be to count: the best of N Gaussian draws lies near
	// sqrt(2 ln N), within about 1/sqrt(2 ln N) of it.
	chanceMargin = 0.75
	// leadSpan is how many sd above the chance level a find earns the leg's full weight when
	// the model did not answer the query itself.
	leadSpan = 3.0
	// answeredSlack is how far (in standard deviations) below the chance level a leading
	// leg's candidate may be once the query is answered (by any leg). Measured with the
	// simulated models (doc/semantic.md): 1.5 left a medium model's multi-fact answers
	// behind in small stores (MADial 0.944 vs 0.967 at 2.5); the gate, not the slack, keeps
	// unrelated questions empty.
	answeredSlack = 2.5
	// minSpaceStats is the fewest texts whose cosines describe a space's chance level; a
	// smaller space is held to the model's probe statistics alone.
	minSpaceStats = 100
)

// leadingFloor is the cosine a leading semantic leg's candidate must reach in a space of n
// texts, and the spread it is measured in: the expected best of n unrelated texts plus a
// margin, under the model's probe statistics and, where the space is large enough to say,
// the query's own statistics in it, whichever is higher.
func leadingFloor(m Model, n int, st CosineStats) (floor, sd float64) {
	z := math.Sqrt(2*math.Log(float64(max(n, 2)))) + chanceMargin
	floor, sd = m.ProbeMean+z*m.ProbeSD, m.ProbeSD
	if st.N >= minSpaceStats && st.SD > 0 {
		if f := st.Mean + z*st.SD; f > floor {
			floor, sd = f, st.SD
		}
	}
	return floor, sd
}

// chanceMean is the mean cosine of unrelated texts behind a leading floor of a space of n
// texts: the leading leg scores a find by its margin over it, so finds just under the best
// keep most of its weight while one near the mean keeps none.
func chanceMean(floor, sd float64, n int) float64 {
	return floor - (math.Sqrt(2*math.Log(float64(max(n, 2))))+chanceMargin)*sd
}

// semanticFloor is the semantic floor a profile applies in a space whose noise floor is
// noise: the configured floor, raised to the noise floor; 0 (off) stays off.
func semanticFloor(configured, noise float64) float64 {
	if configured <= 0 {
		return 0
	}
	return max(configured, noise)
}

// LoosestSemanticFloor is the lowest semantic floor any profile applies in a space whose
// noise floor is noise: the semantic leg gathers the candidates above it. A leading leg
// gathers from its own floor, which the leg cannot know before its statistics: it gathers
// its best candidates whatever their cosine (0).
func LoosestSemanticFloor(f Floors, noise float64, m Model) float64 {
	if m.Leading {
		return 0
	}
	return min(semanticFloor(f.strict().MinSemanticSimilarity, noise),
		semanticFloor(f.loose().MinSemanticSimilarity, noise))
}
