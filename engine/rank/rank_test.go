package rank

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/query"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current ranking")

// day is when every fixture text was written, unless a case says otherwise.
var day = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// fixture builds a Source from texts (keys are their position + 1) and leg scores by position.
type fixture struct {
	kind     string
	texts    []string
	created  map[int]time.Time // position -> created time (default: day)
	trigram  map[int]float64
	words    map[int]float64
	entity   map[int]EntityEvidence
	semantic map[int]float64
	rare     []string
	noise    float64
}

// source builds the Source, looking up terms (the query's) in each text as the word index
// would.
func (f fixture) source(terms []string) *Source {
	src := &Source{Kind: f.kind, Candidates: map[Key]Candidate{}, Entity: map[Key]EntityEvidence{},
		Semantic: map[Key]float64{}, Rare: map[string]bool{}, SemanticNoise: f.noise, LexicalTerms: terms}
	if src.Kind == "" {
		src.Kind = KindFact
	}
	key := func(i int) Key { return Key{Kind: src.Kind, ID: int64(i + 1)} }
	for i, t := range f.texts {
		at := day
		if c, ok := f.created[i]; ok {
			at = c
		}
		c := Candidate{TextLen: len(t), CreatedAt: at}
		holds := holder(t)
		for j, term := range terms {
			if holds(term) {
				c.Terms |= 1 << j
			}
		}
		src.Candidates[key(i)] = c
	}
	for _, l := range []struct {
		idx    Index
		scores map[int]float64
	}{{Trigram, f.trigram}, {Words, f.words}} {
		if l.scores == nil {
			continue
		}
		list := LexicalList{Index: l.idx}
		for i := range f.texts {
			if raw, ok := l.scores[i]; ok {
				list.Scores = append(list.Scores, Score{Key: key(i), Raw: raw})
			}
		}
		src.Lexical = append(src.Lexical, list)
	}
	for i, ev := range f.entity {
		src.Entity[key(i)] = ev
	}
	for i, cos := range f.semantic {
		src.Semantic[key(i)] = cos
	}
	for _, r := range f.rare {
		src.Rare[analysis.Stem(r)] = true
	}
	return src
}

var defaultConfig = Config{
	Floors:  DefaultFloors(),
	Weights: Weights{FTS: 1, Entity: 0.3, Semantic: 0.6},
	Mix:     LexicalMix{Trigram: 0.25, Words: 1},
}

var rankCases = []struct {
	name    string
	query   []string // readings; the first is the whole query
	window  *Window
	noise   float64
	sources []fixture
	config  *Config
}{
	{
		name:  "two graded terms clear the bar, one does not",
		query: []string{"python version"},
		sources: []fixture{{
			texts: []string{"CI uses Python 3.12", "the Python version on the build servers is pinned", "老王喜欢简约风格"},
			words: map[int]float64{0: 1.2, 1: 2.5},
		}},
	},
	{
		name:  "nothing clears the strict bar: the loose profile answers, marked relaxed",
		query: []string{"python interpreter"},
		sources: []fixture{{
			texts: []string{"CI uses Python 3.12", "the Python version on the build servers is pinned"},
			words: map[int]float64{0: 1.2, 1: 1.1},
		}},
	},
	{
		name:  "two indexes mixed 0.25 : 1, memories before knowledge on equal scores",
		query: []string{"kubernetes staging"},
		sources: []fixture{
			{texts: []string{"kubernetes staging cluster", "staging kubernetes notes"},
				trigram: map[int]float64{0: 4, 1: 2}, words: map[int]float64{0: 3, 1: 3}},
			{kind: KindChunk, texts: []string{"kubernetes staging cluster"},
				trigram: map[int]float64{0: 8}, words: map[int]float64{0: 6}},
		},
	},
	{
		name:  "a rare term counts twice, in an answered query",
		query: []string{"which villages reported onchocerciasis outbreaks"},
		sources: []fixture{{
			texts: []string{"Ivermectin treatment against onchocerciasis in Africa", "outbreaks were reported in the northern villages"},
			words: map[int]float64{0: 3, 1: 2},
			rare:  []string{"onchocerciasis"},
		}},
	},
	{
		name:  "a rare term alone answers nothing",
		query: []string{"onchocerciasis prevalence estimates"},
		sources: []fixture{{
			texts: []string{"Ivermectin treatment against onchocerciasis in Africa"},
			words: map[int]float64{0: 3},
			rare:  []string{"onchocerciasis"},
		}},
	},
	{
		name:   "the time window keeps what was written in it",
		query:  []string{"会议纪要"},
		window: &Window{From: day.Add(-time.Hour), To: day.Add(time.Hour)},
		sources: []fixture{{
			texts:   []string{"会议纪要：预算通过了", "上个月的会议纪要"},
			created: map[int]time.Time{1: day.AddDate(0, -1, 0)},
			words:   map[int]float64{0: 2, 1: 2},
		}},
	},
	{
		name:   "a window that leaves nothing is ignored, and the result says so",
		query:  []string{"会议纪要"},
		window: &Window{From: day.AddDate(-1, 0, 0), To: day.AddDate(-1, 0, 1)},
		sources: []fixture{{
			texts: []string{"会议纪要：预算通过了"},
			words: map[int]float64{0: 2},
		}},
	},
	{
		name:  "the entity floor: two shared anchors for a two-entity query",
		query: []string{"redis port"},
		sources: []fixture{{
			texts: []string{"Redis listens on port 6379", "Postgres port is 5432"},
			entity: map[int]EntityEvidence{
				0: {Score: AnchoredJaccard(2, 3, 2), Shared: 2, W: 2, Anchors: []string{"redis", "port"}},
				1: {Score: AnchoredJaccard(1, 2, 2), Shared: 1, W: 2, Anchors: []string{"port"}},
			},
		}},
	},
	{
		name:  "the semantic leg supports: its finds come after the others' and leave their order alone",
		query: []string{"what does my manager like"},
		noise: 0.6,
		sources: []fixture{{
			texts:    []string{"my manager likes tea", "老王喜欢简约风格", "manager meeting notes"},
			words:    map[int]float64{0: 3, 2: 2.9},
			semantic: map[int]float64{0: 0.7, 1: 0.95, 2: 0.9},
		}},
	},
	{
		name:  "semantic-only hits do not keep the lexical leg from its relaxed retry",
		query: []string{"python interpreter"},
		sources: []fixture{{
			texts:    []string{"CI uses Python 3.12", "a snake in the garden"},
			words:    map[int]float64{0: 1.2},
			semantic: map[int]float64{1: 0.9},
		}},
	},
	{
		name:  "the model's noise raises the semantic floor",
		query: []string{"quantum entanglement"},
		noise: 0.8,
		sources: []fixture{{
			texts:    []string{"grocery list", "quantum physics lecture"},
			semantic: map[int]float64{0: 0.75, 1: 0.85},
		}},
	},
	{
		name:  "the stripped reading answers where the whole question does not",
		query: []string{"what does the staging cluster run", "staging cluster run"},
		sources: []fixture{{
			texts: []string{"the staging cluster runs Kubernetes 1.31"},
			words: map[int]float64{0: 2},
		}},
	},
}

// lexicalTerms are the terms a lexical leg looks up for the readings: each one's word terms.
func lexicalTerms(readings []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range readings {
		for _, t := range query.WordTerms(r) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// TestRankGolden runs every case through Rank and compares the rendered answers, decisions
// included, with testdata/rank.golden: a ranking change is a diff to review (-update).
func TestRankGolden(t *testing.T) {
	var b strings.Builder
	for _, tc := range rankCases {
		q := Query{Window: tc.window, SemanticNoise: tc.noise}
		for _, r := range tc.query {
			q.Readings = append(q.Readings, Grade(r))
		}
		var sources []*Source
		for _, f := range tc.sources {
			sources = append(sources, f.source(lexicalTerms(tc.query)))
		}
		cfg := defaultConfig
		if tc.config != nil {
			cfg = *tc.config
		}
		res := Rank(q, sources, cfg)
		fmt.Fprintf(&b, "## %s\nquery %q\n", tc.name, tc.query)
		fmt.Fprintf(&b, "relaxed %v, window ignored %v, bar %d, dropped fts %d entity %d semantic %d, semantic floor %.2f\n",
			res.Relaxed, res.WindowIgnored, res.Report.FTSBar, res.Report.DroppedFTS, res.Report.DroppedEntity,
			res.Report.DroppedSemantic, res.Report.MinSemanticSimilarity)
		for i, h := range res.Hits {
			only := ""
			if h.SemanticOnly {
				only = " semantic-only"
			}
			fmt.Fprintf(&b, "%d. %s/%d score %.4f%s: %s\n", i+1, h.Key.Kind, h.Key.ID, h.Score, only, Explain(h))
		}
		b.WriteString("\n")
	}
	golden := filepath.Join("testdata", "rank.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/rank -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("ranking changed (-golden +now); review it and run with -update if it is meant:\n%s", diff)
	}
}

// TestRankIsDeterministic: the same evidence always gives the same answer, whatever the map
// iteration order.
func TestRankIsDeterministic(t *testing.T) {
	tc := rankCases[2]
	q := Query{Readings: []Graded{Grade(tc.query[0])}}
	render := func() string {
		var sources []*Source
		for _, f := range tc.sources {
			sources = append(sources, f.source(lexicalTerms(tc.query)))
		}
		return fmt.Sprint(Rank(q, sources, defaultConfig).Hits)
	}
	first := render()
	for range 20 {
		if got := render(); got != first {
			t.Fatalf("Rank gave %s, then %s", first, got)
		}
	}
}
