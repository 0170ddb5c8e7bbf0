package store

import (
	"context"
	"fmt"
)

// WordDF counts, for each term, the active facts (or chunks) of kind in space ("" for every
// space) whose word index holds it, but stops counting at limit+1: the caller only asks
// whether a term is rare enough, and a common one would otherwise cost a walk of its whole
// posting list. Each term is matched as one quoted FTS5 string (so FTS5 syntax in it is
// literal) against the index's terms as Options.Words wrote them: the caller passes terms of
// the same analysis (a CJK bigram, a stemmed word); a term with no indexable token counts 0.
func (s *Store) WordDF(ctx context.Context, kind, space string, terms []string, limit int) (map[string]int, error) {
	t := IndexWords.table(kind)
	var q string
	var scope []any
	if kind == KindChunk {
		// Every space but the reserved ones: a staged import's chunks are not yet a document.
		q = `SELECT count(*) FROM (SELECT 1 FROM ` + t + ` JOIN chunks c ON c.id = ` + t + `.rowid
			JOIN documents d ON d.id = c.doc_id AND ` + notReserved
		if space != "" {
			q += ` AND d.space = ?`
			scope = []any{space}
		}
	} else {
		q = `SELECT count(*) FROM (SELECT 1 FROM ` + t + ` JOIN facts f ON f.id = ` + t + `.rowid AND f.status = 'active'`
		if space != "" {
			q += ` AND f.space = ?`
			scope = []any{space}
		}
	}
	q += ` WHERE ` + t + ` MATCH ? LIMIT ?)`
	df := make(map[string]int, len(terms))
	for _, term := range terms {
		if _, done := df[term]; done {
			continue
		}
		if !indexToken(term) {
			df[term] = 0 // not one term of the index: no text holds it
			continue
		}
		var n int
		args := append(append([]any{}, scope...), quotePhrase(term), limit+1)
		if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			return nil, fmt.Errorf("word frequency of %q: %w", term, err)
		}
		df[term] = n
	}
	return df, nil
}

// quotePhrase makes term one FTS5 string: every character literal.
func quotePhrase(term string) string {
	b := make([]byte, 0, len(term)+2)
	b = append(b, '"')
	for i := 0; i < len(term); i++ {
		if term[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, term[i])
	}
	return string(append(b, '"'))
}

// indexToken reports whether term is one token to the word index's tokenizer (ascii, with
// '-', '.' and '_' as token characters): no ASCII character outside letters, digits and those.
// Anything else would be split into a phrase, which an index without positions cannot ask.
func indexToken(term string) bool {
	if term == "" {
		return false
	}
	for i := 0; i < len(term); i++ {
		c := term[i]
		if c < 0x80 && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}
