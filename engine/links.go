package engine

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/memdesk/memdesk/store"
)

// LinkView is one [[wikilink]] or ![[embed]] of a Markdown document and where it leads.
type LinkView struct {
	// Text is what the link shows: its label, else what it names ("Memdesk#Roadmap").
	Text    string `json:"text"`
	Target  string `json:"target"` // the note's name or path as written; "" for the document itself
	Heading string `json:"heading,omitempty"`
	Block   string `json:"block,omitempty"`
	Embed   bool   `json:"embed,omitempty"`
	Line    int    `json:"line"` // 1-based line of the link in its document
	// To is where the link leads; nil when no document of the space has the name it gives.
	To *LinkDest `json:"to,omitempty"`
}

// LinkDest is the document a link leads to, and the place in it.
type LinkDest struct {
	DocID int64  `json:"doc_id"`
	Path  string `json:"path"`
	Title string `json:"title"`
	// ChunkID and Line are the chunk and line of the heading or block the link names; 0
	// (the document's start) when it names none, or one the document does not have.
	ChunkID int64 `json:"chunk_id"`
	Line    int   `json:"line,omitempty"`
}

// KBLinks returns the links document docID makes, each with the document it leads to as
// the document's space holds them now: links are looked up when asked for, so they follow
// notes imported in any order, renamed or removed. A name leads where Obsidian would take
// it: to a file of that name (a path "Folder/Note" matches its end), without regard to
// case, the nearest to the linking note when several have it (the same folder first, then
// the shortest path); failing a file, to a note that gives the name as an alias.
func (e *Engine) KBLinks(ctx context.Context, docID int64) ([]LinkView, error) {
	from, err := e.st.Document(ctx, docID)
	if err != nil {
		return nil, err
	}
	links, err := e.st.Links(ctx, docID)
	if err != nil {
		return nil, err
	}
	r := linkResolver{e: e, from: from, targets: map[string]*store.LinkTarget{}, chunks: map[int64][]store.Chunk{}}
	out := make([]LinkView, 0, len(links))
	for _, l := range links {
		v := LinkView{Text: linkText(l), Target: l.Target, Heading: l.Heading, Block: l.Block, Embed: l.Embed, Line: l.Line}
		if v.To, err = r.resolve(ctx, l); err != nil {
			return nil, fmt.Errorf("links of document %d: %w", docID, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func linkText(l store.Link) string {
	if l.Label != "" {
		return l.Label
	}
	s := l.Target
	switch {
	case l.Heading != "":
		s += "#" + l.Heading
	case l.Block != "":
		s += "#^" + l.Block
	}
	return s
}

// linkResolver follows the links of one document, reading each name and document once.
type linkResolver struct {
	e       *Engine
	from    store.Document
	targets map[string]*store.LinkTarget // by folded target; nil: no such document
	chunks  map[int64][]store.Chunk
}

func (r *linkResolver) resolve(ctx context.Context, l store.Link) (*LinkDest, error) {
	t := &store.LinkTarget{DocID: r.from.ID, Path: r.from.Path, Title: r.from.Title}
	if l.Target != "" {
		key := strings.ToLower(l.Target)
		found, seen := r.targets[key]
		if !seen {
			cands, err := r.e.st.LinkTargets(ctx, r.from.Space, path.Base(l.Target), key)
			if err != nil {
				return nil, err
			}
			found = nearestTarget(r.from.Path, l.Target, cands)
			r.targets[key] = found
		}
		if found == nil {
			return nil, nil
		}
		t = found
	}
	dest := &LinkDest{DocID: t.DocID, Path: t.Path, Title: t.Title}
	if l.Heading == "" && l.Block == "" {
		return dest, nil
	}
	chunks, ok := r.chunks[t.DocID]
	if !ok {
		var err error
		if chunks, err = r.e.st.Chunks(ctx, t.DocID); err != nil {
			return nil, err
		}
		r.chunks[t.DocID] = chunks
	}
	if c, line, ok := placeInChunks(chunks, l.Heading, l.Block); ok {
		dest.ChunkID, dest.Line = c.ID, line
	}
	return dest, nil
}

// nearestTarget picks the document a link naming target leads to from the candidates the
// store found, nil when none has that name. A file name beats an alias. Among files of the
// name, the one that shares the most folders with the linking note wins, so a link finds
// the note beside it, and among those the one with the shortest path, then the first by
// path, so the choice never depends on import order.
func nearestTarget(from, target string, cands []store.LinkTarget) *store.LinkTarget {
	want := "/" + strings.ToLower(target)
	fromDirs := strings.Split(filepath.ToSlash(filepath.Dir(from)), "/")
	var best *store.LinkTarget
	bestShared, bestDepth := -1, 0
	for i := range cands {
		c := &cands[i]
		if c.Alias {
			continue
		}
		p := strings.ToLower(filepath.ToSlash(c.Path))
		stem := p
		if ext := path.Ext(p); ext == ".md" || ext == ".markdown" {
			stem = strings.TrimSuffix(p, ext)
		}
		if !strings.HasSuffix(stem, want) && !strings.HasSuffix(p, want) {
			continue // the store's match ignores only ASCII case and allows any extension
		}
		dirs := strings.Split(path.Dir(filepath.ToSlash(c.Path)), "/")
		shared := 0
		for shared < min(len(dirs), len(fromDirs)) && dirs[shared] == fromDirs[shared] {
			shared++
		}
		if shared > bestShared || (shared == bestShared && len(dirs) < bestDepth) ||
			(shared == bestShared && len(dirs) == bestDepth && c.Path < best.Path) {
			best, bestShared, bestDepth = c, shared, len(dirs)
		}
	}
	if best != nil || strings.Contains(target, "/") {
		return best
	}
	for i := range cands {
		if cands[i].Alias && (best == nil || cands[i].Path < best.Path) {
			best = &cands[i]
		}
	}
	return best
}

// placeInChunks finds the chunk and line a link's heading or block is at: the first chunk
// under a heading of that text (the last of its heading path, compared as headingKey
// does), or the line that ends with "^block".
func placeInChunks(chunks []store.Chunk, heading, block string) (store.Chunk, int, bool) {
	switch {
	case block != "":
		end := regexp.MustCompile(`(?m)\s\^` + regexp.QuoteMeta(block) + `[ \t]*$`)
		for _, c := range chunks {
			if loc := end.FindStringIndex(c.Text); loc != nil {
				return c, c.LineStart + strings.Count(c.Text[:loc[0]], "\n"), true
			}
		}
	case heading != "":
		want := headingKey(heading)
		for _, c := range chunks {
			parts := strings.Split(c.Heading, " > ")
			if headingKey(parts[len(parts)-1]) == want {
				return c, c.LineStart, true
			}
		}
	}
	return store.Chunk{}, 0, false
}

// headingKey is what a heading and a link to it are compared by: Obsidian writes a link to
// "Q&A: plans [draft]" as [[Note#Q&A plans draft]], since ":", "#", "|", "^", "[" and "]"
// cannot stand in a link, and case and spacing do not count.
func headingKey(h string) string {
	h = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`:#|^[]\`, r) {
			return ' '
		}
		return r
	}, h)
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}
