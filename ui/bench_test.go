package ui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// importCorpus copies the repository's own Go and Markdown files (about 300 real texts of
// 1-60 KB) into a folder, the same for every run.
func importCorpus(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	var n int
	for _, pattern := range []string{"../*.md", "../doc/*.md", "../*/*.go", "../*/*/*.go", "../*/*/*/*.go"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			n++
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d-%s", n, filepath.Base(p))), data, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Logf("import corpus: %d files", n)
	return dir
}

// BenchmarkImportWindowVsEngine imports one folder into a fresh database through the
// window's Import (progress bar, list reloads while files land, the UI queue drained as the
// window's loop would) and through the engine call the CLI's `kb add` makes. Issue 16 asks
// the window to stay within 10% of the CLI; compare the two sub-benchmarks' ns/op, taken in
// alternation (-count) on a quiet machine.
func BenchmarkImportWindowVsEngine(b *testing.B) {
	dir := importCorpus(b)
	ctx := context.Background()
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			e, err := engine.Open(ctx, filepath.Join(b.TempDir(), "m.db"), engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := e.KBAdd(ctx, engine.KBAddRequest{Paths: []string{dir}, Progress: func(engine.ImportProgress) {}})
			b.StopTimer()
			if err != nil || res.Added == 0 {
				b.Fatalf("import: %+v, %v", res.Added, err)
			}
			e.Close()
			b.StartTimer()
		}
	})
	window := func(b *testing.B, background bool) {
		for b.Loop() {
			b.StopTimer()
			h := newHarness(b, Options{}, nil)
			stopRun := func() {}
			if background {
				// As the app runs: the extractor loaded and Run's background work started,
				// so the window's import leaves entities to Run's sweep.
				if err := h.eng.LoadEntities(ctx); err != nil {
					b.Fatal(err)
				}
				runCtx, stop := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- h.eng.Run(runCtx) }()
				// Run's sweep of this import's entities starts when the import ends; it must
				// not run into the next iteration's import.
				stopRun = func() { stop(); <-done }
			}
			h.start()
			h.poll = time.Millisecond
			h.u.showScreen(screenKnowledge)
			k := h.u.knowledge
			h.waitFor("the first document list", func() bool { return k.lists > 0 })
			b.StartTimer()
			k.importPaths([]string{dir})
			h.waitWithin(10*time.Minute, "the import", func() bool { return k.cancelImport == nil })
			b.StopTimer()
			h.u.Close()
			stopRun()
			b.StartTimer()
		}
	}
	b.Run("window", func(b *testing.B) { window(b, false) })
	b.Run("window-as-the-app", func(b *testing.B) { window(b, true) })
}

var typingStore = flag.String("typing-store", "", "BenchmarkTypeToResults50k: a memdesk database to search instead of the synthetic 50k chunks (copied first; e.g. one with a real folder imported)")

// BenchmarkTypeToResults50k times what a person waits for after the last keystroke, once the
// debounce has fired: the window's own recall path from the query to the result cards built
// on the UI goroutine, over 50,000 chunks. Issue 12 asks for at most 100 ms plus the
// debounce. The synthetic store repeats one sentence in every chunk, so its common words
// ("garden shed") are the worst case for bm25: every posting is read. The engine is warmed
// as the app's Run warms it at start. Reports the first search after the window opened (its
// words' postings not yet read) apart, and p50, p95 and max over the rest.
func BenchmarkTypeToResults50k(b *testing.B) {
	ctx := context.Background()
	var queries []string
	var h *harness
	if *typingStore != "" {
		data, err := os.ReadFile(*typingStore)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "m.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		eng, err := engine.Open(ctx, path, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		h = newHarnessOn(b, eng, Options{}, nil)
		queries = []string{"shared mime database", "ssh agent forwarding", "copyright license", "how to configure the proxy",
			"python", "changelog", "ValueError", "编码", "build dependencies for the package", "the"}
	} else {
		const files, perFile = 10, 5000
		h = newHarness(b, Options{}, nil)
		dir := b.TempDir()
		for i := range files {
			writeSections(b, dir, fmt.Sprintf("book%02d.md", i), perFile, perFile*3/4, fmt.Sprintf("zeppelin%d", i))
		}
		if _, err := h.eng.KBAdd(ctx, engine.KBAddRequest{Paths: []string{dir}}); err != nil {
			b.Fatal(err)
		}
		queries = []string{"zeppelin7", "garden shed", "routine upkeep of the tools", "Part 4000", "north lawn zeppelin3",
			"handbook", "garden", "shed tools upkeep routine", "nothing like this", "the"}
	}
	warmStart := time.Now()
	h.eng.Warm(ctx) // as the app's Run does first, while the window opens
	b.Logf("Warm took %v", time.Since(warmStart))
	h.start()
	h.poll = 100 * time.Microsecond
	st, err := h.eng.Stats(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("store: %d chunks, %d facts", st.Chunks, st.FactsActive)
	r := h.u.recall
	b.Run("window", func(b *testing.B) {
		timeTyping(b, h, queries, typingSurface{query: r.query, search: r.search, shown: func() string { return r.shown.Query }})
	})
	// The quick window (the hotkey's) searches through the same engine call with its own
	// request and rows; issue 17 asks for its first results within 100 ms of typing.
	b.Run("quick", func(b *testing.B) {
		q := h.quickUp()
		timeTyping(b, h, queries, typingSurface{query: q.query, search: q.search, shown: func() string { return q.shown.Query }})
	})
}

// typingSurface is a search box, its live search and what its rows show.
type typingSurface struct {
	query  *searchEntry
	search *liveSearch
	shown  func() string
}

// timeTyping types each query into s, fires its debounce at once, and times until the rows
// show that query's answer; it reports the first search apart (cold caches) and p50, p95 and
// max over the rest.
func timeTyping(b *testing.B, h *harness, queries []string, s typingSurface) {
	var all []time.Duration
	perQuery := map[string][]time.Duration{}
	var first time.Duration
	for b.Loop() {
		for _, q := range queries {
			start := time.Now()
			s.query.SetText(q)
			s.search.now()
			h.waitFor("the results of "+q, func() bool { return s.shown() == q })
			took := time.Since(start)
			if first == 0 {
				first = took // this box's first search: cold caches, statements prepared
			} else {
				all = append(all, took)
			}
			perQuery[q] = append(perQuery[q], took)
			s.query.SetText("")
			s.search.now()
			h.waitFor("the empty screen", func() bool { return s.shown() == "" })
		}
	}
	for _, q := range queries {
		b.Logf("%-36q %v", q, perQuery[q])
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(all[len(all)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
}
