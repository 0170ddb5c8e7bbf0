package leg

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// fakeWords is a word index holding nothing but n texts.
type fakeWords struct {
	res lexicon.Result
	n   int
}

func (f fakeWords) Search(context.Context, lexicon.Request) (lexicon.Result, error) {
	return f.res, nil
}

func (f fakeWords) Stats(context.Context, string, string) (int, error) { return f.n, nil }

// fakeTexts answers every substring search with all its texts: the trigram index finds
// candidates whose trigrams are scattered, and the leg must check each.
type fakeTexts []store.Candidate

func (f fakeTexts) TrigramCandidates(context.Context, string, string, store.SearchScope) ([]store.Candidate, error) {
	return f, nil
}

func (f fakeTexts) WordCandidates(context.Context, string, string, store.SearchScope) ([]store.Candidate, error) {
	return nil, nil
}

var factScope = Scope{Kind: store.KindFact, Space: "default", Limit: 200, WordLimit: 200}

func TestLexicalRecordsWordMatches(t *testing.T) {
	plan := PlanQuery("python version", time.Now())
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	words := fakeWords{res: lexicon.Result{N: 7, Terms: []int{0, 1}, DF: []int{2, 3},
		Matches: []lexicon.Match{{ID: 4, Score: 2.5, Matched: 0b11, CreatedAt: at, TextLen: 30}}}}
	src, err := Gather(context.Background(), plan, factScope, Lexical{Words: words, Substrings: fakeTexts{}})
	if err != nil {
		t.Fatal(err)
	}
	key := rank.Key{Kind: store.KindFact, ID: 4}
	if diff := cmp.Diff(map[rank.Key]rank.Candidate{key: {CreatedAt: at, TextLen: 30, Terms: 0b11}}, src.Candidates); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	want := []rank.LexicalList{{Index: rank.Words, Scores: []rank.Score{{Key: key, Raw: 2.5}}}}
	if diff := cmp.Diff(want, src.Lexical); diff != "" {
		t.Errorf("lexical lists (-want +got):\n%s", diff)
	}
	if src.N != 7 || !slices.Equal(src.DF, []int{2, 3}) || len(src.LexicalTerms) != 2 {
		t.Errorf("statistics: N %d, DF %v, terms %v; want 7, [2 3], two terms", src.N, src.DF, src.LexicalTerms)
	}
	if src.Substrings != nil {
		t.Errorf("substrings %q looked for though words matched", src.Substrings)
	}
}

// TestSubstringsOnlyWhenNoWordMatches: the trigram fallback runs when the word index finds
// nothing; a common English word counts at the start of a word only, and the scope's size
// comes from the index when no word was held.
func TestSubstringsOnlyWhenNoWordMatches(t *testing.T) {
	plan := PlanQuery("garden shed sqlite", time.Now())
	texts := fakeTexts{
		{Kind: store.KindFact, ID: 1, Text: "The procedure is well established"},
		{Kind: store.KindFact, ID: 2, Text: "The birches are shedding their leaves"},
		{Kind: store.KindFact, ID: 3, Text: "Use go-sqlite3 for the cache"},
	}
	src, err := Gather(context.Background(), plan, factScope, Lexical{Words: fakeWords{n: 9}, Substrings: texts})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for key := range src.Candidates {
		got = append(got, key.ID)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("substring candidates %v, want [2 3]", got)
	}
	if src.N != 9 {
		t.Errorf("N = %d, want the index's 9", src.N)
	}
	if len(src.Lexical) != 2 || src.Lexical[0].Index != rank.Trigram {
		t.Errorf("lexical lists %+v, want the trigram list then the words'", src.Lexical)
	}
}

type fakeEntities struct{ res lexicon.EntityResult }

func (f fakeEntities) EntitySearch(_ context.Context, _, _ string, _ []string,
	choose func(df map[string]int, n int) []string, _ int) (lexicon.EntityResult, error) {
	f.res.Anchors = choose(f.res.DF, f.res.N)
	return f.res, nil
}

func (fakeEntities) KnownNames(context.Context, []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

func TestEntityAddsOnlyItsOwnCandidates(t *testing.T) {
	plan := Plan{Entities: []string{"alice", "berlin"}}
	found := fakeEntities{res: lexicon.EntityResult{N: 100, DF: map[string]int{"alice": 3, "berlin": 2},
		Matches: []lexicon.EntityMatch{
			{ID: 1, Shared: []string{"alice"}, Total: 2, TextLen: 10},
			{ID: 2, Shared: []string{"alice", "berlin"}, Total: 2, TextLen: 20},
		}}}
	src := &rank.Source{Kind: store.KindFact, Candidates: map[rank.Key]rank.Candidate{
		{Kind: store.KindFact, ID: 1}: {TextLen: 10, Terms: 1}, // the lexical leg's
	}}
	if err := (Entity{Index: found}).Gather(context.Background(), plan, factScope, src); err != nil {
		t.Fatal(err)
	}
	if c := src.Candidates[rank.Key{Kind: store.KindFact, ID: 1}]; c.Terms != 1 {
		t.Errorf("the lexical leg's candidate was replaced: %+v", c)
	}
	if _, ok := src.Candidates[rank.Key{Kind: store.KindFact, ID: 2}]; !ok {
		t.Error("the entity leg's own candidate was not added")
	}
	if len(src.Entity) != 2 || src.EntityDF["berlin"] != 2 {
		t.Errorf("entity evidence %v, DF %v", src.Entity, src.EntityDF)
	}
}

type fakeVectors struct{ near Nearest }

func (f fakeVectors) Nearest(context.Context, string, string, string, []float32, int) (Nearest, error) {
	return f.near, nil
}

type fakeOwners struct{}

func (fakeOwners) Describe(_ string, ids []int64) map[int64]lexicon.Owner {
	out := map[int64]lexicon.Owner{}
	for _, id := range ids {
		out[id] = lexicon.Owner{TextLen: int(id)}
	}
	return out
}

func TestSemanticKeepsWhatCouldClearTheLoosestFloor(t *testing.T) {
	all := rank.CosineStats{N: 300, Mean: 0.2, SD: 0.1}
	vectors := fakeVectors{near: Nearest{Hits: []VectorHit{{ID: 1, Cos: 0.9}, {ID: 2, Cos: 0.5}, {ID: 3, Cos: 0.1}}, Noise: 0.4, All: all}}
	l := Semantic{Vectors: vectors, Owners: fakeOwners{}, Floors: rank.Floors{MinSemanticSimilarity: 0.3}}
	src := &rank.Source{Kind: store.KindFact, Candidates: map[rank.Key]rank.Candidate{}}
	plan := Plan{Semantic: SemanticQuery{Vec: []float32{1}, Noise: 0.2}}
	if err := l.Gather(context.Background(), plan, factScope, src); err != nil {
		t.Fatal(err)
	}
	// A model with a say keeps its nearest whatever their cosine: once the other legs answer,
	// ranking holds them to the query's own chance level, which needs its statistics.
	want := map[rank.Key]float64{{Kind: store.KindFact, ID: 1}: 0.9, {Kind: store.KindFact, ID: 2}: 0.5, {Kind: store.KindFact, ID: 3}: 0.1}
	if diff := cmp.Diff(want, src.Semantic); diff != "" {
		t.Errorf("semantic candidates (-want +got):\n%s", diff)
	}
	// The space's noise (0.4) is above the model's (0.2).
	if src.SemanticNoise != 0.4 || len(src.Candidates) != 3 || src.SemanticStats.N == 0 {
		t.Errorf("noise %v, candidates %v, statistics %+v; want 0.4, the three kept and the statistics", src.SemanticNoise, src.Candidates, src.SemanticStats)
	}
	// A model with no say (noise 1) keeps nothing.
	mute := &rank.Source{Kind: store.KindFact, Candidates: map[rank.Key]rank.Candidate{}}
	if err := l.Gather(context.Background(), Plan{Semantic: SemanticQuery{Vec: []float32{1}, Noise: 1}}, factScope, mute); err != nil {
		t.Fatal(err)
	}
	if len(mute.Semantic) != 0 || len(mute.Candidates) != 0 {
		t.Errorf("a model with no say kept %v, %v", mute.Semantic, mute.Candidates)
	}

	off := &rank.Source{Kind: store.KindFact, Candidates: map[rank.Key]rank.Candidate{}}
	if err := l.Gather(context.Background(), Plan{}, factScope, off); err != nil || off.Semantic != nil || len(off.Candidates) != 0 {
		t.Errorf("with no query vector the leg found %v, %v (err %v)", off.Semantic, off.Candidates, err)
	}
}

func TestWithoutBest(t *testing.T) {
	cos := []float64{0.9, 0.8, 0.3, 0.2, 0.1}
	all := stats(cos)
	hits := []VectorHit{{ID: 1, Cos: 0.9}, {ID: 2, Cos: 0.8}}
	got := withoutBest(all, hits, 2)
	want := stats(cos[2:])
	if math.Abs(got.Mean-want.Mean) > 1e-12 || math.Abs(got.SD-want.SD) > 1e-12 || got.N != want.N {
		t.Errorf("withoutBest = %+v, want %+v", got, want)
	}
	if got := withoutBest(stats(cos[:2]), hits, 2); got != (rank.CosineStats{}) {
		t.Errorf("withoutBest of every cosine = %+v, want none", got)
	}
}

func stats(xs []float64) rank.CosineStats {
	var sum, sumSq float64
	for _, x := range xs {
		sum += x
		sumSq += x * x
	}
	n := float64(len(xs))
	mean := sum / n
	return rank.CosineStats{N: len(xs), Mean: mean, SD: math.Sqrt(sumSq/n - mean*mean)}
}
