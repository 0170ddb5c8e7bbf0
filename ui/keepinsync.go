package ui

import (
	"context"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// folderWatcher is the optional Backend capability behind "Keep a folder in sync": a
// backend without it (a test fake, a remote engine) shows no switch.
type folderWatcher interface {
	Watch(ctx context.Context, req engine.WatchRequest) error
	KBUnwatch(ctx context.Context, space, root string) error
}

// syncSwitch keeps one chosen folder in sync while it is on: turning it on asks for a
// folder and watches it (engine.Watch) until it is turned off or the window closes.
type syncSwitch struct {
	t       *tasks
	w       folderWatcher
	dialogs *dialogs
	space   func() string
	changed func()      // after each synced file, on the UI goroutine
	failed  func(error) // when the folder cannot be watched, on the UI goroutine

	check   *widget.Check
	folder  *widget.Label
	content fyne.CanvasObject

	root string
	stop func() // non-nil while a folder is watched; stops the watch and forgets the folder
}

// newSyncSwitch returns the switch, or nil when b cannot watch folders.
func newSyncSwitch(t *tasks, b Backend, dialogs *dialogs, space func() string, changed func(), failed func(error)) *syncSwitch {
	w, ok := b.(folderWatcher)
	if !ok {
		return nil
	}
	s := &syncSwitch{t: t, w: w, dialogs: dialogs, space: space, changed: changed, failed: failed}
	s.folder = caption("")
	s.check = widget.NewCheck(lang.L("Keep a folder in sync"), s.toggled)
	s.content = container.NewHBox(s.check, s.folder)
	return s
}

func (s *syncSwitch) toggled(on bool) {
	if !on {
		s.unwatch()
		return
	}
	if s.stop != nil {
		return
	}
	s.dialogs.showFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil || dir == nil {
			s.check.SetChecked(false)
			if err != nil {
				s.failed(err)
			}
			return
		}
		s.watch(dir.Path())
	})
}

// watch starts keeping root in sync with the space the window is in. Call it from the UI
// goroutine.
func (s *syncSwitch) watch(root string) { s.watchIn(root, s.space()) }

// watchIn starts keeping root in sync with space. Call it from the UI goroutine.
func (s *syncSwitch) watchIn(root, space string) {
	s.unwatch()
	s.root = root
	s.folder.SetText(display.Line(root))
	req := engine.WatchRequest{Root: root, Space: space,
		Events: func(engine.WatchEvent) { s.t.do(s.changed) }}
	// The folder is forgotten only after its watch has ended, so a watch just starting
	// cannot record it again; a window that closes leaves it recorded.
	var forget atomic.Bool
	cancel := s.t.start(func(ctx context.Context) {
		err := s.w.Watch(ctx, req)
		if forget.Load() {
			_ = s.w.KBUnwatch(context.WithoutCancel(ctx), req.Space, root)
		}
		s.t.do(func() {
			if err != nil && !forget.Load() {
				s.failed(err)
				s.stop = nil
				s.check.SetChecked(false)
			}
		})
	})
	s.stop = func() { forget.Store(true); cancel() }
	// With stop set, the toggle this fires knows a folder is watched and asks for none.
	s.check.SetChecked(true)
}

// unwatch stops the watch and forgets the folder; its documents stay.
func (s *syncSwitch) unwatch() {
	if s.stop == nil {
		return
	}
	s.stop()
	s.stop = nil
	s.folder.SetText("")
}
