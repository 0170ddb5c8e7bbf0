package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// uiQueue stands in for the UI goroutine: work goroutines post widget updates here and the
// test goroutine runs them while it polls, so every widget is touched by one goroutine.
type uiQueue struct {
	mu  sync.Mutex
	fns []func()
}

func (q *uiQueue) post(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
}

func (q *uiQueue) drain() {
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return
		}
		for _, f := range fns {
			f()
		}
	}
}

// harness is a started App over a real engine on a temporary database.
type harness struct {
	t   testing.TB
	u   *App
	q   *uiQueue
	eng *engine.Engine
	// poll is how often waitFor looks again; benchmarks poll faster so the wait does not
	// dominate what they measure.
	poll time.Duration
}

// newHarness opens an engine; wrap, when set, puts a test Backend around it.
func newHarness(t testing.TB, opts Options, wrap func(*engine.Engine) Backend) *harness {
	t.Helper()
	// PDFCacheDir: the PDFium compile scripts/test.sh shares among test processes.
	eng, err := engine.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), engine.Options{PDFCacheDir: os.Getenv("MEMDESK_TEST_PDF_CACHE")})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	return newHarnessOn(t, eng, opts, wrap)
}

// newHarnessOn is newHarness over an engine the caller opened (on a database of its own);
// the harness closes it.
func newHarnessOn(t testing.TB, eng *engine.Engine, opts Options, wrap func(*engine.Engine) Backend) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	opts.Backend = eng
	if wrap != nil {
		opts.Backend = wrap(eng)
	}
	h := &harness{t: t, q: &uiQueue{}, eng: eng, poll: 10 * time.Millisecond}
	h.u = newApp(a, opts, h.q.post)
	t.Cleanup(func() {
		h.u.Close() // the window's goroutines end before the engine closes
		if err := eng.Close(); err != nil {
			t.Errorf("close engine: %v", err)
		}
	})
	return h
}

func (h *harness) start() *harness {
	h.u.Start()
	return h
}

// waitFor runs queued UI updates until cond holds, failing after 1 min: a deadline for a
// loaded CI machine, not an expectation (quiet, it holds within milliseconds).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.waitWithin(time.Minute, what, cond)
}

// waitWithin is waitFor with a longer bound, for work that runs a whole gold set.
func (h *harness) waitWithin(limit time.Duration, what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		h.q.drain()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(h.poll)
	}
}

func (h *harness) remember(text, space string) int64 {
	h.t.Helper()
	res, err := h.eng.Remember(context.Background(), engine.RememberRequest{Text: text, Space: space})
	if err != nil {
		h.t.Fatalf("remember %q: %v", text, err)
	}
	return res.FactID
}

// walk visits the visible objects under o as they are rendered (the widgets' cached
// renderers, so list rows are the ones on screen).
func walk(o fyne.CanvasObject, visit func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	visit(o)
	switch c := o.(type) {
	case *fyne.Container:
		for _, child := range c.Objects {
			walk(child, visit)
		}
	case fyne.Widget:
		for _, child := range test.WidgetRenderer(c).Objects() {
			walk(child, visit)
		}
	}
}

// texts collects the visible text under root: labels, rich text, buttons, canvas text.
func texts(root fyne.CanvasObject) string {
	var b strings.Builder
	walk(root, func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			b.WriteString(w.Text + "\n")
		case *widget.RichText:
			b.WriteString(w.String() + "\n")
		case *widget.Button:
			b.WriteString(w.Text + "\n")
		case *canvas.Text:
			b.WriteString(w.Text + "\n")
		}
	})
	return b.String()
}

// button finds the first visible button labelled text under root.
func button(root fyne.CanvasObject, text string) *widget.Button {
	var found *widget.Button
	walk(root, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && found == nil && b.Text == text {
			found = b
		}
	})
	return found
}

// shown reports a widget that exists and is visible: what a person can tap. Tests wait on
// it, not on the engine's state, before tapping (a list draws its rows after its data).
func shown(o fyne.CanvasObject) bool {
	if o == nil {
		return false
	}
	if b, ok := o.(*widget.Button); ok && b == nil {
		return false
	}
	return o.Visible()
}

// overlay is the top dialog on the window, or nil.
func (h *harness) overlay() fyne.CanvasObject {
	return h.u.win.Canvas().Overlays().Top()
}

func entryIn(root fyne.CanvasObject) *widget.Entry {
	var found *widget.Entry
	walk(root, func(o fyne.CanvasObject) {
		if found != nil {
			return
		}
		switch e := o.(type) {
		case *widget.Entry:
			found = e
		case *dialogEntry:
			found = &e.Entry
		}
	})
	return found
}
