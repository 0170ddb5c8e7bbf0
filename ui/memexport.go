package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// memoryPorter exports the memories to a file of the person's and takes such a file back;
// *engine.Engine satisfies it. A backend without it offers no File › Export/Import.
type memoryPorter interface {
	ExportMemories(ctx context.Context, space string) (engine.MemoryExport, error)
	ImportMemories(ctx context.Context, ex engine.MemoryExport, progress func(done, total int)) (engine.ImportMemoriesResult, error)
}

// exportMemoriesItems are the File menu's export and import entries, or none.
func (u *App) exportMemoriesItems() []*fyne.MenuItem {
	if _, ok := u.b.(memoryPorter); !ok {
		return nil
	}
	return []*fyne.MenuItem{
		fyne.NewMenuItem(lang.L("Export memories…"), u.chooseExport),
		fyne.NewMenuItem(lang.L("Import memories…"), u.chooseImport),
	}
}

func (u *App) chooseExport() {
	u.dialogs.showFileSave("memdesk-memories.md", func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			u.memories.banner.show(widget.DangerImportance, sentence(err), "", nil)
			return
		}
		if w == nil {
			return // dismissed
		}
		path := w.URI().Path()
		w.Close() // written anew, whole, by exportMemoriesTo
		u.exportMemoriesTo(path)
	})
}

func (u *App) chooseImport() {
	u.dialogs.showFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			u.memories.banner.show(widget.DangerImportance, sentence(err), "", nil)
			return
		}
		if r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		u.importMemoriesFrom(path)
	})
}

// exportMemoriesTo writes every active memory to path: JSON when its name ends in .json,
// else Markdown. The report goes to the Memories screen's banner.
func (u *App) exportMemoriesTo(path string) {
	porter := u.b.(memoryPorter)
	u.showScreen(screenMemories)
	u.tasks.start(func(ctx context.Context) {
		ex, err := porter.ExportMemories(ctx, "")
		if err == nil {
			err = engine.WriteMemoriesFile(path, ex)
		}
		u.tasks.do(func() {
			if err != nil {
				u.memories.banner.show(widget.DangerImportance, sentence(fmt.Errorf("export memories to %s: %w", path, err)), "", nil)
				return
			}
			u.memories.banner.show(widget.SuccessImportance,
				lang.L("Exported {{.Memories}} to {{.Path}}. Import it here or in another memdesk with File › Import memories.", tmpl{"Memories": plural(len(ex.Memories), "memory", "memories"), "Path": path}), "", nil)
		})
	})
}

// importMemoriesFrom adds the memories of an export; those already here are kept once.
func (u *App) importMemoriesFrom(path string) {
	porter := u.b.(memoryPorter)
	u.showScreen(screenMemories)
	u.tasks.start(func(ctx context.Context) {
		var res engine.ImportMemoriesResult
		f, err := os.Open(path)
		if err == nil {
			var ex engine.MemoryExport
			ex, err = engine.ReadMemories(f)
			f.Close()
			if err == nil {
				res, err = porter.ImportMemories(ctx, ex, nil)
			}
		}
		u.tasks.do(func() {
			if err != nil {
				u.memories.banner.show(widget.DangerImportance, sentence(fmt.Errorf("import memories from %s: %w", path, err)), "", nil)
				return
			}
			msg := lang.L("Imported {{.Memories}} from {{.File}}; {{.Duplicate}} already here.", tmpl{"Memories": plural(res.Added, "memory", "memories"), "File": filepath.Base(path), "Duplicate": res.Duplicate})
			importance := widget.SuccessImportance
			if len(res.Refused) > 0 {
				importance = widget.WarningImportance
				msg += lang.L(" {{.Count}} refused: {{.First}}", tmpl{"Count": len(res.Refused), "First": res.Refused[0]})
			}
			u.memories.banner.show(importance, msg, "", nil)
			u.memories.afterChange()
		})
	})
}
