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
// noise floor is noise: the semantic leg gathers the candidates above it. Once the other legs
// answer a query, a model's finds join them down to a floor measured from the query's own
// cosines, which the leg cannot know before its statistics: a model with a say gathers its
// best candidates whatever their cosine (0). One with no say (noise 1) gathers what the
// configured floor raised to its noise lets through: nothing.
func LoosestSemanticFloor(f Floors, noise float64, m Model) float64 {
	if m.Leading || noise < 1 {
		return 0
	}
	return min(semanticFloor(f.strict().MinSemanticSimilarity, noise),
		semanticFloor(f.loose().MinSemanticSimilarity, noise))
}

// semanticJudgement is how one source's semantic finds are admitted and weighed for one
// query: the model's role (calibrated once per model) sets the floors, and the query's own
// cosines and the other legs' answers set how far its vector is trusted (trust).
type semanticJudgement struct {
	leading bool
	// floor is what a find must reach (a supporting leg) or pass (a leading one); noise is
	// the configured floor raised to the model's and the space's noise, what a supporting
	// leg's find must reach to be appended whatever the trust.
	floor, noise float64
	// chance is the query's chance level (the expected best of the space's unrelated texts,
	// plus a margin), sd the spread it is measured in, mean the unrelated texts' mean: a
	// find scores its margin over mean, divided by ref (0: by the best find's margin).
	chance, sd, mean, ref float64
	// weighted says the leg's finds are scored against the query's chance level; otherwise
	// (no chance level: the floor is off or the model has no say) by their cosine alone.
	weighted bool
	// strength is the model's measured strength (Model.Strength): a leading leg's weight.
	strength float64
	// joins says the store holds an answer from some leg, so the leg's finds just below the
	// chance level may join it; otherwise a supporting leg appends only what clears the noise.
	joins bool
}

// judgeSemantic decides how the semantic finds of src are held for one query. answered says
// some leg answered the query; modelAnswered that a leading model did so itself in src.
func judgeSemantic(m Model, src *Source, floors profile, noise float64, answered, modelAnswered bool) semanticJudgement {
	j := semanticJudgement{leading: m.Leading, floor: semanticFloor(floors.MinSemanticSimilarity, noise),
		strength: m.Strength, joins: answered}
	j.noise = j.floor
	if floors.MinSemanticSimilarity <= 0 || noise >= 1 {
		// The floor is off, or the model cannot tell meaning at all (no say).
		return j
	}
	j.weighted = true
	if m.Leading {
		j.chance, j.sd = leadingFloor(m, src.N, src.SemanticStats)
	} else {
		j.chance, j.sd = supportingChance(m, src.N, src.SemanticStats)
	}
	j.mean = chanceMean(j.chance, j.sd, src.N)
	// A find's score is its margin over the unrelated texts' mean, divided by the best find's
	// when a leading model answered here itself, or else by the margin of a find leadSpan sd
	// above the chance level: then near-chance finds keep a fraction of the weight.
	j.ref = j.chance + leadSpan*j.sd - j.mean
	if m.Leading {
		j.floor = j.chance
		if modelAnswered {
			j.ref = 0
		}
	}
	// Once the store holds an answer, the model's near finds join it: a question that needs
	// several texts finds them below the best one.
	if answered && j.sd > 0 {
		j.floor = min(j.floor, j.chance-answeredSlack*j.sd)
	}
	return j
}

// supportingChance is a supporting model's chance level for a query in a space of n texts:
// the space's own, from the query's cosines, where it is large enough to say, and the
// model's probes' otherwise. Unlike a leading model's, the probes do not raise a measured
// space's level: a weak model's probes are spread wide (GloVe: sd 0.14 over short unrelated
// sentences), far wider than one query's cosines over one store.
func supportingChance(m Model, n int, st CosineStats) (chance, sd float64) {
	z := math.Sqrt(2*math.Log(float64(max(n, 2)))) + chanceMargin
	if st.N >= minSpaceStats && st.SD > 0 {
		return st.Mean + z*st.SD, st.SD
	}
	return m.ProbeMean + z*m.ProbeSD, m.ProbeSD
}

// admits says whether a find of cosine cos is kept.
func (j semanticJudgement) admits(cos float64) bool {
	if cos <= 0 {
		return false
	}
	if j.leading && j.weighted {
		return cos > j.floor
	}
	return cos >= j.floor
}

// agreementFew is the fewest answers the agreement's chance level is taken over: the best of
// two texts often stands out by chance, and a vector's agreement with one or two answers
// must be more than that.
const agreementFew = 10

// supportShare is the share of the semantic weight a trusted supporting leg (a model that did
// not earn the lead) gives its finds: they come after the other legs' answers, so it only
// orders them among themselves.
const supportShare = 0.5

// leg turns the admitted finds (raw cosines) into the semantic leg for fusion with primary,
// the lexical and entity legs, at the configured weight; cosines are all the leg gathered.
//
// The form is score mixing: each leg's score in [0, 1] times its weight, added (fuse.go).
// A find scores its margin over the unrelated texts' mean, divided by the best find's
// margin or, when the model did not answer the query itself, by the margin of a find
// leadSpan sd above the query's chance level. The weight is the configured one times the
// trust in this query's vector, in [0, 1], the larger of two signs:
//   - standout: how far the best find stands out of the query's cosines with the space, 0
//     at the expected best of the space's unrelated texts, 1 leadSpan sd above that. A
//     strong model answering a real question stands far out;
//   - agreement: how far the best cosine among the other legs' answers stands out of what
//     chance gives the best of that many texts (1 at the expected best, 0 one sd below).
//     A query the model embedded as noise (a name, a code, a typo) has cosines that ignore
//     what the words found; a weak model's real vector, whose best find is lost among
//     chance's, still lifts an answer the words found.
//
// Measured on SciFact with a simulated model of quality 0.25 and a fifth of its queries
// embedded as noise (doc/semantic.md, "Per-query trust"): full trust on every query cost the
// noise queries 0.029 recall@10 against the words alone; this trust costs them nothing
// and keeps most of the gain on the rest.
//
// A leading leg weighs weight x strength x trust and may lead. A supporting one, trusted,
// appends its finds down to the chance level's slack after the other legs' answers, and
// leaves their order alone: measured with GloVe on SciFact (a bag of words, whose cosines
// follow the words the lexical leg already counts, so its agreement says little), letting
// it reorder them at half the weight cost 0.013 recall@10 (0.818 -> 0.805). Untrusted (0),
// it appends only the finds that clear its noise floor, as it did before trust was measured.
func (j semanticJudgement) leg(finds []Score, cosines map[Key]float64, primary []fusedLeg, weight float64) fusedLeg {
	if !j.weighted {
		return fusedLeg{scores: finds, weight: weight, absolute: true, supporting: true}
	}
	best := 0.0
	for _, f := range finds {
		best = max(best, f.Raw)
	}
	trust := 0.0
	switch {
	case j.sd > 0:
		standout := (best - j.chance) / j.sd
		trust = min(max((standout+chanceMargin)/leadSpan, 0), 1)
	case j.leading && best > j.chance:
		// No spread at all (a leading model whose probes are all at one cosine, and too few
		// texts to measure the space): a find above the chance level stands out all the
		// way. A supporting leg without a spread appends what clears its noise (trust 0).
		trust = 1
	}
	trust = max(trust, j.agreement(cosines, primary))
	ref := j.ref
	scored := make([]Score, len(finds))
	for i, f := range finds {
		ref = max(ref, f.Raw-j.mean)
		scored[i] = Score{Key: f.Key, Raw: f.Raw - j.mean}
	}
	for i := range scored {
		scored[i].Raw /= ref
	}
	if j.leading {
		return fusedLeg{scores: scored, weight: weight * j.strength * trust, absolute: true}
	}
	if trust == 0 {
		// An untrusted supporting leg appends what clears the noise, by cosine, as the
		// supporting role always did, and leaves the other legs' answers alone.
		var appended []Score
		for _, f := range finds {
			if f.Raw >= j.noise {
				appended = append(appended, f)
			}
		}
		return fusedLeg{scores: appended, weight: weight, absolute: true, supporting: true}
	}
	return fusedLeg{scores: scored, weight: weight * supportShare * trust, absolute: true, supporting: true}
}

// agreement is the trust the other legs' answers give the query's vector (see leg): the
// best cosine among them, in sd over the unrelated texts' mean, against the expected best of
// that many unrelated texts. An answer the semantic leg did not gather (not among its
// nearest) is no sign; no answer, no agreement.
func (j semanticJudgement) agreement(cosines map[Key]float64, primary []fusedLeg) float64 {
	if j.sd <= 0 {
		return 0
	}
	answers := fuse(primary)
	best := math.Inf(-1)
	for _, f := range answers {
		if cos, ok := cosines[f.key]; ok {
			best = max(best, cos)
		}
	}
	if math.IsInf(best, -1) {
		return 0
	}
	z := (best - j.mean) / j.sd
	chance := math.Sqrt(2 * math.Log(float64(max(len(answers), agreementFew))))
	return min(max(1+z-chance, 0), 1)
}
