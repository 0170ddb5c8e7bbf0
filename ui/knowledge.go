package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// knowledgeScreen imports files and folders, shows the import's progress with a cancel
// button, and lists the imported documents with their chunks.
type knowledgeScreen struct {
	t       *tasks
	b       Backend
	win     fyne.Window
	dialogs *dialogs
	changed func()
	// onDocs hears of every new list of the documents (nil: nobody).
	onDocs func([]engine.DocumentView)

	space        *widget.Entry
	importFiles  *widget.Button
	importFolder *widget.Button
	progress     *widget.ProgressBar
	progressText *widget.Label
	cancelButton *widget.Button
	progressRow  *fyne.Container
	banner       *banner
	list         *widget.List
	filter       *widget.Entry
	empty        *widget.Label
	content      fyne.CanvasObject

	docs         []engine.DocumentView
	rows         []kbListRow        // docs as listed: filtered, under folder headers (kblist.go)
	reads        reread             // the document list's reads (reload)
	lists        int                // document lists shown, for tests
	cancelImport context.CancelFunc // non-nil while an import runs
	sync         *syncSwitch        // nil when the backend cannot watch folders
	// resumed says the first list was read and a folder recorded as kept in sync, if any,
	// is being kept in sync again.
	resumed bool
	// openDoc shows a document's chunks; the app sets it to its document view.
	openDoc func(engine.DocumentView)
}

func newKnowledgeScreen(t *tasks, b Backend, win fyne.Window, dialogs *dialogs, changed func()) *knowledgeScreen {
	k := &knowledgeScreen{t: t, b: b, win: win, dialogs: dialogs, changed: changed}
	k.space = widget.NewEntry()
	k.space.SetPlaceHolder("default")
	k.importFiles = widget.NewButtonWithIcon(lang.L("Import file…"), theme.FileIcon(), k.chooseFile)
	k.importFolder = widget.NewButtonWithIcon(lang.L("Import folder…"), theme.FolderOpenIcon(), k.chooseFolder)
	k.importFolder.Importance = widget.HighImportance
	k.progress = widget.NewProgressBar()
	k.progressText = caption("")
	k.cancelButton = widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), k.cancel)
	k.progressRow = container.NewVBox(container.NewBorder(nil, nil, nil, k.cancelButton, k.progress), k.progressText)
	k.progressRow.Hide()
	k.banner = newBanner()

	k.list = widget.NewList(func() int { return len(k.rows) }, newKBRowView, k.updateListRow)
	k.filter = k.newFilterEntry()
	k.empty = widget.NewLabel(noDocumentsText())
	k.empty.Alignment = fyne.TextAlignCenter
	k.empty.Importance = widget.LowImportance
	k.empty.Hide()

	spaceBox := container.NewGridWrap(fyne.NewSize(150, k.space.MinSize().Height), k.space)
	top := container.NewVBox(
		container.NewHBox(k.importFolder, k.importFiles, widget.NewLabel(lang.L("into space")), spaceBox,
			hint(lang.L("or drop files and folders on the window"))),
		k.progressRow, k.banner.content, k.filter)
	k.addSyncSwitch(top)
	k.content = container.NewBorder(top, nil, nil, nil, container.NewStack(k.list, container.NewCenter(k.empty)))
	return k
}

// addSyncSwitch puts the "Keep a folder in sync" switch in box, when the backend can watch.
func (k *knowledgeScreen) addSyncSwitch(box *fyne.Container) {
	k.sync = newSyncSwitch(k.t, k.b, k.dialogs, func() string { return strings.TrimSpace(k.space.Text) },
		k.reload, func(err error) { k.banner.show(widget.DangerImportance, sentence(err), "", nil) })
	if k.sync != nil {
		box.Add(k.sync.content)
	}
}

func (k *knowledgeScreen) chooseFile() {
	k.dialogs.showFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			k.banner.show(widget.DangerImportance, sentence(err), "", nil)
			return
		}
		if r == nil {
			return // dismissed
		}
		path := r.URI().Path()
		r.Close()
		k.importPaths([]string{path})
	})
}

func (k *knowledgeScreen) chooseFolder() {
	k.dialogs.showFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil {
			k.banner.show(widget.DangerImportance, sentence(err), "", nil)
			return
		}
		if dir != nil {
			k.importPaths([]string{dir.Path()})
		}
	})
}

// importPaths imports files and folders with a progress bar; one import runs at a time.
func (k *knowledgeScreen) importPaths(paths []string) {
	if len(paths) == 0 {
		return
	}
	if k.cancelImport != nil {
		k.banner.show(widget.WarningImportance, lang.L("An import is already running; wait for it or cancel it first."), "", nil)
		return
	}
	k.banner.hide()
	k.progress.SetValue(0)
	k.progressText.SetText(lang.L("Looking for documents in {{.Paths}}…", tmpl{"Paths": describePaths(paths)}))
	k.cancelButton.Enable()
	k.progressRow.Show()
	k.importFiles.Disable()
	k.importFolder.Disable()
	req := engine.KBAddRequest{Paths: paths, Space: strings.TrimSpace(k.space.Text), Progress: k.importProgress()}
	k.cancelImport = k.t.start(func(ctx context.Context) {
		res, err := k.b.KBAdd(ctx, req)
		k.t.do(func() { k.imported(res, err) })
	})
}

func (k *knowledgeScreen) showProgress(p engine.ImportProgress) {
	if p.FilesTotal > 0 {
		k.progress.SetValue(float64(p.FilesDone) / float64(p.FilesTotal))
	}
	k.progressText.SetText(lang.L("{{.Done}} of {{.Total}} files · {{.File}}", tmpl{"Done": p.FilesDone, "Total": p.FilesTotal, "File": filepath.Base(p.Path)}))
}

func (k *knowledgeScreen) cancel() {
	if k.cancelImport != nil {
		k.cancelImport()
		k.cancelButton.Disable()
		k.progressText.SetText(lang.L("Cancelling… files already imported are kept."))
	}
}

func (k *knowledgeScreen) imported(res engine.KBAddResult, err error) {
	k.cancelImport = nil
	k.progressRow.Hide()
	k.importFiles.Enable()
	k.importFolder.Enable()
	// Every file left out is listed with its reason; the conflicts, when there are some,
	// are one tap further from that list.
	var actionLabel string
	var action func()
	switch {
	case res.Skipped+res.Failed > 0:
		actionLabel, action = lang.L("Show skipped"), func() { k.showNotImported(res) }
	case len(res.Conflicts) > 0:
		actionLabel, action = lang.L("Show"), func() { k.showConflicts(res.Conflicts) }
	}
	switch {
	case errors.Is(err, context.Canceled):
		k.banner.show(widget.WarningImportance, sentence(err)+" "+importSummary(res), actionLabel, action)
	case err != nil:
		k.banner.show(widget.DangerImportance, sentence(err), "", nil)
	case res.Failed > 0:
		k.banner.show(widget.WarningImportance, importSummary(res)+" "+firstFailure(res), actionLabel, action)
	case len(res.Conflicts) > 0:
		k.banner.show(widget.WarningImportance, importSummary(res)+" "+conflictSummary(res.Conflicts), actionLabel, action)
	default:
		k.banner.show(widget.SuccessImportance, importSummary(res), actionLabel, action)
	}
	k.reload()
	k.changed()
}

// importSummary reads "Imported 3 files: 2 added, 1 unchanged; 4 skipped."
func importSummary(res engine.KBAddResult) string {
	var parts []string
	for _, c := range []struct {
		n    int
		word string
	}{{res.Added, lang.L("added")}, {res.Updated, lang.L("updated")}, {res.Unchanged, lang.L("unchanged")}, {res.Skipped, lang.L("skipped")}, {res.Failed, lang.L("failed")}} {
		if c.n > 0 {
			parts = append(parts, lang.L("{{.Count}} {{.Outcome}}", tmpl{"Count": c.n, "Outcome": c.word}))
		}
	}
	if len(parts) == 0 {
		return lang.L("No documents found.")
	}
	return lang.L("Files: {{.Parts}}.", tmpl{"Parts": strings.Join(parts, lang.L(", "))})
}

// conflictSummary reads "2 sentences contradict your memories, 1 repeats one."
func conflictSummary(cs []engine.KBConflict) string {
	contradicts := 0
	for _, c := range cs {
		if c.Kind == engine.ConflictContradicts {
			contradicts++
		}
	}
	var parts []string
	if contradicts > 0 {
		parts = append(parts, plural(contradicts, "sentence contradicts your memories", "sentences contradict your memories"))
	}
	if restates := len(cs) - contradicts; restates > 0 {
		parts = append(parts, plural(restates, "sentence repeats a memory", "sentences repeat memories"))
	}
	return strings.Join(parts, lang.L(", ")) + lang.L(".")
}

// showConflicts lists an import's conflicts: where in the file, the sentence, the memory.
func (k *knowledgeScreen) showConflicts(cs []engine.KBConflict) {
	box := container.NewVBox()
	for _, c := range cs {
		what := lang.L("repeats memory #{{.ID}} “{{.Text}}”", tmpl{"ID": c.FactID, "Text": c.FactText})
		if c.Kind == engine.ConflictContradicts {
			what = lang.L("contradicts memory #{{.ID}} “{{.Text}}”: {{.Reason}}", tmpl{"ID": c.FactID, "Text": c.FactText, "Reason": c.Reason})
		}
		where := lang.L("{{.File}}:{{.Line}}", tmpl{"File": filepath.Base(c.Path), "Line": c.LineStart})
		if c.Page > 0 {
			where = lang.L("{{.File}}, p. {{.Page}}:{{.Line}}", tmpl{"File": filepath.Base(c.Path), "Page": c.Page, "Line": c.LineStart})
		}
		l := widget.NewLabel(fmt.Sprintf("%s  “%s”\n%s", where, c.Sentence, what))
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	k.dialogs.showCustom(lang.L("What the import disagrees with"), lang.L("Close"), container.NewVScroll(box), fyne.NewSize(620, 400))
}

// notImported lists the files an import left out, one line each, skipped and failed alike:
// "skipped: /notes/photo.png — image (png): not imported".
func notImported(res engine.KBAddResult) []string {
	var lines []string
	for _, f := range res.Files {
		if f.Outcome == engine.ImportSkipped || f.Outcome == engine.ImportFailed {
			lines = append(lines, fmt.Sprintf("%s: %s — %s", f.Outcome, display.Line(f.Path), display.Line(f.Reason)))
		}
	}
	return lines
}

// showNotImported lists every file an import left out and why, with a way on to the
// import's conflicts when it has some. A list widget, since a folder of photos can leave
// thousands of files out.
func (k *knowledgeScreen) showNotImported(res engine.KBAddResult) {
	lines := notImported(res)
	list := widget.NewList(func() int { return len(lines) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(lines[i]) })
	header := widget.NewLabel(lang.L("{{.Count}} files were not imported:", tmpl{"Count": len(lines)}))
	var bottom fyne.CanvasObject
	if len(res.Conflicts) > 0 {
		bottom = widget.NewButton(lang.L("{{.Summary}} Show them", tmpl{"Summary": conflictSummary(res.Conflicts)}), func() { k.showConflicts(res.Conflicts) })
	}
	k.dialogs.showCustom(lang.L("Files not imported"), lang.L("Close"), container.NewBorder(header, bottom, nil, nil, list), fyne.NewSize(760, 420))
}

func firstFailure(res engine.KBAddResult) string {
	for _, f := range res.Files {
		if f.Outcome == engine.ImportFailed {
			return fmt.Sprintf("%s: %s.", filepath.Base(f.Path), strings.TrimSuffix(f.Reason, "."))
		}
	}
	return ""
}

func describePaths(paths []string) string {
	if len(paths) == 1 {
		return filepath.Base(paths[0])
	}
	return lang.L("{{.Count}} places", tmpl{"Count": len(paths)})
}

// reload reads the document list of every space, one read at a time: a reload asked for
// while one runs is read after it lands (see reread).
func (k *knowledgeScreen) reload() {
	k.reads.ask(func(landed func()) {
		k.t.start(func(ctx context.Context) {
			res, err := k.b.KBList(ctx, "")
			k.t.do(func() {
				defer landed()
				if err != nil {
					k.banner.show(widget.DangerImportance, sentence(err), "", nil)
					return
				}
				k.docs = res.Documents
				k.lists++
				if k.onDocs != nil {
					k.onDocs(res.Documents)
				}
				k.regroup()
				k.resumeWatch(res.Watched)
			})
		})
	})
}

// resumeWatch keeps the folder that was kept in sync when the window last closed in sync
// again, once, on the first list: the switch was on, so it should still be. The switch
// follows one folder; more recorded ones are named, not dropped (the CLI's `kb watch`
// follows them all). Call it from the UI goroutine.
func (k *knowledgeScreen) resumeWatch(watched []engine.WatchedFolder) {
	if k.resumed || k.sync == nil {
		return
	}
	k.resumed = true
	if len(watched) == 0 || k.sync.stop != nil {
		return
	}
	k.sync.watchIn(watched[0].Root, watched[0].Space)
	if len(watched) > 1 {
		k.banner.show(widget.MediumImportance, lang.L("Keeping {{.Folder}} in sync again. {{.Others}} also recorded as kept in sync; the window follows one folder at a time, `memdesk kb watch` follows them all.",
			tmpl{"Folder": display.Line(watched[0].Root), "Others": plural(len(watched)-1, "other folder is", "other folders are")}), "", nil)
	}
}

func (k *knowledgeScreen) updateRow(id widget.ListItemID, obj fyne.CanvasObject) {
	if id >= len(k.docs) {
		return
	}
	d := k.docs[id]
	row := obj.(*docRow)
	row.title.SetText(docTitle(d))
	row.meta.SetText(lang.L("{{.Path}} · {{.Chunks}} · {{.Format}} · space {{.Space}} · {{.When}}", tmpl{"Path": d.Path,
		"Chunks": plural(d.Chunks, "chunk", "chunks"), "Format": d.Format, "Space": d.Space,
		"When": d.ImportedAt.Local().Format(lang.L("2 Jan 2006 15:04"))}))
	row.chunks.OnTapped = func() { k.showChunks(d) }
	row.reimport.OnTapped = func() { k.reimport(d) }
	row.remove.OnTapped = func() { k.confirmRemove(d) }
}

func docTitle(d engine.DocumentView) string {
	if d.Title != "" {
		return d.Title
	}
	return filepath.Base(d.Path)
}

// showChunks opens the document's chunks from its start (see docView).
func (k *knowledgeScreen) showChunks(d engine.DocumentView) {
	if k.openDoc != nil {
		k.openDoc(d)
	}
}

func (k *knowledgeScreen) reimport(d engine.DocumentView) {
	k.banner.show(widget.LowImportance, lang.L("Re-importing {{.Title}}…", tmpl{"Title": docTitle(d)}), "", nil)
	k.t.start(func(ctx context.Context) {
		f, err := k.b.KBReimport(ctx, d.ID)
		k.t.do(func() {
			if err != nil {
				k.banner.show(widget.DangerImportance, sentence(err), "", nil)
			} else {
				k.banner.show(widget.SuccessImportance, lang.L("Re-imported {{.Title}}: {{.Outcome}}.", tmpl{"Title": docTitle(d), "Outcome": f.Outcome}), "", nil)
			}
			k.reload()
			k.changed()
		})
	})
}

func (k *knowledgeScreen) confirmRemove(d engine.DocumentView) {
	msg := widget.NewLabel(lang.L("{{.Title}} and its {{.Chunks}} leave memdesk.\nThe file on disk stays; you can import it again.",
		tmpl{"Title": docTitle(d), "Chunks": plural(d.Chunks, "chunk", "chunks")}))
	k.dialogs.showConfirm(lang.L("Remove document?"), lang.L("Remove"), lang.L("Cancel"), msg, fyne.Size{}, func(ok bool) {
		if ok {
			k.remove(d)
		}
	})
}

func (k *knowledgeScreen) remove(d engine.DocumentView) {
	k.t.start(func(ctx context.Context) {
		err := k.b.KBRemove(ctx, d.ID)
		k.t.do(func() {
			if err != nil {
				k.banner.show(widget.DangerImportance, sentence(err), "", nil)
			} else {
				k.banner.show(widget.SuccessImportance, lang.L("Removed {{.Title}}.", tmpl{"Title": docTitle(d)}), "", nil)
			}
			k.reload()
			k.changed()
		})
	})
}

// docRow is one imported document: title, a caption, and its actions.
type docRow struct {
	widget.BaseWidget
	title, meta              *widget.Label
	chunks, reimport, remove *widget.Button
	content                  fyne.CanvasObject
}

func newDocRow() fyne.CanvasObject {
	r := &docRow{title: widget.NewLabel(""), meta: caption("")}
	r.title.TextStyle.Bold = true
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.chunks = widget.NewButtonWithIcon(lang.L("Chunks"), theme.VisibilityIcon(), nil)
	r.reimport = widget.NewButtonWithIcon(lang.L("Re-import"), theme.ViewRefreshIcon(), nil)
	r.remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), nil)
	for _, b := range []*widget.Button{r.chunks, r.reimport, r.remove} {
		b.Importance = widget.LowImportance
	}
	r.content = container.NewBorder(nil, nil, nil, container.NewHBox(r.chunks, r.reimport, r.remove),
		container.NewVBox(r.title, r.meta))
	r.ExtendBaseWidget(r)
	return r
}

func (r *docRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }
