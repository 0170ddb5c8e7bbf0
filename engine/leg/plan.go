package leg

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/query"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/engine/rewrite"
	"github.com/memdesk/memdesk/engine/timeexpr"
)

// Plan is a query read once, for every leg and for ranking. Relative time words become a
// created-time window and leave the text; question words and filler are stripped, and what
// is left is searched. PlanQuery fills what reading the text alone can say; the engine
// fills the rest, which needs the store or the model (Entities, Semantic).
type Plan struct {
	// Substrings are what the trigram fallback looks for (substringTerms).
	Substrings []string
	// Words are the word index terms the lexical leg searches (the lexicon keeps the rarest
	// when there are more than it scores); Occurrences how often the query says each.
	Words       []analysis.Term
	Occurrences map[string]int
	// Pairs are the query's CJK bigrams that are not content as it reads, grammar or loose
	// (background.BigramKinds): weighed by the language more than by the store.
	Pairs map[string]background.PairKind
	// When is the time words' window (nil: none), TimeWords the words, for the notes.
	When      *rank.Window
	TimeWords string
	// Clauses are the query's sentences and lines with the units that can carry their topic:
	// what ranking measures a text's coverage of (rank.Clause).
	Clauses []rank.Clause
	// EntityText is the reading entities are found in; Entities are the store's entity names
	// it spells (Entity.QueryEntities), set by the engine.
	EntityText string
	Entities   []string
	// SemanticText is what the semantic leg embeds (the query less its time words); Semantic
	// is its vector and what was measured of the model, set by the engine.
	SemanticText string
	Semantic     SemanticQuery
}

// SemanticQuery is the query as the semantic leg searches it.
type SemanticQuery struct {
	// Vec is the query's unit vector in vector space Fingerprint; nil switches the leg off.
	Vec         []float32
	Fingerprint string
	// Noise is the model's own noise floor and Model its measured role: what ranking holds
	// a semantic score to.
	Noise float64
	Model rank.Model
}

// PlanQuery reads q at time now (the clock relative time words are read against).
func PlanQuery(q string, now time.Time) Plan {
	var p Plan
	rest, found := timeexpr.Parse(q, now)
	if r, ok := timeexpr.Cover(found); ok {
		p.When = &rank.Window{From: r.From, To: r.To}
		words := make([]string, len(found))
		for i, f := range found {
			words[i] = f.Text
		}
		p.TimeWords = strings.Join(words, ", ")
	}
	reading := stripQuestion(rest)
	p.Substrings = substringTerms(reading)
	p.Words = query.LexicalTerms(reading, lexicon.MaxAsked)
	p.Pairs = background.BigramKinds(reading)
	p.Occurrences = query.Occurrences(reading)
	p.Clauses = clauses(q, now)
	p.EntityText = reading
	p.SemanticText = rest
	return p
}

// Empty reports a query with nothing left to match (only time words, or only punctuation).
func (p Plan) Empty() bool {
	return len(p.Substrings) == 0 && len(p.Words) == 0 && len(p.Entities) == 0
}

// clauses are the query's sentences and lines, each with the units that can carry its topic
// (package background), read as the whole query is: time words out, question words
// stripped. Chinese is cut into words by background's embedded table, which needs no loading:
// a one-shot CLI, an agent's first call and the window read a question alike.
func clauses(q string, now time.Time) []rank.Clause {
	var out []rank.Clause
	for _, text := range query.Clauses(q) {
		rest, _ := timeexpr.Parse(text, now)
		units := background.Units(stripQuestion(rest), background.ChineseWords)
		if len(units) == 0 {
			continue
		}
		out = append(out, rank.Clause{Text: text, Units: units})
	}
	return out
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
