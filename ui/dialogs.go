package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// dialogs opens every dialog of the main window, so the keys work alike in all of them:
// Esc dismisses the dialog on top (Cancel, Close), Ctrl+Enter (Cmd+Enter on macOS) confirms
// it when it has a confirm action. Fyne's dialogs take no keys of their own, so the
// window's key handler asks here, and so do the entries inside dialogs (dialogEntry), which
// would otherwise swallow the keys while they have the focus.
//
// Nothing else in the package calls dialog.New… or dialog.Show… (a test checks the source).
type dialogs struct {
	win  fyne.Window
	open []*openDialog // in the order shown: the last is on top
}

type openDialog struct {
	d       dialog.Dialog
	confirm func() // nil: nothing to confirm, only to close
	// overlay is the dialog's pop-up on the window's canvas: Esc acts only while it is the
	// top overlay, so a pop-up Fyne opens on its own (a file dialog's "Overwrite?", a
	// drop-down) takes the key first.
	overlay fyne.CanvasObject
}

// fileDialogSize fits a file dialog's folder list and file names.
func fileDialogSize() fyne.Size { return fyne.NewSize(760, 520) }

func newDialogs(win fyne.Window) *dialogs { return &dialogs{win: win} }

// show shows d at size (zero: its own size) and tracks it until it closes; confirm is what
// Ctrl+Enter does, nil for none.
func (ds *dialogs) show(d dialog.Dialog, size fyne.Size, confirm func()) {
	overlays := ds.win.Canvas().Overlays()
	below := overlays.Top()
	if !size.IsZero() {
		d.Resize(size)
	}
	// The window's focus comes back when a dialog goes: a box that had it (a filter, the
	// search box) would then get the Space that pressed the dialog's button, after the key
	// had done its work. So nothing of the window keeps it. This must come before Show: the
	// Unfocus below runs on the dialog's layer and leaves the window's own focus as it was.
	ds.win.Canvas().Unfocus()
	d.Show()
	top := overlays.Top()
	if top == nil || top == below {
		return // shown by the system (a portal's file chooser): its keys are its own
	}
	od := &openDialog{d: d, confirm: confirm, overlay: top}
	ds.open = append(ds.open, od)
	d.SetOnClosed(func() {
		ds.open = slices.DeleteFunc(ds.open, func(o *openDialog) bool { return o == od })
	})
	// A button tapped to open the dialog keeps the focus, and a focused widget gets the
	// keys the window's handler would see: Esc must reach the dialog. Callers that want
	// typing in one of the dialog's entries focus it after this.
	ds.win.Canvas().Unfocus()
}

// top is the dialog on top of the window, or nil when none is or another pop-up covers it.
func (ds *dialogs) top() *openDialog {
	if len(ds.open) == 0 {
		return nil
	}
	od := ds.open[len(ds.open)-1]
	if ds.win.Canvas().Overlays().Top() != od.overlay {
		return nil
	}
	return od
}

// anyOpen reports whether a dialog covers the window, so its keys are not the screen's.
func (ds *dialogs) anyOpen() bool { return len(ds.open) > 0 }

// dismiss closes the top dialog as its Cancel or Close button would; false when there is none.
func (ds *dialogs) dismiss() bool {
	od := ds.top()
	if od == nil {
		return false
	}
	od.d.Dismiss()
	return true
}

// confirm confirms the top dialog as its confirm button would; false when there is none or
// it has nothing to confirm.
func (ds *dialogs) confirm() bool {
	od := ds.top()
	if od == nil || od.confirm == nil {
		return false
	}
	od.confirm()
	return true
}

// typedKey takes Esc for the top dialog; it reports whether it took the key.
func (ds *dialogs) typedKey(ev *fyne.KeyEvent) bool {
	return ev.Name == fyne.KeyEscape && ds.dismiss()
}

// typedShortcut takes Ctrl+Enter for the top dialog; it reports whether it took it.
func (ds *dialogs) typedShortcut(s fyne.Shortcut) bool {
	return isSubmitShortcut(s) && ds.confirm()
}

// submitShortcuts are Ctrl+Enter (Cmd+Enter) on both Enter keys, for canvas.AddShortcut.
func submitShortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{
		&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault},
		&desktop.CustomShortcut{KeyName: fyne.KeyEnter, Modifier: fyne.KeyModifierShortcutDefault},
	}
}

// isSubmitShortcut reports whether s is Ctrl+Enter (Cmd+Enter on macOS).
func isSubmitShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	return ok && cs.Modifier == fyne.KeyModifierShortcutDefault &&
		(cs.KeyName == fyne.KeyReturn || cs.KeyName == fyne.KeyEnter)
}

// showCustom shows content with one button, dismiss, that closes it.
func (ds *dialogs) showCustom(title, dismiss string, content fyne.CanvasObject, size fyne.Size) *dialog.CustomDialog {
	d := dialog.NewCustom(title, dismiss, content, ds.win)
	ds.show(d, size, nil)
	return d
}

// showConfirm shows content with a confirm and a dismiss button; done learns which closed
// it (Esc is dismiss, Ctrl+Enter confirm).
func (ds *dialogs) showConfirm(title, confirm, dismiss string, content fyne.CanvasObject, size fyne.Size, done func(bool)) *dialog.ConfirmDialog {
	d := dialog.NewCustomConfirm(title, confirm, dismiss, content, done, ds.win)
	ds.show(d, size, d.Confirm)
	return d
}

// showError shows err in a dialog with a Close button.
func (ds *dialogs) showError(err error) {
	ds.show(dialog.NewError(err, ds.win), fyne.Size{}, nil)
}

// showFileOpen asks for a file to read; Esc calls done with nil, as Cancel does.
func (ds *dialogs) showFileOpen(done func(fyne.URIReadCloser, error)) {
	ds.show(dialog.NewFileOpen(done, ds.win), fileDialogSize(), nil)
}

// showFolderOpen asks for a folder; Esc calls done with nil, as Cancel does.
func (ds *dialogs) showFolderOpen(done func(fyne.ListableURI, error)) {
	ds.show(dialog.NewFolderOpen(done, ds.win), fileDialogSize(), nil)
}

// showFileSave asks where to write a file, offering name; Esc calls done with nil, as
// Cancel does.
func (ds *dialogs) showFileSave(name string, done func(fyne.URIWriteCloser, error)) {
	d := dialog.NewFileSave(done, ds.win)
	d.SetFileName(name)
	ds.show(d, fileDialogSize(), nil)
}

// dialogEntry is an entry for a dialog's content. A plain entry swallows Esc and Ctrl+Enter
// while it has the focus; this one hands them to the dialog (dismiss, confirm) first.
type dialogEntry struct {
	widget.Entry
	keys *dialogs
}

// newMultiLineEntry is a multi-line, word-wrapped dialogEntry.
func (ds *dialogs) newMultiLineEntry() *dialogEntry {
	e := &dialogEntry{keys: ds}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey gives Esc to the dialog.
func (e *dialogEntry) TypedKey(ev *fyne.KeyEvent) {
	if !e.keys.typedKey(ev) {
		e.Entry.TypedKey(ev)
	}
}

// TypedShortcut gives Ctrl+Enter to the dialog.
func (e *dialogEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.keys.typedShortcut(s) {
		e.Entry.TypedShortcut(s)
	}
}

// dialogSelectEntry is a select entry (a list to pick from, or a new name typed) that, like
// dialogEntry, hands Esc and Ctrl+Enter to its dialog.
type dialogSelectEntry struct {
	widget.SelectEntry
	keys *dialogs
}

func (ds *dialogs) newSelectEntry(options []string) *dialogSelectEntry {
	e := &dialogSelectEntry{keys: ds}
	e.ExtendBaseWidget(e)
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip) // as widget.NewSelectEntry sets it
	e.SetOptions(options)
	return e
}

// TypedKey gives Esc to the dialog.
func (e *dialogSelectEntry) TypedKey(ev *fyne.KeyEvent) {
	if !e.keys.typedKey(ev) {
		e.SelectEntry.TypedKey(ev)
	}
}

// TypedShortcut gives Ctrl+Enter to the dialog.
func (e *dialogSelectEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.keys.typedShortcut(s) {
		e.SelectEntry.TypedShortcut(s)
	}
}
