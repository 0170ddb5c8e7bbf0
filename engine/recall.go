package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/query"
	"github.com/memdesk/memdesk/engine/rewrite"
	"github.com/memdesk/memdesk/engine/timeexpr"
	"github.com/memdesk/memdesk/store"
)

// Source picks what a recall searches.
type Source string

// Recall sources.
const (
	SourceAll       Source = "all"
	SourceMemory    Source = "memory"
	SourceKnowledge Source = "knowledge"
)

// RecallRequest is one query.
type RecallRequest struct {
	Query  string `json:"query"`
	Space  string `json:"space,omitempty"`  // "" means "default"
	Source Source `json:"source,omitempty"` // "" means all
	K      int    `json:"k,omitempty"`      // 0 means the configured default
}

// LegScores are a hit's raw score in each leg (0 when the leg did not return it): the
// lexical leg's combined bm25 evidence, the entity leg's anchored Jaccard, the semantic
// leg's cosine.
type LegScores struct {
	FTS      float64 `json:"fts"`
	Entity   float64 `json:"entity"`
	Semantic float64 `json:"semantic"`
}

// DocRef points a knowledge hit back to where it came from.
type DocRef struct {
	ID        int64  `json:"id"`
	Path      string `json:"path"`
	Title     string `json:"title"`
	Heading   string `json:"heading,omitempty"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
}

// Hit is one recalled fact or chunk. Score is only comparable within one result.
type Hit struct {
	Source  Source    `json:"source"`
	ID      int64     `json:"id"`
	Text    string    `json:"text"`
	Score   float64   `json:"score"`
	Legs    LegScores `json:"legs"`
	Why     string    `json:"why"`
	Matched []string  `json:"matched,omitempty"`
	// Rare are the matched terms rare in the searched corpus; each counted twice toward
	// FTSBar.
	Rare    []string `json:"rare,omitempty"`
	Anchors []string `json:"anchors,omitempty"`
	// SemanticOnly marks a hit only the semantic leg found: it ranks after every hit the
	// lexical or entity leg found.
	SemanticOnly bool `json:"semantic_only,omitempty"`
	// FTSBar is the FTS floor this hit cleared (0: the query was not FTS-graded).
	FTSBar    int       `json:"fts_bar,omitempty"`
	Space     string    `json:"space"`
	CreatedAt time.Time `json:"created_at"`
	Doc       *DocRef   `json:"doc,omitempty"`
}

// FloorReport says which floors a recall applied and how many candidates each dropped.
type FloorReport struct {
	Floors
	// FTSBar is the FTS floor after clamping to the query's graded terms (0: not graded).
	FTSBar          int `json:"fts_bar"`
	DroppedFTS      int `json:"dropped_fts"`
	DroppedEntity   int `json:"dropped_entity"`
	DroppedSemantic int `json:"dropped_semantic"`
}

// RecallResult is the answer to one query. No hits is a valid answer: it means nothing
// cleared the floors. Relaxed means the strict floors found nothing and the loose ones did.
type RecallResult struct {
	Query    string      `json:"query"`
	Hits     []Hit       `json:"hits"`
	Relaxed  bool        `json:"relaxed"`
	Semantic string      `json:"semantic"`
	Floors   FloorReport `json:"floors"`
	Notes    []string    `json:"notes,omitempty"`
}

// candidateLimit is how many rows each index returns per source before floors and fusion.
const candidateLimit = 200

// Recall searches memories and/or knowledge for a query.
func (e *Engine) Recall(ctx context.Context, req RecallRequest) (RecallResult, error) {
	if strings.TrimSpace(req.Query) == "" {
		return RecallResult{}, fmt.Errorf("%w: the query is empty; type a word or two to search for", ErrBadRequest)
	}
	space, err := validSpace(req.Space)
	if err != nil {
		return RecallResult{}, err
	}
	k := req.K
	if k <= 0 {
		k = e.opts.DefaultK
	}
	var kinds []string
	switch req.Source {
	case SourceAll, "":
		kinds = []string{store.KindFact, store.KindChunk}
	case SourceMemory:
		kinds = []string{store.KindFact}
	case SourceKnowledge:
		kinds = []string{store.KindChunk}
	default:
		return RecallResult{}, fmt.Errorf("%w: unknown source %q (want all, memory or knowledge)", ErrBadRequest, req.Source)
	}

	plan := planQuery(req.Query, e.opts.Now())
	if x := e.ents.Load(); x != nil {
		plan.entities = x.Extract(plan.entityText)
	}
	res := RecallResult{Query: req.Query, Hits: []Hit{}, Semantic: e.opts.SemanticState()}
	if plan.empty() {
		res.Notes = append(res.Notes, "nothing searchable left in the query")
		return res, nil
	}
	qvec, fp, noise, note := e.queryVector(ctx, plan.semanticText)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	plan.semanticVec, plan.semanticFP, plan.semanticNoise = qvec, fp, noise
	var evidence []*sourceEvidence
	for _, kind := range kinds {
		ev, err := e.gather(ctx, kind, plan, store.SearchScope{Space: space, Limit: candidateLimit})
		if err != nil {
			return RecallResult{}, err
		}
		evidence = append(evidence, ev)
	}

	hits, report, relaxed := e.rankWithRetry(evidence, plan)
	if len(hits) == 0 && plan.when != nil {
		// The time words filtered everything out: answer without them, and say so.
		plan.when = nil
		hits, report, relaxed = e.rankWithRetry(evidence, plan)
		if len(hits) > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("nothing was written %s; showing matches from any time", plan.timeWords))
		}
	} else if plan.when != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("only memories written %s", plan.timeWords))
	}
	res.Relaxed = relaxed
	res.Floors = report
	if len(hits) > k {
		hits = hits[:k]
	}
	if err := e.explainHits(ctx, hits, evidence); err != nil {
		return RecallResult{}, err
	}
	res.Hits = append(res.Hits, hits...)
	return res, nil
}

// rankWithRetry ranks under the strict floors and, when that leaves nothing, once more under
// the loose ones.
func (e *Engine) rankWithRetry(evidence []*sourceEvidence, plan queryPlan) ([]Hit, FloorReport, bool) {
	floors := *e.opts.Floors
	hits, report := e.rank(evidence, plan, floors.strict())
	// Hits only the supporting semantic leg found do not count as an answer here: they must
	// not keep the lexical and entity legs from their own relaxed retry.
	if loose := floors.loose(); !anyCorroborated(hits) && loose != floors.strict() {
		if looseHits, looseReport := e.rank(evidence, plan, loose); anyCorroborated(looseHits) ||
			len(hits) == 0 && len(looseHits) > 0 {
			return looseHits, looseReport, true
		}
	}
	return hits, report, false
}

func anyCorroborated(hits []Hit) bool {
	for _, h := range hits {
		if !h.SemanticOnly {
			return true
		}
	}
	return false
}

// queryPlan is a query read once. Relative time words become a created-time filter and leave
// the text; question words and filler are stripped for a second reading. Each reading is
// graded on its own, and a candidate clears the FTS floor if it clears either.
type queryPlan struct {
	trigram   []string // trigram index terms
	short     []string // substring terms, used when there is no trigram term
	words     []string // word index terms (of the stripped reading when there is one)
	graded    []gradedTerms
	when      *timeexpr.Range
	timeWords string
	// entityText is the reading entities are extracted from; entities are filled by Recall
	// when the extractor is loaded.
	entityText string
	entities   []string
	// semanticText is what the semantic leg embeds (the query less its time words);
	// semanticVec is its unit vector in space semanticFP, set by Recall (nil: leg off).
	semanticText string
	semanticVec  []float32
	semanticFP   string
	// semanticNoise is the noise floor of space semanticFP: no profile's semantic floor is
	// below it.
	semanticNoise float64
}

func planQuery(q string, now time.Time) queryPlan {
	var p queryPlan
	rest, found := timeexpr.Parse(q, now)
	if r, ok := timeexpr.Cover(found); ok {
		p.when = &r
		words := make([]string, len(found))
		for i, f := range found {
			words[i] = f.Text
		}
		p.timeWords = strings.Join(words, ", ")
	}
	t := query.Parse(rest)
	p.trigram, p.short = t.Trigram, t.Short
	p.graded = []gradedTerms{gradeQuery(rest)}
	p.words = query.WordTerms(rest)
	p.entityText = rest
	p.semanticText = rest
	if stripped := rewrite.Strip(rest); stripped != "" && stripped != rest {
		p.graded = append(p.graded, gradeQuery(stripped))
		p.words = query.WordTerms(stripped)
		p.entityText = stripped
	}
	return p
}

// empty reports a query with nothing left to match (only time words, or only punctuation).
func (p queryPlan) empty() bool {
	return len(p.trigram) == 0 && len(p.short) == 0 && len(p.words) == 0 && len(p.entities) == 0
}

// ftsGrade grades one candidate text against every reading of the query and keeps the best.
// rare holds the graded terms that are rare in the searched source (counted twice).
func (p queryPlan) ftsGrade(lowerText string, floors floorProfile, rare map[string]bool) ftsGrade {
	var best ftsGrade
	for i, g := range p.graded {
		matched := g.matched(lowerText)
		cur := ftsGrade{matched: matched, weight: g.weight(matched, rare), bar: g.barFor(floors)}
		if i == 0 || cur.passes() && (!best.passes() || cur.weight > best.weight) {
			best = cur
		}
	}
	return best
}

// sourceEvidence is what the legs found in one source (memories or knowledge).
type sourceEvidence struct {
	kind       string
	candidates map[candidateKey]store.Candidate
	lexical    map[candidateKey]float64 // combined lexical raw score
	entity     map[candidateKey]entityHit
	anchors    []string                 // the query's anchors in this source
	rare       map[string]bool          // graded terms rare in this source: they count twice
	semantic   map[candidateKey]float64 // cosine, for candidates above the loosest floor
	// semanticNoise is the noise floor of the model and this source's space together: no
	// profile's semantic floor is below it here.
	semanticNoise float64
}

// gather runs the legs over one source and keeps every candidate with its raw scores;
// floors and fusion come after, so the relaxed retry needs no second search.
func (e *Engine) gather(ctx context.Context, kind string, plan queryPlan, sc store.SearchScope) (*sourceEvidence, error) {
	ev := &sourceEvidence{kind: kind, candidates: map[candidateKey]store.Candidate{}, lexical: map[candidateKey]float64{}}
	var lists [][]legScore
	var listWeights []float64
	add := func(weight float64, cands []store.Candidate, score func(store.Candidate) float64) {
		listWeights = append(listWeights, weight)
		list := make([]legScore, 0, len(cands))
		for _, c := range cands {
			key := candidateKey{kind: c.Kind, id: c.ID}
			if _, ok := ev.candidates[key]; !ok {
				ev.candidates[key] = c
			}
			list = append(list, legScore{key: key, raw: score(c)})
		}
		lists = append(lists, list)
	}
	bm25 := func(c store.Candidate) float64 { return c.BM25 }

	if len(plan.trigram) > 0 {
		cands, err := e.match(ctx, kind, store.IndexTrigram, plan.trigram, sc)
		if err != nil {
			return nil, err
		}
		add(e.opts.LexicalMix.Trigram, cands, bm25)
	} else if len(plan.short) > 0 {
		cands, err := e.substring(ctx, kind, plan.short, sc)
		if err != nil {
			return nil, err
		}
		// More distinct terms first; among equals the shorter text is the closer match.
		add(e.opts.LexicalMix.Trigram, cands, func(c store.Candidate) float64 {
			n := len(query.Matched(c.Text, plan.short))
			if n == 0 {
				return 0 // LIKE matched inside a word; a short Latin term must stand alone
			}
			return float64(n) + 1/float64(2+len([]rune(c.Text)))
		})
	}
	if len(plan.words) > 0 {
		cands, err := e.match(ctx, kind, store.IndexWords, plan.words, sc)
		if err != nil {
			return nil, err
		}
		add(e.opts.LexicalMix.Words, cands, bm25)
	}
	// The lexical leg's raw score sums each index's head-normalized bm25, weighted by
	// LexicalMix: a hit both indexes rank first scores Trigram + Words.
	for i, list := range lists {
		for key, v := range headNormalize(list) {
			ev.lexical[key] += listWeights[i] * v
		}
	}

	n, err := e.st.OwnerCount(ctx, kind, sc.Space)
	if err != nil {
		return nil, err
	}
	if ev.rare, err = e.rareTerms(ctx, kind, sc.Space, n, plan.graded); err != nil {
		return nil, err
	}
	ents, anchors, err := e.entityLeg(ctx, kind, sc.Space, n, plan.entities)
	if err != nil {
		return nil, err
	}
	ev.entity, ev.anchors = ents, anchors
	ev.semantic, ev.semanticNoise, err = e.semanticLeg(ctx, kind, sc.Space, plan.semanticVec, plan.semanticFP, plan.semanticNoise)
	if err != nil {
		return nil, err
	}
	var missing []int64
	for key := range ents {
		if _, ok := ev.candidates[key]; !ok {
			missing = append(missing, key.id)
		}
	}
	for key := range ev.semantic {
		if _, ok := ev.candidates[key]; !ok {
			if _, dup := ents[key]; !dup {
				missing = append(missing, key.id)
			}
		}
	}
	more, err := e.st.CandidatesByID(ctx, kind, missing)
	if err != nil {
		return nil, err
	}
	for _, c := range more {
		ev.candidates[candidateKey{kind: c.Kind, id: c.ID}] = c
	}
	return ev, nil
}

// rareTerms returns the graded terms of every reading that at least one and at most
// rareTermCeiling(n) of the n texts of kind in space hold. It asks the word index only when
// the corpus is large enough to have rare terms, and each count stops past the ceiling.
func (e *Engine) rareTerms(ctx context.Context, kind, space string, n int, graded []gradedTerms) (map[string]bool, error) {
	ceiling := rareTermCeiling(n)
	if ceiling < 1 {
		return nil, nil
	}
	var terms []string
	for _, g := range graded {
		terms = append(terms, g.shown...)
	}
	if len(terms) == 0 {
		return nil, nil
	}
	df, err := e.st.WordDF(ctx, kind, space, terms, ceiling)
	if err != nil {
		return nil, err
	}
	rare := map[string]bool{}
	for term, f := range df {
		if f >= 1 && f <= ceiling {
			rare[term] = true
		}
	}
	return rare, nil
}

func (e *Engine) match(ctx context.Context, kind string, idx store.Index, terms []string, sc store.SearchScope) ([]store.Candidate, error) {
	expr := query.MatchExpr(terms)
	if kind == store.KindFact {
		return e.st.MatchFacts(ctx, idx, expr, sc)
	}
	return e.st.MatchChunks(ctx, idx, expr, sc)
}

func (e *Engine) substring(ctx context.Context, kind string, terms []string, sc store.SearchScope) ([]store.Candidate, error) {
	if kind == store.KindFact {
		return e.st.SubstringFacts(ctx, terms, sc)
	}
	return e.st.SubstringChunks(ctx, terms, sc)
}

// rank applies one floor profile to the gathered evidence and fuses what survives.
func (e *Engine) rank(evidence []*sourceEvidence, plan queryPlan, floors floorProfile) ([]Hit, FloorReport) {
	report := FloorReport{Floors: floors.Floors, FTSBar: plan.graded[0].barFor(floors)}
	// The semantic floor applied is the configured one raised to the noise of the model and
	// of each source's space; the report carries the highest applied.
	report.MinSemanticSimilarity = semanticFloor(floors.MinSemanticSimilarity, plan.semanticNoise)
	inWindow := func(c store.Candidate) bool {
		return plan.when == nil || !c.CreatedAt.Before(plan.when.From) && c.CreatedAt.Before(plan.when.To)
	}
	// Rare terms count twice only in a query this profile answers without them: the bonus
	// lets an answered query reach the texts that share its one distinctive word, but never
	// turns an unanswered (unrelated) query into an answered one.
	answered := e.answered(evidence, plan, floors, inWindow)
	var all []Hit
	for _, ev := range evidence {
		var lexical, entities, semantic []legScore
		grades := map[candidateKey]ftsGrade{}
		rare := ev.rare
		if !answered {
			rare = nil
		}
		semFloor := semanticFloor(floors.MinSemanticSimilarity, max(plan.semanticNoise, ev.semanticNoise))
		report.MinSemanticSimilarity = max(report.MinSemanticSimilarity, semFloor)
		for key, raw := range ev.lexical {
			c := ev.candidates[key]
			if !inWindow(c) {
				continue
			}
			g := plan.ftsGrade(strings.ToLower(c.Text), floors, rare)
			if !g.passes() {
				report.DroppedFTS++
				continue
			}
			grades[key] = g
			lexical = append(lexical, legScore{key: key, raw: raw})
		}
		for key, h := range ev.entity {
			c, ok := ev.candidates[key]
			if !ok || !inWindow(c) {
				continue
			}
			if !h.passes(floors) {
				report.DroppedEntity++
				continue
			}
			entities = append(entities, legScore{key: key, raw: h.score})
		}
		for key, cos := range ev.semantic {
			c, ok := ev.candidates[key]
			if !ok || !inWindow(c) {
				continue
			}
			if cos < semFloor {
				report.DroppedSemantic++
				continue
			}
			semantic = append(semantic, legScore{key: key, raw: cos})
		}
		legs := []fusedLeg{
			{scores: lexical, weight: e.opts.Weights.FTS},
			// The entity leg's Jaccard is already an absolute similarity: dividing by its best
			// would make a weak best match (0.25) count as much as the best lexical hit.
			{scores: entities, weight: e.opts.Weights.Entity, absolute: true},
			// Cosine is absolute too: a leg divided by its best would always hand the nearest
			// neighbour full weight, even for a query nothing is about. It is supporting:
			// measured with a weak model (GloVe on SciFact), adding 0.6 x cosine to the other
			// legs' answers cost 0.064 nDCG@10 and 0.2 x cosine still 0.010; as a supporter
			// it can only add answers after theirs.
			{scores: semantic, weight: e.opts.Weights.Semantic, absolute: true, supporting: true},
		}
		for _, f := range fuse(legs) {
			c, g := ev.candidates[f.key], grades[f.key]
			raw := LegScores{}
			if _, ok := grades[f.key]; ok {
				raw.FTS = ev.lexical[f.key]
			}
			if h, ok := ev.entity[f.key]; ok && h.passes(floors) {
				raw.Entity = h.score
			}
			if cos, ok := ev.semantic[f.key]; ok && cos >= semFloor {
				raw.Semantic = cos
			}
			h := e.hit(c, f.score, raw, g.matched, g.bar)
			h.SemanticOnly = f.uncorroborated
			for _, m := range g.matched {
				if rare[m] {
					h.Rare = append(h.Rare, m)
				}
			}
			all = append(all, h)
		}
	}
	sortHits(all)
	return all, report
}

// answered reports whether some lexical or entity candidate clears the profile's floors
// with every term counted once.
func (e *Engine) answered(evidence []*sourceEvidence, plan queryPlan, floors floorProfile, inWindow func(store.Candidate) bool) bool {
	for _, ev := range evidence {
		for key, h := range ev.entity {
			if c, ok := ev.candidates[key]; ok && inWindow(c) && h.passes(floors) {
				return true
			}
		}
		for key := range ev.lexical {
			if c := ev.candidates[key]; inWindow(c) && plan.ftsGrade(strings.ToLower(c.Text), floors, nil).passes() {
				return true
			}
		}
	}
	return false
}

func (e *Engine) hit(c store.Candidate, score float64, legs LegScores, matched []string, bar int) Hit {
	h := Hit{
		ID: c.ID, Text: c.Text, Score: score, Legs: legs, Matched: matched, FTSBar: bar,
		Space: c.Space, CreatedAt: c.CreatedAt.UTC(), Source: SourceMemory,
	}
	if c.Kind == store.KindChunk {
		h.Source = SourceKnowledge
		h.Doc = &DocRef{ID: c.DocID, Path: c.DocPath, Title: c.DocTitle, Heading: c.Heading,
			LineStart: c.LineStart, LineEnd: c.LineEnd}
	}
	return h
}

// explainHits names the anchors each entity-leg hit shares (read only for the hits returned)
// and writes every hit's why.
func (e *Engine) explainHits(ctx context.Context, hits []Hit, evidence []*sourceEvidence) error {
	for _, ev := range evidence {
		source := SourceMemory
		if ev.kind == store.KindChunk {
			source = SourceKnowledge
		}
		var ids []int64
		for _, h := range hits {
			if h.Source == source && h.Legs.Entity > 0 {
				ids = append(ids, h.ID)
			}
		}
		shared, err := e.st.SharedEntities(ctx, ev.kind, ids, ev.anchors)
		if err != nil {
			return err
		}
		for i := range hits {
			if hits[i].Source == source {
				hits[i].Anchors = shared[hits[i].ID]
			}
		}
	}
	for i := range hits {
		hits[i].Why = explain(hits[i])
	}
	return nil
}

// explain says, in one line, which legs fired and on what.
func explain(h Hit) string {
	var parts []string
	if h.Legs.FTS > 0 {
		terms := h.Matched
		more := ""
		if len(terms) > 6 {
			more = fmt.Sprintf(" +%d more", len(terms)-6)
			terms = terms[:6]
		}
		p := fmt.Sprintf("lexical %.2f", h.Legs.FTS)
		if len(h.Matched) > 0 {
			p += fmt.Sprintf(" (matched %s%s", strings.Join(terms, ", "), more)
			if h.FTSBar > 0 {
				p += fmt.Sprintf("; %d of bar %d", len(h.Matched)+len(h.Rare), h.FTSBar)
			}
			if len(h.Rare) > 0 {
				p += fmt.Sprintf("; rare, counted twice: %s", strings.Join(h.Rare, ", "))
			}
			p += ")"
		}
		parts = append(parts, p)
	}
	if h.Legs.Entity > 0 {
		parts = append(parts, fmt.Sprintf("entity %.2f (anchors %s)", h.Legs.Entity, strings.Join(h.Anchors, ", ")))
	}
	if h.Legs.Semantic > 0 {
		parts = append(parts, fmt.Sprintf("semantic %.2f", h.Legs.Semantic))
	}
	return strings.Join(parts, " · ")
}

// sortHits orders by score, then memories before knowledge, then the shorter text (with the
// same evidence, the text that says less else is the closer match), then id: a deterministic
// order for equal scores.
func sortHits(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.SemanticOnly != b.SemanticOnly {
			return !a.SemanticOnly
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Source != b.Source {
			return a.Source == SourceMemory
		}
		if len(a.Text) != len(b.Text) {
			return len(a.Text) < len(b.Text)
		}
		return a.ID < b.ID
	})
}
