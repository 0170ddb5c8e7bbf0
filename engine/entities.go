package engine

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/store"
)

// Entity-leg constants (see doc/retrieval.md for why).
const (
	// anchorRate and anchorMin bound how common an entity may be and still anchor a query:
	// df <= max(anchorMin, ceil(anchorRate*N)). Rarer means more discriminating; a small
	// corpus is forgiven.
	anchorRate = 0.2
	anchorMin  = 4
	// entityUnionCap saturates how much a fact's other entities can dilute its score, so a
	// wide fact that names a rare query entity stays reachable.
	entityUnionCap = 3
	// entityCandidateLimit bounds the owners one anchor lookup returns per source.
	entityCandidateLimit = 500
	// DefaultSweepBudget is how many rows one entity sweep pass re-extracts.
	DefaultSweepBudget = 2000
)

// LoadEntities loads the entity extractor (a Chinese dictionary and a language detector:
// seconds and ~100+ MB). Until it is loaded, writes are stamped pending and recall runs
// without the entity leg. Safe to call more than once and from any goroutine.
func (e *Engine) LoadEntities(ctx context.Context) error {
	if e.ents.Load() != nil {
		return nil
	}
	x, err := entity.New(ctx)
	if err != nil {
		return fmt.Errorf("load entity extractor: %w", err)
	}
	e.ents.CompareAndSwap(nil, x)
	return nil
}

// extractEntities returns text's entities stamped with the rules version, or nil (pending)
// while the extractor is not loaded.
func (e *Engine) extractEntities(text string) *store.Entities {
	x := e.ents.Load()
	if x == nil {
		return nil
	}
	return &store.Entities{Version: entity.RulesVersion, Names: x.Extract(text)}
}

// anchoredJaccard scores a candidate that carries shared of the query's anchors among its
// total entities: the shared anchors over the query's full entity count w plus, saturated at
// entityUnionCap, the candidate's entities that are not anchors. For a narrow fact it equals
// plain Jaccard; for a wide one the cap keeps a rare shared entity worth something. 0
// without overlap; always in [0, 1].
func anchoredJaccard(shared, total, w int) float64 {
	if shared <= 0 || w <= 0 {
		return 0
	}
	rest := min(max(total-shared, 0), entityUnionCap)
	return min(float64(shared)/float64(w+rest), 1)
}

// anchorCeiling is the largest document frequency an anchor may have among n owners.
func anchorCeiling(n int) int {
	return max(anchorMin, int(math.Ceil(anchorRate*float64(n))))
}

// entityHit is one candidate of the entity leg.
type entityHit struct {
	score  float64
	shared int // anchors the candidate carries
	w      int // the query's entity count
}

// passes applies the entity floor: the Jaccard bar and, like the FTS floor's two distinct
// terms, two shared anchors when the query names two or more entities (one under the loose
// profile). A single shared word of a two-entity query ("port" of "redis port") scores
// exactly 1/(2+rest) and would otherwise ride in on the Jaccard bar alone.
func (h entityHit) passes(f floorProfile) bool {
	need := min(2, h.w)
	if f.MinFTSTerms == 0 {
		need = 1
	}
	return h.score >= f.MinJaccard && h.shared >= need
}

// entityLeg finds candidates through the query's anchors: an index lookup, never a scan.
// n is the number of active owners of kind in space.
func (e *Engine) entityLeg(ctx context.Context, kind, space string, n int, queryEntities []string) (map[candidateKey]entityHit, []string, error) {
	if len(queryEntities) == 0 {
		return nil, nil, nil
	}
	ceiling := anchorCeiling(n)
	df, err := e.st.EntityDF(ctx, kind, space, queryEntities, ceiling)
	if err != nil {
		return nil, nil, err
	}
	var anchors []string
	for _, name := range queryEntities {
		if df := df[name]; df >= 1 && df <= ceiling {
			anchors = append(anchors, name)
		}
	}
	matches, err := e.st.EntityMatches(ctx, kind, space, anchors, entityCandidateLimit)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[candidateKey]entityHit, len(matches))
	for id, m := range matches {
		if score := anchoredJaccard(m.Shared, m.Total, len(queryEntities)); score > 0 {
			out[candidateKey{kind: kind, id: id}] = entityHit{score: score, shared: m.Shared, w: len(queryEntities)}
		}
	}
	return out, anchors, nil
}

// SweepReport says what one entity sweep pass did.
type SweepReport struct {
	Rebuilt  int `json:"rebuilt"`
	Deferred int `json:"deferred"` // still stale after this pass
	Skipped  int `json:"skipped"`  // 1 when another pass was already running
}

// SweepEntities re-extracts up to budget facts and chunks whose entities are pending or
// were made by another rules version, each in its own short transaction so writers never
// wait long. A row that fails is logged and left for the next pass. An overlapping call
// returns at once with Skipped = 1.
func (e *Engine) SweepEntities(ctx context.Context, budget int) (SweepReport, error) {
	x := e.ents.Load()
	if x == nil {
		return SweepReport{}, errors.New("entity sweep: the entity extractor is not loaded yet")
	}
	if !e.sweeping.CompareAndSwap(false, true) {
		return SweepReport{Skipped: 1}, nil
	}
	defer e.sweeping.Store(false)
	if budget <= 0 {
		budget = DefaultSweepBudget
	}
	var rep SweepReport
	for _, kind := range []string{store.KindFact, store.KindChunk} {
		owners, total, err := e.st.StaleEntities(ctx, kind, entity.RulesVersion, budget-rep.Rebuilt)
		if err != nil {
			return rep, err
		}
		rep.Deferred += total
		for _, o := range owners {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			err := e.st.SetEntities(ctx, kind, o.ID, o.Text, store.Entities{Version: entity.RulesVersion, Names: x.Extract(o.Text)})
			if err != nil {
				if !errors.Is(err, store.ErrChanged) {
					e.log.Warn("entity sweep: row left for the next pass", "kind", kind, "id", o.ID, "err", err)
				}
				continue
			}
			rep.Rebuilt++
			rep.Deferred--
		}
	}
	return rep, nil
}
