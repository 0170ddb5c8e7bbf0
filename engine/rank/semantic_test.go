package rank

import (
	"math"
	"testing"
)

// A model that leads: unrelated texts at cosine 0.3 ± 0.04 (its probes), paraphrases told.
var strongModel = Model{Leading: true, Strength: 1, ProbeMean: 0.3, ProbeSD: 0.04}

func keysOf(hits []Hit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.Key.ID
	}
	return out
}

func TestLeadingSemanticLeg(t *testing.T) {
	cfg := defaultConfig
	cfg.Weights.Semantic = 1.5
	texts := []string{"the shuttle bus leaves from gate 4", "Ada moved to Lisbon", "the car needs new tyres",
		"coffee with Nate on Friday", "snow is forecast for the weekend"}
	tests := []struct {
		name     string
		query    string
		model    Model
		words    map[int]float64
		semantic map[int]float64
		scope    int
		stats    CosineStats
		want     []int64
		semOnly  bool // the first hit is marked semantic-only
	}{
		{name: "a paraphrase with no shared word is an answer", query: "how do I reach the terminal",
			model: strongModel, semantic: map[int]float64{0: 0.85, 1: 0.29}, want: []int64{1}},
		{name: "near chance level is no answer: an unrelated question stays empty", query: "how do I reach the terminal",
			model: strongModel, semantic: map[int]float64{0: 0.38, 1: 0.36, 2: 0.31}, want: []int64{}},
		{name: "a strong model's answer outranks a weaker lexical match", query: "when is the coffee break before the shuttle",
			model: strongModel, words: map[int]float64{3: 4.0, 0: 1.0}, semantic: map[int]float64{0: 0.9}, want: []int64{1, 4}},
		{name: "a supporting model appends after the lexical answers", query: "when is the coffee break before the shuttle",
			model: Model{}, words: map[int]float64{3: 4.0}, semantic: map[int]float64{0: 0.9}, want: []int64{4, 1}},
		// 10,000 texts whose cosines with the query sit at 0.5 ± 0.05: the chance level is
		// near 0.75, however low the model's probes sit.
		{name: "a crowded space raises the chance level", query: "how do I reach the terminal",
			model: strongModel, semantic: map[int]float64{0: 0.8, 1: 0.6}, scope: 10000,
			stats: CosineStats{N: 9990, Mean: 0.5, SD: 0.05}, want: []int64{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture{texts: texts, words: tc.words, semantic: tc.semantic, scope: tc.scope}
			src := f.source(tc.query)
			src.SemanticStats = tc.stats
			res := Rank(Query{Model: tc.model, Asked: len(src.LexicalTerms)}, []*Source{src}, cfg)
			if got := keysOf(res.Hits); len(got) != len(tc.want) || len(got) > 0 && !equalIDs(got, tc.want) {
				t.Fatalf("hits = %v, want %v (report %+v)", got, tc.want, res.Report)
			}
			if len(res.Hits) > 0 && tc.model.Leading {
				h := res.Hits[0]
				if h.SemanticOnly || h.SemanticLead <= 0 {
					t.Errorf("first hit %+v: a leading leg's find is not semantic-only and says how far above chance it is", h)
				}
			}
		})
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLeadingFloor(t *testing.T) {
	// Five texts: the best of five unrelated ones reaches about 1.8 sd above the mean; the
	// margin adds 0.75.
	floor, sd := leadingFloor(strongModel, 5, CosineStats{})
	if want := 0.3 + (math.Sqrt(2*math.Log(5))+chanceMargin)*0.04; math.Abs(floor-want) > 1e-9 || sd != 0.04 {
		t.Errorf("leadingFloor(5 texts) = %v, %v; want %v, 0.04", floor, sd, want)
	}
	// A space too small to describe itself is held to the probes, however it looks.
	if f, _ := leadingFloor(strongModel, 50, CosineStats{N: 50, Mean: 0.9, SD: 0.01}); f > 0.5 {
		t.Errorf("leadingFloor with 50 texts = %v: a small space's own statistics must not count", f)
	}
	// A space whose texts all sit lower than the probes keeps the probes' floor.
	low, _ := leadingFloor(strongModel, 1000, CosineStats{N: 1000, Mean: 0.1, SD: 0.02})
	probe, _ := leadingFloor(strongModel, 1000, CosineStats{})
	if low != probe {
		t.Errorf("leadingFloor with a low space = %v, want the probes' %v", low, probe)
	}
	if got := chanceMean(floor, sd, 5); math.Abs(got-0.3) > 1e-9 {
		t.Errorf("chanceMean = %v, want the probes' mean 0.3", got)
	}
}

// TestAnsweredQueryKeepsTheModelsNearFinds: once the best find clears the chance level, the
// model's other finds a little below it join (a question that needs several texts); without
// an answer, the same cosines are nothing.
func TestAnsweredQueryKeepsTheModelsNearFinds(t *testing.T) {
	cfg := defaultConfig
	texts := []string{"the orchard has forty apple trees", "b", "c", "d", "e"}
	floor, sd := leadingFloor(strongModel, len(texts), CosineStats{})
	near := floor - sd // below the chance level, within the slack
	for _, tc := range []struct {
		name     string
		query    string
		words    map[int]float64
		semantic map[int]float64
		want     int
	}{
		{"answered by the model: the near find joins", "zzz", nil, map[int]float64{2: 0.9, 1: near}, 2},
		{"unanswered: the near find alone is nothing", "zzz", nil, map[int]float64{1: near}, 0},
		// Answered by words only, and the vector agrees with them (it finds their answer as
		// near as its own best find): the near find joins, but with a fraction of the weight
		// it would have had the model answered itself, so it cannot lead.
		{"answered by words the vector agrees with: the near find joins after the answer", "orchard", map[int]float64{0: 2}, map[int]float64{0: near, 1: near}, 2},
		// Answered by words only, and the vector ignores their answer (a query the model
		// embedded as noise): its near find is chance's, and stays out.
		{"answered by words the vector ignores: the near find stays out", "orchard", map[int]float64{0: 2}, map[int]float64{1: near}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fixture{texts: texts, words: tc.words, semantic: tc.semantic}.source(tc.query)
			got := Rank(Query{Model: strongModel, Asked: len(src.LexicalTerms)}, []*Source{src}, cfg).Hits
			if len(got) != tc.want {
				t.Fatalf("hits = %v, want %d", keysOf(got), tc.want)
			}
			for _, h := range got {
				if h.Key.ID == 2 && h.SemanticLead != 0 {
					t.Errorf("the near find below the chance level says it is %.1f sd above it", h.SemanticLead)
				}
			}
			if tc.words != nil && len(got) > 0 && got[0].Key.ID != 1 {
				t.Errorf("hits = %v: the lexical answer (1) must lead a near-chance semantic find", keysOf(got))
			}
		})
	}
}

// TestPerQueryTrust: the semantic leg's weight follows how far this query's vector can be
// trusted, not only what its model earned. A space of 1,000 texts whose cosines with the
// query sit at 0.3 ± 0.04: the best of them by chance comes near 0.45, the chance level
// near 0.48. A vector whose best find comes below the expected best (0.45) does not stand out.
func TestPerQueryTrust(t *testing.T) {
	cfg := defaultConfig
	cfg.Weights.Semantic = 1.5
	texts := []string{"the shuttle bus leaves from gate 4", "Ada moved to Lisbon", "the car needs new tyres",
		"coffee with Nate on Friday", "snow is forecast for the weekend"}
	const query = "when is the coffee break before the shuttle"
	words := map[int]float64{3: 4.0, 0: 1.0}
	stats := CosineStats{N: 990, Mean: 0.3, SD: 0.04}
	for _, tc := range []struct {
		name     string
		model    Model
		semantic map[int]float64
		want     []int64
	}{
		// The query embedded as noise: its best finds are chance's, and the words' answers
		// sit at the mean. The words' answers stand as they are, with nothing added.
		{"a noise vector changes nothing", strongModel, map[int]float64{1: 0.44, 2: 0.43, 0: 0.31, 3: 0.29}, []int64{4, 1}},
		// A weak model's real vector: its best find is no better than chance's, but it puts
		// the words' second answer as high, which chance gives the best of two texts
		// rarely. Trusted, it lifts that answer over the first, and its near find joins.
		{"a vector that agrees with the words is trusted", strongModel, map[int]float64{1: 0.456, 0: 0.47, 3: 0.29}, []int64{1, 4, 2}},
		// A model that only supports, trusted, appends its near find after the words'
		// answers and leaves their order alone.
		{"a trusted supporting model appends its near find", Model{ProbeMean: 0.3, ProbeSD: 0.04},
			map[int]float64{1: 0.456, 0: 0.49, 3: 0.29}, []int64{4, 1, 2}},
		{"an untrusted supporting model appends what clears the noise only", Model{ProbeMean: 0.3, ProbeSD: 0.04},
			map[int]float64{1: 0.44, 0: 0.31, 3: 0.29}, []int64{4, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fixture{texts: texts, words: words, semantic: tc.semantic, scope: 1000}.source(query)
			src.SemanticStats = stats
			res := Rank(Query{Model: tc.model, Asked: len(src.LexicalTerms)}, []*Source{src}, cfg)
			if got := keysOf(res.Hits); !equalIDs(got, tc.want) {
				t.Errorf("hits = %v, want %v (scores %v)", got, tc.want, scoresOf(res.Hits))
			}
			// The words' second answer scores its lexical 0.25 alone unless the vector of a
			// leading model is trusted.
			trusted := len(tc.want) > 2 && tc.model.Leading
			for _, h := range res.Hits {
				if h.Key.ID == 1 && (h.Score > 0.25+1e-9) != trusted {
					t.Errorf("the words' second answer scores %.3f: trusted %v", h.Score, trusted)
				}
			}
		})
	}
}

func scoresOf(hits []Hit) []float64 {
	out := make([]float64, len(hits))
	for i, h := range hits {
		out[i] = h.Score
	}
	return out
}
