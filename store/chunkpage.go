package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// ChunkOrdinal returns where chunk id sits in its document.
func (s *Store) ChunkOrdinal(ctx context.Context, docID, chunkID int64) (int, error) {
	var ordinal int
	err := s.db.QueryRowContext(ctx, `SELECT ordinal FROM chunks WHERE id = ? AND doc_id = ?`, chunkID, docID).Scan(&ordinal)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("chunk %d of document %d: %w", chunkID, docID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("read chunk %d: %w", chunkID, err)
	}
	return ordinal, nil
}

// ChunksAround returns up to before chunks of a document ahead of ordinal, the chunk at
// ordinal itself, and up to after chunks following it, in order. Each side is one range
// read on the (doc_id, ordinal) index, so the cost is the page's, not the document's.
func (s *Store) ChunksAround(ctx context.Context, docID int64, ordinal, before, after int) ([]Chunk, error) {
	ahead, err := s.chunkRange(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE doc_id = ? AND ordinal < ? ORDER BY ordinal DESC LIMIT ?`, docID, ordinal, before)
	if err != nil {
		return nil, err
	}
	slices.Reverse(ahead)
	rest, err := s.chunkRange(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE doc_id = ? AND ordinal >= ? ORDER BY ordinal LIMIT ?`, docID, ordinal, after+1)
	if err != nil {
		return nil, err
	}
	return append(ahead, rest...), nil
}

// chunkColumns are what scanChunks reads, in its order.
const chunkColumns = `id, doc_id, ordinal, text, heading, byte_start, byte_end, line_start, line_end, page`

func (s *Store) chunkRange(ctx context.Context, query string, docID int64, ordinal, limit int) ([]Chunk, error) {
	if limit <= 0 {
		return nil, nil
	}
	return s.scanChunks(ctx, docID, query, docID, ordinal, limit)
}

// scanChunks runs query, which selects chunkColumns, and reads its rows.
func (s *Store) scanChunks(ctx context.Context, docID int64, query string, args ...any) ([]Chunk, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read chunks of document %d: %w", docID, err)
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.ID, &c.DocID, &c.Ordinal, &c.Text, &c.Heading,
			&c.ByteStart, &c.ByteEnd, &c.LineStart, &c.LineEnd, &c.Page); err != nil {
			return nil, fmt.Errorf("read chunks of document %d: %w", docID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
