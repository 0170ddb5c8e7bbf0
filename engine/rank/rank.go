// Package rank is memdesk's one ranking stage. The legs (lexical, entity, semantic: package
// leg) gather candidates and their raw evidence from the store; this package decides
// everything after that, in one pass and in one place: which candidates clear which floor,
// how each leg's score is scaled, how the legs are fused, the order and its tie-breaks, the
// relaxed retry and the time window's fallback. It records each decision on the hit as it
// makes it, so an explanation is read off those records, never reconstructed.
//
// It is pure: no SQL, no I/O, no clock. Everything it needs arrives in Query, the Sources and
// Config, which makes every ranking rule a table test away (rank_test.go), and a reranker, if
// one comes, is one more stage after Rank.
//
// Where each rule lives: evidence.go (what a match is worth in this store, and the
// significance of the best), coverage.go (how much of a clause of the query a text holds,
// by general language: whether the store holds an answer at all), lexical.go (the two-index
// mix), entity.go (anchors, anchored Jaccard, the entity floor), semantic.go (the semantic
// floor and the supporting role), fuse.go (normalization, fusion, order), explain.go (why),
// and here the passes, the Chinese evidence in the lexical leg and the dropped candidates.
package rank

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/background"
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

// compare orders keys by kind, then id: the fixed order ties are broken in.
func (k Key) compare(o Key) int {
	if c := strings.Compare(k.Kind, o.Kind); c != 0 {
		return c
	}
	return cmp.Compare(k.ID, o.ID)
}

// Candidate is what ranking needs to know of a text beyond its leg scores.
type Candidate struct {
	CreatedAt time.Time
	// TextLen is the text's length in bytes: with the same evidence, the text that says less
	// else is the closer match.
	TextLen int
	// Terms says which of the source's LexicalTerms the text holds: bit i for LexicalTerms[i].
	Terms uint64
	// Substrings says which of the source's Substrings the text holds (the trigram fallback).
	Substrings uint64
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
	Trigram Index = iota // substrings: parts of identifiers and names, words being typed
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
	// N is the number of live texts in the searched scope (this source, this space).
	N int
	// LexicalTerms are the index terms the lexical leg looked up (at most 64), DF their
	// document frequency in the scope; each candidate says which it holds.
	LexicalTerms []Term
	DF           []int
	// Substrings are the substrings the trigram fallback looked for, SubstringDF how many of
	// the scope's texts hold each (at least; the fallback reads a bounded number).
	Substrings  []string
	SubstringDF []int
	Lexical     []LexicalList
	Entity      map[Key]EntityEvidence
	// EntityDF is the document frequency of the query's entities in the scope.
	EntityDF map[string]int
	// Semantic holds the cosine of candidates above the loosest semantic floor.
	Semantic map[Key]float64
	// SemanticNoise is the noise floor of the model and this source's vector space together:
	// no profile's semantic floor is below it here (a supporting leg's floor).
	SemanticNoise float64
	// SemanticStats are the query's cosines with the rest of this source's space: a leading
	// leg's chance level (semantic.go).
	SemanticStats CosineStats
}

// Window is a created-time filter [From, To).
type Window struct {
	From, To time.Time
}

func (w *Window) contains(t time.Time) bool {
	return w == nil || !t.Before(w.From) && t.Before(w.To)
}

// Query is the query as ranking sees it: the time window and the model's noise (its terms
// come with each source, with their statistics there).
type Query struct {
	Window        *Window
	SemanticNoise float64
	// Model is what the engine measured of the embedding model: the semantic leg's role.
	Model Model
	// Clauses are the query's sentences and lines with the units that can carry their topic,
	// those no text holds too (coverage.go).
	Clauses []Clause
	// ListDropped is how many of the candidates the floors drop to list in the result
	// (diagnostics; 0: none).
	ListDropped int
	// Asked is how many distinct lexical terms the query has, those no text holds too.
	Asked int
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
	// Matched are the query terms the text holds that counted as evidence, as the query
	// wrote them; Evidence is what they were worth (evidence.go) and Chance the store's
	// chance level it was held against.
	Matched  []string
	Evidence float64
	Chance   float64
	// Anchors are the query's anchors the candidate shares, when the entity leg scored it.
	Anchors []string
	// SemanticOnly marks a hit only the supporting semantic leg found: it ranks after every
	// hit the lexical or entity leg found.
	SemanticOnly bool
	// SemanticLead is how many standard deviations above the query's chance level a leading
	// semantic leg found the text (0 for a supporting leg, or below it).
	SemanticLead float64
	// Same are the lower hits that hold the same passage, folded into this one by Collapse.
	Same []Same
	// textLen breaks ties: with the same evidence, the text that says less else is closer.
	textLen int
}

// FloorReport says which floors a ranking pass applied and how many candidates each dropped.
type FloorReport struct {
	Floors
	// Answered says whether the best candidate's evidence reached the bar; BestEvidence and
	// Chance are the numbers behind it (of the source where they were closest).
	Answered     bool    `json:"answered"`
	BestEvidence float64 `json:"best_evidence"`
	Chance       float64 `json:"chance"`
	// Significance is -ln of how many texts of the scope would match as well by chance.
	Significance float64 `json:"significance"`
	// Terms is how many of the query's terms the scope holds at all (of that source).
	Terms int `json:"terms"`
	// Coverage is the largest share of a query clause (coverage.go) that a text holding
	// some evidence covers, Covered whether it reaches CoverageBar (or the query has no unit
	// to measure), and CoverageBar the share applied: MinCoverage raised with the size of the
	// scope (Floors.coverageBar), the highest of the sources'. Clause is that clause, Held
	// the units the text holds and Words the clause's most specific units (of the query's
	// best-covered clause, or of its first when no text covers any).
	Coverage    float64  `json:"coverage"`
	Covered     bool     `json:"covered"`
	CoverageBar float64  `json:"coverage_bar"`
	Clause      string   `json:"clause,omitempty"`
	Held        []string `json:"held,omitempty"`
	Words       []string `json:"words,omitempty"`
	// SemanticAnswered says a leading semantic leg found a text above the query's chance
	// level; SemanticRole is the role the leg played ("leading", "supporting", "" when off).
	SemanticAnswered bool   `json:"semantic_answered,omitempty"`
	SemanticRole     string `json:"semantic_role,omitempty"`
	DroppedFTS       int    `json:"dropped_fts"`
	DroppedEntity    int    `json:"dropped_entity"`
	DroppedSemantic  int    `json:"dropped_semantic"`
}

// Result is a ranked answer, best first. Relaxed: the strict floors found nothing and the
// loose ones did. WindowIgnored: the time window left nothing, so the answer is from any time.
type Result struct {
	Hits          []Hit
	Report        FloorReport
	Relaxed       bool
	WindowIgnored bool
	// Dropped are the candidates the floors left out, best lexical score first, at most
	// Query.ListDropped of them (a failure analysis reads them: memdesk eval --per-query).
	Dropped []Dropped
}

// Dropped is a candidate a ranking pass left out, and the floor that did.
type Dropped struct {
	Key Key
	// Lexical is its mixed lexical score (what would have ordered it), Evidence and
	// Coverage what it was held to the floors with.
	Lexical  float64
	Evidence float64
	Coverage float64
	Floor    string
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
	hits, report, dropped := rankOnce(q, sources, cfg, strict)
	if loose := cfg.Floors.loose(); !anyCorroborated(hits) && loose != strict {
		if looseHits, looseReport, looseDropped := rankOnce(q, sources, cfg, loose); anyCorroborated(looseHits) ||
			len(hits) == 0 && len(looseHits) > 0 {
			return Result{Hits: looseHits, Report: looseReport, Relaxed: true, Dropped: looseDropped}
		}
	}
	return Result{Hits: hits, Report: report, Dropped: dropped}
}

// reportedWords is how many of a clause's most specific units a report names.
const reportedWords = 5

func anyCorroborated(hits []Hit) bool {
	for _, h := range hits {
		if !h.SemanticOnly {
			return true
		}
	}
	return false
}

// sourceEvidence is what one source's candidates are worth as evidence.
type sourceEvidence struct {
	model   *evidenceModel
	chance  float64
	lexical map[Key]float64 // mixed lexical raw score
	of      map[Key]float64 // each candidate's evidence
	// byTerms is the word evidence of each set of terms some candidate holds
	// (Candidate.Terms): what a candidate's words are worth depends on nothing else.
	byTerms map[uint64]termParts
	covers  map[Key]float64 // the share of its best clause it holds (inside the window)
	best    float64
	// complete says whether a candidate holds every term of the query.
	complete func(Candidate) bool
}

// completeMatches returns whether a candidate of src holds every term of the query. Such a
// text is what the person asked for, however common its words: typing "orchard" into a
// store of orchard notes lists them all, though the word tells them apart from nothing.
func completeMatches(q Query, src *Source) func(Candidate) bool {
	n := len(src.LexicalTerms)
	if n == 0 || n > 64 || n != q.Asked {
		return func(Candidate) bool { return false }
	}
	all := uint64(1)<<n - 1
	return func(c Candidate) bool { return c.Terms&all == all }
}

// completeWords names what a text holding every term of the query matched when none of it
// counted as evidence (我们, 在家: words any text may hold): the terms of the query's words,
// or every term when it has none.
func completeWords(terms []Term) []string {
	var words, all []string
	for _, t := range terms {
		all = append(all, t.Surface)
		if t.Pair == background.ContentPair {
			words = append(words, t.Surface)
		}
	}
	if len(words) > 0 {
		return words
	}
	return all
}

// weigh computes every candidate's evidence in src. Substring matches (the trigram
// fallback) count only under the loose profile: a part of a word is weaker evidence than the
// word.
func weigh(src *Source, cfg Config, floors profile) *sourceEvidence {
	n := len(src.Candidates)
	se := &sourceEvidence{model: newEvidenceModel(src), chance: chanceLevel(src.N),
		lexical: mixLexical(src.Lexical, cfg.Mix), of: make(map[Key]float64, n), byTerms: map[uint64]termParts{}}
	subIDF := make([]float64, len(src.Substrings))
	for i := range src.Substrings {
		if i < len(src.SubstringDF) {
			subIDF[i] = idf(src.N, src.SubstringDF[i])
		}
	}
	chinese := false // some candidate holds Chinese evidence
	var best float64
	// The hundreds of candidates of a query hold a few sets of terms between them: each set
	// is weighed once (the terms used are read, never changed, so candidates share them).
	for key, c := range src.Candidates {
		p := se.parts(c)
		e := p.total
		chinese = chinese || p.chinese > 0
		best = max(best, e)
		if ev, ok := src.Entity[key]; ok {
			e = max(e, se.model.entity(ev.Anchors))
		}
		if floors.loose && c.Substrings != 0 {
			var sub float64
			for i, w := range subIDF {
				if i < 64 && c.Substrings&(1<<i) != 0 {
					sub += w
				}
			}
			e = max(e, sub)
		}
		se.of[key] = e
	}
	// Chinese is indexed as overlapping bigrams, so bm25 counts a four-character word three
	// times and scores a text that repeats one common pair above one holding two of the
	// question's words. The evidence counts each word once (the best bigrams that share no
	// character): added to the lexical leg, as a share of the best candidate's, it is the
	// count of the question's words a text holds that a word index would have
	// (doc/retrieval.md). Latin words are scored as words already and get nothing.
	if best > 0 && chinese {
		for key, v := range se.lexical {
			se.lexical[key] = (v + cjkEvidenceWeight*se.chinese(src.Candidates[key])/best) / (1 + cjkEvidenceWeight)
		}
	}
	return se
}

// termParts is what a set of terms is worth as evidence (evidenceModel.lexicalParts).
type termParts struct {
	total, chinese float64
	used           []int
}

// parts is c's word evidence, weighed once per set of terms.
func (se *sourceEvidence) parts(c Candidate) termParts {
	p, ok := se.byTerms[c.Terms]
	if !ok {
		p.total, p.chinese, p.used = se.model.lexicalParts(c.Terms)
		se.byTerms[c.Terms] = p
	}
	return p
}

// chinese is c's Chinese evidence (0 when it has none).
func (se *sourceEvidence) chinese(c Candidate) float64 {
	return max(se.parts(c).chinese, 0)
}

// cjkEvidenceWeight is what the Chinese evidence of the best candidate adds to the lexical
// leg, whose best bm25 is 1: half as much (so a third of the leg, which stays within 0..1).
const cjkEvidenceWeight = 0.5

// rankOnce applies one floor profile to every source and fuses what survives. The store
// holds an answer when some source's best candidate (inside the time window) is significant
// (fewer texts than exp(-MinEvidence) would match as well by chance: evidence.go) and some
// candidate covers a clause of the query (coverage.go); then every candidate reaching
// HitEvidence of the source's chance level, or covering a clause, is a hit, ordered by the
// fused legs. Otherwise the answer is empty, but for the supporting semantic leg's own finds.
func rankOnce(q Query, sources []*Source, cfg Config, floors profile) ([]Hit, FloorReport, []Dropped) {
	report := FloorReport{Floors: floors.Floors}
	if q.Model.Leading {
		report.SemanticRole = "leading"
	}
	// The semantic floor applied is the configured one raised to the noise of the model and
	// of each source's space; the report carries the highest applied.
	report.MinSemanticSimilarity = semanticFloor(floors.MinSemanticSimilarity, q.SemanticNoise)
	weighed := make([]*sourceEvidence, len(sources))
	semanticAnswered := make([]bool, len(sources))
	report.Significance = math.Inf(-1)
	var coverKey Key // the candidate the report's coverage is of: ties go to the lower key
	for i, src := range sources {
		se := weigh(src, cfg, floors)
		se.complete = completeMatches(q, src)
		cov := newCoverage(q.Clauses, src)
		if len(report.Words) == 0 && len(cov.clauses) > 0 {
			report.Words = cov.clauses[0].words(reportedWords)
		}
		covered := !cov.measurable() || floors.MinCoverage <= 0
		bar := floors.coverageBar(src.N)
		report.CoverageBar = max(report.CoverageBar, bar)
		se.covers = make(map[Key]float64, len(se.of))
		whole := false
		for key, e := range se.of {
			c := src.Candidates[key]
			if !q.Window.contains(c.CreatedAt) {
				continue
			}
			se.best = max(se.best, e)
			// Coverage is measured by general language, not by this store: a text that holds
			// some evidence and a quarter of a clause (more in a large scope) covers it, and
			// one holding a quarter is a hit below the per-hit bar too. In a store of nine
			// facts about 赵磊 his name is in every one and worth next to nothing against the
			// others, yet a question about him is answered by them.
			if e > 0 {
				share, cb := cov.of(c, floors.loose)
				se.covers[key] = share
				covered = covered || share >= bar
				if cb != nil && (share > report.Coverage || share == report.Coverage && key.compare(coverKey) < 0) {
					coverKey = key
					report.Coverage, report.Clause = share, clip(cb.clause.Text)
					report.Held, report.Words = cb.heldWords(c, floors.loose), cb.words(reportedWords)
				}
			}
			whole = whole || se.complete(c)
		}
		weighed[i] = se
		sig := se.model.significance(se.best)
		if sig > report.Significance {
			report.Significance = sig
			report.BestEvidence, report.Chance, report.Terms = se.best, se.chance, len(src.LexicalTerms)
		}
		report.Covered = report.Covered || covered || whole
		if whole || se.best > 0 && sig >= floors.MinEvidence && covered {
			report.Answered = true
		}
		// A leading model's find above the query's chance level is an answer too.
		if q.Model.Leading && floors.MinSemanticSimilarity > 0 {
			floor, _ := leadingFloor(q.Model, src.N, src.SemanticStats)
			for key, cos := range src.Semantic {
				if c, ok := src.Candidates[key]; ok && q.Window.contains(c.CreatedAt) && cos > floor {
					report.Answered, report.SemanticAnswered = true, true
					semanticAnswered[i] = true
					break
				}
			}
		}
	}
	if math.IsInf(report.Significance, -1) {
		report.Significance = 0 // JSON has no infinity: no candidate at all
	}
	var all []Hit
	var dropped []Dropped
	for i, src := range sources {
		se := weighed[i]
		noise := max(q.SemanticNoise, src.SemanticNoise)
		judge := judgeSemantic(q.Model, src, floors, noise, report.Answered, semanticAnswered[i])
		semFloor, leadSD, chance := judge.floor, judge.sd, judge.chance
		report.MinSemanticSimilarity = max(report.MinSemanticSimilarity, semFloor)
		hitBar := floors.HitEvidence * se.chance
		// A hit clears the per-hit bar, holds every term of the query, or covers a clause.
		isHit := func(key Key, c Candidate, e float64) bool {
			return se.complete(c) || e > 0 && (e >= hitBar || floors.MinCoverage > 0 && se.covers[key] >= floors.MinCoverage)
		}
		var lexical, entities, semantic []Score
		kept := make(map[Key]bool, len(se.lexical)+len(src.Entity))
		drop := func(key Key, floor string) {
			if q.ListDropped > 0 {
				dropped = append(dropped, Dropped{Key: key, Lexical: se.lexical[key], Evidence: se.of[key],
					Coverage: se.covers[key], Floor: floor})
			}
		}
		if !report.Answered && q.ListDropped > 0 {
			why := "the store holds no answer: " + report.Unanswered()
			for key := range se.lexical {
				if q.Window.contains(src.Candidates[key].CreatedAt) {
					drop(key, why)
				}
			}
		}
		if report.Answered {
			for key, raw := range se.lexical {
				c := src.Candidates[key]
				if !q.Window.contains(c.CreatedAt) {
					continue
				}
				if !isHit(key, c, se.of[key]) {
					report.DroppedFTS++
					drop(key, fmt.Sprintf("per-hit bar: evidence %.1f < %.1f and coverage %.2f < %.2f",
						se.of[key], hitBar, se.covers[key], floors.MinCoverage))
					continue
				}
				kept[key] = true
				lexical = append(lexical, Score{Key: key, Raw: raw})
			}
			for key, ev := range src.Entity {
				c, ok := src.Candidates[key]
				if !ok || !q.Window.contains(c.CreatedAt) {
					continue
				}
				if !ev.passes(floors) || se.of[key] < hitBar {
					report.DroppedEntity++
					continue
				}
				kept[key] = true
				entities = append(entities, Score{Key: key, Raw: ev.Score})
			}
		}
		for key, cos := range src.Semantic {
			c, ok := src.Candidates[key]
			if !ok || !q.Window.contains(c.CreatedAt) {
				continue
			}
			if !judge.admits(cos) {
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
		}
		if len(semantic) > 0 {
			// How far this query's vector is trusted is decided here, with the other legs'
			// answers in view (semantic.go).
			legs = append(legs, judge.leg(semantic, src.Semantic, legs, cfg.Weights.Semantic))
		}
		fusedHits := fuse(legs)
		all = slices.Grow(all, len(fusedHits))
		// The words a hit matched follow from its set of terms: hits holding the same set
		// share one list (read, never changed).
		matchedOf := map[uint64][]string{}
		for _, f := range fusedHits {
			h := Hit{Key: f.key, Score: f.score, SemanticOnly: f.uncorroborated,
				textLen: src.Candidates[f.key].TextLen, Chance: se.chance}
			if kept[f.key] {
				h.Evidence = se.of[f.key]
				if raw, ok := se.lexical[f.key]; ok {
					h.Legs.FTS = raw
				}
				terms := src.Candidates[f.key].Terms
				matched, ok := matchedOf[terms]
				if !ok {
					// Grammar a text shares (的车) counts a little; a person is shown the
					// words, and the grammar only when nothing else matched.
					var grammar []string
					for _, t := range se.parts(src.Candidates[f.key]).used {
						if src.LexicalTerms[t].Pair != background.ContentPair {
							grammar = append(grammar, src.LexicalTerms[t].Surface)
						} else {
							matched = append(matched, src.LexicalTerms[t].Surface)
						}
					}
					if len(matched) == 0 {
						matched = grammar
					}
					matched = slices.Clip(matched)
					matchedOf[terms] = matched
				}
				h.Matched = matched
				if len(h.Matched) == 0 && se.complete(src.Candidates[f.key]) {
					h.Matched = completeWords(src.LexicalTerms)
				}
				if ev, ok := src.Entity[f.key]; ok && ev.passes(floors) {
					h.Legs.Entity = ev.Score
					h.Anchors = ev.Anchors
				}
			}
			if cos, ok := src.Semantic[f.key]; ok && judge.admits(cos) {
				h.Legs.Semantic = cos
				// Measured from the chance level itself, not from the slack below it: a near
				// find that joined an answer is not "above chance".
				if judge.leading && leadSD > 0 && cos > chance {
					h.SemanticLead = (cos - chance) / leadSD
				}
			}
			all = append(all, h)
		}
	}
	if !q.Model.Leading {
		for _, src := range sources {
			if src.Semantic != nil {
				report.SemanticRole = "supporting"
			}
		}
	}
	order(all)
	slices.SortFunc(dropped, func(a, b Dropped) int {
		if c := cmp.Compare(b.Lexical, a.Lexical); c != 0 {
			return c
		}
		return a.Key.compare(b.Key)
	})
	if len(dropped) > q.ListDropped {
		dropped = dropped[:q.ListDropped]
	}
	return all, report, dropped
}
