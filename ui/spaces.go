package ui

import (
	"context"
	"slices"

	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// spaceLister names the spaces that hold something; *engine.Engine satisfies it. Without
// it, the space selectors offer the spaces of the memories loaded so far.
type spaceLister interface {
	Spaces(ctx context.Context) ([]engine.SpaceView, error)
}

// memoryMover puts a memory in another space; without it the edit dialog offers no move.
type memoryMover interface {
	MoveMemory(ctx context.Context, id int64, space string) (engine.FactView, error)
}

// refreshSpaces offers the store's spaces in the Memories and Recall space selectors. A
// name typed there that is not in the list yet is a new space: it exists once something
// is remembered or imported into it.
func (u *App) refreshSpaces() {
	sl, ok := u.b.(spaceLister)
	if !ok {
		return
	}
	u.tasks.start(func(ctx context.Context) {
		list, err := sl.Spaces(ctx)
		if err != nil {
			u.log.Debug("could not list the spaces", "err", err)
			return
		}
		names := make([]string, len(list))
		for i, s := range list {
			names[i] = s.Name
		}
		u.tasks.do(func() {
			u.memories.learnSpaceNames(names)
			u.recall.spaceNames = names
			u.recall.space.SetOptions(names)
		})
	})
}

// learnSpaceNames adds names to the spaces the selector offers.
func (m *memoriesScreen) learnSpaceNames(names []string) {
	n := len(m.spaces)
	for _, s := range names {
		if !slices.Contains(m.spaces, s) {
			m.spaces = append(m.spaces, s)
		}
	}
	if len(m.spaces) != n {
		slices.Sort(m.spaces)
		m.space.SetOptions(m.spaces)
	}
}

// move puts memory id in space and reports it with a way back.
func (m *memoriesScreen) move(f engine.FactView, space string) {
	mv, ok := m.b.(memoryMover)
	if !ok {
		return
	}
	m.t.start(func(ctx context.Context) {
		moved, err := mv.MoveMemory(ctx, f.ID, space)
		m.t.do(func() {
			if err != nil {
				m.banner.show(widget.DangerImportance, sentence(err), "", nil)
				return
			}
			m.banner.show(widget.SuccessImportance, lang.L("Moved #{{.ID}} to {{.Space}}.", tmpl{"ID": f.ID, "Space": moved.Space}),
				lang.L("Undo"), func() { m.move(moved, f.Space) })
			m.afterChange()
		})
	})
}
