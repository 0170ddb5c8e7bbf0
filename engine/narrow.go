package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// Sort orders a recall's hits.
type Sort string

// Recall orders.
const (
	// SortRelevance is the ranking's own order, best first.
	SortRelevance Sort = "relevance"
	// SortNewest puts the hits the ranking found written (or imported) last first.
	SortNewest Sort = "newest"
)

// filteredCandidateLimit is how many rows the word index returns per source when a filter
// narrows the answer: matches the filter keeps may rank below the first candidateLimit.
// Bounded, so a filter that keeps almost nothing costs a few milliseconds more, not a scan.
const filteredCandidateLimit = 5 * candidateLimit

// filtered reports whether the request narrows the hits beyond space and source.
func (req RecallRequest) filtered() bool {
	return !req.Since.IsZero() || !req.Until.IsZero() || strings.TrimSpace(req.Folder) != ""
}

// checkNarrowing refuses filters that cannot hold anything, in the person's words.
func (req RecallRequest) checkNarrowing() error {
	switch req.Sort {
	case "", SortRelevance, SortNewest:
	default:
		return fmt.Errorf("%w: unknown sort %q (want relevance or newest)", ErrBadRequest, req.Sort)
	}
	if !req.Since.IsZero() && !req.Until.IsZero() && !req.Since.Before(req.Until) {
		return fmt.Errorf("%w: the date range ends (%s) before it starts (%s); swap the two dates", ErrBadRequest,
			req.Until.Format(time.DateOnly), req.Since.Format(time.DateOnly))
	}
	if req.MeaningOnly && (req.filtered() || req.Sort == SortNewest) {
		return fmt.Errorf("%w: a meaning-only search takes no date, folder or sort; leave them out", ErrBadRequest)
	}
	return nil
}

// narrow keeps the ranked hits the request's date range and folder allow, in the ranking's
// order, or newest first when asked. It runs after the ranking and before the cut to k, so a
// filter never changes where the hits it keeps stand relative to each other, and a match
// that ranked below k still shows when the filter leaves room. created is each candidate's
// time as the legs read it.
func (e *Engine) narrow(ctx context.Context, req RecallRequest, hits []rank.Hit, created func(rank.Key) time.Time) ([]rank.Hit, error) {
	out := make([]rank.Hit, 0, len(hits))
	for _, h := range hits {
		at := created(h.Key)
		if !req.Since.IsZero() && at.Before(req.Since) || !req.Until.IsZero() && !at.Before(req.Until) {
			continue
		}
		out = append(out, h)
	}
	if folder := strings.TrimSpace(req.Folder); folder != "" {
		var err error
		if out, err = e.inFolder(ctx, out, folder); err != nil {
			return nil, err
		}
	}
	if req.Sort == SortNewest {
		// Stable on the ranking's order: of two written at the same instant the better comes first.
		slices.SortStableFunc(out, func(a, b rank.Hit) int { return created(b.Key).Compare(created(a.Key)) })
	}
	return out, nil
}

// inFolder keeps the knowledge hits whose document is in folder or below it, at any of the
// paths it is stored under (identical files are stored once). Memories are in no folder.
func (e *Engine) inFolder(ctx context.Context, hits []rank.Hit, folder string) ([]rank.Hit, error) {
	var ids []int64
	for _, h := range hits {
		if h.Key.Kind == store.KindChunk {
			ids = append(ids, h.Key.ID)
		}
	}
	if len(ids) == 0 {
		return hits[:0], nil
	}
	rows, err := e.st.CandidatesByID(ctx, store.KindChunk, ids)
	if err != nil {
		return nil, fmt.Errorf("filter by folder: %w", err)
	}
	docOf := make(map[int64]int64, len(rows))
	paths := map[int64][]string{}
	var docIDs []int64
	for _, r := range rows {
		docOf[r.ID] = r.DocID
		if _, ok := paths[r.DocID]; !ok {
			paths[r.DocID] = []string{r.DocPath}
			docIDs = append(docIDs, r.DocID)
		}
	}
	copies, err := e.st.CopiesOf(ctx, docIDs)
	if err != nil {
		return nil, fmt.Errorf("filter by folder: %w", err)
	}
	out := hits[:0]
	for _, h := range hits {
		doc, ok := docOf[h.Key.ID]
		if h.Key.Kind != store.KindChunk || !ok {
			continue
		}
		if slices.ContainsFunc(slices.Concat(paths[doc], copies[doc]), func(p string) bool { return underFolder(p, folder) }) {
			out = append(out, h)
		}
	}
	return out, nil
}

// underFolder reports whether path is folder itself or inside it. The cut is at a path
// separator, so the folder "notes" holds "notes/a.md" but not "notes-old/a.md".
func underFolder(path, folder string) bool {
	folder = strings.TrimRight(folder, `/`+string(filepath.Separator))
	if folder == "" {
		return true // the root holds everything
	}
	if !strings.HasPrefix(path, folder) {
		return false
	}
	rest := path[len(folder):]
	return rest == "" || rest[0] == '/' || rest[0] == filepath.Separator
}

// createdOf returns each gathered candidate's time, as the legs read it (a memory's when it
// was written, a chunk's when its document was written where the document says so, as a
// chat conversation does, else when it was imported).
func createdOf(sources []*rank.Source) func(rank.Key) time.Time {
	return func(k rank.Key) time.Time {
		for _, src := range sources {
			if c, ok := src.Candidates[k]; ok {
				return c.CreatedAt
			}
		}
		return time.Time{}
	}
}
