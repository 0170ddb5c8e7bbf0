package ui

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// pressShortcut delivers s as the driver does: to the focused widget when it takes
// shortcuts, else to the window's canvas.
func (h *harness) pressShortcut(s fyne.Shortcut) {
	c := h.u.win.Canvas()
	if f, ok := c.Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(s)
		return
	}
	c.(fyne.Shortcutable).TypedShortcut(s)
}

// swallowingEntries are the entries in a dialog that would keep Esc and Ctrl+Enter from it:
// plain Fyne entries instead of dialogEntry and dialogSelectEntry.
func swallowingEntries(root fyne.CanvasObject) []string {
	var found []string
	walk(root, func(o fyne.CanvasObject) {
		switch e := o.(type) {
		case *widget.Entry:
			found = append(found, "entry "+e.Text)
		case *widget.SelectEntry:
			found = append(found, "select entry "+e.Text)
		}
	})
	return found
}

func TestDialogsEscClosesEach(t *testing.T) {
	cases := []struct {
		name string
		// open shows the dialog; focusIn says an entry in it has the keyboard, so Esc
		// goes through that entry instead of the window.
		open    func(h *harness)
		focusIn bool
		// after checks what dismissing did, beyond closing.
		after func(t *testing.T, h *harness)
	}{
		{name: "edit memory, entry focused", focusIn: true, open: func(h *harness) {
			h.u.memories.showEdit(h.fact(h.remember("the kettle is descaled monthly", "")))
		}, after: func(t *testing.T, h *harness) {
			if got := h.u.memories.banner.text.Text; got != "" {
				t.Errorf("after Esc the banner says %q, want nothing (no edit)", got)
			}
		}},
		{name: "remove document", open: func(h *harness) {
			h.u.knowledge.confirmRemove(engine.DocumentView{ID: 1, Path: "/notes/a.md", Title: "a", Chunks: 1})
		}},
		{name: "contradictions", open: func(h *harness) {
			a, b := h.remember("老王住在北京", ""), h.remember("老王住在上海", "")
			h.u.memories.showConflicts(h.fact(b), []engine.ContradictionPair{{A: h.fact(a), B: h.fact(b), Reason: "different city"}})
		}},
		{name: "error", open: func(h *harness) { h.u.dialogs.showError(errors.New("the disk is full")) }},
		{name: "import file", open: func(h *harness) { h.u.knowledge.chooseFile() }},
		{name: "keep a folder in sync", open: func(h *harness) { h.u.knowledge.sync.check.SetChecked(true) },
			after: func(t *testing.T, h *harness) {
				if h.u.knowledge.sync.check.Checked {
					t.Error("Esc on the folder dialog left Keep in sync on")
				}
			}},
		{name: "export memories", open: func(h *harness) { h.u.chooseExport() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{}, nil).start()
			c.open(h)
			h.waitFor("the dialog", func() bool { return h.overlay() != nil && h.u.dialogs.anyOpen() })
			_, entryFocused := h.u.win.Canvas().Focused().(*dialogEntry)
			if entryFocused != c.focusIn {
				t.Errorf("an entry in the dialog has the keyboard: %v, want %v", entryFocused, c.focusIn)
			}
			if !strings.HasPrefix(c.name, "import") && !strings.HasPrefix(c.name, "keep") && !strings.HasPrefix(c.name, "export") {
				// Fyne's own file dialogs are not ours to build; the rest are.
				if got := swallowingEntries(h.overlay()); len(got) > 0 {
					t.Errorf("the dialog holds entries that swallow Esc: %q", got)
				}
			}
			h.pressKey(fyne.KeyEscape)
			if h.overlay() != nil || h.u.dialogs.anyOpen() {
				t.Fatalf("Esc left the dialog open (%d tracked)", len(h.u.dialogs.open))
			}
			if c.after != nil {
				c.after(t, h)
			}
		})
	}
}

func TestDialogsCtrlEnterConfirms(t *testing.T) {
	t.Run("edit memory, entry focused", func(t *testing.T) {
		h := newHarness(t, Options{}, nil)
		id := h.remember("the kettle is descaled monthly", "")
		h.start()
		h.u.memories.showEdit(h.fact(id))
		h.waitFor("the edit dialog", func() bool { return h.overlay() != nil })
		entryIn(h.overlay()).SetText("the kettle is descaled weekly")
		h.pressShortcut(ctrlEnter())
		if h.overlay() != nil {
			t.Fatal("Ctrl+Enter left the edit dialog open")
		}
		h.waitFor("the edit saved", func() bool { return h.fact(id).Text == "the kettle is descaled weekly" })
	})
	t.Run("edit memory, space entry focused", func(t *testing.T) {
		h := newHarness(t, Options{}, nil)
		id := h.remember("the kettle is descaled monthly", "")
		h.start()
		m := h.u.memories
		m.showEdit(h.fact(id))
		h.waitFor("the edit dialog", func() bool { return h.overlay() != nil && m.editSpace != nil })
		h.u.win.Canvas().Focus(m.editSpace)
		m.editSpace.SetText("home")
		h.pressShortcut(ctrlEnter())
		h.waitFor("the move", func() bool { return h.fact(id).Space == "home" })
	})
	t.Run("remove document, nothing focused", func(t *testing.T) {
		h := newHarness(t, Options{}, nil)
		path := filepath.Join(writeDocs(t, 1), "note00.md")
		if _, err := h.eng.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{path}}); err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		h.start()
		docs := h.documents()
		h.u.knowledge.confirmRemove(docs[0])
		if f := h.u.win.Canvas().Focused(); f != nil {
			t.Fatalf("%T has the keyboard in the remove dialog, want nothing", f)
		}
		h.pressShortcut(ctrlEnter())
		if h.overlay() != nil {
			t.Fatal("Ctrl+Enter left the remove dialog open")
		}
		h.waitFor("the document removed", func() bool { return len(h.documents()) == 0 })
	})
	t.Run("a dialog with nothing to confirm stays", func(t *testing.T) {
		h := newHarness(t, Options{}, nil).start()
		h.u.dialogs.showError(errors.New("the disk is full"))
		h.pressShortcut(ctrlEnter())
		if h.overlay() == nil {
			t.Fatal("Ctrl+Enter closed a dialog that has only Close")
		}
	})
}

// TestDialogsEscLeavesForeignPopUps: a pop-up the app did not open through dialogs (Fyne's
// own "Overwrite?" over a file dialog) takes Esc itself; the dialog below stays.
func TestDialogsEscLeavesForeignPopUps(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.u.dialogs.showError(errors.New("the disk is full"))
	pop := widget.NewModalPopUp(widget.NewLabel("not ours"), h.u.win.Canvas())
	pop.Show()
	h.pressKey(fyne.KeyEscape)
	if h.overlay() != pop || !h.u.dialogs.anyOpen() {
		t.Fatal("Esc closed the dialog under a pop-up that covers it")
	}
	pop.Hide()
	h.pressKey(fyne.KeyEscape)
	if h.overlay() != nil {
		t.Fatal("Esc left the dialog open once the pop-up closed")
	}
}

// TestDialogsAllGoThroughTheHelper fails when code in ui/ opens a dialog or a modal pop-up
// other than through dialogs (dialogs.go), where it would get neither Esc nor Ctrl+Enter.
func TestDialogsAllGoThroughTheHelper(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	popUps := map[string]bool{"NewModalPopUp": true, "ShowModalPopUp": true, "NewPopUp": true,
		"ShowPopUp": true, "ShowPopUpAtPosition": true, "ShowPopUpAtRelativePosition": true}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "dialogs.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case pkg.Name == "dialog" && (strings.HasPrefix(sel.Sel.Name, "New") || strings.HasPrefix(sel.Sel.Name, "Show")),
				pkg.Name == "widget" && popUps[sel.Sel.Name]:
				t.Errorf("%s: %s.%s opens a dialog outside dialogs.go: Esc and Ctrl+Enter would not reach it",
					fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files; run from the ui package directory", checked)
	}
}
