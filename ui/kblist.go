package ui

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// kbListRow is one line of the knowledge list: a folder's header, or one of its documents.
type kbListRow struct {
	folder string
	docs   []engine.DocumentView // the folder's listed documents (header rows)
	doc    *engine.DocumentView  // nil for a header
}

// groupByFolder lists the documents that match filter under a header per folder, folders
// and documents in path order. filter matches the title, file name or path, ignoring case.
func groupByFolder(docs []engine.DocumentView, filter string) []kbListRow {
	filter = strings.ToLower(strings.TrimSpace(filter))
	var shown []engine.DocumentView
	for _, d := range docs {
		if filter == "" || strings.Contains(strings.ToLower(d.Path), filter) ||
			strings.Contains(strings.ToLower(d.Title), filter) {
			shown = append(shown, d)
		}
	}
	// By folder first: sorting by path alone puts a/c/x.md between a/b.md and a/d.md.
	slices.SortStableFunc(shown, func(a, b engine.DocumentView) int {
		return cmp.Or(cmp.Compare(filepath.Dir(a.Path), filepath.Dir(b.Path)), cmp.Compare(a.Path, b.Path))
	})
	var rows []kbListRow
	header := -1
	for i := range shown {
		d := &shown[i]
		if dir := filepath.Dir(d.Path); header < 0 || rows[header].folder != dir {
			rows = append(rows, kbListRow{folder: dir})
			header = len(rows) - 1
		}
		rows[header].docs = append(rows[header].docs, *d)
		rows = append(rows, kbListRow{folder: rows[header].folder, doc: d})
	}
	return rows
}

// newFilterEntry is the knowledge list's search box.
func (k *knowledgeScreen) newFilterEntry() *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder(lang.L("Filter documents by name or path"))
	e.ActionItem = widget.NewIcon(theme.SearchIcon())
	e.OnChanged = func(string) { k.regroup() }
	return e
}

// regroup rebuilds the list's rows from the documents and the filter.
func (k *knowledgeScreen) regroup() {
	filter := ""
	if k.filter != nil {
		filter = k.filter.Text
	}
	k.rows = groupByFolder(k.docs, filter)
	switch {
	case len(k.docs) == 0:
		k.empty.SetText(noDocumentsText())
		k.empty.Show()
	case len(k.rows) == 0:
		k.empty.SetText(lang.L("No document's name or path contains “{{.Filter}}”.", tmpl{"Filter": display.Line(strings.TrimSpace(filter))}))
		k.empty.Show()
	default:
		k.empty.Hide()
	}
	k.list.Refresh()
}

func noDocumentsText() string {
	return lang.L("No documents yet. Import notes, Markdown, HTML, PDF or any other text files,\nor drop files and folders on this window.")
}

// kbRowView shows either a folder header or a document row; list rows are recycled, so one
// template holds both.
type kbRowView struct {
	widget.BaseWidget
	header       *fyne.Container
	folder       *widget.Label
	removeFolder *widget.Button
	doc          *docRow
	content      fyne.CanvasObject
}

func newKBRowView() fyne.CanvasObject {
	r := &kbRowView{folder: widget.NewLabel(""), doc: newDocRow().(*docRow)}
	r.folder.TextStyle.Bold = true
	r.folder.Truncation = fyne.TextTruncateEllipsis
	r.removeFolder = widget.NewButtonWithIcon(lang.L("Remove folder"), theme.DeleteIcon(), nil)
	r.removeFolder.Importance = widget.LowImportance
	r.header = container.NewBorder(nil, nil, widget.NewIcon(theme.FolderIcon()), r.removeFolder, r.folder)
	r.content = container.NewStack(r.header, r.doc)
	r.ExtendBaseWidget(r)
	return r
}

func (r *kbRowView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }

func (k *knowledgeScreen) updateListRow(id widget.ListItemID, obj fyne.CanvasObject) {
	if id >= len(k.rows) {
		return
	}
	row, view := k.rows[id], obj.(*kbRowView)
	if row.doc == nil {
		view.doc.Hide()
		view.header.Show()
		view.folder.SetText(lang.L("{{.Folder}} — {{.Documents}}", tmpl{"Folder": display.Line(row.folder), "Documents": plural(len(row.docs), "document", "documents")}))
		view.removeFolder.OnTapped = func() { k.confirmRemoveFolder(row.folder, row.docs) }
		return
	}
	view.header.Hide()
	view.doc.Show()
	for i := range k.docs {
		if k.docs[i].ID == row.doc.ID {
			k.updateRow(i, view.doc)
			return
		}
	}
}

func (k *knowledgeScreen) confirmRemoveFolder(folder string, docs []engine.DocumentView) {
	chunks := 0
	for _, d := range docs {
		chunks += d.Chunks
	}
	msg := widget.NewLabel(lang.L("The {{.Documents}} listed under {{.Folder}} ({{.Chunks}}) leave memdesk.\nThe files on disk stay; you can import them again.", tmpl{
		"Documents": plural(len(docs), "document", "documents"), "Folder": display.Line(folder), "Chunks": plural(chunks, "chunk", "chunks")}))
	msg.Wrapping = fyne.TextWrapWord
	k.dialogs.showConfirm(lang.L("Remove {{.Documents}}?", tmpl{"Documents": plural(len(docs), "document", "documents")}), lang.L("Remove"), lang.L("Cancel"), msg, fyne.NewSize(520, 200), func(ok bool) {
		if ok {
			k.removeFolder(folder, docs)
		}
	})
}

func (k *knowledgeScreen) removeFolder(folder string, docs []engine.DocumentView) {
	k.banner.show(widget.LowImportance, lang.L("Removing {{.Documents}}…", tmpl{"Documents": plural(len(docs), "document", "documents")}), "", nil)
	k.t.start(func(ctx context.Context) {
		removed, err := 0, error(nil)
		for _, d := range docs {
			if e := k.b.KBRemove(ctx, d.ID); e != nil {
				// One already gone (removed elsewhere) is not a reason to stop.
				err = errors.Join(err, e)
				if ctx.Err() != nil {
					break
				}
				continue
			}
			removed++
		}
		k.t.do(func() {
			if err != nil {
				k.banner.show(widget.WarningImportance, lang.L("Removed {{.Removed}} of {{.Total}} documents from {{.Folder}}. {{.Error}}",
					tmpl{"Removed": removed, "Total": len(docs), "Folder": display.Line(folder), "Error": sentence(err)}), "", nil)
			} else {
				k.banner.show(widget.SuccessImportance, lang.L("Removed {{.Documents}} from {{.Folder}}.",
					tmpl{"Documents": plural(removed, "document", "documents"), "Folder": display.Line(folder)}), "", nil)
			}
			k.reload()
			k.changed()
		})
	})
}
