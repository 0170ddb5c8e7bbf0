// Package leg holds recall's three legs, each in one shape: a query plan in, candidates with
// their raw evidence out. The engine reads the query once (PlanQuery), runs every leg over
// each source it searches (Gather) and hands the sources to package rank, which alone
// decides floors, fusion and order. A leg decides nothing about ranking; it finds and
// records.
//
//   - plan.go: the query read once: time words to a window, question words stripped, the
//     word index terms and substrings, the clauses ranking measures coverage by, the text
//     entities are found in and the text the model embeds.
//   - lexical.go: the word index's bm25 (through engine/lexicon), and the trigram fallback
//     for substrings when no text holds a word of the query; index.go: what those two
//     indexes hold of a stored text.
//   - entity.go: the query's entities, and the texts sharing its anchoring ones.
//   - semantic.go: the texts nearest the query's vector. The embedding client, the model's
//     calibration and the vector index's lifecycle stay in package engine; the leg gets the
//     vector and searches through VectorIndex.
//
// Chinese is matched as every language is, and changed in these places. engine/analysis
// cuts text into index terms (CJK bigrams and single characters, stemmed Latin words), for
// stored texts (IndexWords) and queries (PlanQuery, through query.LexicalTerms) alike.
// engine/background's word table says which bigrams of a query are grammar, loose or content
// as it reads (Plan.Pairs: grammar is searched but is no evidence) and which words carry its
// topic (Plan.Clauses). engine/entity finds Chinese entity names (Entity.QueryEntities).
//
// Each leg reads the store through a small interface declared here (WordIndex,
// SubstringIndex, EntityIndex, VectorIndex, Owners), which *lexicon.Index, *store.Store and
// the engine's vector index satisfy, so a leg is tested with fakes. The legs hold no state
// of their own.
package leg

import (
	"context"

	"github.com/memdesk/memdesk/engine/rank"
)

// Leg is the one shape of a leg: it searches one source for the plan and records what it
// found in into (candidates, scores, the statistics ranking weighs them by). It adds a
// candidate only where no earlier leg did, and never changes another leg's fields.
type Leg interface {
	Gather(ctx context.Context, plan Plan, sc Scope, into *rank.Source) error
}

// The three legs.
var (
	_ Leg = Lexical{}
	_ Leg = Entity{}
	_ Leg = Semantic{}
)

// Scope is the source one Gather searches and how many candidates it may return.
type Scope struct {
	// Kind is the kind of owner (store.KindFact, store.KindChunk), Space the space searched.
	Kind  string
	Space string
	// Limit is how many rows each index returns; WordLimit how many the word index does,
	// which is more when a filter after ranking will narrow the answer.
	Limit     int
	WordLimit int
}

// Gather runs legs in order over one source and returns what they found: the ranking
// stage's input. Every candidate is kept with its raw evidence, so ranking's relaxed retry
// needs no second search.
func Gather(ctx context.Context, plan Plan, sc Scope, legs ...Leg) (*rank.Source, error) {
	src := &rank.Source{Kind: sc.Kind, Candidates: map[rank.Key]rank.Candidate{}}
	for _, l := range legs {
		if err := l.Gather(ctx, plan, sc, src); err != nil {
			return nil, err
		}
	}
	return src, nil
}
