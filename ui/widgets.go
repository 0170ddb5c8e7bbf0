package ui

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// submitEntry is a multi-line entry that submits on Ctrl+Enter (Cmd+Enter on macOS) while
// plain Enter still starts a new line.
type submitEntry struct {
	widget.Entry
	onSubmit func()
}

func newSubmitEntry(onSubmit func()) *submitEntry {
	e := &submitEntry{onSubmit: onSubmit}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut takes Ctrl+Enter and leaves every other shortcut to the entry.
func (e *submitEntry) TypedShortcut(s fyne.Shortcut) {
	if isSubmitShortcut(s) {
		if e.onSubmit != nil {
			e.onSubmit()
		}
		return
	}
	e.Entry.TypedShortcut(s)
}

// banner is an inline message with up to a few actions, e.g. "Forgot … [Undo]", or a
// finding with its resolutions "[Keep new] [Keep old] [Keep both]".
type banner struct {
	content *fyne.Container
	text    *widget.Label
	// action is the first action's button; more holds the buttons of the others.
	action *widget.Button
	more   *fyne.Container
	bg     *canvas.Rectangle
}

// choice is one action a banner offers: its label says what it does.
type choice struct {
	label string
	do    func()
}

func newBanner() *banner {
	b := &banner{text: widget.NewLabel(""), bg: canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))}
	b.text.Wrapping = fyne.TextWrapWord
	b.bg.CornerRadius = theme.InputRadiusSize()
	b.action = widget.NewButton("", nil)
	b.more = container.NewHBox()
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), b.hide)
	closeBtn.Importance = widget.LowImportance
	b.content = container.NewStack(b.bg,
		container.NewBorder(nil, nil, nil, container.NewHBox(b.action, b.more, closeBtn), b.text))
	b.content.Hide()
	return b
}

// show replaces the banner's message; an empty actionLabel hides the action button.
func (b *banner) show(importance widget.Importance, msg, actionLabel string, action func()) {
	if actionLabel == "" || action == nil {
		b.offer(importance, msg)
		return
	}
	b.offer(importance, msg, choice{actionLabel, action})
}

// offer replaces the banner's message and its actions; each hides the banner, then acts.
func (b *banner) offer(importance widget.Importance, msg string, choices ...choice) {
	b.text.Importance = importance
	b.text.SetText(msg)
	b.action.Hide()
	b.more.RemoveAll()
	for i, c := range choices {
		btn := b.action
		if i > 0 {
			btn = widget.NewButton("", nil)
			b.more.Add(btn)
		}
		btn.SetText(c.label)
		btn.OnTapped = func() {
			b.hide()
			c.do()
		}
		btn.Show()
	}
	b.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	b.bg.Refresh()
	b.content.Show()
}

// button is the banner's action labelled label, or nil (tests tap them).
func (b *banner) button(label string) *widget.Button {
	if b.action.Visible() && b.action.Text == label {
		return b.action
	}
	for _, o := range b.more.Objects {
		if btn, ok := o.(*widget.Button); ok && btn.Text == label {
			return btn
		}
	}
	return nil
}

func (b *banner) hide() { b.content.Hide() }

// visible reports whether the banner shows a message (tests and callers read its text).
func (b *banner) visible() bool { return b.content.Visible() }

// chip is a small coloured label (a badge) on bg. Its text is black or white, whichever
// stands out more from bg: the themes' "on success" and "on warning" colours are white,
// and white on the light theme's green and orange was hard to read (issue 28).
func chip(text string, bg fyne.ThemeColorName) fyne.CanvasObject {
	back := theme.Color(bg)
	rect := canvas.NewRectangle(back)
	rect.CornerRadius = theme.InputRadiusSize() * 2
	label := canvas.NewText(text, readableOn(back))
	label.TextSize = theme.CaptionTextSize()
	// Centred, so a taller neighbour (a button) does not stretch the chip.
	return container.NewCenter(container.NewStack(rect, container.New(layout.NewCustomPaddedLayout(2, 2, 8, 8), label)))
}

// readableOn is black or white, whichever has the higher WCAG contrast ratio with bg.
func readableOn(bg color.Color) color.Color {
	if contrast(color.White, bg) >= contrast(color.Black, bg) {
		return color.White
	}
	return color.Black
}

// contrast is the WCAG 2 contrast ratio of two opaque colours, from 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the WCAG 2 relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// caption is a small label for secondary lines; it truncates, so give it the centre of a
// border layout (an HBox would squeeze it to an ellipsis).
func caption(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.SizeName = theme.SizeNameCaptionText
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

// hint is a small label that keeps its full width, for short help next to controls.
func hint(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.SizeName = theme.SizeNameCaptionText
	return l
}
