package leg

import (
	"context"

	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/rank"
)

// EntityIndex is the entity postings as the entity leg reads them (*lexicon.Index).
type EntityIndex interface {
	// EntitySearch finds the owners of kind in space carrying the anchors choose picks
	// among names (lexicon.Index.EntitySearch).
	EntitySearch(ctx context.Context, kind, space string, names []string,
		choose func(df map[string]int, n int) []string, limit int) (lexicon.EntityResult, error)
	// KnownNames says which of names some stored text has as an entity.
	KnownNames(ctx context.Context, names []string) (map[string]bool, error)
}

// Entity is the entity leg: the texts carrying the query's anchors (the rarest of its
// entities in the scope, rank.Anchors), scored by anchored Jaccard. Which entities anchor a
// query and how the leg scores live in package rank (entity.go).
type Entity struct {
	Index EntityIndex
}

// entityCandidateLimit bounds the owners one anchor lookup returns per source.
const entityCandidateLimit = 500

// QueryEntities are the entity names the store holds that text spells (entity.Spans,
// entity.Known): what Plan.Entities holds. The extractor reads stored texts; a query is read
// by what they were found to be about, which needs nothing loaded: every process finds a
// question's entities alike, from its first recall.
func (l Entity) QueryEntities(ctx context.Context, text string) ([]string, error) {
	spans := entity.Spans(text)
	if len(spans) == 0 {
		return nil, nil
	}
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	known, err := l.Index.KnownNames(ctx, names)
	if err != nil {
		return nil, err
	}
	return entity.Known(spans, func(name string) bool { return known[name] }), nil
}

// Gather finds candidates through the plan's anchors, from the in-memory entity postings,
// records each one's evidence and the entities' document frequency in into, and adds the
// candidates the other legs did not find.
func (l Entity) Gather(ctx context.Context, plan Plan, sc Scope, into *rank.Source) error {
	if len(plan.Entities) == 0 {
		return nil
	}
	found, err := l.Index.EntitySearch(ctx, sc.Kind, sc.Space, plan.Entities, func(df map[string]int, n int) []string {
		return rank.Anchors(plan.Entities, df, n)
	}, entityCandidateLimit)
	if err != nil {
		return err
	}
	evidence := make(map[rank.Key]rank.EntityEvidence, len(found.Matches))
	w := len(plan.Entities)
	for _, m := range found.Matches {
		if score := rank.AnchoredJaccard(len(m.Shared), m.Total, w); score > 0 {
			key := rank.Key{Kind: sc.Kind, ID: m.ID}
			evidence[key] = rank.EntityEvidence{Score: score, Shared: len(m.Shared), W: w, Anchors: m.Shared}
			if _, ok := into.Candidates[key]; !ok {
				into.Candidates[key] = rank.Candidate{CreatedAt: m.CreatedAt, TextLen: m.TextLen}
			}
		}
	}
	into.Entity, into.EntityDF = evidence, found.DF
	return nil
}
