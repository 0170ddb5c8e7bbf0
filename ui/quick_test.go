package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/hotkey"
)

// quickUp brings the quick window up as the hotkey would and waits until it shows.
func (h *harness) quickUp() *quickWindow {
	h.t.Helper()
	h.u.ShowQuick()
	h.waitFor("the quick window", func() bool { return h.u.quick.visible })
	return h.u.quick
}

func quickKey(q *quickWindow, name fyne.KeyName) { q.query.TypedKey(&fyne.KeyEvent{Name: name}) }

func TestQuickTypeSearchesAndEnterCopies(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("the office wifi password is correct-horse", "")
	h.remember("the wifi in the lab is called lab-5g", "")
	q := h.quickUp()
	if got := h.u.quick.win.Canvas().Focused(); got != q.query {
		t.Errorf("focus is on %T, want the quick search box", got)
	}

	test.Type(q.query, "wifi")
	h.waitFor("results as typed", func() bool { return q.shown.Query == "wifi" && len(q.cards) == 2 })
	if q.selected != 0 {
		t.Errorf("highlight on row %d when the results came, want the best hit (0)", q.selected)
	}
	quickKey(q, fyne.KeyDown)
	quickKey(q, fyne.KeyDown)
	quickKey(q, fyne.KeyDown) // stops at the last row
	if q.selected != 1 {
		t.Fatalf("after three Downs the highlight is on row %d, want 1 (the last)", q.selected)
	}
	quickKey(q, fyne.KeyUp)
	want := q.cards[0].hit.Text
	quickKey(q, fyne.KeyReturn)
	if got := h.u.fa.Clipboard().Content(); got != want {
		t.Errorf("clipboard = %q after Enter, want the highlighted hit %q", got, want)
	}
	if q.visible {
		t.Error("the quick window stayed up after copying; it should get out of the way for the paste")
	}

	// The mouse: a tap highlights a row, a double tap copies it.
	q = h.quickUp()
	h.waitFor("the rows again", func() bool { return len(q.cards) == 2 })
	test.Tap(tapAreaIn(q.cards[1]))
	if q.selected != 1 {
		t.Errorf("a tap on row 1 left the highlight on %d", q.selected)
	}
	test.DoubleTap(tapAreaIn(q.cards[1]))
	if got := h.u.fa.Clipboard().Content(); got != q.cards[1].hit.Text || q.visible {
		t.Errorf("after a double tap the clipboard holds %q (window up: %v), want row 1's text and the window hidden", got, q.visible)
	}

	// Shown again, the last query is still there, selected, so typing replaces it.
	q = h.quickUp()
	if q.query.SelectedText() != "wifi" {
		t.Errorf("selected text = %q on showing again, want the last query", q.query.SelectedText())
	}
	quickKey(q, fyne.KeyEscape)
	if q.visible {
		t.Error("Esc did not hide the quick window")
	}
}

func TestQuickNothingFoundOffersToRemember(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	h.remember("tea is green", "")
	q := h.quickUp()
	test.Type(q.query, "zebra crossing")
	h.waitFor("the answer", func() bool { return q.shown.Query == "zebra crossing" })
	if len(q.cards) != 0 || !strings.Contains(q.note.Text, "Ctrl+S remembers") {
		t.Errorf("%d rows, note %q; want none and the Ctrl+S hint", len(q.cards), q.note.Text)
	}
	quickKey(q, fyne.KeyReturn) // nothing to copy: Enter searches, it does not hide
	if !q.visible {
		t.Error("Enter with no results hid the window")
	}
}

func TestQuickCaptureReportsContradiction(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	old := h.remember("The release deadline is Friday", "")
	h.start()
	h.waitFor("the Memories list", func() bool { return h.u.memories.pages.length == 1 })
	q := h.quickUp()

	test.Type(q.query, "The release deadline is Monday")
	q.query.TypedShortcut(quickCapture())
	h.waitFor("the capture report", func() bool { return q.banner.visible() && strings.Contains(q.banner.text.Text, "Remembered as") })
	if !strings.Contains(q.banner.text.Text, fmt.Sprintf("conflicts with #%d (older)", old)) {
		t.Fatalf("banner = %q, want the contradiction the Memories screen reports", q.banner.text.Text)
	}
	if q.query.Text != "" {
		t.Errorf("search box still holds %q after remembering it", q.query.Text)
	}
	// The main window's list follows the write.
	h.waitFor("the new memory in the Memories list", func() bool { return h.u.memories.pages.length == 2 })

	keep := button(q.banner.content, "Keep new")
	if keep == nil {
		t.Fatalf("no resolving action in %q", texts(q.banner.content))
	}
	test.Tap(keep)
	h.waitFor("the supersede report", func() bool { return strings.Contains(q.banner.text.Text, "superseded by") })
	if got := h.fact(old).Status; got != factSuperseded {
		t.Errorf("old fact status = %q, want superseded", got)
	}

	// The same text again is a duplicate, reported and not stored twice.
	test.Type(q.query, "The release deadline is Monday")
	test.Tap(button(q.win.Content(), "Remember (Ctrl+S)"))
	h.waitFor("the duplicate report", func() bool { return strings.Contains(q.banner.text.Text, "Already remembered") })

	// Nothing typed: nothing stored, and the banner says what to do.
	q.query.TypedShortcut(quickCapture())
	h.waitFor("the empty-capture hint", func() bool { return strings.Contains(q.banner.text.Text, "Write something") })
}

func TestQuickCtrlEnterOpensTheDocument(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	path := filepath.Join(t.TempDir(), "runbook.md")
	if err := os.WriteFile(path, []byte("# Runbook\n\nThe zeppelin lands at gate four on Tuesdays.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.eng.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{path}}); err != nil {
		t.Fatal(err)
	}
	q := h.quickUp()
	test.Type(q.query, "zeppelin")
	h.waitFor("the document hit", func() bool { return len(q.cards) > 0 && q.cards[0].hit.Doc != nil })
	q.query.TypedShortcut(quickOpen())
	h.waitFor("the document view in the main window", func() bool { return h.u.docs.isOpen() })
	if q.visible {
		t.Error("the quick window stayed up over the opened document")
	}
}

// fakeHotkeys grabs nothing: it records the grabs and lets the test press the combination.
type fakeHotkeys struct {
	mu      sync.Mutex
	err     error // what Grab returns
	grabbed []string
	held    string // the combination grabbed and not yet released
	pressed func()
}

func (f *fakeHotkeys) Grab(_ context.Context, combo string, pressed func()) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grabbed = append(f.grabbed, combo)
	if f.err != nil {
		return nil, f.err
	}
	if f.held != "" {
		f.err = hotkey.ErrTaken // a grab before the last was released would collide with it
		return nil, f.err
	}
	f.held, f.pressed = combo, pressed
	return func() {
		f.mu.Lock()
		f.held = ""
		f.mu.Unlock()
	}, nil
}

func (f *fakeHotkeys) press() {
	f.mu.Lock()
	p := f.pressed
	f.mu.Unlock()
	p()
}

func (f *fakeHotkeys) holding() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held
}

func TestHotkeyShowsTheQuickWindowAndCanBeChanged(t *testing.T) {
	keys := &fakeHotkeys{}
	h := newHarness(t, Options{Hotkeys: keys}, nil).start()
	r := h.u.reach
	h.waitFor("the default shortcut held", func() bool { return keys.holding() == hotkey.DefaultCombo })
	h.waitFor("Settings to say so", func() bool { return strings.Contains(r.state.Text, "ctrl+alt+space opens the quick window") })

	keys.press() // from the grab's goroutine, as X11 would
	h.waitFor("the quick window", func() bool { return h.u.quick.visible })

	r.combo.SetText("Super + M")
	test.Tap(r.apply)
	h.waitFor("the new shortcut held", func() bool { return keys.holding() == "super+m" })
	h.waitFor("Settings to show it", func() bool { return strings.Contains(r.state.Text, "super+m opens") })
	if got := h.u.fa.Preferences().String(prefHotkey); got != "super+m" {
		t.Errorf("stored shortcut = %q, want super+m", got)
	}

	r.combo.SetText("ctrl")
	test.Tap(r.apply)
	if !strings.Contains(r.state.Text, "ends in a modifier") {
		t.Errorf("state = %q for a combination with no key", r.state.Text)
	}
	if keys.holding() != "super+m" {
		t.Errorf("a bad combination replaced the held one: holding %q", keys.holding())
	}
}

func TestHotkeyTakenSaysSo(t *testing.T) {
	keys := &fakeHotkeys{err: hotkey.ErrTaken}
	h := newHarness(t, Options{Hotkeys: keys}, nil).start()
	r := h.u.reach
	h.waitFor("the failure in Settings", func() bool { return strings.Contains(r.state.Text, "taken by another program") })
}

func TestNoHotkeyPointsToMemdeskQuick(t *testing.T) {
	h := newHarness(t, Options{NoHotkeyWhy: "this is a Wayland session"}, nil).start()
	r := h.u.reach
	if !strings.Contains(r.state.Text, "Wayland") || !strings.Contains(r.state.Text, "memdesk quick") || !r.apply.Disabled() {
		t.Errorf("state = %q (Apply disabled: %v); want the reason and the `memdesk quick` fallback", r.state.Text, r.apply.Disabled())
	}
}

func TestTrayMenuActions(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	menu := h.u.trayMenu()
	var labels []string
	items := map[string]*fyne.MenuItem{}
	for _, it := range menu.Items {
		labels = append(labels, it.Label)
		items[it.Label] = it
	}
	if got := strings.Join(labels, "|"); got != "Search…|Remember…|Show memdesk||Quit" {
		t.Fatalf("tray menu = %q", got)
	}
	if !items["Quit"].IsQuit {
		t.Error("Quit is not marked as the quit item (Fyne would add a second one)")
	}
	items["Remember…"].Action()
	if !h.u.quick.visible || !strings.Contains(h.u.quick.note.Text, "Ctrl+S") {
		t.Errorf("Remember… left the quick window visible=%v with note %q", h.u.quick.visible, h.u.quick.note.Text)
	}
	h.u.quick.hide()
	items["Search…"].Action()
	if !h.u.quick.visible {
		t.Error("Search… did not show the quick window")
	}
}

func TestClosingTheWindowKeepsTheAppInTheTray(t *testing.T) {
	h := newHarness(t, Options{TrayLikely: true}, nil).start()
	if !h.u.reach.trayCheck.Checked {
		t.Fatal("keep-in-tray is off by default where a tray is likely")
	}
	h.u.closeMain()
	if h.u.tasks.life.Err() != nil {
		t.Fatal("closing the window ended the app although it is kept in the tray")
	}
	h.u.ShowMain()
	h.q.drain()

	test.Tap(h.u.reach.trayCheck) // off: closing quits
	if h.u.fa.Preferences().Bool(prefKeepInTray) {
		t.Error("the setting was not stored")
	}
	h.u.closeMain()
	if h.u.tasks.life.Err() == nil {
		t.Error("closing the window kept the app running with keep-in-tray off")
	}
}

func TestQuickDropsOvertakenAnswers(t *testing.T) {
	sb := &slowBackend{last: "alpha beta"}
	h := newHarness(t, Options{}, func(e *engine.Engine) Backend { sb.Backend = e; return sb }).start()
	h.remember("alpha beta gamma", "")
	q := h.quickUp()
	// Each query reaches the backend at once; only the newest may fill the window.
	for _, text := range []string{"alp", "alpha", "alpha beta"} {
		q.query.SetText(text)
		q.search.now()
	}
	h.waitFor("the last query's answer and the older ones cancelled", func() bool {
		return q.shown.Query == "alpha beta" && len(sb.cancelledQueries()) == 2
	})
	if len(q.cards) != 1 || strings.Contains(q.note.Text, "ancel") {
		t.Errorf("%d rows, note %q; want the last query's one hit and no cancellation shown", len(q.cards), q.note.Text)
	}
}

func tapAreaIn(row *resultRow) *tapArea {
	var found *tapArea
	walk(row.content, func(o fyne.CanvasObject) {
		if a, ok := o.(*tapArea); ok && found == nil {
			found = a
		}
	})
	return found
}

// TestQuickListsCompactRows: the quick window lists hits as the main window does, two lines
// each, so a screen holds five or more; long texts are cut to its width and never widen it.
func TestQuickListsCompactRows(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	for i := range 8 {
		h.remember(fmt.Sprintf("kettle note %d: %s", i, strings.Repeat("the descaling schedule of the office kettle, ", 12)), "")
	}
	q := h.quickUp()
	test.Type(q.query, "kettle")
	h.waitFor("eight rows", func() bool { return len(q.cards) == 8 && len(q.results.Objects) == 8 })
	q.scroll.Refresh()
	// A window grows to its content's minimum (the test driver's does not, so ask the content).
	if w := q.win.Content().MinSize().Width; w > quickWidth {
		t.Errorf("the quick window's content asks for %v px with long hits, want at most %v", w, quickWidth)
	}
	view, fits := q.scroll.Size().Height, 0
	for _, c := range q.cards {
		if c.content.Position().Y+c.content.Size().Height <= view {
			fits++
		}
	}
	if fits < 5 {
		t.Errorf("%d rows fit in the quick window's %v px list, want 5 or more (a row is %v px)", fits, view, q.cards[0].content.Size().Height)
	}
}
