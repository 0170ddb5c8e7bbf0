package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/explain"
	"github.com/memdesk/memdesk/engine/hygiene"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/query"
	"github.com/memdesk/memdesk/engine/rank"
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
	// MeaningOnly ranks by the semantic leg alone: the model's nearest texts by cosine, with
	// no floor and no other leg (to compare the model with the fused answer).
	MeaningOnly bool `json:"meaning_only,omitempty"`
	// noSuggestion skips the spelling suggestion: the recall that checks one makes none.
	noSuggestion bool
	// Since and Until keep the hits written (a memory) or imported (a document) in
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
	ID      int64  `json:"id"`
	Path    string `json:"path"`
	Title   string `json:"title"`
	Heading string `json:"heading,omitempty"`
	// Page is the 1-based page of a PDF; LineStart and LineEnd then count lines of that page.
	Page      int `json:"page,omitempty"`
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
	// OtherPaths are the other places the same file is, by path: identical files are stored
	// once, so one hit stands for all of them.
	OtherPaths []string `json:"other_paths,omitempty"`
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
	defer func() { err = damaged(err) }()
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

	if req.MeaningOnly {
		return e.recallByMeaning(ctx, req, kinds, space, k)
	}
	now := e.opts.Now()
	plan := planQuery(req.Query, now)
	lex, err := e.lex.Fresh(ctx)
	if err != nil {
		return RecallResult{}, err
	}
	if plan.entities, err = queryEntities(ctx, lex, plan.entityText); err != nil {
		return RecallResult{}, err
	}
	res = RecallResult{Query: req.Query, Hits: []Hit{}, Semantic: e.opts.SemanticState()}
	if plan.empty() {
		res.Notes = append(res.Notes, "nothing searchable left in the query")
		return res, nil
	}
	qvec, fp, cal, note := e.queryVector(ctx, plan.semanticText)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	plan.semanticVec, plan.semanticFP, plan.semanticCal = qvec, fp, cal
	var gathered []*gathered
	wordLimit := candidateLimit
	if req.filtered() {
		wordLimit = filteredCandidateLimit
	}
	for _, kind := range kinds {
		g, err := e.gather(ctx, lex, kind, plan, store.SearchScope{Space: space, Limit: candidateLimit}, wordLimit)
		if err != nil {
			return RecallResult{}, err
		}
		gathered = append(gathered, g)
	}
	sources := make([]*rank.Source, len(gathered))
	for i, g := range gathered {
		sources[i] = &g.source
	}
	rq := rank.Query{Window: plan.when, SemanticNoise: plan.semanticCal.Noise, Model: plan.semanticCal.model(), Clauses: e.queryClauses(req.Query, now),
		Asked: len(plan.words), ListDropped: req.ListDropped}
	ranked := rank.Rank(rq, sources, e.rankConfig())
	switch {
	case ranked.WindowIgnored && len(ranked.Hits) > 0:
		res.Notes = append(res.Notes, fmt.Sprintf("nothing was written %s; showing matches from any time", plan.timeWords))
	case plan.when != nil && !ranked.WindowIgnored:
		res.Notes = append(res.Notes, fmt.Sprintf("only memories written %s", plan.timeWords))
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
		if hits, err = e.narrow(ctx, req, hits, createdOf(gathered)); err != nil {
			return RecallResult{}, err
		}
		res.Filtered = len(ranked.Hits) - len(hits)
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	shown, err := e.hits(ctx, hits, req.lang())
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

// queryClauses are the query's sentences and lines, each with the units that can carry its
// topic (package background), read as the whole query is: time words out, question words
// stripped. Chinese is cut into words by background's embedded table, which needs no loading:
// a one-shot CLI, an agent's first call and the window read a question alike.
func (e *Engine) queryClauses(q string, now time.Time) []rank.Clause {
	var clauses []rank.Clause
	for _, text := range query.Clauses(q) {
		rest, _ := timeexpr.Parse(text, now)
		units := background.Units(stripQuestion(rest), background.ChineseWords)
		if len(units) == 0 {
			continue
		}
		clauses = append(clauses, rank.Clause{Text: text, Units: units})
	}
	return clauses
}

// rankConfig is the ranking stage's configuration from the engine's options.
func (e *Engine) rankConfig() rank.Config {
	return rank.Config{Floors: *e.opts.Floors, Weights: e.opts.Weights, Mix: e.opts.LexicalMix}
}

// queryPlan is a query read once. Relative time words become a created-time filter and leave
// the text; question words and filler are stripped, and what is left is searched.
type queryPlan struct {
	trigram []string // substrings for the trigram fallback
	// words are the word index terms the lexical leg searches (the lexicon keeps the rarest
	// when there are more than it scores); occurrences how often the query says each.
	words       []analysis.Term
	occurrences map[string]int
	// wordPairs are the query's CJK bigrams that belong to a word of its reading
	// (background.WordBigrams): the others are searched but are no evidence.
	wordPairs map[string]bool
	when      *rank.Window
	timeWords string
	// entityText is the reading entities are found in; entities are the store's entity
	// names it spells, filled by Recall (queryEntities).
	entityText string
	entities   []string
	// semanticText is what the semantic leg embeds (the query less its time words);
	// semanticVec is its unit vector in space semanticFP, set by Recall (nil: leg off).
	semanticText string
	semanticVec  []float32
	semanticFP   string
	// semanticCal is what was measured of space semanticFP's model: the leg's role and
	// floors.
	semanticCal calibration
}

func planQuery(q string, now time.Time) queryPlan {
	var p queryPlan
	rest, found := timeexpr.Parse(q, now)
	if r, ok := timeexpr.Cover(found); ok {
		p.when = &rank.Window{From: r.From, To: r.To}
		words := make([]string, len(found))
		for i, f := range found {
			words[i] = f.Text
		}
		p.timeWords = strings.Join(words, ", ")
	}
	reading := stripQuestion(rest)
	p.trigram = substringTerms(reading)
	p.words = query.LexicalTerms(reading, lexicon.MaxAsked)
	p.wordPairs = background.WordPairs(reading)
	p.occurrences = query.Occurrences(reading)
	p.entityText = reading
	p.semanticText = rest
	return p
}

// stripQuestion is text without its question words and filler, or as it is when nothing
// but those is left (rewrite.Strip).
func stripQuestion(text string) string {
	if stripped := rewrite.Strip(text); stripped != "" {
		return stripped
	}
	return text
}

// substringTerms are what the trigram fallback looks for: the query's Latin words of 4 or more
// characters (shorter ones are inside too many unrelated words to say anything). CJK is
// found through the word index or not at all (query.SubstringText).
func substringTerms(q string) []string {
	var out []string
	for _, t := range query.Parse(q).Trigram {
		if utf8.RuneCountInString(t) >= minSubstring && !query.IsCJKTerm(t) {
			out = append(out, t)
		}
	}
	return out
}

// minSubstring is the shortest Latin substring the fallback looks for.
const minSubstring = 4

// empty reports a query with nothing left to match (only time words, or only punctuation).
func (p queryPlan) empty() bool {
	return len(p.trigram) == 0 && len(p.words) == 0 && len(p.entities) == 0
}

// gathered is what the legs found in one source: the ranking stage's input.
type gathered struct {
	source  rank.Source
	anchors []string // the query's anchors in this source
}

// gather runs the legs over one source and keeps every candidate with its raw evidence; the
// ranking stage comes after, so its relaxed retry needs no second search. wordLimit is how
// many candidates the word index returns: more when a filter will narrow the answer. lex
// is the in-memory index as of the recall's start.
func (e *Engine) gather(ctx context.Context, lex lexicon.Fresh, kind string, plan queryPlan, sc store.SearchScope, wordLimit int) (*gathered, error) {
	g := &gathered{source: rank.Source{Kind: kind}}
	terms := make([]lexicon.Term, len(plan.words))
	for i, t := range plan.words {
		terms[i] = lexicon.Term{Text: t.Text, Weight: repeatWeight(plan.occurrences[t.Text])}
	}
	words, err := lex.Search(ctx, lexicon.Request{Kind: kind, Space: sc.Space, Terms: terms, Limit: wordLimit})
	if err != nil {
		return nil, err
	}
	ents, err := entitySearch(ctx, lex, kind, sc.Space, plan.entities)
	if err != nil {
		return nil, err
	}
	// Room for what the word and entity legs found, so a common query's map is made once
	// rather than grown through every size on the way.
	g.source.Candidates = make(map[rank.Key]rank.Candidate, len(words.Matches)+len(ents.Matches))
	g.source.N = words.N
	for bit, i := range words.Terms {
		t := plan.words[i]
		g.source.LexicalTerms = append(g.source.LexicalTerms, rank.Term{Text: t.Text, Surface: t.Surface, Kind: t.Kind, Run: t.Run, Pos: t.Pos,
			AcrossWords: t.Kind == analysis.Bigram && !plan.wordPairs[t.Text]})
		g.source.DF = append(g.source.DF, words.DF[bit])
	}
	list := rank.LexicalList{Index: rank.Words, Scores: make([]rank.Score, 0, len(words.Matches))}
	for _, m := range words.Matches {
		key := rank.Key{Kind: kind, ID: m.ID}
		g.source.Candidates[key] = rank.Candidate{CreatedAt: m.CreatedAt, TextLen: m.TextLen, Terms: m.Matched}
		list.Scores = append(list.Scores, rank.Score{Key: key, Raw: m.Score})
	}
	// The trigram index answers what words cannot: a query whose words no text holds, such as
	// part of an identifier (sqlite of go-sqlite3) or of a word. Where words do match, a
	// trigram inside a longer word is no evidence for them (control is not controller), and
	// scored beside the words it cost or did not help on every dev set (doc/retrieval.md).
	if len(plan.trigram) > 0 && len(words.Matches) == 0 {
		sub, err := e.substrings(ctx, g, kind, plan.trigram, sc)
		if err != nil {
			return nil, err
		}
		g.source.Lexical = append(g.source.Lexical, sub)
	}
	g.source.Lexical = append(g.source.Lexical, list)
	if g.source.N == 0 {
		if g.source.N, err = lex.Stats(ctx, kind, sc.Space); err != nil {
			return nil, err
		}
	}
	g.source.Entity, g.source.EntityDF = entityLeg(g, kind, plan.entities, ents)
	g.source.Semantic, g.source.SemanticNoise, g.source.SemanticStats, err = e.semanticLeg(ctx, kind, sc.Space, plan.semanticVec, plan.semanticFP, plan.semanticCal)
	if err != nil {
		return nil, err
	}
	var missing []int64
	for key := range g.source.Semantic {
		if _, ok := g.source.Candidates[key]; !ok {
			missing = append(missing, key.ID)
		}
	}
	for id, o := range lex.Describe(kind, missing) {
		g.source.Candidates[rank.Key{Kind: kind, ID: id}] = rank.Candidate{CreatedAt: o.CreatedAt, TextLen: o.TextLen}
	}
	return g, nil
}

// repeatWeight is the bm25 weight of a term the query says n times: 1 + ln n. In a pasted
// conversation the topic comes back turn after turn and small talk does not; bleve's match
// query counts each occurrence in full, and the logarithm keeps one word said five times from
// drowning the rest (MADial zh nDCG@10 0.508 -> 0.519 with it, 0.509 counted in full;
// LongMemEval-S, whose questions rarely repeat a word, unchanged: doc/retrieval.md).
func repeatWeight(n int) float64 {
	if n <= 1 {
		return 1
	}
	return 1 + math.Log(float64(n))
}

// keep makes a store row a candidate of g (once) and returns its key.
func (e *Engine) keep(g *gathered, c store.Candidate) rank.Key {
	key := rank.Key{Kind: c.Kind, ID: c.ID}
	if _, ok := g.source.Candidates[key]; !ok {
		g.source.Candidates[key] = rank.Candidate{CreatedAt: c.CreatedAt, TextLen: len(c.Text)}
	}
	return key
}

// substrings is the trigram fallback: the texts holding any of terms as a substring, scored
// by how many distinct terms each holds and, among equals, by being shorter (the closer
// match). The index keeps no positions, so each candidate's text is checked here. Each term's
// holders among what was read are its document frequency for the evidence (a floor: the
// fallback reads a bounded number).
func (e *Engine) substrings(ctx context.Context, g *gathered, kind string, terms []string, sc store.SearchScope) (rank.LexicalList, error) {
	list := rank.LexicalList{Index: rank.Trigram}
	if len(terms) > 64 {
		terms = terms[:64]
	}
	expr := query.TrigramExpr(terms)
	if expr == "" {
		return list, nil
	}
	cands, err := e.st.TrigramCandidates(ctx, kind, expr, sc)
	if err != nil {
		return list, err
	}
	// The trigram index holds no common words (query.SubstringText): a word starting with
	// a term is found through the word index's terms that start with it, whether the term is
	// a common word ("shed": shedding) or a word being typed ("backgr": background).
	if prefix := query.PrefixExpr(terms); prefix != "" {
		more, err := e.st.WordCandidates(ctx, kind, prefix, sc)
		if err != nil {
			return list, err
		}
		seen := make(map[int64]bool, len(cands))
		for _, c := range cands {
			seen[c.ID] = true
		}
		for _, c := range more {
			if !seen[c.ID] {
				cands = append(cands, c)
			}
		}
	}
	g.source.Substrings = terms
	g.source.SubstringDF = make([]int, len(terms))
	// A word of general English stands for itself: "shed" inside "established" is no
	// evidence for "garden shed", though "shed" starting "shedding" is. Parts of identifiers
	// and words being typed ("sqlite", "postg") match anywhere, as the fallback is for them.
	word := make([]bool, len(terms))
	for i, t := range terms {
		// Shorter terms already match only as whole words (query.Matched).
		word[i] = utf8.RuneCountInString(t) >= 3 && background.CommonWord(t)
	}
	for _, c := range cands {
		var mask uint64
		n := 0
		for i, t := range terms {
			if word[i] && query.AtWordStart(c.Text, t) || !word[i] && len(query.Matched(c.Text, []string{t})) > 0 {
				mask |= 1 << i
				g.source.SubstringDF[i]++
				n++
			}
		}
		if n == 0 {
			continue // its trigrams are there, scattered; the substring is not
		}
		key := e.keep(g, c)
		cand := g.source.Candidates[key]
		cand.Substrings = mask
		g.source.Candidates[key] = cand
		list.Scores = append(list.Scores, rank.Score{Key: key, Raw: float64(n) + 1/float64(2+len([]rune(c.Text)))})
	}
	return list, nil
}

// hits reads the rows of the ranked hits and makes them the hits the surfaces show.
func (e *Engine) hits(ctx context.Context, ranked []rank.Hit, lang explain.Lang) ([]Hit, error) {
	ids := map[string][]int64{}
	for _, h := range ranked {
		ids[h.Key.Kind] = append(ids[h.Key.Kind], h.Key.ID)
	}
	rows := map[rank.Key]store.Candidate{}
	for kind, list := range ids {
		cands, err := e.st.CandidatesByID(ctx, kind, list)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			rows[rank.Key{Kind: c.Kind, ID: c.ID}] = c
		}
	}
	var docIDs []int64
	for _, c := range rows {
		if c.Kind == store.KindChunk {
			docIDs = append(docIDs, c.DocID)
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
		h.WhyPlain = explain.Sentence(explain.Record{Knowledge: c.Kind == store.KindChunk, Matched: r.Matched, Lexical: r.Legs.FTS > 0,
			Anchors: r.Anchors, Semantic: r.Legs.Semantic, SemanticLead: r.SemanticLead, SemanticOnly: r.SemanticOnly,
			Written: c.CreatedAt}, lang, now)
		if c.Kind == store.KindChunk {
			h.Source = SourceKnowledge
			h.Doc = &DocRef{ID: c.DocID, Path: c.DocPath, Title: c.DocTitle, Heading: c.Heading,
				Page: c.Page, LineStart: c.LineStart, LineEnd: c.LineEnd, OtherPaths: copies[c.DocID]}
		}
		out = append(out, h)
	}
	if err := e.markConflicts(ctx, out); err != nil {
		return nil, err
	}
	newerFirst(out)
	return out, nil
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
