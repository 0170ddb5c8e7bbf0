package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/hotkey"
)

// Hotkeys grabs a key combination for the whole desktop and calls pressed, from any
// goroutine, each time it is pressed, until ctx ends or release is called (release waits
// for the grab's goroutine). hotkey.X11 satisfies it; its errors are hotkey.ErrBadCombo,
// hotkey.ErrNoX11 and hotkey.ErrTaken.
type Hotkeys interface {
	Grab(ctx context.Context, combo string, pressed func()) (release func(), err error)
}

// windowKeeper is an optional capability of a Hotkeys: keeping a window above the others
// (X11's _NET_WM_STATE_ABOVE), which Fyne has no API for.
type windowKeeper interface {
	KeepAbove(window uintptr) error
}

// Preference keys for reaching memdesk from anywhere.
const (
	prefHotkey     = "quick.hotkey"
	prefKeepInTray = "window.keep_in_tray"
)

// bindShortcutHint is what to do where memdesk cannot grab a key itself.
func bindShortcutHint() string {
	return lang.L("bind a shortcut to `memdesk quick` in your desktop's keyboard settings")
}

// reach is how memdesk is reached without switching to its window: the system tray, the
// global hotkey, and the setting that keeps the app in the tray when its window closes.
type reach struct {
	u     *App
	keys  Hotkeys // nil: this desktop allows no grab
	noKey string  // why keys is nil, for Settings
	// trayLikely: a tray will show the icon, so the tray is set up and keeping the app
	// there on close is the default.
	trayLikely bool

	combo     *widget.Entry
	apply     *widget.Button
	state     *widget.Label
	trayCheck *widget.Check
	content   fyne.CanvasObject
	grab      *hotkeyGrab // the grab in place or being made; nil before the first
}

// hotkeyGrab is one grab's task: cancel ends it, done closes once it has released the key.
type hotkeyGrab struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func newReach(u *App, keys Hotkeys, noKey string, trayLikely bool) *reach {
	r := &reach{u: u, keys: keys, noKey: noKey, trayLikely: trayLikely}
	prefs := u.fa.Preferences()
	r.combo = widget.NewEntry()
	r.combo.SetText(prefs.StringWithFallback(prefHotkey, hotkey.DefaultCombo))
	r.combo.SetPlaceHolder(hotkey.DefaultCombo)
	r.apply = widget.NewButton(lang.L("Apply"), func() { r.bind(r.combo.Text) })
	r.combo.OnSubmitted = func(string) { r.bind(r.combo.Text) }
	r.state = widget.NewLabel("")
	r.state.Wrapping = fyne.TextWrapWord
	r.trayCheck = widget.NewCheck(lang.L("Closing the window keeps memdesk in the tray"), func(on bool) {
		prefs.SetBool(prefKeepInTray, on)
	})
	r.trayCheck.SetChecked(prefs.BoolWithFallback(prefKeepInTray, trayLikely))
	cli := hint(lang.L("From a terminal or a launcher, `memdesk quick` opens the quick window (and starts memdesk when it is not running)."))
	cli.Wrapping = fyne.TextWrapWord
	comboBox := container.NewGridWrap(fyne.NewSize(220, r.combo.MinSize().Height), r.combo)
	r.content = container.NewVBox(
		heading(lang.L("Reach memdesk from anywhere")),
		container.NewHBox(widget.NewLabel(lang.L("Quick window shortcut:")), comboBox, r.apply),
		r.state, cli, r.trayCheck)
	if keys == nil {
		r.combo.Disable()
		r.apply.Disable()
		r.state.SetText(noHotkeyText(noKey))
	}
	return r
}

func noHotkeyText(why string) string {
	if why == "" {
		why = lang.L("this desktop lets no app grab a key for itself")
	}
	return lang.L("No global shortcut: {{.Why}}. To open the quick window from anywhere, {{.Hint}}.", tmpl{"Why": why, "Hint": bindShortcutHint()})
}

// keepInTray reports whether closing the main window should hide it instead of quitting.
func (r *reach) keepInTray() bool { return r.trayCheck.Checked }

// bind grabs combo (replacing the grab in place) and says in Settings whether it holds.
// The new grab waits until the old one has let go, so re-applying the same combination
// does not find it taken by ourselves.
func (r *reach) bind(combo string) {
	if r.keys == nil {
		return
	}
	combo = strings.TrimSpace(combo)
	if combo == "" {
		combo = hotkey.DefaultCombo
	}
	c, err := hotkey.Parse(combo)
	if err != nil {
		r.state.Importance = widget.DangerImportance
		r.state.SetText(hotkeyErrorText(combo, err))
		return
	}
	combo = c.String()
	prev := r.grab
	g := &hotkeyGrab{done: make(chan struct{})}
	r.grab = g
	r.state.Importance = widget.LowImportance
	r.state.SetText(lang.L("Setting up {{.Combo}}…", tmpl{"Combo": combo}))
	g.cancel = r.u.tasks.start(func(ctx context.Context) {
		defer close(g.done)
		if prev != nil {
			prev.cancel()
			<-prev.done
		}
		release, err := r.keys.Grab(ctx, combo, func() { r.u.ShowQuick() })
		r.u.tasks.do(func() {
			if r.grab != g {
				return // a newer Apply owns the message
			}
			r.showGrab(combo, err)
		})
		if err != nil {
			r.u.log.Info("no global shortcut", "combo", combo, "err", err)
			return
		}
		<-ctx.Done()
		release()
	})
}

func (r *reach) showGrab(combo string, err error) {
	if err != nil {
		r.state.Importance = widget.DangerImportance
		r.state.SetText(hotkeyErrorText(combo, err))
		return
	}
	r.u.fa.Preferences().SetString(prefHotkey, combo)
	r.combo.SetText(combo)
	r.state.Importance = widget.SuccessImportance
	r.state.SetText(lang.L("{{.Combo}} opens the quick window from anywhere.", tmpl{"Combo": combo}))
}

// hotkeyErrorText words a failed grab with what to do next.
func hotkeyErrorText(combo string, err error) string {
	switch {
	case errors.Is(err, hotkey.ErrBadCombo):
		return lang.L("{{.Error}}. Write modifiers and one key joined by +, e.g. {{.Example}}.", tmpl{"Error": capitalize(err.Error()), "Example": hotkey.DefaultCombo})
	case errors.Is(err, hotkey.ErrTaken):
		return lang.L("{{.Combo}} is taken by another program: choose another combination, or free it there.", tmpl{"Combo": combo})
	case errors.Is(err, hotkey.ErrNoX11):
		return noHotkeyText(lang.L("there is no X11 display to grab it on (a Wayland session, or no DISPLAY)"))
	}
	return lang.L("{{.Combo}} could not be set up: {{.Error}}. Try another combination, or {{.Hint}}.", tmpl{"Combo": combo, "Error": err.Error(), "Hint": bindShortcutHint()})
}

// trayMenu is the system tray's menu: the quick actions and Quit.
func (u *App) trayMenu() *fyne.Menu {
	quit := fyne.NewMenuItem(lang.L("Quit"), func() { u.fa.Quit() })
	quit.IsQuit = true
	return fyne.NewMenu("memdesk",
		fyne.NewMenuItem(lang.L("Search…"), func() { u.showQuick(time.Now()) }),
		fyne.NewMenuItem(lang.L("Remember…"), func() {
			u.showQuick(time.Now())
			u.quick.note.SetText(lang.L("Type what to remember and press Ctrl+S."))
		}),
		fyne.NewMenuItem(lang.L("Show memdesk"), u.showMain),
		fyne.NewMenuItemSeparator(),
		quit)
}

// setUpTray puts memdesk's icon and menu in the system tray, where there is one. Only
// then: Fyne's Linux tray (fyne.io/systray) panics at quit when it found no session bus.
func (u *App) setUpTray() {
	d, ok := u.fa.(desktop.App)
	if !ok || !u.reach.trayLikely {
		return
	}
	d.SetSystemTrayMenu(u.trayMenu())
	d.SetSystemTrayIcon(u.fa.Icon())
}

// closeMain is the main window's close button: hide it while the app stays in the tray,
// else close it (which quits: it is the app's first window).
func (u *App) closeMain() {
	u.saveWindowSize()
	if u.reach.keepInTray() {
		u.win.Hide()
		u.log.Debug("main window hidden; memdesk stays in the tray")
		return
	}
	u.win.Close()
}

// ShowQuick brings up the quick window. Safe from any goroutine: the hotkey and the
// single-instance socket call it.
func (u *App) ShowQuick() {
	requested := time.Now()
	u.tasks.do(func() { u.showQuick(requested) })
}

// ShowMain brings the main window up. Safe from any goroutine.
func (u *App) ShowMain() { u.tasks.do(u.showMain) }

func (u *App) showMain() {
	u.win.Show()
	u.win.RequestFocus()
	u.focusScreen()
}

func (u *App) showQuick(requested time.Time) {
	u.quick.showNow(requested)
	keeper, ok := u.reach.keys.(windowKeeper)
	if !ok {
		return
	}
	var xid uintptr
	if nw, ok := u.quick.win.(driver.NativeWindow); ok {
		nw.RunNative(func(c any) {
			if x, ok := c.(driver.X11WindowContext); ok {
				xid = x.WindowHandle
			}
		})
	}
	if xid == 0 {
		return
	}
	u.tasks.start(func(context.Context) {
		if err := keeper.KeepAbove(xid); err != nil {
			u.log.Debug("quick window not kept above others", "err", err)
		}
	})
}

// openFromQuick shows a hit from the quick window in the main window, where it lives.
func (u *App) openFromQuick(h engine.Hit) {
	u.showMain()
	u.openHit(h)
}
