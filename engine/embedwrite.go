package engine

import (
	"context"
	"fmt"

	"github.com/memdesk/memdesk/store"
)

// Every writer embeds: a fact remembered from the CLI while the model is ready must be found
// by meaning by the next recall, not after a long-lived process happened to catch up. A
// surface that writes calls EmbedWritten with a short deadline of its own; what the model
// does not embed within it is left to Run's catch-up (woken by the write) or vectors-fix.

// writeEmbedPage is how many texts of one write are embedded and stored at a time: what
// finishes before the caller's deadline is kept even when the rest is not.
const writeEmbedPage = 32

// Written names what a write stored, for EmbedWritten.
type Written struct {
	// Facts are facts added or edited.
	Facts []int64
	// Documents are documents imported or re-imported: all their chunks are embedded.
	Documents []int64
}

// WriteEmbedding is what EmbedWritten did with a write's texts.
type WriteEmbedding struct {
	// Embedded texts have a vector (or a zero marker) in the model's space now.
	Embedded int `json:"embedded"`
	// Left texts are left to the background catch-up.
	Left int `json:"left"`
}

// EmbedWritten embeds the texts a write stored (w) in the current model's space, until done
// or until ctx ends, storing each page as it finishes; what is left is left to Run's
// catch-up or `vectors-fix`. A fact that already has its vector, or is no longer active, is
// skipped. ErrSemanticOff: the model is off or not ready, and nothing was tried.
func (e *Engine) EmbedWritten(ctx context.Context, w Written) (WriteEmbedding, error) {
	var out WriteEmbedding
	fp, ok := e.semanticReady()
	if !ok {
		return out, fmt.Errorf("embed what was written: semantic %s: %w", e.opts.SemanticState(), ErrSemanticOff)
	}
	defer func() {
		if out.Left > 0 {
			e.wantEmbedding()
		}
	}()
	var facts []store.StaleOwner
	for _, id := range w.Facts {
		// The one owner with this id that still needs a vector, if any.
		owners, err := e.st.NextMissingVectors(ctx, store.KindFact, fp, id-1, 1)
		if err != nil {
			return out, fmt.Errorf("embed what was written: %w", err)
		}
		if len(owners) == 1 && owners[0].ID == id {
			facts = append(facts, owners[0])
		}
	}
	var chunks []store.StaleOwner
	for _, doc := range w.Documents {
		cs, err := e.st.Chunks(ctx, doc)
		if err != nil {
			return out, fmt.Errorf("embed what was written: %w", err)
		}
		for _, c := range cs {
			chunks = append(chunks, store.StaleOwner{ID: c.ID, Text: c.Text})
		}
	}
	out.Left = len(facts) + len(chunks)
	for _, part := range []struct {
		kind   string
		owners []store.StaleOwner
	}{{store.KindFact, facts}, {store.KindChunk, chunks}} {
		for len(part.owners) > 0 {
			if ctx.Err() != nil {
				return out, nil // the deadline: the rest is the catch-up's
			}
			page := part.owners[:min(writeEmbedPage, len(part.owners))]
			part.owners = part.owners[len(page):]
			var rep EmbedReport
			err := e.storePage(ctx, part.kind, fp, e.embedNow(ctx, page), &rep)
			if err != nil && ctx.Err() != nil {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			// A text the model failed on, or one edited meanwhile, stays left.
			out.Embedded += rep.Embedded + rep.Zero
			out.Left -= rep.Embedded + rep.Zero
		}
	}
	return out, nil
}

// embedNow embeds the texts of owners and waits for them.
func (e *Engine) embedNow(ctx context.Context, owners []store.StaleOwner) *embeddingPage {
	p := e.startEmbedding(ctx, owners)
	<-p.done
	return p
}

// wantEmbedding wakes Run's vector catch-up: a write stored texts without vectors.
func (e *Engine) wantEmbedding() { wake(e.embedWanted) }

// vectorProgress is a count of one space's vectors: Current of Total facts and chunks have
// theirs.
type vectorProgress struct {
	fingerprint    string
	current, total int
}

// noteVectors records a count of space fp's vectors for SemanticState.
func (e *Engine) noteVectors(fp string, d store.VectorDiagnosis) {
	e.vecProgress.Store(&vectorProgress{fingerprint: fp, current: d.Current, total: d.Current + d.Stale})
}

// SemanticState is the semantic leg's state for a status line and results ("off", "offline",
// "ready", ...). While Run keeps the vectors up to date, "ready" is said only once every fact
// and chunk has its vector in the model's space: before that it is "embedding n of N", since
// a leg that searches a tenth of the store is not ready for the rest.
func (e *Engine) SemanticState() string {
	state := e.opts.SemanticState()
	fp, ok := e.semanticReady()
	if !ok || !e.semanticRunning.Load() {
		return state
	}
	p := e.vecProgress.Load()
	switch {
	case p == nil || p.fingerprint != fp:
		return "embedding: counting the texts that have no vector yet"
	case p.current < p.total:
		return fmt.Sprintf("embedding %s of %s", groupThousands(p.current), groupThousands(p.total))
	}
	return state
}
