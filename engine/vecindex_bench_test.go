package engine

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/store"
)

// catchUpSize is the space BenchmarkRecallDuringCatchUp builds in a real store. Building
// 100k x 1024 takes a few minutes, so the default is small enough for CI's -benchtime=1x:
//
//	go test -run XXX -bench RecallDuringCatchUp ./engine/ -args -catchup-size 100000
var (
	catchUpSize  = flag.Int("catchup-size", 5000, "vectors in BenchmarkRecallDuringCatchUp's space")
	catchUpPause = flag.Duration("catchup-pause", 20*time.Millisecond, "pause between BenchmarkRecallDuringCatchUp's batches")
)

// exactSearch is the flat float32 scan the int8 index replaced, kept to measure against.
// It selects the top limit with the index's heap, so the two differ only in the scan.
func exactSearch(vecs [][]float32, q []float32, limit int) []vectorHit {
	best := make([]candidate, 0, limit)
	for i, v := range vecs {
		score := dot(v, q)
		switch {
		case len(best) < limit:
			best = append(best, candidate{score: score, row: int32(i)})
			siftUp(best, len(best)-1)
		case score > best[0].score:
			best[0] = candidate{score: score, row: int32(i)}
			siftDown(best, 0)
		}
	}
	out := make([]vectorHit, len(best))
	for i, c := range best {
		out[i] = vectorHit{id: int64(c.row) + 1, cos: float64(c.score)}
	}
	slices.SortFunc(out, cmpHits)
	return out
}

// BenchmarkVectorSearch: one query of candidateLimit over clustered vectors, exactly (float32
// scan of every vector) and through the index (int8 scan, float32 re-scoring). It also
// reports the index's memory per vector.
func BenchmarkVectorSearch(b *testing.B) {
	for _, size := range []struct{ n, dims int }{{10_000, 768}, {10_000, 1024}, {100_000, 768}, {100_000, 1024}} {
		rng := rand.New(rand.NewPCG(1, 2))
		vecs := clusteredVectors(rng, size.n, size.dims, 300)
		q := nearQuery(rng, vecs[size.n/2])
		b.Run(fmt.Sprintf("%dx%d/float32", size.n, size.dims), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := exactSearch(vecs, q, candidateLimit); len(got) == 0 {
					b.Fatal("no hit")
				}
			}
		})
		b.Run(fmt.Sprintf("%dx%d/int8", size.n, size.dims), func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			idx := indexOf(vecs...)
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := idx.search(q, candidateLimit); len(got) == 0 {
					b.Fatal("no hit")
				}
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(size.n), "heap-B/vector")
		})
	}
}

// BenchmarkVectorDelta: applying a catch-up batch of 32 new vectors to a snapshot of 100k x
// 1024, and a batch of 32 that replaces vectors already there (a linear pass over the ids).
func BenchmarkVectorDelta(b *testing.B) {
	const n, dims = 100_000, 1024
	rng := rand.New(rand.NewPCG(3, 4))
	vecs := clusteredVectors(rng, n+32, dims, 300)
	base := indexOf(vecs[:n]...)
	for _, tc := range []struct {
		name  string
		first int64 // id of the batch's first vector
	}{{"append32", n + 1}, {"replace32", n / 2}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := store.VectorDelta{}
				for i := range 32 {
					d.IDs = append(d.IDs, tc.first+int64(i))
					d.Vecs = append(d.Vecs, slices.Clone(vecs[n+i]))
				}
				if next := base.apply(d); next.live() < n {
					b.Fatal("rows lost")
				}
			}
		})
	}
}

// BenchmarkRecallDuringCatchUp measures the semantic search of a recall (index lookup and
// search, as the semantic leg does through vectorSearch) over a real store of catchUpSize
// vectors, while nothing is written and while a catch-up writes 32 vectors at a time in
// another goroutine, and
// reports the 50th and 99th percentile latencies of each. The first round's catch-up adds
// new vectors; later rounds write the same owners' vectors again (replacing rows).
func BenchmarkRecallDuringCatchUp(b *testing.B) {
	ctx := context.Background()
	const dims, batch = 1024, 32
	n := *catchUpSize
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "m.db"), store.Options{Words: leg.IndexWords})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	extra := max(n/10, 20*batch) // owners left for the catch-up to embed
	vecs := clusteredVectors(rng, n+extra, dims, 300)
	facts := make([]store.NewFact, n+extra)
	for i := range facts {
		facts[i] = store.NewFact{Content: fmt.Sprint("fact ", i), Hash: fmt.Sprint(i)}
	}
	var ids []int64
	for start := 0; start < len(facts); start += 5000 {
		got, _, err := st.AddFacts(ctx, "default", facts[start:min(start+5000, len(facts))])
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, got...)
	}
	const fp = "v1/bench/1024"
	put := func(from, to int) {
		vs := make([]store.Vector, 0, to-from)
		for i := from; i < to; i++ {
			vs = append(vs, store.Vector{Kind: store.KindFact, ID: ids[i], Text: facts[i].Content, Vec: vecs[i]})
		}
		if _, err := st.PutVectors(ctx, fp, vs); err != nil {
			b.Fatal(err)
		}
	}
	for start := 0; start < n; start += 2000 {
		put(start, min(start+2000, n))
	}
	var x vectorIndex
	defer x.close()
	key := vectorIndexKey{kind: store.KindFact, space: "default", fingerprint: fp}
	recall := func(q []float32) time.Duration {
		start := time.Now()
		idx, err := x.get(ctx, st, key)
		if err != nil {
			b.Fatal(err)
		}
		if hits, _, _, err := idx.searchIn(ctx, st, key, q, candidateLimit); err != nil || len(hits) == 0 {
			b.Fatal("no hit", err)
		}
		return time.Since(start)
	}
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = nearQuery(rng, vecs[rng.IntN(n)])
	}
	recall(queries[0]) // the first load
	measure := func(rounds int) []time.Duration {
		var out []time.Duration
		for i := range rounds {
			out = append(out, recall(queries[i%len(queries)]))
		}
		return out
	}
	report := func(name string, d []time.Duration) {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, name+"-p99-ms")
	}
	for b.Loop() {
		quiet := measure(300)
		// The catch-up writes as EmbedPending does, a batch at a time, catchUpPause apart:
		// faster than any model embeds 32 texts, so recalls meet a delta often. Without the
		// pause the writer's SQLite work takes a core of two, and the figures measure that.
		var wg sync.WaitGroup
		done := make(chan struct{})
		wg.Go(func() {
			for start := n; start < n+extra; start += batch {
				put(start, min(start+batch, n+extra))
				time.Sleep(*catchUpPause)
			}
			close(done)
		})
		var busy []time.Duration
		for {
			select {
			case <-done:
			default:
				busy = append(busy, recall(queries[len(busy)%len(queries)]))
				continue
			}
			break
		}
		wg.Wait()
		report("quiet", quiet)
		if len(busy) > 0 {
			report("catchup", busy)
		}
		b.ReportMetric(float64(len(busy)), "catchup-recalls")
	}
}
