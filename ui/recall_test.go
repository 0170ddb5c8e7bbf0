package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

func TestRecallShowsHitsAsYouType(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	wang := h.remember("老王的生日是三月十二日", "")
	h.remember("CI uses Python 3.12 on the build server", "")
	r := h.u.recall

	if got := h.u.win.Canvas().Focused(); got != r.query {
		t.Errorf("focused at start = %T, want the search box", got)
	}
	tests := []struct {
		query    string
		wantText string
		wantID   int64
		wantWhy  string
	}{
		// The explanation is in the window's language (English here), not the query's.
		{"老王", "老王的生日是三月十二日", wang, "matched 老王 · written today"},
		{"python build", "CI uses Python 3.12 on the build server", 0, "matched python and build · written today"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r.query.SetText("")
			test.Type(r.query, tt.query)
			// Settled, not only answered: a quiet rerun after the harness's own writes can
			// answer the typed query before its debounced search has even started.
			h.waitFor("hits for "+tt.query, func() bool {
				return r.shown.Query == tt.query && len(r.shown.Hits) > 0 && r.search.settled() &&
					r.previewed == keyOf(r.shown.Hits[0]) // the preview follows the list by a frame
			})
			hit := r.shown.Hits[0]
			if hit.Text != tt.wantText {
				t.Errorf("first hit = %q, want %q", hit.Text, tt.wantText)
			}
			if tt.wantID != 0 && hit.ID != tt.wantID {
				t.Errorf("first hit id = %d, want %d", hit.ID, tt.wantID)
			}
			// Why it was found shows in words; the numbers stay behind "details".
			shown := texts(r.content)
			for _, want := range []string{tt.wantText, "memory", tt.wantWhy, "details", "1 hit"} {
				if !strings.Contains(shown, want) {
					t.Errorf("screen text lacks %q:\n%s", want, shown)
				}
			}
			if strings.Contains(shown, "lexical") {
				t.Errorf("the leg scores show before details is opened:\n%s", shown)
			}
			var fold *widget.Accordion
			walk(r.content, func(o fyne.CanvasObject) {
				if a, ok := o.(*widget.Accordion); ok && fold == nil {
					fold = a
				}
			})
			if fold == nil {
				t.Fatal("no details fold on the hit")
			}
			fold.Open(0)
			if shown := texts(r.content); !strings.Contains(shown, "lexical") || !strings.Contains(shown, "score") {
				t.Errorf("opened details lack the scores:\n%s", shown)
			}
		})
	}
}

func TestRecallNothingRelevant(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("the cat sat on the mat", "")
	r := h.u.recall
	test.Type(r.query, "zebra crossing")
	h.waitFor("an answer", func() bool { return r.shown.Query == "zebra crossing" && r.search.settled() })
	if want := "Nothing relevant: no text holds any of its words."; r.note.Text != want {
		t.Errorf("note = %q, want %q", r.note.Text, want)
	}
	if n := len(r.results.Objects); n != 0 {
		t.Errorf("%d result cards, want none", n)
	}
}

// TestRecallOffersTheStoresSpelling: a typo that finds nothing offers the store's spelling;
// tapping it searches that, and the offer goes with the results it explained.
func TestRecallOffersTheStoresSpelling(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("CI uses Python 3.12 on the build server", "")
	r := h.u.recall
	test.Type(r.query, "pyhton")
	h.waitFor("an answer", func() bool { return r.shown.Query == "pyhton" && r.search.settled() })
	if !r.respell.Visible() || !strings.Contains(r.respell.Text, "python") {
		t.Fatalf("respell button visible %v, %q; want it to offer python", r.respell.Visible(), r.respell.Text)
	}
	test.Tap(r.respell)
	h.waitFor("the respelled search", func() bool { return r.shown.Query == "python" && r.search.settled() })
	if r.query.Text != "python" || len(r.shown.Hits) == 0 || r.respell.Visible() {
		t.Errorf("after the tap: query %q, %d hits, offer visible %v; want python, a hit, no offer", r.query.Text, len(r.shown.Hits), r.respell.Visible())
	}
}

func TestRecallSourceSelectorAndHighlight(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("backup runs nightly", "")
	r := h.u.recall
	r.source.SetSelected(string(engine.SourceKnowledge))
	test.Type(r.query, "backup")
	h.waitFor("an answer from knowledge", func() bool { return r.shown.Query == "backup" && r.search.settled() })
	if n := len(r.shown.Hits); n != 0 {
		t.Errorf("knowledge-only recall returned %d memory hits", n)
	}
	r.source.SetSelected(string(engine.SourceMemory))
	h.waitFor("a memory hit", func() bool { return len(r.shown.Hits) == 1 })
	if got := r.shown.Hits[0].Matched; len(got) == 0 {
		t.Errorf("hit has no matched terms to highlight")
	}
}

// relaxedBackend marks every answer relaxed.
type relaxedBackend struct{ Backend }

func (b relaxedBackend) Recall(ctx context.Context, req engine.RecallRequest) (engine.RecallResult, error) {
	res, err := b.Backend.Recall(ctx, req)
	res.Relaxed = true
	return res, err
}

func TestRecallRelaxedIsLabelled(t *testing.T) {
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { return relaxedBackend{e} }).start()
	h.remember("tea is green", "")
	r := h.u.recall
	test.Type(r.query, "tea")
	h.waitFor("a hit", func() bool { return len(r.shown.Hits) == 1 })
	if !strings.HasPrefix(r.note.Text, "Relaxed") {
		t.Errorf("note = %q, want it to say the answer is relaxed", r.note.Text)
	}
}

// slowBackend holds every recall except the one for last until its context ends, and
// records which ones ended that way.
type slowBackend struct {
	Backend
	last      string
	mu        sync.Mutex
	cancelled []string
}

func (b *slowBackend) Recall(ctx context.Context, req engine.RecallRequest) (engine.RecallResult, error) {
	if req.Query == b.last {
		return b.Backend.Recall(ctx, req)
	}
	<-ctx.Done()
	b.mu.Lock()
	b.cancelled = append(b.cancelled, req.Query)
	b.mu.Unlock()
	return engine.RecallResult{}, ctx.Err()
}

func (b *slowBackend) cancelledQueries() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.cancelled)
}

func TestRecallNewQueryCancelsTheOldOne(t *testing.T) {
	sb := &slowBackend{last: "alpha beta"}
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { sb.Backend = e; return sb }).start()
	h.remember("alpha beta gamma", "")
	r := h.u.recall
	// Enter searches at once, so each query reaches the backend.
	for _, q := range []string{"alp", "alpha", "alpha beta"} {
		r.query.SetText(q)
		r.query.OnSubmitted(q)
	}
	h.waitFor("the last query's answer and the older queries cancelled", func() bool {
		return r.shown.Query == "alpha beta" && len(sb.cancelledQueries()) == 2
	})
	if len(r.shown.Hits) != 1 {
		t.Errorf("%d hits for the last query, want 1", len(r.shown.Hits))
	}
	if strings.Contains(r.note.Text, "ancel") {
		t.Errorf("note = %q: a superseded query's cancellation leaked to the screen", r.note.Text)
	}
}

func TestClosingTheWindowCancelsWork(t *testing.T) {
	sb := &slowBackend{last: "never sent"}
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { sb.Backend = e; return sb }).start()
	r := h.u.recall
	r.query.SetText("held")
	r.query.OnSubmitted("held")
	h.u.win.Close()
	h.u.Close() // returns only once the held recall has stopped
	if got := sb.cancelledQueries(); !slices.Equal(got, []string{"held"}) {
		t.Errorf("cancelled queries = %q, want [held]", got)
	}
}

func TestRecallOpenEditsTheMemory(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	id := h.remember("the office wifi password is hunter2", "")
	r := h.u.recall
	test.Type(r.query, "wifi")
	// The Edit button is in the preview pane, which shows the first hit until another is chosen.
	h.waitFor("the hit and its Edit button", func() bool { return len(r.shown.Hits) == 1 && shown(button(r.preview, "Edit")) })
	test.Tap(button(r.preview, "Edit"))
	dlg := h.overlay()
	if dlg == nil {
		t.Fatal("Edit on a hit opened no dialog")
	}
	entryIn(dlg).SetText("the office wifi password is correct-horse")
	test.Tap(button(dlg, "Save"))
	h.waitFor("the recall to show the edit", func() bool {
		return len(r.shown.Hits) == 1 && r.shown.Hits[0].Text == "the office wifi password is correct-horse"
	})
	if got := h.fact(id).Text; got != "the office wifi password is correct-horse" {
		t.Errorf("database text = %q", got)
	}
}

// pressKey sends a key to whatever has the keyboard: the focused widget, else the window.
func (h *harness) pressKey(name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	c := h.u.win.Canvas()
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	if on := c.OnTypedKey(); on != nil {
		on(ev)
	}
}

func TestRecallKeyboardOpensTheSelectedHit(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("the garden shed key is under the mat", "")
	h.remember("the garden hose is in the shed", "")
	r := h.u.recall
	test.Type(r.query, "garden")
	h.waitFor("two hits", func() bool { return r.shown.Query == "garden" && len(r.shown.Hits) == 2 && r.search.settled() })
	if r.selected != -1 {
		t.Fatalf("selected = %d before any arrow key, want none (-1)", r.selected)
	}

	steps := []struct {
		key  fyne.KeyName
		want int
	}{
		{fyne.KeyDown, 0},
		{fyne.KeyDown, 1},
		{fyne.KeyDown, 1}, // stays on the last hit
		{fyne.KeyUp, 0},
		{fyne.KeyUp, 0}, // stays on the first
		{fyne.KeyDown, 1},
	}
	for i, s := range steps {
		h.pressKey(s.key)
		if r.selected != s.want {
			t.Fatalf("step %d (%s): selected = %d, want %d", i, s.key, r.selected, s.want)
		}
	}
	if got := h.u.win.Canvas().Focused(); got != r.query {
		t.Errorf("focused after arrows = %T, want the search box", got)
	}
	if got, want := r.query.Text, "garden"; got != want {
		t.Errorf("search text after arrows = %q, want %q", got, want)
	}
	for i, row := range r.cards {
		if lit := row.bg.FillColor != color.Transparent; lit != (i == 1) {
			t.Errorf("card %d highlighted = %v, want %v", i, lit, i == 1)
		}
	}

	h.pressKey(fyne.KeyReturn)
	dlg := h.overlay()
	if dlg == nil {
		t.Fatal("Enter on the selected hit opened no dialog")
	}
	if got, want := entryIn(dlg).Text, r.shown.Hits[1].Text; got != want {
		t.Errorf("dialog edits %q, want the selected hit %q", got, want)
	}
	if !strings.Contains(texts(dlg), fmt.Sprintf("Edit memory #%d", r.shown.Hits[1].ID)) {
		t.Errorf("dialog is not the selected memory's editor:\n%s", texts(dlg))
	}
}

func TestRecallKeyboardWithoutFocusAndTypingClearsSelection(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("apples are red", "")
	r := h.u.recall
	test.Type(r.query, "apples")
	h.waitFor("a hit", func() bool { return r.shown.Query == "apples" && len(r.shown.Hits) == 1 && r.search.settled() })

	h.u.win.Canvas().Unfocus()
	h.pressKey(fyne.KeyDown)
	if r.selected != 0 {
		t.Fatalf("Down with nothing focused: selected = %d, want 0", r.selected)
	}
	test.Type(r.query, " red")
	if r.selected != -1 {
		t.Errorf("typing kept selection %d, want none", r.selected)
	}
	// Enter with nothing selected searches at once and opens nothing.
	h.u.win.Canvas().Focus(r.query)
	h.pressKey(fyne.KeyReturn)
	h.waitFor("the new query's answer", func() bool { return r.shown.Query == "apples red" && r.search.settled() })
	if dlg := h.overlay(); dlg != nil {
		t.Errorf("Enter without a selection opened a dialog")
	}
}

func TestRecallKeyboardOpensADocument(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	path := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(path, []byte("# Boiler\n\nThe boiler service is due in October.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{path}}); err != nil {
		t.Fatalf("import: %v", err)
	}
	r := h.u.recall
	test.Type(r.query, "boiler")
	h.waitFor("a document hit", func() bool { return len(r.shown.Hits) > 0 && r.shown.Hits[0].Doc != nil })
	h.pressKey(fyne.KeyDown)
	h.pressKey(fyne.KeyEnter)
	h.waitFor("the chunks dialog", func() bool { return h.overlay() != nil })
	if got := texts(h.overlay()); !strings.Contains(got, "boiler service is due") {
		t.Errorf("dialog does not show the document's chunks:\n%s", got)
	}
}

func TestRecallKeyboardScrollsTheSelectionIntoView(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	for i := range 10 {
		h.remember(fmt.Sprintf("orchard note %d about the apple trees and their pruning", i), "")
	}
	// A short window: ten compact rows fit in the default one.
	h.u.win.Resize(fyne.NewSize(800, 420))
	r := h.u.recall
	test.Type(r.query, "orchard")
	h.waitFor("ten hits", func() bool { return len(r.shown.Hits) == 10 })
	view := r.scroll.Size().Height
	if view <= 0 || r.results.MinSize().Height <= view {
		t.Fatalf("results %v high in a %v view: the test needs them to overflow", r.results.MinSize().Height, view)
	}
	for range 10 {
		h.pressKey(fyne.KeyDown)
	}
	if r.selected != 9 {
		t.Fatalf("selected = %d after ten Downs, want the last hit (9)", r.selected)
	}
	last := r.cards[9].content
	top, bottom, off := last.Position().Y, last.Position().Y+last.Size().Height, r.scroll.Offset.Y
	if top < off || bottom > off+view+1 {
		t.Errorf("selected card spans %v–%v, the view shows %v–%v", top, bottom, off, off+view)
	}
	for range 9 {
		h.pressKey(fyne.KeyUp)
	}
	if got := r.scroll.Offset.Y; got != 0 {
		t.Errorf("after walking back to the first hit the view is scrolled to %v, want 0", got)
	}
}

// TestRecallShowsControlCharactersEscaped: a memory holding terminal escapes and a bidi
// override (from an agent, a pasted log) is shown with them written out, as the CLI shows
// it, so the text on screen is the text stored and cannot disguise itself.
func TestRecallShowsControlCharactersEscaped(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("deploy key rotated \x1b]52;c;ZXZpbA==\a on host\u202egnp.exe", "")
	r := h.u.recall
	test.Type(r.query, "deploy key rotated")
	h.waitFor("the hit", func() bool {
		return r.shown.Query == "deploy key rotated" && len(r.shown.Hits) > 0 && r.search.settled()
	})
	shown := texts(r.content)
	if strings.ContainsAny(shown, "\x1b\a\u202e") {
		t.Errorf("screen text holds a raw control or bidi character:\n%q", shown)
	}
	if !strings.Contains(shown, `\x1b]52;c;ZXZpbA==\a`) || !strings.Contains(shown, `\u202e`) {
		t.Errorf("screen text does not show the escapes written out:\n%q", shown)
	}
}

func TestDocLocation(t *testing.T) {
	cases := []struct {
		name string
		doc  engine.DocRef
		want string
	}{
		{"markdown", engine.DocRef{DocPlace: engine.DocPlace{Title: "Deploy", Path: "/d/deploy.md", Heading: "Install", LineStart: 12, LineEnd: 20}},
			"Deploy — /d/deploy.md:12–20 › Install"},
		{"pdf page", engine.DocRef{DocPlace: engine.DocPlace{Title: "Spec", Path: "/d/spec.pdf", Page: 12, LineStart: 3, LineEnd: 9}},
			"Spec — /d/spec.pdf, p. 12:3–9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := docLocation(tc.doc); got != tc.want {
				t.Errorf("docLocation(%+v) = %q, want %q", tc.doc, got, tc.want)
			}
		})
	}
}

// TestRowLocation: a row of the list names the file and its folder, and the title only
// where it says more than the file's name.
func TestRowLocation(t *testing.T) {
	cases := []struct {
		doc  engine.DocRef
		want string
	}{
		{engine.DocRef{DocPlace: engine.DocPlace{Title: "Deploy guide", Path: "/home/ann/notes/deploy.md", Heading: "Install", LineStart: 12, LineEnd: 20}},
			"Deploy guide — notes/deploy.md:12 › Install"},
		{engine.DocRef{DocPlace: engine.DocPlace{Title: "README", Path: "/usr/share/doc/gnupg/README", LineStart: 3}},
			"gnupg/README:3"},
		{engine.DocRef{DocPlace: engine.DocPlace{Title: "spec", Path: "/d/spec.pdf", Page: 12, LineStart: 3, LineEnd: 9}},
			"d/spec.pdf, p. 12:3"},
		{engine.DocRef{DocPlace: engine.DocPlace{Path: "/top.txt"}}, "/top.txt"},
	}
	for _, tc := range cases {
		if got := rowLocation(tc.doc); got != filepath.FromSlash(tc.want) {
			t.Errorf("rowLocation(%+v) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}

// TestRecallMarksTheNewerOfAConflict: both memories of a contradicting pair show, each
// saying which it is.
func TestRecallMarksTheNewerOfAConflict(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	old := h.remember("CI uses Python 3.11", "")
	newer := h.remember("CI uses Python 3.12", "")
	h.start()
	r := h.u.recall
	r.query.SetText("python")
	r.search.now()
	h.waitFor("two hits", func() bool { return len(r.cards) == 2 })
	shown := texts(r.results)
	for _, want := range []string{fmt.Sprintf("older, conflicts with #%d", newer), fmt.Sprintf("newer, conflicts with #%d", old)} {
		if !strings.Contains(shown, want) {
			t.Errorf("results lack %q:\n%s", want, shown)
		}
	}
}

// TestRecallCopyAndFind: Ctrl+C copies the highlighted hit (the search box's own selection,
// when there is one, is copied as before); Ctrl+F from another screen comes back to the
// search box with its text selected.
func TestRecallCopyAndFind(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("The pelican colony nests on the north pier", "")
	r := h.u.recall
	test.Type(r.query, "pelican")
	h.waitFor("the hit", func() bool { return len(r.cards) == 1 })
	r.selectHit(0)
	r.query.TypedShortcut(&fyne.ShortcutCopy{Clipboard: h.u.fa.Clipboard()})
	if got := h.u.fa.Clipboard().Content(); got != "The pelican colony nests on the north pier" {
		t.Errorf("clipboard after Ctrl+C on the highlighted hit = %q", got)
	}
	if !strings.HasPrefix(r.note.Text, "Copied memory #") {
		t.Errorf("note = %q, want it to say what was copied", r.note.Text)
	}

	// Ctrl+F is a main-menu shortcut: the driver gives those to the menu before the focused
	// text box, which would swallow a canvas shortcut (the Memories filter has the keyboard).
	var find *fyne.MenuItem
	for _, m := range h.u.win.MainMenu().Items {
		for _, it := range m.Items {
			if it.Shortcut != nil && it.Shortcut.ShortcutName() == findShortcut().ShortcutName() {
				find = it
			}
		}
	}
	if find == nil {
		t.Fatal("no main-menu item has Ctrl+F")
	}
	h.u.showScreen(screenMemories)
	find.Action()
	if h.u.tabs.SelectedIndex() != screenRecall || h.u.win.Canvas().Focused() != r.query || r.query.SelectedText() != "pelican" {
		t.Errorf("after Ctrl+F: screen %d, focused %T, selected %q; want Recall, the search box, its text",
			h.u.tabs.SelectedIndex(), h.u.win.Canvas().Focused(), r.query.SelectedText())
	}
	r.query.TypedShortcut(&fyne.ShortcutCopy{Clipboard: h.u.fa.Clipboard()})
	if got := h.u.fa.Clipboard().Content(); got != "pelican" {
		t.Errorf("with the box's text selected Ctrl+C copied %q, want the selection", got)
	}
}

// TestRecallFiltersAndSort: the "written" preset, the folder and the newest sort change the
// list on screen, and each reaches the engine as the request's fields (the engine, not the
// screen, does the filtering: its tests cover how).
func TestRecallFiltersAndSort(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	ctx := context.Background()
	now := time.Now()
	// "today" is since local midnight: the newest memory is written between midnight and
	// now, whenever the test runs (an hour ago was yesterday in the first hour of a day).
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	earlierToday := min(time.Hour, now.Sub(midnight)/2)
	var ex engine.MemoryExport
	ex.Format = engine.MemoryExportFormat
	for _, m := range []struct {
		text string
		age  time.Duration
	}{
		{"orchard pears by the river", 400 * 24 * time.Hour},
		{"orchard plums need pruning before spring", 20 * 24 * time.Hour},
		{"orchard apples", earlierToday},
	} {
		at := now.Add(-m.age)
		ex.Memories = append(ex.Memories, engine.ExportedMemory{Text: m.text, Space: "default", CreatedAt: at, UpdatedAt: at})
	}
	if _, err := h.eng.ImportMemories(ctx, ex, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, rel := range []string{"farm/orchard.md", "town/orchard.md"} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# Orchard\n\nThe orchard of "+rel+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.eng.KBAdd(ctx, engine.KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	h.start()
	r := h.u.recall
	shownTexts := func() []string {
		var out []string
		for _, c := range r.cards {
			out = append(out, c.hit.Text)
		}
		return out
	}
	settledOn := func(what string, cond func() bool) {
		t.Helper()
		h.waitFor(what, func() bool { return r.shown.Query == "orchard" && r.search.settled() && cond() })
	}
	r.source.SetSelected(string(engine.SourceMemory))
	test.Type(r.query, "orchard")
	settledOn("three memories", func() bool { return len(r.cards) == 3 })
	relevance := shownTexts()

	r.when.SetSelected("last 30 days")
	settledOn("the last month's two", func() bool { return len(r.cards) == 2 })
	if got := shownTexts(); slices.Contains(got, "orchard pears by the river") {
		t.Errorf("last 30 days shows %q, which is 400 days old", got)
	}
	if !strings.Contains(r.note.Text, "1 more outside the filters") {
		t.Errorf("note = %q, want it to count the hit the filter hides", r.note.Text)
	}
	r.when.SetSelected("today")
	settledOn("today's one", func() bool { return len(r.cards) == 1 })
	if got := shownTexts(); !slices.Equal(got, []string{"orchard apples"}) {
		t.Errorf("today shows %q, want only orchard apples", got)
	}

	r.when.SetSelected("any time")
	r.order.SetSelected("newest")
	want := []string{"orchard apples", "orchard plums need pruning before spring", "orchard pears by the river"}
	settledOn("newest first", func() bool { return slices.Equal(shownTexts(), want) })
	if got := r.request().Sort; got != engine.SortNewest {
		t.Errorf("request sort = %q, want newest", got)
	}
	r.order.SetSelected("relevance")
	settledOn("the ranking's order again", func() bool { return slices.Equal(shownTexts(), relevance) })

	// The folder selector offers the documents' folders once the Knowledge list is read.
	h.waitFor("the folders offered", func() bool { return len(r.folderNames) == 2 })
	farm := filepath.Join(dir, "farm")
	if got := r.folderNames; !slices.Equal(got, []string{farm, filepath.Join(dir, "town")}) {
		t.Errorf("folder options = %q", got)
	}
	r.source.SetSelected(string(engine.SourceAll))
	r.folder.SetText(farm)
	settledOn("the farm document only", func() bool {
		return len(r.cards) == 1 && r.cards[0].hit.Doc != nil && r.cards[0].hit.Doc.Path == filepath.Join(farm, "orchard.md")
	})
	r.when.SetSelected("last year")
	r.folder.SetText(filepath.Join(dir, "nowhere"))
	settledOn("an empty list that says why", func() bool { return len(r.cards) == 0 })
	if want := "No hit was written then or is in that folder; 5 hits without the filters."; r.note.Text != want {
		t.Errorf("note = %q, want %q", r.note.Text, want)
	}
}

// TestSetRowsLaysOutTheFirstScreenFirst: ten cards are laid out in two steps, the first
// screen's before anything else queued on the UI goroutine, the rest after; a newer answer
// drops the older one's second step.
func TestSetRowsLaysOutTheFirstScreenFirst(t *testing.T) {
	var queued []func()
	l := newHitList(func(f func()) { queued = append(queued, f) })
	rows := func(n int, text string) []*resultRow {
		out := make([]*resultRow, n)
		for i := range out {
			out[i] = newResultRow(engine.Hit{ID: int64(i + 1), Text: text}, widget.NewLabel(text))
		}
		return out
	}
	n := firstRows + 6
	l.setRows(rows(n, "old"))
	if got := len(l.results.Objects); got != firstRows || len(l.cards) != n || len(queued) != 1 {
		t.Fatalf("after setRows: %d rows laid out, %d cards, %d steps queued; want %d, %d, 1", got, len(l.cards), len(queued), firstRows, n)
	}
	queued[0]()
	if got := len(l.results.Objects); got != n {
		t.Fatalf("after the second step: %d rows laid out, want %d", got, n)
	}

	queued = nil
	l.setRows(rows(n, "old"))
	l.setRows(rows(2, "new"))
	for _, f := range queued {
		f()
	}
	if got := len(l.results.Objects); got != 2 {
		t.Errorf("an older answer's second step ran over the newer answer: %d rows laid out, want 2", got)
	}
	l.replaceRows(rows(10, "again"), true)
	if got := len(l.results.Objects); got != 10 {
		t.Errorf("replaceRows at once laid out %d rows, want 10", got)
	}
}

// TestRecallListIsDenseWithAPreview: at 1280x800 the list shows ten hits (a whole answer),
// each on two lines, and the preview pane beside it shows the first hit whole until another is
// chosen, by the keyboard or a tap.
func TestRecallListIsDenseWithAPreview(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	things := []string{"gate", "shed", "greenhouse", "hose", "fence", "pond", "bench", "path", "hedge", "roses",
		"compost", "ladder", "wheelbarrow", "sprinkler", "birdhouse"}
	for i, thing := range things {
		h.remember(fmt.Sprintf("garden job %d: the %s needs work before the spring visit of the neighbours from number %d, who asked about it twice over the long winter", i, thing, 40+i), "")
	}
	h.u.win.Resize(fyne.NewSize(1280, 800))
	r := h.u.recall
	h.u.tabs.SelectIndex(0)
	test.Type(r.query, "garden")
	// The engine answers with 10 hits at most, and they all fit.
	h.waitFor("10 hits, all laid out, the first in the preview", func() bool {
		return len(r.cards) == 10 && len(r.results.Objects) == 10 && r.previewed == keyOf(r.cards[0].hit)
	})
	r.scroll.Refresh()

	view := r.scroll.Size().Height
	visible := 0
	for _, c := range r.cards {
		if c.content.Position().Y+c.content.Size().Height <= view {
			visible++
		}
	}
	if visible < 10 {
		t.Errorf("%d hits fit in the %v px list at 1280x800, want 10 or more (a row is %v px)", visible, view, r.cards[0].content.Size().Height)
	}

	if r.previewed != keyOf(r.cards[0].hit) || !strings.Contains(texts(r.preview), r.cards[0].hit.Text) {
		t.Fatalf("with nothing highlighted the preview shows %+v, want the first hit whole:\n%s", r.previewed, texts(r.preview))
	}
	h.pressKey(fyne.KeyDown)
	h.pressKey(fyne.KeyDown)
	if r.previewed != keyOf(r.cards[1].hit) {
		t.Errorf("after two Downs the preview shows %+v, want the second hit %+v", r.previewed, keyOf(r.cards[1].hit))
	}
	test.Tap(r.cards[4].content.(*fyne.Container).Objects[1].(*tapArea))
	if r.selected != 4 || r.previewed != keyOf(r.cards[4].hit) {
		t.Errorf("a tap on the fifth row: highlight %d, preview %+v; want 4 and the fifth hit", r.selected, r.previewed)
	}
}

// TestRecallRowsFollowTheTheme: a row's texts are drawn in the theme's colours of when it
// was made, so switching the theme draws the shown rows again, highlight kept.
func TestRecallRowsFollowTheTheme(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("the garden gate needs a coat of paint", "")
	h.remember("the garden hose leaks at the tap", "")
	r := h.u.recall
	test.Type(r.query, "garden")
	h.waitFor("two hits", func() bool { return len(r.cards) == 2 && r.search.settled() })
	h.pressKey(fyne.KeyDown)
	h.pressKey(fyne.KeyDown)
	rowColour := func() color.Color {
		var c color.Color
		walk(r.cards[0].content, func(o fyne.CanvasObject) {
			if txt, ok := o.(*canvas.Text); ok && c == nil && !txt.TextStyle.Bold && strings.TrimSpace(txt.Text) != "" &&
				txt.TextSize == theme.TextSize() {
				c = txt.Color
			}
		})
		return c
	}
	for _, choice := range []string{themeDark, themeLight, themeDark} {
		h.u.appearance.setTheme(choice)
		want := themeFor(choice).Color(theme.ColorNameForeground, fyne.CurrentApp().Settings().ThemeVariant())
		h.waitFor("the rows in the "+choice+" theme's colours", func() bool { return rowColour() == want })
		if r.selected != 1 {
			t.Errorf("after the switch to %s the highlight is on row %d, want 1", choice, r.selected)
		}
	}
}

// TestPreviewSaysWhereElseThePassageIs: a passage kept as Markdown and as HTML is one row,
// and its preview names the other file.
func TestPreviewSaysWhereElseThePassageIs(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	dir := t.TempDir()
	passage := "Reads the entire contents of a file with the flamingo reader. If no encoding is specified, then the raw buffer is returned."
	md, html := filepath.Join(dir, "fs.md"), filepath.Join(dir, "fs.html")
	if err := os.WriteFile(md, []byte("# File system\n\n"+passage+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(html, []byte("<html><body><h1>File system</h1><p>"+passage+"</p></body></html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	r := h.u.recall
	test.Type(r.query, "flamingo reader")
	h.waitFor("one row for the passage, in the preview", func() bool {
		return len(r.cards) == 1 && r.search.settled() && r.previewed == keyOf(r.cards[0].hit)
	})
	other := md
	if r.cards[0].hit.Doc.Path == md {
		other = html
	}
	if shown := texts(r.preview); !strings.Contains(shown, "Also in: "+other) {
		t.Errorf("the preview does not say the passage is also in %s:\n%s", other, shown)
	}
}
