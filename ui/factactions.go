package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/lang"
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
	// issued numbers the writes started here; reported is the latest of them whose report
	// the banner shows. A write's report is shown only when no later write has reported: a
	// slow save's "Saved" landing after a quick forget covered "Forgot … Undo", and the Undo
	// was gone. Errors are always shown. UI goroutine only.
	issued, reported int
}

// ticket numbers a write as it starts.
func (a *factActions) ticket() int {
	a.issued++
	return a.issued
}

// report runs show, the banner of write ticket, unless a later write has reported.
func (a *factActions) report(ticket int, show func()) {
	if ticket < a.reported {
		return
	}
	a.reported = ticket
	show()
}

// add remembers text in space and reports it; done(saved) runs when the answer is in,
// saved false when nothing was written (empty text, an error).
func (a *factActions) add(text, space string, done func(saved bool)) {
	if strings.TrimSpace(text) == "" {
		a.banner.show(widget.WarningImportance, lang.L("Write something to remember first."), "", nil)
		done(false)
		return
	}
	req := engine.RememberRequest{Action: engine.ActionAdd, Text: text, Space: space}
	ticket := a.ticket()
	a.t.start(func(ctx context.Context) {
		res, err := a.b.Remember(ctx, req)
		a.t.do(func() {
			switch {
			case err != nil:
				a.banner.show(widget.DangerImportance, sentence(err), "", nil)
				done(false)
				return
			case res.Status == engine.StatusDuplicate:
				a.report(ticket, func() {
					a.banner.show(widget.MediumImportance, lang.L("Already remembered as #{{.ID}}; nothing changed.", tmpl{"ID": res.FactID}), "", nil)
				})
			default:
				a.report(ticket, func() {
					a.showHygiene(lang.L("Remembered as #{{.ID}}.", tmpl{"ID": res.FactID}), res.FactID, text, res)
				})
			}
			done(true)
			a.changed()
		})
	})
}

func (a *factActions) edit(id int64, text string) {
	a.change(engine.RememberRequest{Action: engine.ActionEdit, ID: id, Text: text}, func(res engine.RememberResult) {
		if res.Status == engine.StatusUnchanged {
			a.banner.show(widget.MediumImportance, lang.L("Memory #{{.ID}} already says that.", tmpl{"ID": id}), "", nil)
			return
		}
		a.showHygiene(lang.L("Saved memory #{{.ID}}.", tmpl{"ID": id}), id, text, res)
	})
}

// showHygiene reports a write of fact id and the first active fact it contradicts or
// restates, with the three ways to settle it (settlement). New and old are by when the two
// were written, also after an edit.
func (a *factActions) showHygiene(done string, id int64, text string, res engine.RememberResult) {
	var other int64
	switch {
	case len(res.Contradicts) > 0:
		other = res.Contradicts[0].FactID
	case len(res.SimilarTo) > 0:
		other = res.SimilarTo[0]
	}
	settle := a.settling(engine.FactView{ID: id, Text: text}, engine.FactView{ID: other})
	var msg string
	importance := widget.WarningImportance
	switch {
	case len(res.Contradicts) > 0:
		c := res.Contradicts[0]
		msg = lang.L("{{.Done}} It conflicts with #{{.Other}} ({{.Age}}) “{{.Text}}”: {{.Reason}}.", tmpl{
			"Done": done, "Other": other, "Age": settle.age(other), "Text": shorten(c.Text, 60), "Reason": c.Reason})
		if n := len(res.Contradicts) - 1; n > 0 {
			msg += lang.L(" ({{.Count}} more: see the badges)", tmpl{"Count": n})
		}
	case len(res.SimilarTo) > 0:
		importance = widget.MediumImportance
		msg = lang.L("{{.Done}} It may say the same as #{{.Other}} ({{.Age}}).", tmpl{"Done": done, "Other": other, "Age": settle.age(other)})
	default:
		a.banner.show(widget.SuccessImportance, done, "", nil)
		return
	}
	msg += lang.L(" Keep new keeps #{{.Older}} as history; Keep old forgets #{{.Newer}}; either can be undone.",
		tmpl{"Older": settle.older.ID, "Newer": settle.newer.ID})
	a.banner.offer(importance, msg, settle.choices(nil)...)
}

// settlement is the three ways to settle a pair of memories that conflict or restate each
// other, the same in the banner and in the badge's dialog.
type settlement struct {
	a            *factActions
	newer, older engine.FactView
}

// settling orders a pair by when each was written (engine.WrittenAfter: an imported memory
// keeps its own time).
func (a *factActions) settling(x, y engine.FactView) settlement {
	if !engine.WrittenAfter(x.CreatedAt, x.ID, y.CreatedAt, y.ID) {
		x, y = y, x
	}
	return settlement{a: a, newer: x, older: y}
}

// choices are Keep new (the older is superseded: kept as history, linked, restorable), Keep
// old (the newer is forgotten, with Undo) and Keep both (the pair is not reported again);
// before, when set, runs first (closing a dialog).
func (s settlement) choices(before func()) []choice {
	do := func(f func()) func() {
		return func() {
			if before != nil {
				before()
			}
			f()
		}
	}
	return []choice{
		{lang.L("Keep new"), do(func() { s.a.supersede(s.older.ID, s.newer.ID) })},
		{lang.L("Keep old"), do(func() { s.a.forget(s.newer) })},
		{lang.L("Keep both"), do(func() { s.a.dismiss(s.newer.ID, s.older.ID) })},
	}
}

// age says whether fact id of the pair is the older or the newer one.
func (s settlement) age(id int64) string {
	if s.older.ID == id {
		return lang.L("older")
	}
	return lang.L("newer")
}

// supersede keeps fact by and marks old superseded by it.
func (a *factActions) supersede(old, by int64) {
	a.change(engine.RememberRequest{Action: engine.ActionSupersede, ID: old, By: by}, func(engine.RememberResult) {
		a.banner.show(widget.SuccessImportance, lang.L("#{{.Old}} is superseded by #{{.New}} and kept as history.", tmpl{"Old": old, "New": by}),
			lang.L("Undo"), func() { a.restore(old) })
	})
}

// dismiss keeps both facts of a pair and stops reporting it.
func (a *factActions) dismiss(x, y int64) {
	ticket := a.ticket()
	a.t.start(func(ctx context.Context) {
		err := a.b.DismissContradiction(ctx, x, y)
		a.t.do(func() {
			if err != nil {
				a.banner.show(widget.DangerImportance, sentence(err), "", nil)
			} else {
				a.report(ticket, func() {
					a.banner.show(widget.SuccessImportance, lang.L("Keeping both #{{.A}} and #{{.B}}.", tmpl{"A": x, "B": y}), "", nil)
				})
			}
			a.changed()
		})
	})
}

// forget soft-deletes a fact and offers to undo it.
func (a *factActions) forget(f engine.FactView) {
	a.change(engine.RememberRequest{Action: engine.ActionForget, ID: f.ID}, func(engine.RememberResult) {
		what := fmt.Sprintf("“%s”", shorten(f.Text, 60))
		if f.Text == "" {
			what = lang.L("memory #{{.ID}}", tmpl{"ID": f.ID})
		}
		a.banner.show(widget.MediumImportance, lang.L("Forgot {{.What}}.", tmpl{"What": what}), lang.L("Undo"), func() { a.restore(f.ID) })
	})
}

func (a *factActions) restore(id int64) {
	a.change(engine.RememberRequest{Action: engine.ActionRestore, ID: id}, func(engine.RememberResult) {
		a.banner.show(widget.SuccessImportance, lang.L("Restored memory #{{.ID}}.", tmpl{"ID": id}), "", nil)
	})
}

// change sends one edit, forget or restore, then shows done and tells the owner.
func (a *factActions) change(req engine.RememberRequest, done func(engine.RememberResult)) {
	ticket := a.ticket()
	a.t.start(func(ctx context.Context) {
		res, err := a.b.Remember(ctx, req)
		a.t.do(func() {
			if err != nil {
				a.banner.show(widget.DangerImportance, sentence(err), "", nil)
			} else {
				a.report(ticket, func() { done(res) })
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
