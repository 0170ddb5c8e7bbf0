package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// factActions writes to the facts and reports each write in a banner, with the action that
// undoes or resolves it. The Memories screen and the quick window each have one over their
// own banner, so a memory captured anywhere gets the same duplicate and contradiction report.
type factActions struct {
	t      *tasks
	b      Backend
	banner *banner
	after  func() // runs after every write, on the UI goroutine (may be nil)
}

// add remembers text in space and reports it; done(saved) runs when the answer is in,
// saved false when nothing was written (empty text, an error).
func (a *factActions) add(text, space string, done func(saved bool)) {
	if strings.TrimSpace(text) == "" {
		a.banner.show(widget.WarningImportance, "Write something to remember first.", "", nil)
		done(false)
		return
	}
	req := engine.RememberRequest{Action: engine.ActionAdd, Text: text, Space: space}
	a.t.start(func(ctx context.Context) {
		res, err := a.b.Remember(ctx, req)
		a.t.do(func() {
			switch {
			case err != nil:
				a.banner.show(widget.DangerImportance, sentence(err), "", nil)
				done(false)
				return
			case res.Status == engine.StatusDuplicate:
				a.banner.show(widget.MediumImportance, fmt.Sprintf("Already remembered as #%d; nothing changed.", res.FactID), "", nil)
			default:
				a.showHygiene(fmt.Sprintf("Remembered as #%d.", res.FactID), text, res)
			}
			done(true)
			a.changed()
		})
	})
}

func (a *factActions) edit(id int64, text string) {
	a.change(engine.RememberRequest{Action: engine.ActionEdit, ID: id, Text: text}, func(res engine.RememberResult) {
		if res.Status == engine.StatusUnchanged {
			a.banner.show(widget.MediumImportance, fmt.Sprintf("Memory #%d already says that.", id), "", nil)
			return
		}
		a.showHygiene(fmt.Sprintf("Saved memory #%d.", id), text, res)
	})
}

// showHygiene reports a write, and what it contradicts or restates, with the one action
// that resolves the first finding: keep the new fact (the old one is superseded, kept as
// history), or forget the new one when it only restates.
func (a *factActions) showHygiene(done, text string, res engine.RememberResult) {
	switch {
	case len(res.Contradicts) > 0:
		c := res.Contradicts[0]
		msg := fmt.Sprintf("%s It contradicts #%d “%s”: %s.", done, c.FactID, shorten(c.Text, 60), c.Reason)
		if n := len(res.Contradicts) - 1; n > 0 {
			msg += fmt.Sprintf(" (%d more: see the badges)", n)
		}
		a.banner.show(widget.WarningImportance, msg, fmt.Sprintf("Keep new, supersede #%d", c.FactID),
			func() { a.supersede(c.FactID, res.FactID) })
	case len(res.SimilarTo) > 0:
		a.banner.show(widget.MediumImportance, fmt.Sprintf("%s It looks like #%d, which may say the same.", done, res.SimilarTo[0]),
			fmt.Sprintf("Forget #%d", res.FactID), func() { a.forget(engine.FactView{ID: res.FactID, Text: text}) })
	default:
		a.banner.show(widget.SuccessImportance, done, "", nil)
	}
}

// supersede keeps fact by and marks old superseded by it.
func (a *factActions) supersede(old, by int64) {
	a.change(engine.RememberRequest{Action: engine.ActionSupersede, ID: old, By: by}, func(engine.RememberResult) {
		a.banner.show(widget.SuccessImportance, fmt.Sprintf("#%d is superseded by #%d and kept as history.", old, by),
			"Undo", func() { a.restore(old) })
	})
}

// dismiss keeps both facts of a pair and stops reporting it.
func (a *factActions) dismiss(x, y int64) {
	a.t.start(func(ctx context.Context) {
		err := a.b.DismissContradiction(ctx, x, y)
		a.t.do(func() {
			if err != nil {
				a.banner.show(widget.DangerImportance, sentence(err), "", nil)
			} else {
				a.banner.show(widget.SuccessImportance, fmt.Sprintf("Keeping both #%d and #%d.", x, y), "", nil)
			}
			a.changed()
		})
	})
}

// forget soft-deletes a fact and offers to undo it.
func (a *factActions) forget(f engine.FactView) {
	a.change(engine.RememberRequest{Action: engine.ActionForget, ID: f.ID}, func(engine.RememberResult) {
		a.banner.show(widget.MediumImportance, fmt.Sprintf("Forgot “%s”.", shorten(f.Text, 60)), "Undo", func() { a.restore(f.ID) })
	})
}

func (a *factActions) restore(id int64) {
	a.change(engine.RememberRequest{Action: engine.ActionRestore, ID: id}, func(engine.RememberResult) {
		a.banner.show(widget.SuccessImportance, fmt.Sprintf("Restored memory #%d.", id), "", nil)
	})
}

// change sends one edit, forget or restore, then shows done and tells the owner.
func (a *factActions) change(req engine.RememberRequest, done func(engine.RememberResult)) {
	a.t.start(func(ctx context.Context) {
		res, err := a.b.Remember(ctx, req)
		a.t.do(func() {
			if err != nil {
				a.banner.show(widget.DangerImportance, sentence(err), "", nil)
			} else {
				done(res)
			}
			a.changed()
		})
	})
}

func (a *factActions) changed() {
	if a.after != nil {
		a.after()
	}
}
