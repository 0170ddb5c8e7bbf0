package hotkey

import (
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// KeepAbove asks the window manager to keep an X11 window above the others
// (_NET_WM_STATE_ABOVE, EWMH), for the quick window the hotkey brings up: Fyne has no
// always-on-top API. It is a request; a window manager may ignore it, and without one (Xvfb)
// nothing changes. Call it after the window is mapped: EWMH changes a mapped window's state
// through a client message to the root window.
func (x X11) KeepAbove(window uintptr) error {
	if x.Display == "" {
		return ErrNoX11
	}
	conn, err := xgb.NewConnDisplay(x.Display)
	if err != nil {
		return fmt.Errorf("connect to X display %s: %v: %w", x.Display, err, ErrNoX11)
	}
	defer conn.Close()
	atom := func(name string) (xproto.Atom, error) {
		r, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0, fmt.Errorf("intern %s: %w", name, err)
		}
		return r.Atom, nil
	}
	state, err := atom("_NET_WM_STATE")
	if err != nil {
		return err
	}
	above, err := atom("_NET_WM_STATE_ABOVE")
	if err != nil {
		return err
	}
	const (
		netWMStateAdd    = 1
		sourceNormalApp  = 1
		clientMessageFmt = 32
	)
	ev := xproto.ClientMessageEvent{
		Format: clientMessageFmt,
		Window: xproto.Window(window),
		Type:   state,
		Data:   xproto.ClientMessageDataUnionData32New([]uint32{netWMStateAdd, uint32(above), 0, sourceNormalApp, 0}),
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	mask := uint32(xproto.EventMaskSubstructureRedirect | xproto.EventMaskSubstructureNotify)
	if err := xproto.SendEventChecked(conn, false, root, mask, string(ev.Bytes())).Check(); err != nil {
		return fmt.Errorf("ask the window manager to keep window %#x above: %w", window, err)
	}
	return nil
}
