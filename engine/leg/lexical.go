package leg

import (
	"context"
	"math"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/query"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// WordIndex is the word index as the lexical leg reads it (*lexicon.Index).
type WordIndex interface {
	Search(ctx context.Context, req lexicon.Request) (lexicon.Result, error)
	// Stats is the number of live texts of kind in space.
	Stats(ctx context.Context, kind, space string) (int, error)
}

// SubstringIndex is what the trigram fallback reads (*store.Store): the texts an FTS5 MATCH
// expression finds in the trigram index, and in the word index for prefixes.
type SubstringIndex interface {
	TrigramCandidates(ctx context.Context, kind, match string, sc store.SearchScope) ([]store.Candidate, error)
	WordCandidates(ctx context.Context, kind, match string, sc store.SearchScope) ([]store.Candidate, error)
}

// Lexical is the lexical leg: the word index's bm25 over the plan's words, and, when no text
// holds any of them, the trigram index's substrings.
type Lexical struct {
	Words      WordIndex
	Substrings SubstringIndex
}

// Gather searches the word index, falls back on substrings when it finds nothing, and
// records in into the terms looked up, their document frequencies and each candidate's
// matches.
func (l Lexical) Gather(ctx context.Context, plan Plan, sc Scope, into *rank.Source) error {
	terms := make([]lexicon.Term, len(plan.Words))
	for i, t := range plan.Words {
		terms[i] = lexicon.Term{Text: t.Text, Weight: repeatWeight(plan.Occurrences[t.Text])}
	}
	words, err := l.Words.Search(ctx, lexicon.Request{Kind: sc.Kind, Space: sc.Space, Terms: terms, Limit: sc.WordLimit})
	if err != nil {
		return err
	}
	into.N = words.N
	for bit, i := range words.Terms {
		t := plan.Words[i]
		into.LexicalTerms = append(into.LexicalTerms, rank.Term{Text: t.Text, Surface: t.Surface, Kind: t.Kind, Run: t.Run, Pos: t.Pos,
			Pair: plan.Pairs[t.Text]})
		into.DF = append(into.DF, words.DF[bit])
	}
	list := rank.LexicalList{Index: rank.Words, Scores: make([]rank.Score, 0, len(words.Matches))}
	for _, m := range words.Matches {
		key := rank.Key{Kind: sc.Kind, ID: m.ID}
		cand, ok := into.Candidates[key]
		if !ok {
			cand = rank.Candidate{CreatedAt: m.CreatedAt, TextLen: m.TextLen}
		}
		cand.Terms = m.Matched
		into.Candidates[key] = cand
		list.Scores = append(list.Scores, rank.Score{Key: key, Raw: m.Score})
	}
	// The trigram index answers what words cannot: a query whose words no text holds, such as
	// part of an identifier (sqlite of go-sqlite3) or of a word. Where words do match, a
	// trigram inside a longer word is no evidence for them (control is not controller), and
	// scored beside the words it cost or did not help on every dev set (doc/retrieval.md).
	if len(plan.Substrings) > 0 && len(words.Matches) == 0 {
		sub, err := l.substrings(ctx, plan.Substrings, sc, into)
		if err != nil {
			return err
		}
		into.Lexical = append(into.Lexical, sub)
	}
	into.Lexical = append(into.Lexical, list)
	if into.N == 0 {
		if into.N, err = l.Words.Stats(ctx, sc.Kind, sc.Space); err != nil {
			return err
		}
	}
	return nil
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

// maxSubstrings is how many substrings the fallback looks for: one bit each in a
// candidate's mask (rank.Candidate.Substrings).
const maxSubstrings = 64

// substrings is the trigram fallback: the texts holding any of terms as a substring, scored
// by how many distinct terms each holds and, among equals, by being shorter (the closer
// match). The index keeps no positions, so each candidate's text is checked here. Each term's
// holders among what was read are its document frequency for the evidence (a floor: the
// fallback reads a bounded number).
func (l Lexical) substrings(ctx context.Context, terms []string, sc Scope, into *rank.Source) (rank.LexicalList, error) {
	list := rank.LexicalList{Index: rank.Trigram}
	if len(terms) > maxSubstrings {
		terms = terms[:maxSubstrings]
	}
	expr := query.TrigramExpr(terms)
	if expr == "" {
		return list, nil
	}
	within := store.SearchScope{Space: sc.Space, Limit: sc.Limit}
	cands, err := l.Substrings.TrigramCandidates(ctx, sc.Kind, expr, within)
	if err != nil {
		return list, err
	}
	// The trigram index holds no common words (query.SubstringText): a word starting with
	// a term is found through the word index's terms that start with it, whether the term is
	// a common word ("shed": shedding) or a word being typed ("backgr": background).
	if prefix := query.PrefixExpr(terms); prefix != "" {
		more, err := l.Substrings.WordCandidates(ctx, sc.Kind, prefix, within)
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
	into.Substrings = terms
	into.SubstringDF = make([]int, len(terms))
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
				into.SubstringDF[i]++
				n++
			}
		}
		if n == 0 {
			continue // its trigrams are there, scattered; the substring is not
		}
		key := rank.Key{Kind: c.Kind, ID: c.ID}
		cand, ok := into.Candidates[key]
		if !ok {
			cand = rank.Candidate{CreatedAt: c.CreatedAt, TextLen: len(c.Text)}
		}
		cand.Substrings = mask
		into.Candidates[key] = cand
		list.Scores = append(list.Scores, rank.Score{Key: key, Raw: float64(n) + 1/float64(2+len([]rune(c.Text)))})
	}
	return list, nil
}
