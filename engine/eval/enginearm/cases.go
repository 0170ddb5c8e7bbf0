package enginearm

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/memdesk/memdesk/engine"
)

// Cases is the real arm of the case runner: Retrieve is an eval.CaseRetrieveFunc. Each
// distinct fact list is remembered once, in a space of its own, the first time a query asks
// about it, so all cases share one database without seeing each other's facts.
type Cases struct {
	e      *engine.Engine
	mu     sync.Mutex
	spaces map[[sha256.Size]byte]*caseSpace
}

type caseSpace struct {
	name string
	// factIndices maps a fact to the case's indices with its text: identical facts are
	// stored once and answer for all of them.
	factIndices map[int64][]int
}

// NewCases returns a case retriever over e, which should be a fresh database.
func NewCases(e *engine.Engine) *Cases {
	return &Cases{e: e, spaces: map[[sha256.Size]byte]*caseSpace{}}
}

// Retrieve answers query over facts with fact indices, best first, at most k.
func (c *Cases) Retrieve(ctx context.Context, query string, k int, facts []string) ([]int, error) {
	sp, err := c.space(ctx, facts)
	if err != nil {
		return nil, err
	}
	res, err := c.e.Recall(ctx, engine.RecallRequest{Query: query, Space: sp.name, Source: engine.SourceMemory, K: k})
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, k)
	for _, h := range res.Hits {
		for _, i := range sp.factIndices[h.ID] {
			if len(out) < k {
				out = append(out, i)
			}
		}
	}
	return out, nil
}

func (c *Cases) space(ctx context.Context, facts []string) (*caseSpace, error) {
	h := sha256.New()
	for _, f := range facts {
		fmt.Fprintf(h, "%d:%s", len(f), f)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])

	c.mu.Lock()
	defer c.mu.Unlock()
	if sp := c.spaces[key]; sp != nil {
		return sp, nil
	}
	sp := &caseSpace{name: fmt.Sprintf("case-%d", len(c.spaces)+1), factIndices: map[int64][]int{}}
	for i, f := range facts {
		res, err := c.e.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: f, Space: sp.name})
		if err != nil {
			return nil, fmt.Errorf("remember case fact %d: %w", i, err)
		}
		sp.factIndices[res.FactID] = append(sp.factIndices[res.FactID], i)
	}
	// With a semantic leg, the facts are embedded before the first query about them (an
	// engine without one has nothing to embed).
	for {
		rep, err := c.e.EmbedPending(ctx, 0)
		if errors.Is(err, engine.ErrSemanticOff) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("embed case facts: %w", err)
		}
		if rep.Remaining == 0 || rep.Embedded+rep.Zero == 0 {
			break
		}
	}
	c.spaces[key] = sp
	return sp, nil
}
