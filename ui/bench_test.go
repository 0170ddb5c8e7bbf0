package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
)

// BenchmarkStartup measures building the window and showing its first data (status counts
// and the first page of memories) on the test driver: the app's own share of launch time.
func BenchmarkStartup(b *testing.B) {
	h := newHarness(b, Options{}, nil)
	h.poll = 100 * time.Microsecond
	for i := range 50 {
		h.remember(fmt.Sprintf("fact number %d", i), "")
	}
	b.ReportAllocs()
	for b.Loop() {
		u := newApp(h.u.fa, Options{Backend: h.eng}, h.q.post)
		u.Start()
		h.waitFor("the first page", func() bool { return u.memories.pages.length == 50 && u.status.counts.Text != "" })
		u.Close()
	}
}

// BenchmarkMemoriesScroll100k jumps around a 100k-row memories list, each jump reading the
// page it lands on: the list's cost per screenful, without the database.
func BenchmarkMemoriesScroll100k(b *testing.B) {
	const n = 100_000
	mf := &manyFacts{n: n}
	h := newHarness(b, Options{}, func(e *engine.Engine) Backend { mf.Backend = e; return mf }).start()
	h.poll = 100 * time.Microsecond
	h.u.showScreen(screenMemories)
	m := h.u.memories
	h.waitFor("the first page", func() bool { return m.pages.length == n })
	b.ReportAllocs()
	row := 0
	for b.Loop() {
		row = (row + 7919*factPageSize/3) % n
		m.list.ScrollTo(row)
		h.waitFor("the row", func() bool { _, ok := m.pages.row(row); return ok })
	}
}
