package engine

import (
	"context"
	"fmt"
)

// maxChunkPage bounds how many chunks one KBChunkPage call returns.
const maxChunkPage = 200

// KBChunkPageRequest asks for a window of a document's chunks: around one chunk (a hit),
// or from an ordinal on.
type KBChunkPageRequest struct {
	DocID int64 `json:"doc_id"`
	// Around, when set, is the chunk the page is built around; From is then ignored.
	Around int64 `json:"around,omitempty"`
	// From is the ordinal the page starts at when Around is zero.
	From int `json:"from,omitempty"`
	// Before and After are how many chunks to include ahead of and after the first one
	// (Around's chunk, or From's); After defaults to 20 when both are zero.
	Before int `json:"before,omitempty"`
	After  int `json:"after,omitempty"`
}

// KBChunkPage is a window of one document's chunks.
type KBChunkPage struct {
	Document DocumentView `json:"document"`
	Chunks   []ChunkView  `json:"chunks"`
	// Hit is the index in Chunks of the Around chunk; -1 without one.
	Hit int `json:"hit"`
}

// KBChunkPage reads a window of a document's chunks, so opening a hit in a document of
// thousands of chunks reads a screenful, not the document.
func (e *Engine) KBChunkPage(ctx context.Context, req KBChunkPageRequest) (KBChunkPage, error) {
	if req.Before < 0 || req.After < 0 || req.From < 0 {
		return KBChunkPage{}, fmt.Errorf("%w: before, after and from must not be negative", ErrBadRequest)
	}
	if req.Before == 0 && req.After == 0 {
		req.After = 20
	}
	req.Before, req.After = min(req.Before, maxChunkPage), min(req.After, maxChunkPage)
	d, err := e.st.Document(ctx, req.DocID)
	if err != nil {
		return KBChunkPage{}, err
	}
	page := KBChunkPage{Document: documentView(d), Chunks: []ChunkView{}, Hit: -1}
	start := req.From
	if req.Around != 0 {
		if start, err = e.st.ChunkOrdinal(ctx, req.DocID, req.Around); err != nil {
			return KBChunkPage{}, err
		}
	}
	chunks, err := e.st.ChunksAround(ctx, req.DocID, start, req.Before, req.After)
	if err != nil {
		return KBChunkPage{}, err
	}
	for i, c := range chunks {
		if req.Around != 0 && c.ID == req.Around {
			page.Hit = i
		}
		page.Chunks = append(page.Chunks, chunkView(c))
	}
	return page, nil
}
