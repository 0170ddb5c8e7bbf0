package hotkey

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// xvfb starts a private X server for the test and returns its display name; the test is
// skipped where Xvfb is not installed.
func xvfb(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("Xvfb is not installed")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// -noreset: by default the server resets when its last client leaves, and a test that
	// releases its only grab and connects again meets a server in the middle of it.
	cmd := exec.Command(bin, "-displayfd", "3", "-nolisten", "tcp", "-noreset", "-screen", "0", "320x240x24")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb named no display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// press types the combination through the XTEST extension, as a person would.
func press(t *testing.T, display string, c Combo, extraMods ...xproto.Keysym) {
	t.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := xtest.Init(conn); err != nil {
		t.Fatalf("XTEST: %v", err)
	}
	setup := xproto.Setup(conn)
	km, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, byte(setup.MaxKeycode-setup.MinKeycode+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	code := func(sym xproto.Keysym) byte {
		for i := 0; i < len(km.Keysyms); i += int(km.KeysymsPerKeycode) {
			if km.Keysyms[i] == sym {
				return byte(int(setup.MinKeycode) + i/int(km.KeysymsPerKeycode))
			}
		}
		t.Fatalf("no keycode for keysym %#x", sym)
		return 0
	}
	var keys []byte
	for _, s := range extraMods {
		keys = append(keys, code(s))
	}
	for _, m := range []struct {
		mod Modifiers
		sym xproto.Keysym
	}{{Ctrl, 0xffe3}, {Alt, 0xffe9}, {Shift, 0xffe1}, {Super, 0xffeb}} {
		if c.Mods&m.mod != 0 {
			keys = append(keys, code(m.sym))
		}
	}
	keys = append(keys, code(xproto.Keysym(c.Keysym)))
	root := setup.Roots[0].Root
	for _, k := range keys {
		xtest.FakeInput(conn, xproto.KeyPress, k, 0, root, 0, 0, 0)
	}
	for i := len(keys) - 1; i >= 0; i-- {
		xtest.FakeInput(conn, xproto.KeyRelease, keys[i], 0, root, 0, 0, 0)
	}
	xproto.GetInputFocus(conn).Reply() // the fake input is processed before we return
}

func TestX11GrabFiresAndReportsTaken(t *testing.T) {
	display := xvfb(t)
	x := X11{Display: display}
	presses := make(chan struct{}, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release, err := x.Grab(ctx, "ctrl+alt+space", func() { presses <- struct{}{} })
	if err != nil {
		t.Fatalf("Grab: %v", err)
	}
	combo, _ := Parse("ctrl+alt+space")

	press(t, display, combo)
	waitPress(t, presses, "the combo")
	// NumLock on: the grab still fires (its modifier bit is one of the grabbed variants).
	press(t, display, combo, 0xff7f)
	waitPress(t, presses, "the combo with NumLock held")

	if _, err := x.Grab(ctx, "alt+ctrl+space", func() {}); !errors.Is(err, ErrTaken) {
		t.Errorf("a second grab of the same combo = %v, want ErrTaken", err)
	}
	release()
	release() // a second release is harmless
	// Released, the combination can be taken again.
	again, err := x.Grab(ctx, "ctrl+alt+space", func() {})
	if err != nil {
		t.Fatalf("grab after release: %v", err)
	}
	cancel() // ctx ending releases it too
	again()
}

func waitPress(t *testing.T, presses <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-presses:
	case <-time.After(time.Minute): // a deadline for a loaded machine, not an expectation
		t.Fatalf("no press seen for %s", what)
	}
}

func TestX11NoDisplay(t *testing.T) {
	if _, err := (X11{}).Grab(context.Background(), DefaultCombo, func() {}); !errors.Is(err, ErrNoX11) {
		t.Errorf("Grab with no display = %v, want ErrNoX11", err)
	}
	if _, err := (X11{Display: ":9999"}).Grab(context.Background(), DefaultCombo, func() {}); !errors.Is(err, ErrNoX11) {
		t.Errorf("Grab on a display with no server = %v, want ErrNoX11", err)
	}
	if _, err := (X11{Display: ":0"}).Grab(context.Background(), "ctrl", func() {}); !errors.Is(err, ErrBadCombo) {
		t.Errorf("Grab of a bad combo = %v, want ErrBadCombo", err)
	}
}

func TestX11KeepAboveSendsAValidRequest(t *testing.T) {
	display := xvfb(t)
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	screen := xproto.Setup(conn).DefaultScreen(conn)
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(conn, screen.RootDepth, win, screen.Root, 0, 0, 100, 100, 0,
		xproto.WindowClassInputOutput, screen.RootVisual, 0, nil).Check(); err != nil {
		t.Fatal(err)
	}
	xproto.MapWindow(conn, win)
	// Without a window manager nothing acts on it; the X server must still accept it.
	if err := (X11{Display: display}).KeepAbove(uintptr(win)); err != nil {
		t.Errorf("KeepAbove: %v", err)
	}
	if err := (X11{}).KeepAbove(uintptr(win)); !errors.Is(err, ErrNoX11) {
		t.Errorf("KeepAbove with no display = %v, want ErrNoX11", err)
	}
}
