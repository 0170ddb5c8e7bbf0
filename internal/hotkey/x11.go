package hotkey

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// ErrNoX11 means there is no X server to grab a key on: no DISPLAY, or a Wayland session,
// where an X11 grab would only see keys typed into other X11 windows.
var ErrNoX11 = errors.New("no X11 display to grab a key on")

// ErrTaken means another program already grabbed the combination (X11's BadAccess).
var ErrTaken = errors.New("another program already uses this key combination")

// numLockKeysym is Num_Lock; which modifier bit it sets depends on the keymap (usually Mod2).
const numLockKeysym = 0xff7f

// X11 grabs combinations on an X server's root window. The zero value is not usable: name
// the display (":0"); cmd reads it from DISPLAY.
type X11 struct {
	Display string
	Log     *slog.Logger
}

// Grab parses combo, grabs it on the root window and calls pressed (on its own goroutine)
// each time it is pressed, until ctx ends or release is called. It returns once the grab
// holds or has failed: ErrBadCombo, ErrNoX11 or ErrTaken, wrapped. release ungrabs, closes
// the connection and waits for the event goroutine; it is safe to call more than once.
func (x X11) Grab(ctx context.Context, combo string, pressed func()) (func(), error) {
	c, err := Parse(combo)
	if err != nil {
		return nil, err
	}
	if x.Display == "" {
		return nil, ErrNoX11
	}
	log := x.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := xgb.NewConnDisplay(x.Display)
	if err != nil {
		return nil, fmt.Errorf("connect to X display %s: %v: %w", x.Display, err, ErrNoX11)
	}
	g, err := grab(conn, c)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("grab %s: %w", c, err)
	}
	log.Debug("hotkey grabbed", "combo", c.String(), "keycodes", len(g.keycodes))

	var wg sync.WaitGroup
	var once sync.Once
	var released atomic.Bool
	release := func() {
		once.Do(func() {
			released.Store(true)
			g.ungrab()
			conn.Close() // ends WaitForEvent
			wg.Wait()
		})
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			ev, xerr := conn.WaitForEvent()
			switch {
			case ev == nil && xerr == nil:
				if !released.Load() { // the X server went away (the session ended, a crash)
					log.Warn("the global shortcut stopped working: the X connection closed", "combo", c.String())
				}
				return
			case xerr != nil:
				log.Debug("X11 error on the hotkey connection", "err", xerr)
			default:
				if kp, ok := ev.(xproto.KeyPressEvent); ok && g.matches(kp) {
					log.Debug("hotkey pressed", "combo", c.String())
					pressed()
				}
			}
		}
	}()
	stop := context.AfterFunc(ctx, release)
	return func() { stop(); release() }, nil
}

// grabbed is one combination held on the root window of one connection.
type grabbed struct {
	conn     *xgb.Conn
	root     xproto.Window
	mods     uint16
	ignored  uint16 // NumLock and CapsLock: pressed with or without them, the combo fires
	keycodes []xproto.Keycode
}

func grab(conn *xgb.Conn, c Combo) (*grabbed, error) {
	setup := xproto.Setup(conn)
	if len(setup.Roots) == 0 {
		return nil, fmt.Errorf("the X server has no screen: %w", ErrNoX11)
	}
	g := &grabbed{conn: conn, root: setup.Roots[0].Root, mods: uint16(c.Mods)}
	count := byte(setup.MaxKeycode - setup.MinKeycode + 1)
	km, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, count).Reply()
	if err != nil {
		return nil, fmt.Errorf("read the keyboard map: %w", err)
	}
	per := int(km.KeysymsPerKeycode)
	symsOf := func(kc xproto.Keycode) []xproto.Keysym {
		i := int(kc-setup.MinKeycode) * per
		if per == 0 || i < 0 || i+per > len(km.Keysyms) {
			return nil
		}
		return km.Keysyms[i : i+per]
	}
	// A key grab is by keycode: grab every key whose unshifted symbol is the keysym (a
	// keyboard may have two, e.g. both Enter keys share Return only on some maps).
	var numLock []xproto.Keycode
	for kc := int(setup.MinKeycode); kc <= int(setup.MaxKeycode); kc++ {
		syms := symsOf(xproto.Keycode(kc))
		if len(syms) > 0 && uint32(syms[0]) == c.Keysym {
			g.keycodes = append(g.keycodes, xproto.Keycode(kc))
		}
		for _, s := range syms {
			if s == numLockKeysym {
				numLock = append(numLock, xproto.Keycode(kc))
			}
		}
	}
	if len(g.keycodes) == 0 {
		return nil, fmt.Errorf("no key on this keyboard types %s", keyName(c.Keysym))
	}
	g.ignored = xproto.ModMaskLock | numLockMask(conn, numLock)

	for _, kc := range g.keycodes {
		for _, mods := range grabVariants(g.mods, g.ignored) {
			err := xproto.GrabKeyChecked(conn, false, g.root, mods, kc, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
			if err == nil {
				continue
			}
			g.ungrab()
			if _, taken := err.(xproto.AccessError); taken {
				return nil, ErrTaken
			}
			return nil, err
		}
	}
	return g, nil
}

// numLockMask finds the modifier bit NumLock sets in this keymap; Mod2 when it is not mapped.
func numLockMask(conn *xgb.Conn, numLock []xproto.Keycode) uint16 {
	mm, err := xproto.GetModifierMapping(conn).Reply()
	if err != nil || mm.KeycodesPerModifier == 0 {
		return xproto.ModMask2
	}
	per := int(mm.KeycodesPerModifier)
	for i, kc := range mm.Keycodes {
		for _, n := range numLock {
			if kc == n && kc != 0 {
				return 1 << (i / per)
			}
		}
	}
	return xproto.ModMask2
}

// grabVariants is mods with every combination of the ignored bits, so the combo fires with
// NumLock or CapsLock on: X11 matches a grab's modifiers exactly.
func grabVariants(mods, ignored uint16) []uint16 {
	var bits []uint16
	for b := uint16(1); b != 0 && b <= ignored; b <<= 1 {
		if ignored&b != 0 {
			bits = append(bits, b)
		}
	}
	out := make([]uint16, 0, 1<<len(bits))
	for set := 0; set < 1<<len(bits); set++ {
		m := mods
		for i, b := range bits {
			if set&(1<<i) != 0 {
				m |= b
			}
		}
		out = append(out, m)
	}
	return out
}

func (g *grabbed) matches(kp xproto.KeyPressEvent) bool {
	if kp.State&^g.ignored&^0xff00 != g.mods { // the high bits are pointer buttons
		return false
	}
	for _, kc := range g.keycodes {
		if kp.Detail == kc {
			return true
		}
	}
	return false
}

func (g *grabbed) ungrab() {
	for _, kc := range g.keycodes {
		for _, mods := range grabVariants(g.mods, g.ignored) {
			xproto.UngrabKey(g.conn, kc, g.root, mods)
		}
	}
	// The ungrabs are sent before the connection closes; Sync waits for the server to take them.
	xproto.GetInputFocus(g.conn).Reply()
}
