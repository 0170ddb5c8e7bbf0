package ui

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// Chunks the document view shows around a hit when it opens, and adds per "Show earlier" or
// "Show later". Opening used to lay out up to 300 wrapped chunks from #0 and took seconds;
// a screenful around the hit is what the person came for.
const (
	docViewAround = 8
	docViewPage   = 20
)

// docView shows one document's chunks in a dialog, opened at a hit's chunk with the matched
// words marked, with actions to open the file in its own app, show its folder, and copy.
// A note's [[links]] are buttons under the chunk that holds them: one opens the linked note
// in the same view at the heading it names, and Back returns to where the link was.
type docView struct {
	t       *tasks
	b       Backend
	win     fyne.Window
	dialogs *dialogs
	// openURL hands a file:// URL to the system's default handler (fyne's App.OpenURL:
	// xdg-open, open, or the Windows shell); tests replace it.
	openURL   func(*url.URL) error
	pdf       pdfPageOpener
	clipboard fyne.Clipboard

	dlg     dialog.Dialog // nil while closed
	gen     int
	page    engine.KBChunkPage
	terms   []string
	box     *fyne.Container
	scroll  *container.Scroll
	earlier *widget.Button
	later   *widget.Button
	hitCard fyne.CanvasObject
	status  *widget.Label

	// linked is true when the view was opened by following a link: its Around chunk is
	// the linked place, not a match.
	linked bool
	links  []engine.LinkView
	// back holds the places links were followed from, the latest last.
	back []viewPlace
}

// viewPlace is a place the view showed: a document at a chunk (0: its start).
type viewPlace struct {
	docID, chunkID int64
	terms          []string
	linked         bool
}

func newDocView(t *tasks, b Backend, win fyne.Window, dialogs *dialogs, a fyne.App) *docView {
	return &docView{t: t, b: b, win: win, dialogs: dialogs, openURL: a.OpenURL, pdf: systemPDFPageOpener(), clipboard: a.Clipboard()}
}

// open shows document docID at chunk around (0: from its start), marking terms.
func (v *docView) open(docID, around int64, terms []string) {
	v.back = nil
	v.load(viewPlace{docID: docID, chunkID: around, terms: terms})
}

// load reads a place's page of chunks and the document's links, then shows them.
func (v *docView) load(at viewPlace) {
	v.gen++
	gen := v.gen
	req := engine.KBChunkPageRequest{DocID: at.docID, Around: at.chunkID, After: docViewPage}
	if at.chunkID != 0 {
		req.Before, req.After = docViewAround, docViewAround
	}
	v.t.start(func(ctx context.Context) {
		page, err := v.b.KBChunkPage(ctx, req)
		var links []engine.LinkView
		var linksErr error
		if err == nil && page.Document.Format == "markdown" {
			links, linksErr = v.b.KBLinks(ctx, at.docID)
		}
		v.t.do(func() {
			if gen != v.gen {
				return
			}
			if err != nil {
				v.dialogs.showError(errors.New(lang.L("open document: {{.Error}}", tmpl{"Error": err.Error()})))
				return
			}
			v.linked, v.links = at.linked, links
			v.show(page, at.terms)
			if linksErr != nil {
				// The text is what the person came for; the links are extra.
				v.status.SetText(lang.L("links not shown: {{.Error}}", tmpl{"Error": sentence(linksErr)}))
			}
		})
	})
}

// follow opens the note a link leads to at the place it names, remembering this one.
func (v *docView) follow(l engine.LinkView) {
	if l.To == nil {
		return
	}
	here := viewPlace{docID: v.page.Document.ID, terms: v.terms, linked: v.linked}
	if v.page.Hit >= 0 {
		here.chunkID = v.page.Chunks[v.page.Hit].ID
	}
	v.back = append(v.back, here)
	v.load(viewPlace{docID: l.To.DocID, chunkID: l.To.ChunkID, linked: true})
}

// goBack returns to the place the last link was followed from.
func (v *docView) goBack() {
	if len(v.back) == 0 {
		return
	}
	at := v.back[len(v.back)-1]
	v.back = v.back[:len(v.back)-1]
	v.load(at)
}

func (v *docView) show(page engine.KBChunkPage, terms []string) {
	v.close()
	v.page, v.terms = page, terms
	v.box = container.NewVBox()
	v.earlier = widget.NewButtonWithIcon(lang.L("Show earlier"), theme.MoveUpIcon(), v.keepEsc(func() { v.more(true) }))
	v.later = widget.NewButtonWithIcon(lang.L("Show later"), theme.MoveDownIcon(), v.keepEsc(func() { v.more(false) }))
	for _, b := range []*widget.Button{v.earlier, v.later} {
		b.Importance = widget.LowImportance
	}
	v.status = caption("")
	v.hitCard = nil
	v.render()

	d := page.Document
	back := widget.NewButtonWithIcon(lang.L("Back"), theme.NavigateBackIcon(), v.keepEsc(v.goBack))
	back.Hidden = len(v.back) == 0
	actions := container.NewHBox(back,
		widget.NewButtonWithIcon(lang.L("Open in its app"), theme.FileApplicationIcon(), v.keepEsc(v.openFile)),
		widget.NewButtonWithIcon(lang.L("Show in folder"), theme.FolderOpenIcon(), v.keepEsc(v.openFolder)),
		widget.NewButtonWithIcon(lang.L("Copy passage"), theme.ContentCopyIcon(), v.keepEsc(v.copyPassage)),
		widget.NewButtonWithIcon(lang.L("Copy path"), theme.ContentCopyIcon(), v.keepEsc(func() { v.copy(d.Path, lang.L("Copied the path.")) })),
	)
	path := caption(display.Line(d.Path) + " · " + plural(d.Chunks, "chunk", "chunks"))
	path.Truncation = fyne.TextTruncateEllipsis
	v.scroll = container.NewVScroll(v.box)
	content := container.NewBorder(container.NewVBox(actions, path, v.status), nil, nil, nil, v.scroll)
	// Esc closes it through the window's dialogs, which leave the keys with the window.
	dlg := v.dialogs.showCustom(docTitle(d), lang.L("Close"), content, fyne.NewSize(760, 560))
	dlg.SetOnClosed(func() {
		if v.dlg == dlg {
			v.dlg = nil
		}
	})
	v.dlg = dlg
	v.scrollToHit()
}

// keepEsc wraps a button's action: a tapped button takes the keyboard focus, and a focused
// widget gets the keys the window's handler would see, so Esc would stop closing the view.
func (v *docView) keepEsc(action func()) func() {
	return func() {
		action()
		v.win.Canvas().Unfocus()
	}
}

// render lays out the page's chunks between the earlier and later buttons.
func (v *docView) render() {
	objs := make([]fyne.CanvasObject, 0, len(v.page.Chunks)+2)
	objs = append(objs, v.earlier)
	placed := make([]bool, len(v.links)) // a link on the overlap of two chunks is shown once
	for i, c := range v.page.Chunks {
		card := chunkCard(c, v.terms, i == v.page.Hit, v.linked, v.linkButtons(c, placed))
		if i == v.page.Hit {
			v.hitCard = card
		}
		objs = append(objs, card)
	}
	objs = append(objs, v.later)
	v.box.Objects = objs
	v.earlier.Hidden = len(v.page.Chunks) == 0 || v.page.Chunks[0].Ordinal == 0
	v.later.Hidden = len(v.page.Chunks) == 0 || v.page.Chunks[len(v.page.Chunks)-1].Ordinal >= v.page.Document.Chunks-1
	v.box.Refresh()
}

// linkButtons are the buttons of the links on chunk c's lines that no earlier chunk shows,
// nil when it has none. A link to a note memdesk does not hold is shown, but cannot be
// followed.
func (v *docView) linkButtons(c engine.ChunkView, placed []bool) fyne.CanvasObject {
	var buttons []fyne.CanvasObject
	for i, l := range v.links {
		if placed[i] || l.Line < c.LineStart || l.Line > c.LineEnd {
			continue
		}
		placed[i] = true
		text := display.Line(l.Text)
		icon := theme.NavigateNextIcon()
		if l.Embed {
			icon = theme.MediaPhotoIcon()
		}
		b := widget.NewButtonWithIcon(text, icon, v.keepEsc(func() { v.follow(l) }))
		b.Importance = widget.LowImportance
		if l.To == nil {
			b.SetText(lang.L("{{.Link}} (not imported)", tmpl{"Link": text}))
			b.Disable()
		}
		buttons = append(buttons, b)
	}
	if len(buttons) == 0 {
		return nil
	}
	return container.New(layout.NewRowWrapLayout(), buttons...)
}

// chunkCard shows a chunk with its place in the document, and links, when not nil, under
// its text. hit marks the chunk the view was opened at: a match, or the place a followed
// link names (linked).
func chunkCard(c engine.ChunkView, terms []string, hit, linked bool, links fyne.CanvasObject) fyne.CanvasObject {
	head := lang.L("#{{.N}} · lines {{.From}}–{{.To}}", tmpl{"N": c.Ordinal, "From": c.LineStart, "To": c.LineEnd})
	if c.Page > 0 {
		head = lang.L("#{{.N}} · p. {{.Page}} · lines {{.From}}–{{.To}}", tmpl{"N": c.Ordinal, "Page": c.Page, "From": c.LineStart, "To": c.LineEnd})
	}
	if c.Heading != "" {
		head += " · " + display.Line(c.Heading)
	}
	label := caption(head)
	if hit {
		mark := lang.L("▶ match · {{.Head}}", tmpl{"Head": head})
		if linked {
			mark = lang.L("▶ linked · {{.Head}}", tmpl{"Head": head})
		}
		label = widget.NewLabelWithStyle(mark, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		label.Importance = widget.HighImportance
	}
	text := widget.NewRichText(segments(highlight(display.Block(c.Text), terms))...)
	text.Wrapping = fyne.TextWrapWord
	if links != nil {
		return container.NewVBox(label, text, links, widget.NewSeparator())
	}
	return container.NewVBox(label, text, widget.NewSeparator())
}

// scrollToHit puts the hit's chunk at the top of the view.
func (v *docView) scrollToHit() {
	if v.hitCard == nil || v.scroll == nil {
		return
	}
	v.scroll.Offset = fyne.NewPos(0, v.hitCard.Position().Y)
	v.scroll.Refresh()
}

// more loads the next page before the first chunk shown (earlier) or after the last.
func (v *docView) more(earlier bool) {
	if len(v.page.Chunks) == 0 {
		return
	}
	edge := v.page.Chunks[len(v.page.Chunks)-1]
	req := engine.KBChunkPageRequest{DocID: v.page.Document.ID, Around: edge.ID, After: docViewPage}
	if earlier {
		edge = v.page.Chunks[0]
		req = engine.KBChunkPageRequest{DocID: v.page.Document.ID, Around: edge.ID, Before: docViewPage}
	}
	gen := v.gen
	v.t.start(func(ctx context.Context) {
		page, err := v.b.KBChunkPage(ctx, req)
		v.t.do(func() {
			if gen != v.gen || v.dlg == nil {
				return
			}
			if err != nil {
				v.status.SetText(sentence(err))
				return
			}
			// The page repeats the edge chunk, which is already shown.
			got := page.Chunks
			if earlier {
				got = got[:max(len(got)-1, 0)]
				v.page.Chunks = append(got, v.page.Chunks...)
				if v.page.Hit >= 0 {
					v.page.Hit += len(got)
				}
			} else if len(got) > 0 {
				v.page.Chunks = append(v.page.Chunks, got[1:]...)
			}
			v.page.Document = page.Document
			offset, oldFirstY := v.scroll.Offset.Y, v.box.Objects[1].Position().Y
			v.render()
			if earlier && len(got)+1 < len(v.box.Objects) {
				// Keep the chunk that was first where it was on screen.
				v.scroll.Offset.Y = offset + v.box.Objects[len(got)+1].Position().Y - oldFirstY
				v.scroll.Refresh()
			}
		})
	})
}

func (v *docView) close() {
	if v.dlg != nil {
		d := v.dlg
		v.dlg = nil
		d.Hide()
	}
}

func (v *docView) isOpen() bool { return v.dlg != nil }

// openFile opens the document in the app the system uses for its kind of file; a PDF opens
// at the hit's page where that app can be told one.
func (v *docView) openFile() {
	doc := v.page.Document
	page := 0
	if v.page.Hit >= 0 && v.page.Hit < len(v.page.Chunks) {
		page = v.page.Chunks[v.page.Hit].Page
	}
	if doc.Format != "pdf" || page < 1 {
		v.open1(fileOf(doc))
		return
	}
	// The viewer is asked for and started off the UI goroutine: xdg-mime may take a moment.
	v.t.start(func(ctx context.Context) {
		viewer, err := v.pdf.openAt(ctx, doc.Path, page)
		v.t.do(func() {
			switch {
			case err == nil:
				v.status.SetText(lang.L("Opened {{.Path}} at p. {{.Page}} in {{.Viewer}}.", tmpl{"Path": display.Line(doc.Path), "Page": page, "Viewer": viewer}))
			case errors.Is(err, errNoPageViewer):
				if v.open1(doc.Path) {
					v.status.SetText(lang.L("Opened {{.Path}}. Its viewer cannot be told a page: the passage is on p. {{.Page}}.", tmpl{"Path": display.Line(doc.Path), "Page": page}))
				}
			default:
				v.status.SetText(lang.L("open {{.Path}}: {{.Error}}", tmpl{"Path": display.Line(doc.Path), "Error": sentence(err)}))
			}
		})
	})
}

// openFolder opens the folder that holds the document in the system's file manager.
func (v *docView) openFolder() { v.open1(filepath.Dir(fileOf(v.page.Document))) }

// fileOf is the file on disk a document was read from: a chat conversation's path names it
// inside its export, which is the file there is to open.
func fileOf(doc engine.DocumentView) string {
	if doc.File != "" {
		return doc.File
	}
	return doc.Path
}

// open1 hands path to the system's default handler and says so; false when it failed.
func (v *docView) open1(path string) bool {
	u := &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // C:/x on Windows becomes file:///C:/x
	}
	if err := v.openURL(u); err != nil {
		v.status.SetText(lang.L("open {{.Path}}: {{.Error}}", tmpl{"Path": display.Line(path), "Error": sentence(err)}))
		return false
	}
	v.status.SetText(lang.L("Opened {{.Path}}.", tmpl{"Path": display.Line(path)}))
	return true
}

// copyPassage copies the hit's chunk, or the first shown when the view has no hit.
func (v *docView) copyPassage() {
	if len(v.page.Chunks) == 0 {
		return
	}
	c := v.page.Chunks[0]
	if v.page.Hit >= 0 {
		c = v.page.Chunks[v.page.Hit]
	}
	v.copy(c.Text, lang.L("Copied the passage."))
}

// copy puts text on the clipboard and says so with done.
func (v *docView) copy(text, done string) {
	v.clipboard.SetContent(text)
	v.status.SetText(done)
}
