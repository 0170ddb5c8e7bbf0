package engine

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/explain"
	"github.com/memdesk/memdesk/engine/hygiene"
	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/rank"
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
	// MeaningOnly ranks by the semantic leg alone: the model's nearest texts by cosine, with
	// no floor and no other leg (to compare the model with the fused answer).
	MeaningOnly bool `json:"meaning_only,omitempty"`
	// SkipMeaning answers from the lexical and entity legs alone, never asking the model for
	// the query's vector: the first of a window's two steps, shown while the model embeds
	// the query (RecallResult.MeaningLeft says whether the second step, the same request
	// without it, can add anything). The answer is what a full recall gives when the model
	// has no vector for the query.
	SkipMeaning bool `json:"skip_meaning,omitempty"`
	// MeaningWait, when positive, is how long this recall may wait for the model to embed the
	// query, in place of the engine's bound for a surface someone waits on (a second, or less
	// for a model that was just late). The window's second step sets it: the answer by words
	// is already on screen and typing cancels the wait, so a slow model is worth waiting for.
	MeaningWait time.Duration `json:"-"`
	// noSuggestion skips the spelling suggestion: the recall that checks one makes none.
	noSuggestion bool
	// Since and Until keep the hits written (a memory, or a document that says when it was
	// written, as a chat conversation does) or else imported (a document) in
	// [Since, Until); zero is open. Unlike time words in the query, which are dropped with a
	// note when they leave nothing, these always hold: they are what the person chose.
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	// Folder keeps the knowledge hits whose document is in this folder or below it;
	// memories are in no folder, so a folder leaves knowledge only.
	Folder string `json:"folder,omitempty"`
	// Sort orders the hits: "" or relevance, the ranking's order; newest, by time written.
	// Filters and sort only choose among and reorder the hits the ranking found: none of
	// them changes which texts are answers or how they rank against each other.
	Sort Sort `json:"sort,omitempty"`
	// Lang is the language of each hit's WhyPlain ("en", "zh"); "" follows the query:
	// Chinese when it holds a Han character.
	Lang string `json:"lang,omitempty"`
	// ListDropped asks for up to this many of the candidates the floors left out, with the
	// floor that did (RecallResult.Dropped): what a failure analysis reads.
	ListDropped int `json:"list_dropped,omitempty"`
}

// lang is the language the hits' plain explanations are written in.
func (req RecallRequest) lang() explain.Lang {
	if l, ok := explain.Parse(req.Lang); ok {
		return l
	}
	return explain.LangOf(req.Query)
}

// LegScores are a hit's raw score in each leg (0 when the leg did not return it): the
// lexical leg's combined bm25 evidence, the entity leg's anchored Jaccard, the semantic
// leg's cosine.
type LegScores = rank.LegScores

// DocRef points a knowledge hit back to where it came from.
type DocRef struct {
	DocPlace
	// OtherPaths are the other places the same file is, by path: identical files are stored
	// once, so one hit stands for all of them.
	OtherPaths []string `json:"other_paths,omitempty"`
	// AlsoIn are the other chunks that hold the same passage (another format of the page, a
	// copy in another package), folded into this hit so that it is shown once.
	AlsoIn []DocPlace `json:"also_in,omitempty"`
}

// DocPlace is a place in an imported document: a chunk's document and where in it the chunk is.
type DocPlace struct {
	ID      int64  `json:"id"`
	Path    string `json:"path"`
	Title   string `json:"title"`
	Heading string `json:"heading,omitempty"`
	// Page is the 1-based page of a PDF; LineStart and LineEnd then count lines of that page.
	Page      int `json:"page,omitempty"`
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
}

// Hit is one recalled fact or chunk. Score is only comparable within one result.
type Hit struct {
	Source Source    `json:"source"`
	ID     int64     `json:"id"`
	Text   string    `json:"text"`
	Score  float64   `json:"score"`
	Legs   LegScores `json:"legs"`
	// Why is the ranking stage's account with its numbers (for diagnostics and scripts);
	// WhyPlain says the same for a person, in the request's language: "matched 预算 and 李娜
	// · also names Alice · written last Tuesday".
	Why      string   `json:"why"`
	WhyPlain string   `json:"why_plain"`
	Matched  []string `json:"matched,omitempty"`
	// Evidence is what the matched terms (or shared anchors) are worth: how unlikely a match
	// this good is by chance in the searched scope (package rank, evidence.go).
	Evidence float64  `json:"evidence,omitempty"`
	Anchors  []string `json:"anchors,omitempty"`
	// SemanticOnly marks a hit only the semantic leg found: it ranks after every hit the
	// lexical or entity leg found.
	SemanticOnly bool `json:"semantic_only,omitempty"`
	// SemanticLead is how many standard deviations above the query's chance level a leading
	// semantic leg put the text (0: not above it, or a supporting leg).
	SemanticLead float64   `json:"semantic_lead,omitempty"`
	Space        string    `json:"space"`
	CreatedAt    time.Time `json:"created_at"`
	Doc          *DocRef   `json:"doc,omitempty"`
	// Conflicts are the other memories of the same answer that contradict it (pairs a
	// person chose to keep both of are left out). The Memories screen's badges and `memdesk
	// admin contradictions` check every memory; this checks what recall shows.
	Conflicts []HitConflict `json:"conflicts,omitempty"`
}

// HitConflict is another memory of the same answer that contradicts a recalled one.
type HitConflict struct {
	FactID int64 `json:"fact_id"`
	// Newer says the other memory was written after the hit, which is then the older one.
	Newer  bool   `json:"newer"`
	Reason string `json:"reason"`
}

// Newest reports whether the hit conflicts with other memories and was written after all
// of them: the one most likely to say what holds now.
func (h Hit) Newest() bool {
	if len(h.Conflicts) == 0 {
		return false
	}
	for _, c := range h.Conflicts {
		if c.Newer {
			return false
		}
	}
	return true
}

// FloorReport says which floors a recall applied and how many candidates each dropped.
type FloorReport = rank.FloorReport

// RecallResult is the answer to one query. No hits is a valid answer: it means nothing
// cleared the floors. Relaxed means the strict floors found nothing and the loose ones did.
type RecallResult struct {
	Query    string      `json:"query"`
	Hits     []Hit       `json:"hits"`
	Relaxed  bool        `json:"relaxed"`
	Semantic string      `json:"semantic"`
	Floors   FloorReport `json:"floors"`
	Notes    []string    `json:"notes,omitempty"`
	// Filtered is how many answers the date range and folder left out: with no hits, it
	// says the filters, not the query, emptied the list.
	Filtered int `json:"filtered,omitempty"`
	// DidYouMean is, when nothing was found, the query with its unknown words spelled as the
	// store's own texts spell them, checked to find something ("pyhton" -> "python").
	DidYouMean string `json:"did_you_mean,omitempty"`
	// Dropped are the candidates the floors left out, best lexical score first, when the
	// request asked for them (ListDropped).
	Dropped []DroppedHit `json:"dropped,omitempty"`
	// MeaningLeft says a SkipMeaning request skipped a semantic leg that could run: the same
	// request without SkipMeaning asks the model and may add hits found by meaning.
	MeaningLeft bool `json:"meaning_left,omitempty"`
}

// DroppedHit is a candidate the ranking left out and why.
type DroppedHit struct {
	Source   Source  `json:"source"`
	ID       int64   `json:"id"`
	Lexical  float64 `json:"lexical"`
	Evidence float64 `json:"evidence"`
	Coverage float64 `json:"coverage"`
	Floor    string  `json:"floor"`
}

// candidateLimit is how many rows each index returns per source before floors and fusion.
const candidateLimit = 200

// Recall searches memories and/or knowledge for a query.
func (e *Engine) Recall(ctx context.Context, req RecallRequest) (res RecallResult, err error) {
	defer func() { err = e.damaged(ctx, err) }()
	if strings.TrimSpace(req.Query) == "" {
		return RecallResult{}, fmt.Errorf("%w: the query is empty; type a word or two to search for", ErrBadRequest)
	}
	space, err := validSpace(req.Space)
	if err != nil {
		return RecallResult{}, err
	}
	if req.ListDropped < 0 {
		return RecallResult{}, fmt.Errorf("%w: list_dropped is how many dropped candidates to list and cannot be negative (got %d)", ErrBadRequest, req.ListDropped)
	}
	if req.K < 0 {
		return RecallResult{}, fmt.Errorf("%w: k is the most hits to return and cannot be negative (got %d); 0 means the default", ErrBadRequest, req.K)
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
	if err := req.checkNarrowing(); err != nil {
		return RecallResult{}, err
	}

	if req.MeaningOnly && req.SkipMeaning {
		return RecallResult{}, fmt.Errorf("%w: meaning_only asks the model alone and skip_meaning asks without it; choose one", ErrBadRequest)
	}
	if req.MeaningOnly {
		return e.recallByMeaning(ctx, req, kinds, space, k)
	}
	plan := leg.PlanQuery(req.Query, e.opts.Now())
	// One look at the change log for the whole recall: every leg sees the store as it was
	// then, and none asks again.
	lex, err := e.lex.Fresh(ctx)
	if err != nil {
		return RecallResult{}, err
	}
	if plan.Entities, err = (leg.Entity{Index: lex}).QueryEntities(ctx, plan.EntityText); err != nil {
		return RecallResult{}, err
	}
	res = RecallResult{Query: req.Query, Hits: []Hit{}, Semantic: e.SemanticState()}
	if plan.Empty() {
		res.Notes = append(res.Notes, "nothing searchable left in the query")
		return res, nil
	}
	// Skipped, the semantic leg runs as it does when the model gives the query no vector:
	// the answer is the full recall's when the model is silent, with no ranking of its own.
	var (
		qvec []float32
		fp   string
		cal  calibration
		note string
	)
	if req.SkipMeaning {
		_, res.MeaningLeft = e.semanticReady()
	} else {
		qvec, fp, cal, note = e.queryVector(ctx, plan.SemanticText, req.MeaningWait)
	}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	plan.Semantic = leg.SemanticQuery{Vec: qvec, Fingerprint: fp, Noise: cal.Noise, Model: cal.model()}
	sc := leg.Scope{Space: space, Limit: candidateLimit, WordLimit: candidateLimit}
	if req.filtered() {
		sc.WordLimit = filteredCandidateLimit
	}
	sources, err := e.gather(ctx, lex, plan, kinds, sc)
	if err != nil {
		return RecallResult{}, err
	}
	rq := rank.Query{Window: plan.When, SemanticNoise: plan.Semantic.Noise, Model: plan.Semantic.Model, Clauses: plan.Clauses,
		Asked: len(plan.Words), ListDropped: req.ListDropped}
	ranked := rank.Rank(rq, sources, e.rankConfig())
	switch {
	case ranked.WindowIgnored && len(ranked.Hits) > 0:
		res.Notes = append(res.Notes, fmt.Sprintf("nothing was written %s; showing matches from any time", plan.TimeWords))
	case plan.When != nil && !ranked.WindowIgnored:
		res.Notes = append(res.Notes, fmt.Sprintf("only memories written %s", plan.TimeWords))
	}
	res.Relaxed = ranked.Relaxed
	res.Floors = ranked.Report
	for _, d := range ranked.Dropped {
		src := SourceMemory
		if d.Key.Kind == store.KindChunk {
			src = SourceKnowledge
		}
		res.Dropped = append(res.Dropped, DroppedHit{Source: src, ID: d.Key.ID, Lexical: d.Lexical,
			Evidence: d.Evidence, Coverage: d.Coverage, Floor: d.Floor})
	}
	hits := ranked.Hits
	if req.filtered() || req.Sort == SortNewest {
		if hits, err = e.narrow(ctx, req, hits, createdOf(sources)); err != nil {
			return RecallResult{}, err
		}
		res.Filtered = len(ranked.Hits) - len(hits)
	}
	hits, read, err := e.collapse(ctx, hits, k)
	if err != nil {
		return RecallResult{}, err
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	shown, err := e.hits(ctx, hits, read, req.lang())
	if err != nil {
		return RecallResult{}, err
	}
	res.Hits = append(res.Hits, shown...)
	// A query the filters emptied is spelled right: its answers are outside them.
	if len(res.Hits) == 0 && res.Filtered == 0 && !req.noSuggestion {
		res.DidYouMean = e.didYouMean(ctx, req, kinds)
	}
	return res, nil
}

// rankConfig is the ranking stage's configuration from the engine's options.
func (e *Engine) rankConfig() rank.Config {
	return rank.Config{Floors: *e.opts.Floors, Weights: e.opts.Weights, Mix: e.opts.LexicalMix}
}

// gather runs the three legs over each source of kinds, in sc's space: the ranking stage's
// input, one rank.Source per kind. The lexical leg runs first, so the candidates it finds
// carry its matches and the later legs add only their own. lex is the in-memory index as of
// the recall's start. The legs are made per recall,
// as the ranking's configuration is (rankConfig): the semantic leg keeps what the floors
// rank applies could let through.
func (e *Engine) gather(ctx context.Context, lex lexicon.Fresh, plan leg.Plan, kinds []string, sc leg.Scope) ([]*rank.Source, error) {
	legs := []leg.Leg{
		leg.Lexical{Words: lex, Substrings: e.st},
		leg.Entity{Index: lex},
		leg.Semantic{Vectors: vectorSearch{x: &e.vectors, st: e.st, oneShot: !e.semanticRunning.Load()}, Owners: lex, Floors: *e.opts.Floors},
	}
	sources := make([]*rank.Source, 0, len(kinds))
	for _, kind := range kinds {
		sc.Kind = kind
		src, err := leg.Gather(ctx, plan, sc, legs...)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	return sources, nil
}

// collapseWindow is how many hits per hit shown collapsing reads: enough that ten shown
// hits survive a page whose passages are each in three formats.
const collapseWindow = 4

// collapse folds the chunk hits that hold the same passage as a higher hit into it
// (rank.Collapse), reading the texts of the first collapseWindow*k hits only: those are
// the ones that can be shown. It returns the rows it read, which hits does not read again.
func (e *Engine) collapse(ctx context.Context, hits []rank.Hit, k int) ([]rank.Hit, map[rank.Key]store.Candidate, error) {
	window := min(len(hits), collapseWindow*k)
	var ids []int64
	for _, h := range hits[:window] {
		if h.Key.Kind == store.KindChunk {
			ids = append(ids, h.Key.ID)
		}
	}
	if len(ids) < 2 {
		return hits, nil, nil
	}
	cands, err := e.st.CandidatesByID(ctx, store.KindChunk, ids)
	if err != nil {
		return nil, nil, err
	}
	rows := make(map[rank.Key]store.Candidate, len(cands))
	passages := make(map[rank.Key]rank.Passage, len(cands))
	for _, c := range cands {
		key := rank.Key{Kind: store.KindChunk, ID: c.ID}
		rows[key], passages[key] = c, rank.PassageOf(c.Text)
	}
	return append(rank.Collapse(hits[:window], passages), hits[window:]...), rows, nil
}

// hits reads the rows of the ranked hits (those not already in read) and makes them the
// hits the surfaces show.
func (e *Engine) hits(ctx context.Context, ranked []rank.Hit, read map[rank.Key]store.Candidate, lang explain.Lang) ([]Hit, error) {
	ids := map[string][]int64{}
	want := func(key rank.Key) {
		if _, ok := read[key]; !ok {
			ids[key.Kind] = append(ids[key.Kind], key.ID)
		}
	}
	for _, h := range ranked {
		want(h.Key)
		for _, s := range h.Same {
			want(s.Key)
		}
	}
	rows := make(map[rank.Key]store.Candidate, len(read)+len(ranked))
	maps.Copy(rows, read)
	for kind, list := range ids {
		cands, err := e.st.CandidatesByID(ctx, kind, list)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			rows[rank.Key{Kind: c.Kind, ID: c.ID}] = c
		}
	}
	var docIDs []int64 // of the hits shown, and of the places folded into them
	for _, h := range ranked {
		for _, key := range append([]rank.Key{h.Key}, sameKeys(h.Same)...) {
			if c, ok := rows[key]; ok && c.Kind == store.KindChunk {
				docIDs = append(docIDs, c.DocID)
			}
		}
	}
	copies, err := e.st.CopiesOf(ctx, docIDs)
	if err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(ranked))
	now := e.opts.Now()
	for _, r := range ranked {
		c, ok := rows[r.Key]
		if !ok {
			continue // removed since it was found
		}
		h := Hit{
			ID: c.ID, Text: c.Text, Score: r.Score, Legs: r.Legs, Matched: r.Matched, Evidence: r.Evidence,
			Anchors: r.Anchors, SemanticOnly: r.SemanticOnly, SemanticLead: r.SemanticLead,
			Space: c.Space, CreatedAt: c.CreatedAt.UTC(), Source: SourceMemory, Why: rank.Explain(r),
		}
		h.WhyPlain = explain.Sentence(explain.Record{Knowledge: c.Kind == store.KindChunk && !c.DocWritten, Matched: r.Matched, Lexical: r.Legs.FTS > 0,
			Anchors: r.Anchors, Semantic: r.Legs.Semantic, SemanticLead: r.SemanticLead, SemanticOnly: r.SemanticOnly,
			Written: c.CreatedAt, AlsoIn: len(r.Same)}, lang, now)
		if c.Kind == store.KindChunk {
			h.Source = SourceKnowledge
			h.Doc = &DocRef{DocPlace: placeOf(c), OtherPaths: copies[c.DocID]}
			for _, s := range r.Same {
				if o, ok := rows[s.Key]; ok {
					h.Doc.AlsoIn = append(h.Doc.AlsoIn, placeOf(o))
				}
			}
		}
		out = append(out, h)
	}
	if err := e.markConflicts(ctx, out); err != nil {
		return nil, err
	}
	newerFirst(out)
	return out, nil
}

func sameKeys(same []rank.Same) []rank.Key {
	keys := make([]rank.Key, len(same))
	for i, s := range same {
		keys[i] = s.Key
	}
	return keys
}

// placeOf is where a chunk candidate is.
func placeOf(c store.Candidate) DocPlace {
	return DocPlace{ID: c.DocID, Path: c.DocPath, Title: c.DocTitle, Heading: c.Heading,
		Page: c.Page, LineStart: c.LineStart, LineEnd: c.LineEnd}
}

// newerFirst moves the newer memory of each contradicting pair above the older, where the
// ranking put it below: "CI uses Python 3.12", written after "CI uses Python 3.11", is what
// holds now. Nothing else moves, and each moved hit's why says so.
func newerFirst(hits []Hit) {
	at := func(id int64, from int) int {
		for j := from; j < len(hits); j++ {
			if hits[j].Source == SourceMemory && hits[j].ID == id {
				return j
			}
		}
		return -1
	}
	// Each move puts a strictly newer memory at i (written later, or the same time and a
	// later id), so the loop ends.
	for i := 0; i < len(hits); i++ {
		for _, c := range hits[i].Conflicts {
			if !c.Newer {
				continue
			}
			if j := at(c.FactID, i+1); j > i {
				moved := hits[j]
				moved.Why += fmt.Sprintf(" · newer than #%d, which it contradicts: ranked above it", hits[i].ID)
				copy(hits[i+1:j+1], hits[i:j])
				hits[i] = moved
				i-- // look at the moved hit's own conflicts
				break
			}
		}
	}
}

// markConflicts marks the memory hits that contradict each other, judged as a write is
// (hygiene.Contradicts over their statements). It is pure but for one read of the dismissed
// pairs when a pair is found, and changes no order. It looks only among the hits: looking up
// every stored memory about each hit's subject cost 5 ms a recall at 10k facts and 64 ms at
// 100k (BenchmarkRecall), where a subject ("Alice uses") has hundreds of statements.
func (e *Engine) markConflicts(ctx context.Context, hits []Hit) error {
	type stated struct {
		at      int
		triples []hygiene.Triple
	}
	var facts []stated
	for i, h := range hits {
		if h.Source != SourceMemory {
			continue
		}
		if ts := hygiene.Extract(h.Text); len(ts) > 0 {
			facts = append(facts, stated{i, ts})
		}
	}
	var dismissed map[[2]int64]bool
	for x := range facts {
		for y := x + 1; y < len(facts); y++ {
			a, b := &hits[facts[x].at], &hits[facts[y].at]
			if a.Space != b.Space {
				continue
			}
			ab, ok := hygiene.Contradicts(facts[x].triples, facts[y].triples)
			if !ok {
				continue
			}
			if dismissed == nil {
				var err error
				if dismissed, err = e.st.DismissedPairs(ctx); err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					// The hits are still right: they go unmarked, and the log says why.
					e.log.Warn("recall: contradiction marks skipped", "err", err)
					return nil
				}
			}
			if dismissed[orderedPair(a.ID, b.ID)] {
				continue
			}
			ba, _ := hygiene.Contradicts(facts[y].triples, facts[x].triples)
			bNewer := WrittenAfter(b.CreatedAt, b.ID, a.CreatedAt, a.ID)
			a.Conflicts = append(a.Conflicts, HitConflict{FactID: b.ID, Newer: bNewer, Reason: ab.Reason})
			b.Conflicts = append(b.Conflicts, HitConflict{FactID: a.ID, Newer: !bNewer, Reason: ba.Reason})
		}
	}
	return nil
}

// WrittenAfter reports whether a fact written at aAt with id aID came after one written at
// bAt with id bID. The time decides: an import keeps each memory's own time, so a memory
// from 2019 imported today is the older one. The ids decide where a time is unknown (zero)
// or the same: ids grow as facts are written.
func WrittenAfter(aAt time.Time, aID int64, bAt time.Time, bID int64) bool {
	if !aAt.IsZero() && !bAt.IsZero() && !aAt.Equal(bAt) {
		return aAt.After(bAt)
	}
	return aID > bID
}
