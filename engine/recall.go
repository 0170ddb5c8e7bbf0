package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/query"
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

// LegScores are a hit's raw score in each leg (0 when the leg did not return it).
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
	Source    Source    `json:"source"`
	ID        int64     `json:"id"`
	Text      string    `json:"text"`
	Score     float64   `json:"score"`
	Legs      LegScores `json:"legs"`
	Why       string    `json:"why"`
	Matched   []string  `json:"matched,omitempty"`
	Space     string    `json:"space"`
	CreatedAt time.Time `json:"created_at"`
	Doc       *DocRef   `json:"doc,omitempty"`
}

// RecallResult is the answer to one query. No hits is a valid answer.
type RecallResult struct {
	Query    string `json:"query"`
	Hits     []Hit  `json:"hits"`
	Relaxed  bool   `json:"relaxed"`
	Semantic string `json:"semantic"`
}

// candidateLimit is how many rows each leg reads per source before fusion.
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

	terms := query.Parse(req.Query)
	res := RecallResult{Query: req.Query, Hits: []Hit{}, Semantic: e.opts.SemanticState()}
	var hits []Hit
	for _, kind := range kinds {
		lex, err := e.lexicalLeg(ctx, kind, terms, store.SearchScope{Space: space, Limit: candidateLimit})
		if err != nil {
			return RecallResult{}, err
		}
		hits = append(hits, fuseLegs(lex, e.opts.Weights)...)
	}
	sortHits(hits)
	if len(hits) > k {
		hits = hits[:k]
	}
	res.Hits = append(res.Hits, hits...)
	return res, nil
}

// lexHit is one lexical candidate with the distinct query terms it contains.
type lexHit struct {
	cand    store.Candidate
	raw     float64
	matched []string
	mode    string // "bm25" or "substring"
}

// lexicalLeg runs the trigram index for the query's trigram terms, or, when the query has
// none (a 1-2 character CJK word, "Go"), a substring search for its short terms.
func (e *Engine) lexicalLeg(ctx context.Context, kind string, terms query.Terms, sc store.SearchScope) ([]lexHit, error) {
	if len(terms.Trigram) > 0 {
		match := query.MatchExpr(terms.Trigram)
		var cands []store.Candidate
		var err error
		if kind == store.KindFact {
			cands, err = e.st.MatchFacts(ctx, match, sc)
		} else {
			cands, err = e.st.MatchChunks(ctx, match, sc)
		}
		if err != nil {
			return nil, err
		}
		out := make([]lexHit, 0, len(cands))
		for _, c := range cands {
			out = append(out, lexHit{cand: c, raw: c.BM25, matched: query.Matched(c.Text, terms.Trigram), mode: "bm25"})
		}
		return out, nil
	}
	if len(terms.Short) == 0 {
		return nil, nil
	}
	var cands []store.Candidate
	var err error
	if kind == store.KindFact {
		cands, err = e.st.SubstringFacts(ctx, terms.Short, sc)
	} else {
		cands, err = e.st.SubstringChunks(ctx, terms.Short, sc)
	}
	if err != nil {
		return nil, err
	}
	var out []lexHit
	for _, c := range cands {
		// LIKE matched a substring; a short Latin term must also stand as a word.
		matched := query.Matched(c.Text, terms.Short)
		if len(matched) == 0 {
			continue
		}
		// More distinct terms first; among equals, the shorter text is the closer match.
		raw := float64(len(matched)) + 1/float64(2+len([]rune(c.Text)))
		out = append(out, lexHit{cand: c, raw: raw, matched: matched, mode: "substring"})
	}
	return out, nil
}

// fuseLegs turns one source's leg results into hits: each leg's raw scores are divided by
// that leg's best in this query, then weighted.
func fuseLegs(lex []lexHit, w Weights) []Hit {
	var head float64
	for _, h := range lex {
		head = max(head, h.raw)
	}
	hits := make([]Hit, 0, len(lex))
	for _, h := range lex {
		score := 0.0
		if head > 0 {
			score = w.FTS * h.raw / head
		}
		hit := Hit{
			ID:        h.cand.ID,
			Text:      h.cand.Text,
			Score:     score,
			Legs:      LegScores{FTS: h.raw},
			Matched:   h.matched,
			Space:     h.cand.Space,
			CreatedAt: h.cand.CreatedAt.UTC(),
			Why:       lexicalWhy(h),
		}
		if h.cand.Kind == store.KindChunk {
			hit.Source = SourceKnowledge
			hit.Doc = &DocRef{ID: h.cand.DocID, Path: h.cand.DocPath, Title: h.cand.DocTitle,
				Heading: h.cand.Heading, LineStart: h.cand.LineStart, LineEnd: h.cand.LineEnd}
		} else {
			hit.Source = SourceMemory
		}
		hits = append(hits, hit)
	}
	return hits
}

func lexicalWhy(h lexHit) string {
	shown := h.matched
	more := ""
	if len(shown) > 6 {
		more = fmt.Sprintf(" +%d more", len(shown)-6)
		shown = shown[:6]
	}
	if h.mode == "substring" {
		return fmt.Sprintf("lexical: contains %s", strings.Join(shown, ", ")+more)
	}
	return fmt.Sprintf("lexical: %d matched terms (%s), bm25 %.2f", len(h.matched), strings.Join(shown, ", ")+more, h.raw)
}

// sortHits orders by score, then memories before knowledge, then id: a deterministic order
// for equal scores.
func sortHits(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Source != b.Source {
			return a.Source == SourceMemory
		}
		return a.ID < b.ID
	})
}
