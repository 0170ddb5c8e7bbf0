package store

import (
	"context"
	"fmt"
	"time"
)

// Owner kinds: what a candidate, an entity row or a vector belongs to.
const (
	KindFact  = "fact"
	KindChunk = "chunk"
)

// Candidate is one row a lexical search returned, with its raw score.
type Candidate struct {
	Kind      string
	ID        int64
	Text      string
	Space     string
	CreatedAt time.Time
	// BM25 is FTS5's bm25() negated so that larger is better; 0 for substring matches.
	BM25 float64

	// Chunk only: where the text came from.
	DocID    int64
	DocPath  string
	DocTitle string
	// DocWritten says CreatedAt is when the document's text was written (a chat
	// conversation, a note's date property), not when it was imported.
	DocWritten bool
	Heading    string
	LineStart  int
	LineEnd    int
	Page       int // PDF page, 0 for other formats
}

// SearchScope limits a search to one space ("" for every space) and a number of rows.
type SearchScope struct {
	Space string
	Limit int
}

func (sc SearchScope) limit() int {
	if sc.Limit <= 0 {
		return 200
	}
	return sc.Limit
}

// Index names a full-text index.
type Index int

// The full-text indexes over facts and chunks.
const (
	// IndexTrigram matches substrings of 3+ characters of what the engine keeps there
	// (Options.Substrings: identifiers, numbers and rarer words).
	IndexTrigram Index = iota
	// IndexWords matches words: CJK bigrams and characters, and stemmed Latin words.
	IndexWords
)

// table returns the FTS5 table of an index; only these constants ever reach SQL text.
func (i Index) table(kind string) string {
	switch {
	case i == IndexWords && kind == KindFact:
		return "facts_words"
	case i == IndexWords:
		return "chunks_words"
	case kind == KindFact:
		return "facts_fts"
	default:
		return "chunks_fts"
	}
}

// WordCandidates runs an FTS5 MATCH expression over the word index of kind and returns the
// live owners it matches, newest first, at most sc.Limit. It does not score: the engine does.
// The caller builds match from quoted terms; user text must never reach it unquoted.
func (s *Store) WordCandidates(ctx context.Context, kind, match string, sc SearchScope) ([]Candidate, error) {
	if kind == KindChunk {
		rows, err := s.db.QueryContext(ctx, `
			SELECT `+chunkCandidateColumns+`, 0.0
			FROM chunks_words JOIN chunks c ON c.id = chunks_words.rowid JOIN documents d ON d.id = c.doc_id
			WHERE chunks_words MATCH ? AND `+notReserved+` AND (? = '' OR d.space = ?)
			ORDER BY c.id DESC LIMIT ?`,
			match, sc.Space, sc.Space, sc.limit())
		if err != nil {
			return nil, fmt.Errorf("search knowledge: %w", err)
		}
		return scanChunkCandidates(rows)
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT f.id, f.content, f.space, f.created_at, 0.0
		FROM facts_words JOIN facts f ON f.id = facts_words.rowid
		WHERE facts_words MATCH ? AND (? = '' OR f.space = ?)
		ORDER BY f.id DESC LIMIT ?`,
		match, sc.Space, sc.Space, sc.limit())
	if err != nil {
		return nil, fmt.Errorf("search facts: %w", err)
	}
	return scanFactCandidates(rows)
}

// TrigramCandidates runs an FTS5 MATCH expression over the trigram index of kind and returns
// the owners it matches, newest first, at most sc.Limit: the index keeps no positions, so the
// expression is of single trigrams (ANDed per substring) and what it matches may not hold
// the substring; the caller checks the text. The caller builds match from quoted trigrams;
// user text must never reach it unquoted.
func (s *Store) TrigramCandidates(ctx context.Context, kind, match string, sc SearchScope) ([]Candidate, error) {
	if kind == KindChunk {
		rows, err := s.db.QueryContext(ctx, `
			SELECT `+chunkCandidateColumns+`, 0.0
			FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.doc_id
			WHERE chunks_fts MATCH ? AND `+notReserved+` AND (? = '' OR d.space = ?)
			ORDER BY c.id DESC LIMIT ?`,
			match, sc.Space, sc.Space, sc.limit())
		if err != nil {
			return nil, fmt.Errorf("search knowledge by substring: %w", err)
		}
		return scanChunkCandidates(rows)
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT f.id, f.content, f.space, f.created_at, 0.0
		FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid
		WHERE facts_fts MATCH ? AND (? = '' OR f.space = ?)
		ORDER BY f.id DESC LIMIT ?`,
		match, sc.Space, sc.Space, sc.limit())
	if err != nil {
		return nil, fmt.Errorf("search facts by substring: %w", err)
	}
	return scanFactCandidates(rows)
}

type sqlRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

func scanFactCandidates(rows sqlRows) ([]Candidate, error) {
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		c := Candidate{Kind: KindFact}
		var created int64
		if err := rows.Scan(&c.ID, &c.Text, &c.Space, &created, &c.BM25); err != nil {
			return nil, fmt.Errorf("read fact candidates: %w", err)
		}
		c.CreatedAt = time.UnixMilli(created)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read fact candidates: %w", err)
	}
	return out, nil
}

const chunkCandidateColumns = `c.id, c.text, d.space, ` + documentTime + `, d.written_at IS NOT NULL, d.id, d.path, d.title, c.heading, c.line_start, c.line_end, c.page`

func scanChunkCandidates(rows sqlRows) ([]Candidate, error) {
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		c := Candidate{Kind: KindChunk}
		var at int64 // when the document was written, else imported (documentTime)
		if err := rows.Scan(&c.ID, &c.Text, &c.Space, &at, &c.DocWritten, &c.DocID, &c.DocPath, &c.DocTitle,
			&c.Heading, &c.LineStart, &c.LineEnd, &c.Page, &c.BM25); err != nil {
			return nil, fmt.Errorf("read knowledge candidates: %w", err)
		}
		c.CreatedAt = time.UnixMilli(at)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read knowledge candidates: %w", err)
	}
	return out, nil
}
