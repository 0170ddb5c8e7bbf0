// Package enginearm runs the eval harness against a real memdesk engine: it loads a
// benchmark corpus into an engine as memories or as knowledge, answers benchmark and case
// queries through Engine.Recall, and maps the hits back to document ids or fact indices.
//
// It is kept apart from package eval so that eval stays pure and the engine may depend on
// it; this package is the one that does I/O.
package enginearm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
)

// As says what each corpus document becomes in the engine.
type As string

// Load modes.
const (
	// AsMemory remembers each document as one fact. Facts are normalized and deduplicated,
	// so documents with the same text share one fact and are ranked together.
	AsMemory As = "memory"
	// AsKnowledge writes each document to a small text file and imports it, so it is
	// chunked like any document a person imports.
	AsKnowledge As = "knowledge"
)

// knowledgeOverfetch is how many chunks a knowledge query asks for per document wanted:
// a document may be cut into several chunks, which collapse into one ranked document.
const knowledgeOverfetch = 4

// LoadOptions configure Load.
type LoadOptions struct {
	As    As
	Scope eval.Scope
	// FilesDir receives one file per document in knowledge mode (required then). The
	// engine keeps pointing at these files, so the caller removes the directory only after
	// the engine is closed.
	FilesDir string
	// Progress is told how many documents are stored.
	Progress eval.Progress
}

// Retriever answers benchmark queries from a corpus loaded into an engine.
type Retriever struct {
	e     *engine.Engine
	as    As
	scope eval.Scope
	// factDocs maps a fact to every document with its text (memory mode).
	factDocs map[int64][]string
	// fileDocs maps an imported file's base name to its document (knowledge mode).
	fileDocs map[string]string
	// Trace, when set, is given every recall's whole result with the benchmark document ids
	// of its hits (docIDs[i] belongs to res.Hits[i]) and of the candidates the floors dropped
	// (droppedIDs[i] to res.Dropped[i], up to ListDropped of them): what a failure analysis
	// reads.
	Trace       func(q eval.Query, res engine.RecallResult, docIDs, droppedIDs [][]string)
	ListDropped int
	// MeaningOnly asks the semantic leg alone (engine.RecallRequest.MeaningOnly): the
	// model's own answer, to hold the fused legs against.
	MeaningOnly bool
}

// Load stores docs in e, which should be a fresh database, and returns a Retriever over them.
func Load(ctx context.Context, e *engine.Engine, docs []eval.Doc, opts LoadOptions) (*Retriever, eval.LoadStats, error) {
	r := &Retriever{e: e, as: opts.As, scope: opts.Scope}
	start := time.Now()
	var stats eval.LoadStats
	var err error
	switch opts.As {
	case AsMemory, "":
		r.as = AsMemory
		stats, err = r.loadMemories(ctx, docs, opts.Progress)
	case AsKnowledge:
		stats, err = r.loadKnowledge(ctx, docs, opts)
	default:
		return nil, eval.LoadStats{}, fmt.Errorf("%w: load corpus as %q (want memory or knowledge)", engine.ErrBadRequest, opts.As)
	}
	stats.Seconds = time.Since(start).Seconds()
	if err != nil {
		return nil, stats, err
	}
	return r, stats, nil
}

func (r *Retriever) loadMemories(ctx context.Context, docs []eval.Doc, progress eval.Progress) (eval.LoadStats, error) {
	r.factDocs = make(map[int64][]string, len(docs))
	stats := eval.LoadStats{Docs: len(docs)}
	// Group by space, keeping corpus order inside each, and write each group in batches.
	bySpace := map[string][]eval.Doc{}
	var spaces []string
	for _, d := range docs {
		if strings.TrimSpace(d.Text) == "" {
			stats.Skipped++
			continue
		}
		space := SpaceName(r.scope.SpaceOf(d.ID))
		if _, ok := bySpace[space]; !ok {
			spaces = append(spaces, space)
		}
		bySpace[space] = append(bySpace[space], d)
	}
	done := stats.Skipped
	for _, space := range spaces {
		group := bySpace[space]
		texts := make([]string, len(group))
		for i, d := range group {
			texts[i] = d.Text
		}
		before := done
		var perr error
		results, err := r.e.RememberBatch(ctx, space, texts, func(n int) {
			if progress != nil && perr == nil {
				perr = progress(before+n, len(docs))
			}
		})
		if err != nil {
			return stats, fmt.Errorf("remember documents of space %q: %w", space, err)
		}
		if perr != nil {
			return stats, perr
		}
		for i, res := range results {
			if res.Err != "" {
				return stats, fmt.Errorf("remember document %q: %s", group[i].ID, res.Err)
			}
			r.factDocs[res.FactID] = append(r.factDocs[res.FactID], group[i].ID)
		}
		done += len(group)
	}
	stats.Units = len(r.factDocs)
	return stats, nil
}

func (r *Retriever) loadKnowledge(ctx context.Context, docs []eval.Doc, opts LoadOptions) (eval.LoadStats, error) {
	if opts.FilesDir == "" {
		return eval.LoadStats{}, errors.New("load corpus as knowledge: no directory for the document files")
	}
	stats := eval.LoadStats{Docs: len(docs)}
	r.fileDocs = make(map[string]string, len(docs))
	// One folder per space, so each is imported into its space with one KBAdd.
	dirs := map[string]string{}
	var order []string
	for i, d := range docs {
		if strings.TrimSpace(d.Text) == "" {
			stats.Skipped++
			continue
		}
		space := SpaceName(r.scope.SpaceOf(d.ID))
		dir, ok := dirs[space]
		if !ok {
			dir = filepath.Join(opts.FilesDir, "space"+strconv.Itoa(len(dirs)))
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return stats, fmt.Errorf("write corpus files: %w", err)
			}
			dirs[space] = dir
			order = append(order, space)
		}
		// The file name is the document's position, never its id: ids may hold any character.
		name := strconv.Itoa(i) + ".txt"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(d.Text), 0o600); err != nil {
			return stats, fmt.Errorf("write corpus files: %w", err)
		}
		r.fileDocs[name] = d.ID
	}

	// KBAdd cannot be stopped by its progress callback, so a callback error cancels it.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	filesDone, filesTotal := 0, len(r.fileDocs)
	for _, space := range order {
		before := filesDone
		res, err := r.e.KBAdd(ctx, engine.KBAddRequest{Paths: []string{dirs[space]}, Space: space,
			Progress: func(p engine.ImportProgress) {
				filesDone = before + p.FilesDone
				if opts.Progress != nil {
					if err := opts.Progress(filesDone, filesTotal); err != nil {
						cancel(err)
					}
				}
			}})
		if err != nil {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return stats, cause
			}
			return stats, fmt.Errorf("import corpus: %w", err)
		}
		for _, f := range res.Files {
			stats.Units += f.Chunks
		}
		stats.Skipped += res.Skipped + res.Failed
	}
	return stats, nil
}

// Retrieve implements eval.Retriever.
func (r *Retriever) Retrieve(ctx context.Context, q eval.Query, k int) ([]string, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, nil // the engine refuses an empty query; the benchmark just gets no answer
	}
	req := engine.RecallRequest{Query: q.Text, Space: SpaceName(r.scope.SpaceOf(q.ID)), K: k, MeaningOnly: r.MeaningOnly,
		ListDropped: r.ListDropped}
	if r.as == AsKnowledge {
		req.Source, req.K = engine.SourceKnowledge, k*knowledgeOverfetch
	} else {
		req.Source = engine.SourceMemory
	}
	res, err := r.e.Recall(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, k)
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] && len(out) < k {
			seen[id] = true
			out = append(out, id)
		}
	}
	var traced [][]string
	for _, h := range res.Hits {
		var ids []string
		switch {
		case h.Doc != nil:
			if id, ok := r.fileDocs[filepath.Base(h.Doc.Path)]; ok {
				ids = []string{id}
			}
		default:
			ids = r.factDocs[h.ID]
		}
		for _, id := range ids {
			add(id)
		}
		traced = append(traced, ids)
	}
	if r.Trace != nil {
		var dropped [][]string
		for _, d := range res.Dropped {
			// A dropped chunk's document is not looked up (only hits carry their file).
			var ids []string
			if d.Source == engine.SourceMemory {
				ids = r.factDocs[d.ID]
			}
			dropped = append(dropped, ids)
		}
		r.Trace(q, res, traced, dropped)
	}
	return out, nil
}

// SpaceName is the engine space of a scope's space: the prefix itself when the engine
// accepts it as a space name, else a stable name derived from it. The pooled space "" is
// the engine's default space.
func SpaceName(prefix string) string {
	if prefix == "" || validSpaceName(prefix) {
		return prefix
	}
	sum := sha256.Sum256([]byte(prefix))
	return "eval-" + hex.EncodeToString(sum[:6])
}

// validSpaceName follows the engine's rule for space names: 1-64 printable characters
// with no surrounding space.
func validSpaceName(s string) bool {
	return s == strings.TrimSpace(s) && utf8.ValidString(s) && utf8.RuneCountInString(s) <= 64 &&
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}
