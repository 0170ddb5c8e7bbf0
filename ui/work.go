package ui

import (
	"context"
	"sync"
	"time"
)

// tasks owns the window's background work: every engine call runs on a goroutine started
// here and ends when its own cancel or the window's is called. The window is the owner the
// house style asks for, so tasks keeps the window's lifetime context; no other struct holds
// a context.
type tasks struct {
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	post   func(func()) // runs a function on the UI goroutine without waiting
}

func newTasks(post func(func())) *tasks {
	life, cancel := context.WithCancel(context.Background())
	return &tasks{life: life, cancel: cancel, post: post}
}

// start runs work on a new goroutine under a context that ends with the window or with the
// returned cancel. Call it from the UI goroutine.
func (t *tasks) start(work func(ctx context.Context)) context.CancelFunc {
	ctx, cancel := context.WithCancel(t.life)
	if t.life.Err() != nil {
		return cancel
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer cancel()
		work(ctx)
	}()
	return cancel
}

// do runs f on the UI goroutine unless the window has closed. Safe from any goroutine; it
// never blocks, so an engine callback (import progress) cannot stall on the UI.
func (t *tasks) do(f func()) {
	if t.life.Err() != nil {
		return
	}
	t.post(func() {
		if t.life.Err() == nil {
			f()
		}
	})
}

// stop cancels all work and waits for it. Call it once the UI loop has ended.
func (t *tasks) stop() {
	t.cancel()
	t.wg.Wait()
}

// debouncer runs an action once typing has paused. Only the latest trigger fires: a timer
// that fired while a newer trigger was pending finds its generation stale and does nothing.
type debouncer struct {
	delay time.Duration
	timer *time.Timer
	gen   int
	due   bool // a trigger waits to fire (UI goroutine only)
}

// trigger schedules f on the UI goroutine after the delay, replacing any pending one.
// Call it from the UI goroutine.
func (d *debouncer) trigger(t *tasks, f func()) {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.gen++
	gen := d.gen
	d.due = true
	d.timer = time.AfterFunc(d.delay, func() {
		t.do(func() {
			if gen == d.gen {
				d.due = false
				f()
			}
		})
	})
}

// flush runs f now and drops any pending trigger.
func (d *debouncer) flush(f func()) {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.gen++
	d.due = false
	f()
}

// reread runs the background reads that keep one view current, one at a time: a read asked
// for while one runs folds into one more, started when the running one lands. Reads that
// supersede each other instead (the newest wins, older answers are dropped) starve when each
// takes longer than the asks come: during another program's entity sweep the live view asks
// every second, a 100k-memory list under that load takes longer, and the window showed
// nothing new for minutes (issue 27, item 4). A read the person asked for (a filter, a new
// query) still supersedes; reread is for re-reading what is already shown.
type reread struct {
	running bool
	owed    bool
}

// ask runs read now, or once the running read has landed. read must call landed on the UI
// goroutine once its answer has been shown or dropped; a read that never lands (the window
// closed) leaves nothing to do. UI goroutine only.
func (r *reread) ask(read func(landed func())) {
	if r.running {
		r.owed = true
		return
	}
	r.running = true
	read(func() {
		r.running = false
		if r.owed {
			r.owed = false
			r.ask(read)
		}
	})
}
