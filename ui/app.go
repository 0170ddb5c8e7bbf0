// Package ui is memdesk's desktop app: Fyne screens for recall, memories, knowledge and
// settings over the engine. It only renders: every question goes to a Backend (the engine)
// as the same request structs the CLI sends, on a goroutine owned by the window, and answers
// come back to widgets through the UI goroutine. Nothing here holds SQL or ranking logic.
package ui

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"

	"github.com/memdesk/memdesk/assets"
	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// Backend is what the screens ask of the engine; *engine.Engine satisfies it.
type Backend interface {
	Recall(ctx context.Context, req engine.RecallRequest) (engine.RecallResult, error)
	Remember(ctx context.Context, req engine.RememberRequest) (engine.RememberResult, error)
	List(ctx context.Context, req engine.ListRequest) (engine.ListResult, error)
	KBAdd(ctx context.Context, req engine.KBAddRequest) (engine.KBAddResult, error)
	KBList(ctx context.Context, space string) (engine.KBListResult, error)
	KBChunkPage(ctx context.Context, req engine.KBChunkPageRequest) (engine.KBChunkPage, error)
	KBLinks(ctx context.Context, docID int64) ([]engine.LinkView, error)
	KBRemove(ctx context.Context, docID int64) error
	KBReimport(ctx context.Context, docID int64) (engine.ImportedFile, error)
	Stats(ctx context.Context) (engine.Stats, error)
	Admin(ctx context.Context, req engine.AdminRequest) (engine.AdminResult, error)
	AdminActions() [][2]string
	Contradictions(ctx context.Context, req engine.ContradictionsRequest) (engine.ContradictionsResult, error)
	DismissContradiction(ctx context.Context, a, b int64) error
}

// SemanticSource reports the semantic leg's state as a short phrase for a status line
// ("offline", "pulling 42%", "ready"). It must not block.
type SemanticSource interface {
	SemanticState() string
}

// BackgroundSource reports the engine's background work (engine.Engine.BackgroundWork) for
// the status line. It must not block.
type BackgroundSource interface {
	BackgroundWork() engine.Work
}

// SemanticFunc adapts a function to SemanticSource, e.g.
// ui.SemanticFunc(func() string { return boot.State().String() }).
type SemanticFunc func() string

// SemanticState calls f.
func (f SemanticFunc) SemanticState() string { return f() }

// Options configure the app. Backend is required; the rest have working zero values.
type Options struct {
	Backend Backend
	// Semantic is polled every SemanticPoll for the status bar; nil shows "semantic: off".
	Semantic     SemanticSource
	SemanticPoll time.Duration
	// Background, polled with Semantic, shows what the engine's Run is doing; nil shows
	// nothing.
	Background BackgroundSource
	Logger     *slog.Logger
	// Eval runs the built-in gold set for the eval panel in Settings; nil runs it through a
	// real engine over a scratch database in a temporary directory, never the user's.
	Eval EvalFunc
	// EvalEntities makes the default Eval load the entity extractor into its scratch engine
	// (about 3 s and 500 MB) and so measure the entity leg too; false measures the lexical
	// leg only. Ignored when Eval is set.
	EvalEntities bool
	// ConfigPath is the configuration file whose Ollama host and model Settings edits;
	// empty disables editing (the entries show the defaults as placeholders).
	ConfigPath string
	// TestOllama backs Settings' "Test connection" button; nil hides the button.
	TestOllama OllamaTestFunc
	// Hotkeys grabs the global shortcut that brings up the quick window; nil where the
	// desktop allows no grab (Wayland, no X11), and NoHotkeyWhy says why: Settings then
	// tells the person to bind a shortcut to `memdesk quick` instead.
	Hotkeys     Hotkeys
	NoHotkeyWhy string
	// TrayLikely means a system tray will hold memdesk's icon: the tray is set up only
	// then, and it is the default of "Closing the window keeps memdesk in the tray".
	TrayLikely bool
	// StartQuick opens the app with its quick window up (`memdesk quick` with no app
	// running); the main window stays hidden when the app is kept in the tray.
	StartQuick bool
	// ChangePoll is how often the window asks the backend whether another program wrote
	// (the live view); 0 means the engine's default.
	ChangePoll time.Duration
}

// Screens in tab order; the index is what preferences store and Ctrl+1..4 select.
const (
	screenRecall = iota
	screenMemories
	screenKnowledge
	screenSettings
)

// Preference keys.
const (
	prefWidth  = "window.width"
	prefHeight = "window.height"
	prefScreen = "window.screen"
)

// debounceDelay is how long typing must pause before a search or filter runs.
const debounceDelay = 250 * time.Millisecond

// App is memdesk's main window and its screens.
type App struct {
	fa    fyne.App
	win   fyne.Window
	tasks *tasks
	b     Backend
	log   *slog.Logger

	status    *statusBar
	reach     *reach
	quick     *quickWindow
	recall    *recallScreen
	memories  *memoriesScreen
	knowledge *knowledgeScreen
	settings  *settingsScreen
	docs      *docView
	tabs      *container.AppTabs

	dialogs    *dialogs
	appearance *appearance

	live       *live
	changePoll time.Duration
}

// New builds the window and its screens. It starts no work: Start does.
func New(a fyne.App, opts Options) *App { return newApp(a, opts, fyne.Do) }

// Run shows the app and blocks until it quits (its window is closed, unless it is kept in
// the tray; Quit in the tray) or ctx is cancelled, then waits for the window's background
// work to stop. The caller closes the backend afterwards.
func Run(ctx context.Context, a fyne.App, opts Options) error {
	return New(a, opts).Run(ctx, opts.StartQuick)
}

// Run shows an App built with New and blocks like the package's Run; building first lets
// the caller hand ShowQuick and ShowMain to a listener. quick opens the quick window too.
func (u *App) Run(ctx context.Context, quick bool) error {
	stop := context.AfterFunc(ctx, func() { fyne.Do(u.fa.Quit) })
	defer stop()
	u.Start()
	if !quick || !u.reach.keepInTray() {
		u.win.Show()
	}
	if quick {
		u.showQuick(time.Now())
	}
	u.fa.Run()
	u.Close()
	return nil
}

// newApp takes the function that runs widget updates on the UI goroutine: fyne.Do in the
// app, a queue the test goroutine drains in tests.
func newApp(a fyne.App, opts Options, post func(func())) *App {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.SemanticPoll <= 0 {
		opts.SemanticPoll = time.Second
	}
	u := &App{fa: a, b: opts.Backend, log: log, tasks: newTasks(post), changePoll: opts.ChangePoll}
	// The theme and the words are set before any widget is made, so none starts in the
	// wrong colours or language.
	applySavedTheme(a)
	registerTranslations(log)
	icon := fyne.NewStaticResource("memdesk.png", assets.IconPNG())
	a.SetIcon(icon)
	u.win = a.NewWindow("memdesk")
	u.win.SetIcon(icon)

	b := opts.Backend
	u.dialogs = newDialogs(u.win)
	u.status = newStatusBar(u.tasks, opts.Semantic, opts.Background, opts.SemanticPoll)
	u.reach = newReach(u, opts.Hotkeys, opts.NoHotkeyWhy, opts.TrayLikely)
	evalRun, evalLegs := opts.Eval, []string(nil)
	if evalRun == nil {
		evalRun, evalLegs = scratchEval(opts.EvalEntities, log), []string{"lexical"}
		if opts.EvalEntities {
			evalLegs = append(evalLegs, "entity")
		}
	}
	u.appearance = newAppearance(a)
	u.settings = newSettingsScreen(u.tasks, b, u.win, u.appearance.content, u.reach.content,
		newOllamaPanel(u.tasks, opts.ConfigPath, opts.TestOllama), newEvalPanel(u.tasks, evalRun, evalLegs))
	u.status.onSemantic = u.settings.showSemantic
	u.status.onStats = u.settings.showStats
	u.status.onSync = u.settings.showSync
	if u.settings.sync != nil {
		u.settings.sync.onSynced = u.refreshLive
	}
	u.recall = newRecallScreen(u.tasks, b, log)
	u.memories = newMemoriesScreen(u.tasks, b, u.win, u.dialogs, u.log, u.dataChanged)
	u.knowledge = newKnowledgeScreen(u.tasks, b, u.win, u.dialogs, u.dataChanged)
	u.docs = newDocView(u.tasks, b, u.win, u.dialogs, a)
	u.knowledge.openDoc = func(d engine.DocumentView) { u.docs.open(d.ID, 0, nil) }
	if u.memories.timeline != nil {
		u.memories.timeline.openDoc = u.knowledge.openDoc
	}
	u.knowledge.onDocs = u.recall.setFolders
	u.settings.onRepaired = u.refreshStats
	u.recall.open = u.openHit
	u.quick = newQuickWindow(u.tasks, a, b, log, u.memories.afterChange)
	u.quick.open = u.openFromQuick
	u.quick.shownAt = func(requested time.Time) {
		u.log.Debug("quick window shown", "after", time.Since(requested))
	}
	// A theme change reaches listeners on whichever goroutine made it (the settings file's
	// watcher, for one), so the rows are drawn again on the UI goroutine.
	a.Settings().AddListener(func(fyne.Settings) {
		u.tasks.do(func() {
			u.recall.themeChanged()
			u.quick.themeChanged()
		})
	})
	u.live = &live{t: u.tasks, log: log, refresh: u.refreshLive,
		busy: func() bool { return u.knowledge.cancelImport != nil }}

	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(lang.L("Recall"), theme.SearchIcon(), u.recall.content),
		container.NewTabItemWithIcon(lang.L("Memories"), theme.ListIcon(), u.memories.content),
		container.NewTabItemWithIcon(lang.L("Knowledge"), theme.DocumentIcon(), u.knowledge.content),
		container.NewTabItemWithIcon(lang.L("Settings"), theme.SettingsIcon(), u.settings.content),
	)
	prefs := a.Preferences()
	u.tabs.SelectIndex(prefs.IntWithFallback(prefScreen, screenRecall))
	u.tabs.OnSelected = func(*container.TabItem) {
		prefs.SetInt(prefScreen, u.tabs.SelectedIndex())
		u.focusScreen()
	}

	u.win.SetContent(container.NewBorder(nil, u.status.content, nil, nil, u.tabs))
	u.win.SetMainMenu(u.mainMenu())
	u.win.Resize(fyne.NewSize(
		float32(prefs.FloatWithFallback(prefWidth, 980)),
		float32(prefs.FloatWithFallback(prefHeight, 700))))
	u.win.SetOnDropped(u.dropped)
	// With nothing focused, Esc closes the top dialog; without a dialog, the arrows and Enter
	// still walk the recall results.
	u.win.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if u.dialogs.typedKey(ev) || u.dialogs.anyOpen() {
			return
		}
		if u.tabs.SelectedIndex() == screenRecall {
			u.recall.typedKey(ev)
		}
	})
	// Ctrl+F is View › Find's shortcut (mainMenu): a menu's shortcut reaches the window
	// first, even while a text box has the keyboard, which a canvas shortcut does not.
	// Ctrl+Enter confirms the top dialog when no entry in it has the keyboard.
	for _, s := range submitShortcuts() {
		u.win.Canvas().AddShortcut(s, func(s fyne.Shortcut) { u.dialogs.typedShortcut(s) })
	}
	u.recall.copyHit = func(h engine.Hit) {
		a.Clipboard().SetContent(h.Text)
		u.recall.note.SetText(lang.L("Copied {{.What}} to the clipboard.", tmpl{"What": hitName(h)}))
	}
	u.win.SetCloseIntercept(u.closeMain)
	u.win.SetOnClosed(func() {
		u.saveWindowSize()
		// Cancel at once so SQLite stops; Run waits for the goroutines after the loop ends.
		u.tasks.cancel()
	})
	return u
}

func (u *App) saveWindowSize() {
	size := u.win.Canvas().Size()
	prefs := u.fa.Preferences()
	prefs.SetFloat(prefWidth, float64(size.Width))
	prefs.SetFloat(prefHeight, float64(size.Height))
}

// Start loads the first data and begins watching the semantic state and, when the backend
// can say, other programs' writes.
func (u *App) Start() {
	// The watch starts first so that its starting point is, as nearly as can be, no later
	// than the first reads: a write in between would show only with the next change.
	u.live.start(u.b, u.changePoll)
	u.status.start()
	u.settings.ollama.load()
	u.refreshStats()
	u.memories.reload()
	u.memories.reloadConflicts()
	u.knowledge.reload()
	u.reach.bind(u.reach.combo.Text)
	u.setUpTray()
	u.focusScreen()
}

// openHit shows a recalled memory in its edit dialog, or a chunk in its document, scrolled
// to it with the matched words marked.
func (u *App) openHit(h engine.Hit) {
	if h.Doc != nil {
		u.docs.open(h.Doc.ID, h.ID, h.Matched)
		return
	}
	u.memories.showEdit(engine.FactView{ID: h.ID, Text: h.Text, Space: h.Space, Status: factActive, CreatedAt: h.CreatedAt})
}

// dropped imports the files and folders dropped on the window.
func (u *App) dropped(_ fyne.Position, uris []fyne.URI) {
	paths := make([]string, 0, len(uris))
	for _, uri := range uris {
		if uri.Scheme() == "file" {
			paths = append(paths, uri.Path())
		}
	}
	u.showScreen(screenKnowledge)
	u.knowledge.importPaths(paths)
}

// Close cancels the window's background work and waits for it to stop.
func (u *App) Close() { u.tasks.stop() }

// Window is the app's main window.
func (u *App) Window() fyne.Window { return u.win }

func (u *App) mainMenu() *fyne.MainMenu {
	screen := func(label string, index int, key fyne.KeyName) *fyne.MenuItem {
		item := fyne.NewMenuItem(label, func() { u.showScreen(index) })
		item.Shortcut = &desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault}
		return item
	}
	return fyne.NewMainMenu(
		fyne.NewMenu(lang.L("File"), append([]*fyne.MenuItem{
			fyne.NewMenuItem(lang.L("Import files…"), func() { u.showScreen(screenKnowledge); u.knowledge.chooseFile() }),
			fyne.NewMenuItem(lang.L("Import folder…"), func() { u.showScreen(screenKnowledge); u.knowledge.chooseFolder() }),
		}, u.exportMemoriesItems()...)...),
		fyne.NewMenu(lang.L("View"),
			u.findItem(),
			fyne.NewMenuItemSeparator(),
			screen(lang.L("Recall"), screenRecall, fyne.Key1),
			screen(lang.L("Memories"), screenMemories, fyne.Key2),
			screen(lang.L("Knowledge"), screenKnowledge, fyne.Key3),
			screen(lang.L("Settings"), screenSettings, fyne.Key4),
		),
	)
}

func (u *App) showScreen(index int) {
	if u.tabs.SelectedIndex() != index {
		u.tabs.SelectIndex(index) // OnSelected focuses the screen
		return
	}
	u.focusScreen()
}

// findItem is View › Find: Ctrl+F from any screen, even while a text box has the keyboard.
func (u *App) findItem() *fyne.MenuItem {
	item := fyne.NewMenuItem(lang.L("Find"), u.findAnywhere)
	item.Shortcut = findShortcut()
	return item
}

func findShortcut() *desktop.CustomShortcut {
	return &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}
}

// findAnywhere shows the Recall screen with its search box focused and its text selected.
func (u *App) findAnywhere() {
	u.showScreen(screenRecall)
	u.win.Canvas().Focus(u.recall.query)
	u.recall.query.TypedShortcut(&fyne.ShortcutSelectAll{})
}

// hitName names a hit in a sentence: "memory #3", "the passage from setup.md".
func hitName(h engine.Hit) string {
	if h.Doc != nil {
		return lang.L("the passage from {{.File}}", tmpl{"File": display.Line(filepath.Base(h.Doc.Path))})
	}
	return lang.L("memory #{{.ID}}", tmpl{"ID": h.ID})
}

// focusScreen puts the keyboard where each screen's work starts.
func (u *App) focusScreen() {
	var target fyne.Focusable
	switch u.tabs.SelectedIndex() {
	case screenRecall:
		target = u.recall.query
	case screenMemories:
		target = u.memories.addEntry
	}
	if target != nil {
		u.win.Canvas().Focus(target)
		return
	}
	// Keys must not go on typing into a box on the screen just left.
	u.win.Canvas().Unfocus()
}

// refreshStats reloads the counts shown in the status bar and on the settings screen.
// refreshStats reads the counts anew, and the spaces with them: both follow every write.
func (u *App) refreshStats() {
	u.status.refreshStats(u.b)
	u.refreshSpaces()
}

// dataChanged follows an edit anywhere: the counts and any shown recall are stale. When
// another program wrote meanwhile (during an import), everything is read again instead.
func (u *App) dataChanged() {
	if u.live.pending {
		u.live.owed()
		return
	}
	u.refreshStats()
	u.recall.refresh()
}

// refreshLive re-reads everything the window shows after another program wrote, keeping
// where the person is: the lists' scroll and selection, the shown results' highlight.
func (u *App) refreshLive() {
	u.refreshStats()
	u.memories.refreshKeeping()
	u.memories.reloadConflictsPaced()
	u.knowledge.reload()
	u.recall.refresh()
}
