package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/memdesk/memdesk/store"
)

// SpaceView is one space and what it holds.
type SpaceView struct {
	Name      string `json:"name"`
	Memories  int    `json:"memories"`
	Documents int    `json:"documents"`
}

// Spaces lists the spaces that hold an active memory or a document, by name. A space exists
// while something is in it; a new one is made by remembering or importing into it.
func (e *Engine) Spaces(ctx context.Context) ([]SpaceView, error) {
	counts, err := e.st.Spaces(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SpaceView, len(counts))
	for i, c := range counts {
		out[i] = SpaceView{Name: c.Name, Memories: c.Memories, Documents: c.Documents}
	}
	return out, nil
}

// RenameSpace gives a space a new name: its memories (of every status), documents and
// watched folders go with it. The new name must not be in use.
func (e *Engine) RenameSpace(ctx context.Context, from, to string) (SpaceView, error) {
	from, err := validSpace(from)
	if err != nil {
		return SpaceView{}, err
	}
	if to, err = validSpace(to); err != nil {
		return SpaceView{}, err
	}
	if from == to {
		return SpaceView{}, fmt.Errorf("%w: the space is already called %q", ErrBadRequest, to)
	}
	moved, rows, err := e.st.RenameSpace(ctx, from, to)
	if errors.Is(err, store.ErrSpaceInUse) {
		return SpaceView{}, fmt.Errorf("%w: a space called %q already holds memories or documents; move memories into it one by one, or pick another name", ErrBadRequest, to)
	}
	if err != nil {
		return SpaceView{}, err
	}
	if rows == 0 {
		return SpaceView{}, fmt.Errorf("there is no space called %q: %w", from, ErrNotFound)
	}
	e.exportSync(ctx)
	return SpaceView{Name: to, Memories: moved.Memories, Documents: moved.Documents}, nil
}

// MoveMemory puts an active memory in another space, made if it is new.
func (e *Engine) MoveMemory(ctx context.Context, id int64, space string) (FactView, error) {
	space, err := validSpace(space)
	if err != nil {
		return FactView{}, err
	}
	if err := e.st.MoveFact(ctx, id, space); err != nil {
		var dup *store.DuplicateError
		if errors.As(err, &dup) {
			return FactView{}, fmt.Errorf("%w: space %q already holds the same memory (#%d); forget one of them instead", ErrDuplicate, space, dup.ExistingID)
		}
		return FactView{}, err
	}
	e.exportSync(ctx)
	return e.Fact(ctx, id)
}
