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

	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/query"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current ranking")

// day is when every fixture text was written, unless a case says otherwise.
var day = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// fixture builds a Source from texts (keys are their position + 1) and leg scores by position.
// Document frequencies are counted over the texts, as if they were the whole store, unless
// scope says the store is larger (then df holds each term's frequency in it).
type fixture struct {
	kind     string
	texts    []string
	created  map[int]time.Time // position -> created time (default: day)
	trigram  map[int]float64
	words    map[int]float64
	entity   map[int]EntityEvidence
	entityDF map[string]int
	semantic map[int]float64
	scope    int            // the store's size; 0: len(texts)
	df       map[string]int // with scope: each term's frequency (by surface); default 1
	noise    float64
}

// source builds the Source for a query, looking up its terms in each text as the word index
// would.
func (f fixture) source(q string) *Source {
	src := &Source{Kind: f.kind, Candidates: map[Key]Candidate{}, Entity: map[Key]EntityEvidence{},
		Semantic: map[Key]float64{}, SemanticNoise: f.noise, N: len(f.texts), EntityDF: f.entityDF}
	if src.Kind == "" {
		src.Kind = KindFact
	}
	pairs := background.BigramKinds(q)
	for _, t := range query.LexicalTerms(q, 64) {
		src.LexicalTerms = append(src.LexicalTerms, Term{Text: t.Text, Surface: t.Surface, Kind: t.Kind, Run: t.Run, Pos: t.Pos,
			Pair: pairs[t.Text]})
	}
	holders := make([]func(string) bool, len(f.texts))
	for i, t := range f.texts {
		holders[i] = holder(t)
	}
	for _, t := range src.LexicalTerms {
		df := 0
		for _, holds := range holders {
			if holds(t.Text) {
				df++
			}
		}
		if f.scope > 0 {
			df = 1
			if d, ok := f.df[t.Surface]; ok {
				df = d
			}
		}
		src.DF = append(src.DF, df)
	}
	if f.scope > 0 {
		src.N = f.scope
	}
	key := func(i int) Key { return Key{Kind: src.Kind, ID: int64(i + 1)} }
	for i, t := range f.texts {
		at := day
		if c, ok := f.created[i]; ok {
			at = c
		}
		c := Candidate{TextLen: len(t), CreatedAt: at}
		for j, term := range src.LexicalTerms {
			if holders[i](term.Text) {
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
	return src
}

var defaultConfig = Config{
	Floors:  DefaultFloors(),
	Weights: Weights{FTS: 1, Entity: 0.3, Semantic: 0.6},
	Mix:     LexicalMix{Trigram: 0.25, Words: 1},
}

var rankCases = []struct {
	name  string
	query string
	// words is the Chinese dictionary the query's focus is cut with (word -> specificity).
	words   map[string]float64
	window  *Window
	noise   float64
	sources []fixture
	config  *Config
}{
	{
		name:  "a small store answers on the one content word a fact shares",
		query: "what does Tom do for a job",
		sources: []fixture{{
			texts: []string{"Tom lost his job at the plant", "Ada moved to Lisbon", "the car needs new tyres",
				"coffee with Nate on Friday", "snow is forecast for the weekend"},
			words: map[int]float64{0: 3.1},
		}},
	},
	{
		name:  "a large store does not answer on one common word",
		query: "mental health at work",
		sources: []fixture{{
			texts: []string{"the health insurance card expires in May"},
			words: map[int]float64{0: 2},
			scope: 10000, df: map[string]int{"mental": 40, "health": 30, "work": 900},
		}},
	},
	{
		name:  "a word every text holds still finds them all: they hold the whole query",
		query: "orchard",
		sources: []fixture{{
			texts: []string{"orchard note 1 about pruning", "orchard note 2 about apples", "orchard note 3 about pears"},
			words: map[int]float64{0: 0.1, 1: 0.1, 2: 0.1},
		}},
	},
	{
		name:  "a large store answers on a word only a few texts hold",
		query: "which villages reported onchocerciasis outbreaks",
		sources: []fixture{{
			texts: []string{"Ivermectin treatment against onchocerciasis in Africa", "outbreaks were reported in the northern villages"},
			words: map[int]float64{0: 3, 1: 2},
			scope: 5183, df: map[string]int{"onchocerciasis": 1, "villages": 12, "reported": 600, "outbreaks": 40},
		}},
	},
	{
		name:  "several ordinary words together answer where one would not",
		query: "python version pinned on the build servers",
		sources: []fixture{{
			texts: []string{"the Python version on the build servers is pinned", "CI uses Python 3.12"},
			words: map[int]float64{0: 6, 1: 1.5},
			scope: 10000, df: map[string]int{"python": 60, "version": 300, "pinned": 20, "build": 400, "servers": 200},
		}},
	},
	{
		name:  "an answered query returns its whole evidence list, not a stopword's worth",
		query: "老王喜欢什么风格",
		words: map[string]float64{"老王": 13, "喜欢": 7, "风格": 9},
		sources: []fixture{{
			texts: []string{"老王喜欢简约风格的设计", "老王住在朝阳区", "这个风格很适合客厅", "项目周会定在每周三", "妈妈的生日是八月十五",
				"小李对花生过敏", "周末去西湖散步", "新买的台灯很亮"},
			words: map[int]float64{0: 5, 1: 2, 2: 2.2},
		}},
	},
	{
		name:  "a compound and its parts are one piece of evidence",
		query: "go-sqlite3",
		sources: []fixture{{
			texts: []string{"we store data with go-sqlite3, no cgo", "sqlite3 is on every phone", "go to the shop"},
			words: map[int]float64{0: 4, 1: 2, 2: 0.5},
			scope: 3000, df: map[string]int{"go-sqlite3": 1, "go": 300, "sqlite3": 2},
		}},
	},
	{
		name:  "overlapping bigrams count as the words they spell",
		query: "简约风格",
		words: map[string]float64{"简约": 12, "风格": 9},
		sources: []fixture{{
			texts: []string{"老王喜欢简约风格", "简单的约会", "风格各异"},
			words: map[int]float64{0: 3, 1: 1, 2: 1},
			scope: 10000, df: map[string]int{"简约": 20, "约风": 5, "风格": 60},
		}},
	},
	{
		// bm25 over bigrams favours the short text saying one pair twice; the evidence
		// counts words, and the text holding two of the question's three comes first.
		name:  "Chinese: the text holding more of the question's words comes first",
		query: "老王的车是什么颜色",
		words: map[string]float64{"老王": 12, "颜色": 9},
		sources: []fixture{{
			texts: []string{"颜色颜色", "老王的车是红颜色", "周末去爬山", "晚饭吃面条"},
			words: map[int]float64{0: 1.8, 1: 1.5},
		}},
	},
	{
		name:  "a claim whose topic the store has never seen is not answered by one of its common words",
		query: "0-dimensional biomaterials show inductive properties",
		sources: []fixture{{
			texts: []string{"the show starts at eight", "properties near the beach cost more",
				"the dentist moved to Friday", "bought new running shoes"},
			words: map[int]float64{0: 2, 1: 2},
		}},
	},
	{
		// show and properties weigh 17.6 of the claim's 66.7, over a quarter, but hold none
		// of its three most specific words and not most of it.
		name:  "two common words of a claim the store has never seen, without its topic, are no answer",
		query: "0-dimensional biomaterials show inductive properties",
		sources: []fixture{{
			texts: []string{"the show starts at eight", "properties near the beach cost more", "we should show the properties to Ana",
				"the dentist moved to Friday", "bought new running shoes"},
			words: map[int]float64{2: 4, 0: 2, 1: 2},
		}},
	},
	{
		name:  "nearly the chance level: the loose profile answers, marked relaxed",
		query: "python interpreter",
		sources: []fixture{{
			texts: []string{"CI uses Python 3.12"},
			words: map[int]float64{0: 1.2},
			scope: 1000, df: map[string]int{"python": 8, "interpreter": 40},
		}},
	},
	{
		name:  "semantic-only hits do not keep the lexical leg from its relaxed retry",
		query: "python interpreter",
		noise: 0.5,
		sources: []fixture{{
			texts:    []string{"CI uses Python 3.12", "the build image ships a scripting runtime"},
			words:    map[int]float64{0: 1.2},
			semantic: map[int]float64{1: 0.9},
			scope:    1000, df: map[string]int{"python": 8, "interpreter": 40},
		}},
	},
	{
		name:  "two indexes: memories before knowledge on equal scores",
		query: "kubernetes staging",
		sources: []fixture{
			{texts: []string{"kubernetes staging cluster", "staging kubernetes notes"}, words: map[int]float64{0: 3, 1: 3}},
			{kind: KindChunk, texts: []string{"kubernetes staging cluster"}, words: map[int]float64{0: 6}},
		},
	},
	{
		name:   "the time window keeps what was written in it",
		query:  "会议纪要",
		window: &Window{From: day.Add(-time.Hour), To: day.Add(time.Hour)},
		sources: []fixture{{
			texts:   []string{"会议纪要：预算通过了", "上个月的会议纪要", "今天天气很好"},
			created: map[int]time.Time{1: day.AddDate(0, -1, 0)},
			words:   map[int]float64{0: 2, 1: 2},
		}},
	},
	{
		name:   "a window that leaves nothing is ignored, and the result says so",
		query:  "会议纪要",
		window: &Window{From: day.AddDate(-1, 0, 0), To: day.AddDate(-1, 0, 1)},
		sources: []fixture{{
			texts: []string{"会议纪要：预算通过了", "今天天气很好"},
			words: map[int]float64{0: 2},
		}},
	},
	{
		name:  "the entity floor: two shared anchors for a two-entity query",
		query: "redis port",
		sources: []fixture{{
			texts: []string{"Redis listens on 6379", "Postgres port is 5432", "the cat sleeps"},
			entity: map[int]EntityEvidence{
				0: {Score: AnchoredJaccard(2, 3, 2), Shared: 2, W: 2, Anchors: []string{"redis", "port"}},
				1: {Score: AnchoredJaccard(1, 2, 2), Shared: 1, W: 2, Anchors: []string{"port"}},
			},
			entityDF: map[string]int{"redis": 1, "port": 2},
		}},
	},
	{
		name:  "the semantic leg supports: its finds come after the others' and leave their order alone",
		query: "what does my manager like",
		noise: 0.6,
		sources: []fixture{{
			texts:    []string{"my manager likes tea", "老王喜欢简约风格", "manager meeting notes", "the printer is broken"},
			words:    map[int]float64{0: 3, 2: 2.9},
			semantic: map[int]float64{0: 0.7, 1: 0.95, 2: 0.9},
		}},
	},
	{
		name:  "an unanswered query keeps only what the model found, after nothing",
		query: "quantum entanglement",
		noise: 0.8,
		sources: []fixture{{
			texts:    []string{"grocery list", "a physics lecture on Friday", "the garden needs water"},
			semantic: map[int]float64{0: 0.75, 1: 0.85},
		}},
	},
}

// TestRankGolden runs every case through Rank and compares the rendered answers, decisions
// included, with testdata/rank.golden: a ranking change is a diff to review (-update).
func TestRankGolden(t *testing.T) {
	var b strings.Builder
	for _, tc := range rankCases {
		q := Query{Window: tc.window, SemanticNoise: tc.noise, Clauses: clausesOf(tc.query, tc.words),
			Asked: len(query.LexicalTerms(tc.query, 64))}
		var sources []*Source
		for _, f := range tc.sources {
			sources = append(sources, f.source(tc.query))
		}
		cfg := defaultConfig
		if tc.config != nil {
			cfg = *tc.config
		}
		res := Rank(q, sources, cfg)
		fmt.Fprintf(&b, "## %s\nquery %q\n", tc.name, tc.query)
		fmt.Fprintf(&b, "answered %v, relaxed %v, window ignored %v, coverage %.2f of %v (held %v, covered %v), best evidence %.2f of chance %.2f, dropped fts %d entity %d semantic %d, semantic floor %.2f\n",
			res.Report.Answered, res.Relaxed, res.WindowIgnored, res.Report.Coverage, res.Report.Words, res.Report.Held, res.Report.Covered, res.Report.BestEvidence, res.Report.Chance, res.Report.DroppedFTS,
			res.Report.DroppedEntity, res.Report.DroppedSemantic, res.Report.MinSemanticSimilarity)
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

// clausesOf is the query's clauses and their units as the engine computes them, with a
// stand-in segmenter that knows words (longest first).
func clausesOf(q string, words map[string]float64) []Clause {
	cut := func(run string) []background.CJKWord {
		r := []rune(run)
		var out []background.CJKWord
		for i := 0; i < len(r); {
			n := 1
			for l := min(4, len(r)-i); l >= 2; l-- {
				if _, ok := words[string(r[i:i+l])]; ok {
					n = l
					break
				}
			}
			if s, ok := words[string(r[i:i+n])]; ok && n >= 2 {
				out = append(out, background.CJKWord{Start: i, Len: n, Specificity: s})
			}
			i += n
		}
		return out
	}
	var out []Clause
	for _, text := range query.Clauses(q) {
		out = append(out, Clause{Text: text, Units: background.Units(text, cut)})
	}
	return out
}

// TestRankIsDeterministic: the same evidence always gives the same answer, whatever the map
// iteration order.
func TestRankIsDeterministic(t *testing.T) {
	tc := rankCases[2]
	q := Query{}
	render := func() string {
		var sources []*Source
		for _, f := range tc.sources {
			sources = append(sources, f.source(tc.query))
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
