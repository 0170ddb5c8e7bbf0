package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/store"
)

// RememberAction says what a Remember request does to a fact.
type RememberAction string

// Remember actions.
const (
	ActionAdd     RememberAction = "add"
	ActionEdit    RememberAction = "edit"
	ActionForget  RememberAction = "forget"
	ActionRestore RememberAction = "restore"
	// ActionSupersede marks fact ID superseded by fact By: kept, linked, out of recall.
	ActionSupersede RememberAction = "supersede"
)

// RememberRequest adds, edits, forgets (soft-deletes), restores or supersedes a fact.
type RememberRequest struct {
	Action RememberAction `json:"action"`
	ID     int64          `json:"id,omitempty"`    // edit, forget, restore, supersede
	Text   string         `json:"text,omitempty"`  // add, edit
	Space  string         `json:"space,omitempty"` // add; "" means "default"
	// Supersedes (add) names an active fact of the same space the new one replaces; By
	// (supersede) names the fact that replaces ID.
	Supersedes int64 `json:"supersedes,omitempty"`
	By         int64 `json:"by,omitempty"`
}

// Remember outcomes.
const (
	StatusAdded      = "added"
	StatusDuplicate  = "duplicate"
	StatusEdited     = "edited"
	StatusUnchanged  = "unchanged"
	StatusForgotten  = "forgotten"
	StatusRestored   = "restored"
	StatusSuperseded = "superseded"
)

// RememberResult says which fact the request touched and what happened to it. An add or
// edit also reports the active facts of its space that the text restates (SimilarTo) or
// contradicts: the caller decides what to do about them.
type RememberResult struct {
	FactID      int64           `json:"fact_id"`
	Status      string          `json:"status"`
	SimilarTo   []int64         `json:"similar_to,omitempty"`
	Contradicts []Contradiction `json:"contradicts,omitempty"`
	// Superseded is the fact an add replaced; SupersededBy the fact a supersede linked to.
	Superseded   int64 `json:"superseded,omitempty"`
	SupersededBy int64 `json:"superseded_by,omitempty"`
}

// Remember applies one change to the memory store. An identical second add is a no-op
// reported as "duplicate"; forgetting is soft and undone by restore.
func (e *Engine) Remember(ctx context.Context, req RememberRequest) (RememberResult, error) {
	res, err := e.remember(ctx, req)
	if err == nil && res.Status != StatusDuplicate && res.Status != StatusUnchanged {
		e.exportSync(ctx)
		e.wantEmbedding() // an added, edited or restored fact needs its vector
	}
	return res, err
}

func (e *Engine) remember(ctx context.Context, req RememberRequest) (RememberResult, error) {
	switch req.Action {
	case ActionAdd, "":
		return e.addFact(ctx, req)
	case ActionEdit:
		return e.editFact(ctx, req)
	case ActionForget:
		return e.setStatus(ctx, req.ID, store.StatusDeleted, StatusForgotten)
	case ActionRestore:
		return e.setStatus(ctx, req.ID, store.StatusActive, StatusRestored)
	case ActionSupersede:
		return e.supersede(ctx, req.ID, req.By)
	default:
		return RememberResult{}, fmt.Errorf("%w: unknown remember action %q (want add, edit, forget, restore or supersede)", ErrBadRequest, req.Action)
	}
}

func (e *Engine) addFact(ctx context.Context, req RememberRequest) (RememberResult, error) {
	text, err := NormalizeFact(req.Text)
	if err != nil {
		return RememberResult{}, err
	}
	space, err := validSpace(req.Space)
	if err != nil {
		return RememberResult{}, err
	}
	defer e.wantCompaction()
	if req.Supersedes < 0 {
		return RememberResult{}, fmt.Errorf("%w: supersedes must be a fact id", ErrBadRequest)
	}
	triples := extractTriples(text)
	fact := store.NewFact{Content: text, Hash: contentHash(text),
		Entities: e.extractEntities(text), Triples: triples, Supersedes: req.Supersedes}
	id, dup, err := e.st.AddFact(ctx, space, fact)
	if err != nil {
		return RememberResult{}, e.damaged(ctx, mapSupersede(err))
	}
	e.wantSweepOf(fact)
	res := RememberResult{FactID: id, Status: StatusAdded, Superseded: req.Supersedes}
	if dup {
		res.Status = StatusDuplicate
		return res, nil
	}
	e.log.Debug("fact added", "id", id, "space", space)
	e.hygieneReport(ctx, &res, space, text, triples)
	return res, nil
}

// rememberBatchSize is how many facts one transaction of RememberBatch writes: large enough
// that commits stop dominating, small enough that other processes' writers wait only briefly.
const rememberBatchSize = 500

// RememberBatch adds many facts to one space, several hundred per transaction: the way to
// load a corpus. Results are in input order; a text that fails normalization gets the
// error in its result and the rest are still written. Progress, when set, gets the number
// of texts done after each transaction. The next batch's entities are extracted while the
// current one is written, so extraction (on every core) and SQLite overlap.
func (e *Engine) RememberBatch(ctx context.Context, space string, texts []string, progress func(done int)) ([]RememberBatchResult, error) {
	items := make([]batchItem, len(texts))
	for i, t := range texts {
		items[i].text = t
	}
	return e.rememberBatch(ctx, space, items, progress)
}

// batchItem is one fact of rememberBatch: its text and, for an imported one, its times.
type batchItem struct {
	text             string
	created, updated time.Time
}

func (e *Engine) rememberBatch(ctx context.Context, space string, texts []batchItem, progress func(done int)) ([]RememberBatchResult, error) {
	space, err := validSpace(space)
	if err != nil {
		return nil, err
	}
	defer e.wantCompaction()
	defer e.wantEmbedding()
	out := make([]RememberBatchResult, len(texts))
	type prepared struct {
		start, end int
		facts      []store.NewFact
		at         []int // the input position of each fact
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan prepared, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(batches)
		for start := 0; start < len(texts); start += rememberBatchSize {
			p := prepared{start: start, end: min(start+rememberBatchSize, len(texts))}
			for i := p.start; i < p.end; i++ {
				text, err := NormalizeFact(texts[i].text)
				if err != nil {
					out[i].Err = err.Error()
					continue
				}
				p.facts = append(p.facts, store.NewFact{Content: text, Hash: contentHash(text), Triples: extractTriples(text),
					CreatedAt: texts[i].created, UpdatedAt: texts[i].updated})
				p.at = append(p.at, i)
			}
			e.extractBatch(p.facts)
			select {
			case batches <- p:
			case <-ctx.Done():
				return
			}
		}
	})
	defer wg.Wait()
	for p := range batches {
		ids, dups, err := e.st.AddFacts(ctx, space, p.facts)
		if err != nil {
			cancel()
			return out[:p.start], err
		}
		e.wantSweepOf(p.facts...)
		for j, i := range p.at {
			out[i].FactID, out[i].Status = ids[j], StatusAdded
			if dups[j] {
				out[i].Status = StatusDuplicate
			}
		}
		if progress != nil {
			progress(p.end)
		}
	}
	e.exportSync(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A bulk load leaves a change per fact; other processes have read them by their next
	// recall, or reload whole.
	if err := e.st.PruneChanges(ctx); err != nil {
		e.log.Warn("change log not pruned", "err", err)
	}
	return out, nil
}

// extractBatch fills the batch's entities on every core: extraction, not SQLite, is what
// limits a bulk load (about 250 µs per English sentence).
func (e *Engine) extractBatch(batch []store.NewFact) {
	if e.ents.Load() == nil {
		return // pending: Run's sweep extracts them once written (wantSweepOf)
	}
	workers := min(runtime.GOMAXPROCS(0), len(batch))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(batch); i = int(next.Add(1)) - 1 {
				batch[i].Entities = e.extractEntities(batch[i].Content)
			}
		})
	}
	wg.Wait()
}

// RememberBatchResult is one text's outcome in a batch: a RememberResult, or why it was refused.
type RememberBatchResult struct {
	RememberResult
	Err string `json:"error,omitempty"`
}

func (e *Engine) editFact(ctx context.Context, req RememberRequest) (RememberResult, error) {
	text, err := NormalizeFact(req.Text)
	if err != nil {
		return RememberResult{}, err
	}
	triples := extractTriples(text)
	fact := store.NewFact{Content: text, Hash: contentHash(text), Entities: e.extractEntities(text), Triples: triples}
	changed, err := e.st.EditFact(ctx, req.ID, fact)
	if err != nil {
		return RememberResult{}, mapDuplicate(err)
	}
	e.wantSweepOf(fact)
	if !changed {
		return RememberResult{FactID: req.ID, Status: StatusUnchanged}, nil
	}
	res := RememberResult{FactID: req.ID, Status: StatusEdited}
	if f, err := e.st.Fact(ctx, req.ID); err == nil && f.Status == store.StatusActive {
		e.hygieneReport(ctx, &res, f.Space, text, triples)
	}
	return res, nil
}

func (e *Engine) setStatus(ctx context.Context, id int64, status, outcome string) (RememberResult, error) {
	previous, err := e.st.SetFactStatus(ctx, id, status)
	if err != nil {
		return RememberResult{}, mapDuplicate(err)
	}
	if previous == status {
		return RememberResult{FactID: id, Status: StatusUnchanged}, nil
	}
	return RememberResult{FactID: id, Status: outcome}, nil
}

func mapDuplicate(err error) error {
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		return fmt.Errorf("%w: fact %d already says the same thing; forget one of them first", ErrDuplicate, dup.ExistingID)
	}
	return err
}

// validSpace checks a space name: short, printable, no surrounding space.
func validSpace(space string) (string, error) {
	space = strings.TrimSpace(space)
	if space == "" {
		return "default", nil
	}
	if !utf8.ValidString(space) || utf8.RuneCountInString(space) > 64 ||
		strings.IndexFunc(space, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return "", fmt.Errorf("%w: space name %q must be 1-64 printable characters", ErrBadRequest, space)
	}
	return space, nil
}

// ListRequest selects facts to list.
type ListRequest struct {
	Space  string `json:"space,omitempty"`  // "" lists every space
	All    bool   `json:"all,omitempty"`    // include superseded and deleted facts
	Filter string `json:"filter,omitempty"` // substring of the text
	Limit  int    `json:"limit,omitempty"`  // 0: no limit
	Offset int    `json:"offset,omitempty"`
}

// FactView is a fact as the surfaces show it.
type FactView struct {
	ID        int64     `json:"id"`
	Text      string    `json:"text"`
	Space     string    `json:"space"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// SupersededBy is the fact that replaced this one (status superseded).
	SupersededBy int64 `json:"superseded_by,omitempty"`
}

// ListResult holds facts, newest first.
type ListResult struct {
	Facts []FactView `json:"facts"`
}

// List returns facts, newest first.
func (e *Engine) List(ctx context.Context, req ListRequest) (ListResult, error) {
	if req.Limit < 0 || req.Offset < 0 {
		return ListResult{}, fmt.Errorf("%w: limit and offset count memories and cannot be negative (got limit %d, offset %d)", ErrBadRequest, req.Limit, req.Offset)
	}
	facts, err := e.st.ListFacts(ctx, store.FactFilter{
		Space: strings.TrimSpace(req.Space), AllStatuses: req.All, Contains: req.Filter,
		Limit: req.Limit, Offset: req.Offset,
	})
	if err != nil {
		return ListResult{}, e.damaged(ctx, err)
	}
	out := ListResult{Facts: make([]FactView, 0, len(facts))}
	for _, f := range facts {
		out.Facts = append(out.Facts, factView(f))
	}
	return out, nil
}

// Fact returns one fact by id, whatever its status.
func (e *Engine) Fact(ctx context.Context, id int64) (FactView, error) {
	f, err := e.st.Fact(ctx, id)
	if err != nil {
		return FactView{}, err
	}
	return factView(f), nil
}

func factView(f store.Fact) FactView {
	return FactView{ID: f.ID, Text: f.Content, Space: f.Space, Status: f.Status,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC(), SupersededBy: f.SupersededBy}
}
