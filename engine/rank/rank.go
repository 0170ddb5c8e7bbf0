// Package rank is memdesk's one ranking stage. The legs (lexical, entity, semantic) gather
// candidates and their raw evidence from the store; this package decides everything after
// that, in one pass and in one place: which candidates clear which floor, how each leg's
// score is scaled, how the legs are fused, the order and its tie-breaks, the relaxed retry
// and the time window's fallback. It records each decision on the hit as it makes it, so an
// explanation is read off those records, never reconstructed.
//
// It is pure: no SQL, no I/O, no clock. Everything it needs arrives in Query, the Sources and
// Config, which makes every ranking rule a table test away (rank_test.go), and a reranker, if
// one comes, is one more stage after Rank.
//
// Where each rule lives: lexical.go (graded terms, the term bar, rare terms, the two-index
// mix), entity.go (anchors, anchored Jaccard, the entity floor), semantic.go (the semantic
// floor and the supporting role), fuse.go (normalization, fusion, order), explain.go (why).
package rank

import (
	"time"
)

// Owner kinds, as the store names them.
const (
	KindFact  = "fact"
	KindChunk = "chunk"
)

// Key identifies a fact or a chunk.
type Key struct {
	Kind string
	ID   int64
}

// Candidate is what ranking needs to know of a text beyond its leg scores.
type Candidate struct {
	CreatedAt time.Time
	// TextLen is the text's length in bytes: with the same evidence, the text that says less
	// else is the closer match.
	TextLen int
	// Terms says which of the source's LexicalTerms the text holds: bit i for LexicalTerms[i].
	Terms uint64
}

// Score is one leg's raw score for one candidate; larger is better.
type Score struct {
	Key Key
	Raw float64
}

// Index names the full-text index a lexical list came from.
type Index int

// The lexical leg's two indexes.
const (
	Trigram Index = iota // substrings: identifiers, CJK 3-grams, 1-2 character fallbacks
	Words                // CJK bigrams and stemmed Latin words
)

// LexicalList is one index's candidates with their raw bm25 (negated: larger is better).
type LexicalList struct {
	Index  Index
	Scores []Score
}

// Source is what the legs found in one source (memories or knowledge).
type Source struct {
	Kind       string
	Candidates map[Key]Candidate
	// LexicalTerms are the index terms the lexical leg looked up (at most 64): the graded
	// terms are among them, and each candidate says which it holds.
	LexicalTerms []string
	Lexical      []LexicalList
	Entity       map[Key]EntityEvidence
	// Rare holds the index terms rare in this source: they count twice toward the term bar.
	Rare map[string]bool
	// Semantic holds the cosine of candidates above the loosest semantic floor.
	Semantic map[Key]float64
	// SemanticNoise is the noise floor of the model and this source's vector space together:
	// no profile's semantic floor is below it here.
	SemanticNoise float64
}

// Window is a created-time filter [From, To).
type Window struct {
	From, To time.Time
}

func (w *Window) contains(t time.Time) bool {
	return w == nil || !t.Before(w.From) && t.Before(w.To)
}

// Query is the query as ranking sees it: its graded readings (the whole query, then the query
// with question words stripped, when that differs), the time window and the model's noise.
type Query struct {
	Readings      []Graded
	Window        *Window
	SemanticNoise float64
}

// Weights scale each leg's (normalized) score in fusion.
type Weights struct {
	FTS      float64
	Entity   float64
	Semantic float64
}

// LexicalMix weighs the two full-text indexes inside the lexical leg.
type LexicalMix struct {
	Trigram float64
	Words   float64
}

// Config is the ranking configuration: the strict floors (the loose ones derive from them),
// the leg weights and the lexical mix.
type Config struct {
	Floors  Floors
	Weights Weights
	Mix     LexicalMix
}

// LegScores are a hit's raw score in each leg, 0 where the leg did not find it or its floor
// dropped it: the lexical leg's mixed bm25 evidence, the entity leg's anchored Jaccard, the
// semantic leg's cosine.
type LegScores struct {
	FTS      float64 `json:"fts"`
	Entity   float64 `json:"entity"`
	Semantic float64 `json:"semantic"`
}

// Hit is one ranked candidate and the decisions that put it where it is.
type Hit struct {
	Key   Key
	Score float64
	Legs  LegScores
	// Matched are the graded query terms the text holds, as the query wrote them; Rare the
	// matched terms that counted twice; Bar the term bar the hit cleared (0: not graded).
	Matched []string
	Rare    []string
	Bar     int
	// Anchors are the query's anchors the candidate shares, when the entity leg scored it.
	Anchors []string
	// SemanticOnly marks a hit only the supporting semantic leg found: it ranks after every
	// hit the lexical or entity leg found.
	SemanticOnly bool
	// textLen breaks ties: with the same evidence, the text that says less else is closer.
	textLen int
}

// FloorReport says which floors a ranking pass applied and how many candidates each dropped.
type FloorReport struct {
	Floors
	// FTSBar is the term bar of the query's first reading after clamping (0: not graded).
	FTSBar          int `json:"fts_bar"`
	DroppedFTS      int `json:"dropped_fts"`
	DroppedEntity   int `json:"dropped_entity"`
	DroppedSemantic int `json:"dropped_semantic"`
}

// Result is a ranked answer, best first. Relaxed: the strict floors found nothing and the
// loose ones did. WindowIgnored: the time window left nothing, so the answer is from any time.
type Result struct {
	Hits          []Hit
	Report        FloorReport
	Relaxed       bool
	WindowIgnored bool
}

// Rank applies the floors to the gathered evidence, fuses what survives and orders it. Under
// the strict floors first; when they leave no lexical or entity answer, once more under the
// loose profile. When a time window leaves nothing, the whole is repeated without it.
func Rank(q Query, sources []*Source, cfg Config) Result {
	res := rankWithRetry(q, sources, cfg)
	if len(res.Hits) == 0 && q.Window != nil {
		wide := q
		wide.Window = nil
		res = rankWithRetry(wide, sources, cfg)
		res.WindowIgnored = true
	}
	return res
}

// rankWithRetry ranks under the strict floors and, when that leaves no corroborated hit,
// under the loose ones. Hits only the supporting semantic leg found do not count as an answer
// here: they must not keep the lexical and entity legs from their own relaxed retry.
func rankWithRetry(q Query, sources []*Source, cfg Config) Result {
	strict := cfg.Floors.strict()
	hits, report := rankOnce(q, sources, cfg, strict)
	if loose := cfg.Floors.loose(); !anyCorroborated(hits) && loose != strict {
		if looseHits, looseReport := rankOnce(q, sources, cfg, loose); anyCorroborated(looseHits) ||
			len(hits) == 0 && len(looseHits) > 0 {
			return Result{Hits: looseHits, Report: looseReport, Relaxed: true}
		}
	}
	return Result{Hits: hits, Report: report}
}

func anyCorroborated(hits []Hit) bool {
	for _, h := range hits {
		if !h.SemanticOnly {
			return true
		}
	}
	return false
}

// rankOnce applies one floor profile to every source and fuses what survives.
func rankOnce(q Query, sources []*Source, cfg Config, floors profile) ([]Hit, FloorReport) {
	report := FloorReport{Floors: floors.Floors, FTSBar: q.Readings[0].barFor(floors)}
	// The semantic floor applied is the configured one raised to the noise of the model and
	// of each source's space; the report carries the highest applied.
	report.MinSemanticSimilarity = semanticFloor(floors.MinSemanticSimilarity, q.SemanticNoise)
	mixed := make([]map[Key]float64, len(sources))
	for i, src := range sources {
		mixed[i] = mixLexical(src.Lexical, cfg.Mix)
	}
	// Rare terms count twice only in a query this profile answers without them: the bonus
	// lets an answered query reach the texts that share its one distinctive word, but never
	// turns an unanswered (unrelated) query into an answered one.
	answered := answeredWithoutBonus(q, sources, mixed, floors)
	var all []Hit
	for i, src := range sources {
		rare := src.Rare
		if !answered {
			rare = nil
		}
		semFloor := semanticFloor(floors.MinSemanticSimilarity, max(q.SemanticNoise, src.SemanticNoise))
		report.MinSemanticSimilarity = max(report.MinSemanticSimilarity, semFloor)

		lexicalRaw := mixed[i]
		bits := src.termBits()
		var lexical, entities, semantic []Score
		grades := map[Key]termGrade{}
		for key, raw := range lexicalRaw {
			c := src.Candidates[key]
			if !q.Window.contains(c.CreatedAt) {
				continue
			}
			g := gradeTerms(q.Readings, c.holds(bits), floors, rare)
			if !g.passes() {
				report.DroppedFTS++
				continue
			}
			grades[key] = g
			lexical = append(lexical, Score{Key: key, Raw: raw})
		}
		for key, ev := range src.Entity {
			c, ok := src.Candidates[key]
			if !ok || !q.Window.contains(c.CreatedAt) {
				continue
			}
			if !ev.passes(floors) {
				report.DroppedEntity++
				continue
			}
			entities = append(entities, Score{Key: key, Raw: ev.Score})
		}
		for key, cos := range src.Semantic {
			c, ok := src.Candidates[key]
			if !ok || !q.Window.contains(c.CreatedAt) {
				continue
			}
			if cos < semFloor {
				report.DroppedSemantic++
				continue
			}
			semantic = append(semantic, Score{Key: key, Raw: cos})
		}
		legs := []fusedLeg{
			{scores: lexical, weight: cfg.Weights.FTS},
			// The entity leg's Jaccard is already an absolute similarity: dividing by its best
			// would make a weak best match (0.25) count as much as the best lexical hit.
			{scores: entities, weight: cfg.Weights.Entity, absolute: true},
			// Cosine is absolute too, and the leg is a supporter (semantic.go).
			{scores: semantic, weight: cfg.Weights.Semantic, absolute: true, supporting: true},
		}
		for _, f := range fuse(legs) {
			h := Hit{Key: f.key, Score: f.score, SemanticOnly: f.uncorroborated,
				textLen: src.Candidates[f.key].TextLen}
			if g, ok := grades[f.key]; ok {
				h.Legs.FTS = lexicalRaw[f.key]
				h.Matched, h.Bar, h.Rare = g.matched, g.bar, g.rare
			}
			if ev, ok := src.Entity[f.key]; ok && ev.passes(floors) {
				h.Legs.Entity = ev.Score
				h.Anchors = ev.Anchors
			}
			if cos, ok := src.Semantic[f.key]; ok && cos >= semFloor {
				h.Legs.Semantic = cos
			}
			all = append(all, h)
		}
	}
	order(all)
	return all, report
}

// answeredWithoutBonus reports whether some lexical or entity candidate clears the profile's
// floors with every term counted once.
func answeredWithoutBonus(q Query, sources []*Source, mixed []map[Key]float64, floors profile) bool {
	for i, src := range sources {
		for key, ev := range src.Entity {
			if c, ok := src.Candidates[key]; ok && q.Window.contains(c.CreatedAt) && ev.passes(floors) {
				return true
			}
		}
		bits := src.termBits()
		for key := range mixed[i] {
			c := src.Candidates[key]
			if q.Window.contains(c.CreatedAt) && gradeTerms(q.Readings, c.holds(bits), floors, nil).passes() {
				return true
			}
		}
	}
	return false
}

// termBits maps each of the source's lexical terms to its bit.
func (src *Source) termBits() map[string]uint64 {
	bits := make(map[string]uint64, len(src.LexicalTerms))
	for i, t := range src.LexicalTerms {
		if i < 64 {
			bits[t] |= 1 << i
		}
	}
	return bits
}

// holds reports, for an index term, whether the candidate holds it.
func (c Candidate) holds(bits map[string]uint64) func(string) bool {
	return func(term string) bool { return c.Terms&bits[term] != 0 }
}
