package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// hitTextLimit bounds how much of a long chunk a result card shows.
const hitTextLimit = 600

// recallScreen is the search box and its results: search as you type, each keystroke
// cancelling the query before it.
type recallScreen struct {
	t *tasks
	b Backend

	query   *widget.Entry
	source  *widget.Select
	space   *widget.Entry
	note    *widget.Label
	results *fyne.Container
	content fyne.CanvasObject

	// open shows a hit where it lives: a memory in its edit dialog, a chunk among its
	// document's chunks.
	open func(engine.Hit)

	typing debouncer
	cancel context.CancelFunc
	gen    int                 // the newest search; older answers are dropped
	shown  engine.RecallResult // what the cards show, for tests
}

func newRecallScreen(t *tasks, b Backend) *recallScreen {
	r := &recallScreen{t: t, b: b, typing: debouncer{delay: debounceDelay}}
	r.query = widget.NewEntry()
	r.query.SetPlaceHolder("Search your memories and documents…  (Enter searches now)")
	r.query.OnChanged = func(string) { r.typing.trigger(t, r.search) }
	r.query.OnSubmitted = func(string) { r.typing.flush(r.search) }
	r.source = widget.NewSelect([]string{string(engine.SourceAll), string(engine.SourceMemory), string(engine.SourceKnowledge)}, nil)
	r.source.SetSelectedIndex(0)
	r.source.OnChanged = func(string) { r.typing.flush(r.search) }
	r.space = widget.NewEntry()
	r.space.SetPlaceHolder("default")
	r.space.OnChanged = func(string) { r.typing.trigger(t, r.search) }
	r.note = widget.NewLabel("Type to search. Memories and imported documents are searched together.")
	r.note.Importance = widget.LowImportance
	r.note.Wrapping = fyne.TextWrapWord
	r.results = container.NewVBox()

	spaceBox := container.NewGridWrap(fyne.NewSize(150, r.space.MinSize().Height), r.space)
	controls := container.NewHBox(widget.NewLabel("in"), r.source, widget.NewLabel("space"), spaceBox)
	top := container.NewVBox(container.NewBorder(nil, nil, nil, controls, r.query), r.note)
	r.content = container.NewBorder(top, nil, nil, nil, container.NewVScroll(r.results))
	return r
}

// search runs the current query, cancelling the one in flight. UI goroutine only.
func (r *recallScreen) search() {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	r.gen++
	gen := r.gen
	q := strings.TrimSpace(r.query.Text)
	if q == "" {
		r.show(engine.RecallResult{}, nil)
		r.note.SetText("Type to search. Memories and imported documents are searched together.")
		return
	}
	req := engine.RecallRequest{Query: q, Space: strings.TrimSpace(r.space.Text), Source: engine.Source(r.source.Selected)}
	r.note.SetText("Searching…")
	r.cancel = r.t.start(func(ctx context.Context) {
		res, err := r.b.Recall(ctx, req)
		r.t.do(func() {
			if gen != r.gen {
				return // a newer query owns the screen
			}
			r.cancel = nil
			r.show(res, err)
		})
	})
}

// refresh runs the shown query again, when there is one.
func (r *recallScreen) refresh() {
	if strings.TrimSpace(r.query.Text) != "" {
		r.search()
	}
}

func (r *recallScreen) show(res engine.RecallResult, err error) {
	r.shown = res
	r.results.RemoveAll()
	r.note.Importance = widget.LowImportance
	switch {
	case err != nil:
		r.note.Importance = widget.DangerImportance
		r.note.SetText(sentence(err))
		return
	case res.Query == "":
		return
	case len(res.Hits) == 0:
		r.note.Importance = widget.MediumImportance
		r.note.SetText("Nothing relevant.")
		return
	}
	msg := plural(len(res.Hits), "hit", "hits")
	if res.Relaxed {
		r.note.Importance = widget.WarningImportance
		msg = "Relaxed: nothing matched every term, so these are the closest " + plural(len(res.Hits), "hit", "hits") + "."
	}
	r.note.SetText(msg)
	for _, h := range res.Hits {
		r.results.Add(hitCard(h, r.open))
	}
}

// hitCard shows one hit: where it is from, its legs, its text with matched terms in bold,
// and the engine's explanation behind a "why" fold.
func hitCard(h engine.Hit, open func(engine.Hit)) fyne.CanvasObject {
	var badge fyne.CanvasObject
	var where string
	if h.Doc != nil {
		badge = chip("document", theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary)
		where = docLocation(*h.Doc)
	} else {
		badge = chip("memory", theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess)
		where = fmt.Sprintf("#%d · %s · %s", h.ID, h.Space, h.CreatedAt.Local().Format("2 Jan 2006"))
	}
	legs := container.NewHBox()
	for _, leg := range []struct {
		name  string
		score float64
	}{{"lexical", h.Legs.FTS}, {"entity", h.Legs.Entity}, {"semantic", h.Legs.Semantic}} {
		if leg.score != 0 {
			legs.Add(chip(fmt.Sprintf("%s %.2f", leg.name, leg.score), theme.ColorNameForeground, theme.ColorNameInputBackground))
		}
	}

	if open != nil {
		label := "Edit"
		if h.Doc != nil {
			label = "Open"
		}
		btn := widget.NewButtonWithIcon(label, theme.NavigateNextIcon(), func() { open(h) })
		btn.Importance = widget.LowImportance
		legs.Add(btn)
	}
	header := container.NewBorder(nil, nil, badge, legs, caption(where))

	text := widget.NewRichText(segments(clip(highlight(h.Text, h.Matched), hitTextLimit))...)
	text.Wrapping = fyne.TextWrapWord

	why := widget.NewLabel(fmt.Sprintf("%s\nscore %.3f · lexical %.3f · entity %.3f · semantic %.3f",
		h.Why, h.Score, h.Legs.FTS, h.Legs.Entity, h.Legs.Semantic))
	why.Wrapping = fyne.TextWrapWord
	why.Importance = widget.LowImportance

	return container.NewVBox(header, text, widget.NewAccordion(widget.NewAccordionItem("why", why)), widget.NewSeparator())
}

// docLocation reads "Title — path:12–20 › Heading".
func docLocation(d engine.DocRef) string {
	s := d.Title
	if s == "" {
		s = d.Path
	} else {
		s += " — " + d.Path
	}
	if d.LineStart > 0 {
		s += fmt.Sprintf(":%d", d.LineStart)
		if d.LineEnd > d.LineStart {
			s += fmt.Sprintf("–%d", d.LineEnd)
		}
	}
	if d.Heading != "" {
		s += " › " + d.Heading
	}
	return s
}

// matchedStyle marks matched terms in bold and in the primary colour: CJK fallback fonts
// often have no bold face, so colour is what shows there.
func matchedStyle() widget.RichTextStyle {
	return widget.RichTextStyle{ColorName: theme.ColorNamePrimary, Inline: true,
		SizeName: theme.SizeNameText, TextStyle: fyne.TextStyle{Bold: true}}
}

func segments(spans []span) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(spans))
	for _, s := range spans {
		style := widget.RichTextStyleInline
		if s.Matched {
			style = matchedStyle()
		}
		out = append(out, &widget.TextSegment{Text: s.Text, Style: style})
	}
	return out
}
