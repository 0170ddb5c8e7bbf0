package ui

import (
	"context"
	"log/slog"
	"time"
)

// changeWatcher is the optional Backend capability behind the live view: a backend that can
// say when the database changed under the window (the CLI or an agent over MCP wrote). A
// backend without it (a test fake) gives a window that refreshes after its own writes only.
type changeWatcher interface {
	WatchChanges(ctx context.Context, every time.Duration, changed func()) error
}

// liveGap is the least time between two live refreshes. The first change after a quiet
// spell refreshes at once (a memory the CLI writes shows within the watcher's poll); changes
// that keep coming, as during another program's import, refresh once per gap, not on every
// poll: each refresh re-reads the counts, the list, the badges and the shown recall.
const liveGap = time.Second

// live refreshes the window when another program writes to the database. It runs on the UI
// goroutine; only the watcher runs outside it.
type live struct {
	t   *tasks
	log *slog.Logger
	// refresh re-reads everything the window shows, keeping scroll and selection.
	refresh func()
	// busy reports work of the window's own that writes for a while (an import); while it
	// runs, changes wait for it to end, since its own progress and end already refresh.
	busy func() bool
	// gap is liveGap, shorter in tests.
	gap time.Duration

	last    time.Time // when the last live refresh ran
	pending bool      // a change came during the gap or while busy; one refresh is owed
	timer   *time.Timer
	// refreshes counts the live refreshes run, for tests.
	refreshes int
}

// start watches b for changes until the window closes, when b can.
func (l *live) start(b Backend, every time.Duration) {
	w, ok := b.(changeWatcher)
	if !ok {
		return
	}
	l.t.start(func(ctx context.Context) {
		if err := w.WatchChanges(ctx, every, func() { l.t.do(l.changed) }); err != nil {
			// The window still works and refreshes after its own writes; only the news of
			// other programs' writes is lost, and the log says why.
			l.log.Warn("the window will not see other programs' writes until it is opened again", "err", err)
		}
	})
}

// changed follows one signal from the watcher.
func (l *live) changed() {
	if l.busy != nil && l.busy() {
		l.pending = true
		return
	}
	gap := l.gap
	if gap == 0 {
		gap = liveGap
	}
	wait := gap - time.Since(l.last)
	if wait <= 0 {
		l.run()
		return
	}
	if l.pending {
		return // a refresh is already due at the end of the gap
	}
	l.pending = true
	l.timer = time.AfterFunc(wait, func() { l.t.do(l.owed) })
}

// owed runs the refresh a change during the gap or during the window's own work left due.
func (l *live) owed() {
	if !l.pending || (l.busy != nil && l.busy()) {
		return
	}
	l.run()
}

func (l *live) run() {
	l.pending = false
	l.last = time.Now()
	l.refreshes++
	l.refresh()
}
