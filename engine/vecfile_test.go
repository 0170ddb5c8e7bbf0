package engine

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/store"
)

// TestStreamingSearchMatchesIndex: a one-shot search streaming a space's copy (or SQLite's
// vectors while the copy is written) answers exactly what the in-memory index answers, on
// random and clustered vectors: with no copy yet, with one, after writes and deletes the copy
// does not have, after many of them (the copy is rewritten), and with a copy that is torn or
// belongs to another state of the database (both rebuilt).
func TestStreamingSearchMatchesIndex(t *testing.T) {
	const n, dims = 2500, 1024
	for _, shape := range []string{"random", "clustered"} {
		t.Run(shape, func(t *testing.T) {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(7, uint64(len(shape))))
			makeVecs := func(m int) [][]float32 {
				if shape == "clustered" {
					return clusteredVectors(rng, m, dims, 40)
				}
				out := make([][]float32, m)
				for i := range out {
					out[i] = make([]float32, dims)
					for d := range out[i] {
						out[i][d] = float32(rng.NormFloat64())
					}
				}
				return out
			}
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"), store.Options{Words: leg.IndexWords})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			const fp = "v1/test/1024"
			key := vectorIndexKey{kind: store.KindFact, space: "default", fingerprint: fp}
			var ids []int64
			var texts []string
			put := func(from int, vecs [][]float32) {
				t.Helper()
				batch := make([]store.Vector, len(vecs))
				for i, v := range vecs {
					batch[i] = store.Vector{Kind: store.KindFact, ID: ids[from+i], Text: texts[from+i], Vec: v}
				}
				if _, err := st.PutVectors(ctx, fp, batch); err != nil {
					t.Fatal(err)
				}
			}
			addFacts := func(m int) int {
				from := len(ids)
				for i := range m {
					text := fmt.Sprintf("fact %d", from+i)
					id, _, err := st.AddFact(ctx, "default", store.NewFact{Content: text, Hash: text})
					if err != nil {
						t.Fatal(err)
					}
					ids, texts = append(ids, id), append(texts, text)
				}
				return from
			}
			put(addFacts(n), makeVecs(n))
			queries := makeVecs(12)
			for _, q := range queries {
				normalizeVector(q)
			}

			// check compares the streamed answers with a freshly loaded index's.
			check := func(step string, wantNoise bool) {
				t.Helper()
				var x vectorIndex
				defer x.close()
				idx, err := x.get(ctx, st, key)
				if err != nil {
					t.Fatal(err)
				}
				for qi, q := range queries {
					for _, limit := range []int{10, 50} {
						got, ok, err := streamNearest(ctx, st, key, q, limit, 0)
						if err != nil || !ok {
							t.Fatalf("%s: streamNearest = %v, %v", step, ok, err)
						}
						hits, stats, err := idx.searchIn(ctx, st, key, q, limit)
						if err != nil {
							t.Fatal(err)
						}
						want := make([]leg.VectorHit, len(hits))
						for i, h := range hits {
							want[i] = leg.VectorHit{ID: h.id, Cos: h.cos}
						}
						if diff := cmp.Diff(want, got.Hits); diff != "" {
							t.Fatalf("%s, query %d, top %d: streamed hits differ from the index's (-index +stream):\n%s", step, qi, limit, diff)
						}
						if got.All.N != stats.N || fmt.Sprintf("%.6f %.6f", got.All.Mean, got.All.SD) != fmt.Sprintf("%.6f %.6f", stats.Mean, stats.SD) {
							t.Errorf("%s: streamed cosine stats %+v, index %+v", step, got.All, stats)
						}
						if wantNoise && got.Noise != idx.noise {
							t.Errorf("%s: streamed noise %v, index %v", step, got.Noise, idx.noise)
						}
					}
				}
			}
			path, _ := vecFilePath(st.Path(), key)
			header := func() vecFileHeader {
				t.Helper()
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("the copy: %v", err)
				}
				h, err := decodeVecFileHeader(b)
				if err != nil {
					t.Fatal(err)
				}
				return h
			}

			check("no copy yet", true)
			if h := header(); h.rows != n {
				t.Fatalf("the copy holds %d rows, want %d", h.rows, n)
			}
			check("from the copy", true)

			// A few changes: deletes, rewrites and new facts, applied from the log.
			for _, i := range []int{3, 500, 1999} {
				if _, err := st.SetFactStatus(ctx, ids[i], store.StatusDeleted); err != nil {
					t.Fatal(err)
				}
			}
			put(10, makeVecs(20))
			put(addFacts(30), makeVecs(30))
			before := header()
			check("the copy and a few changes", false)
			if h := header(); h.token != before.token {
				t.Errorf("a few changes rewrote the copy")
			}

			// Many changes: the copy is rewritten from itself and the log.
			put(addFacts(fileRewrite+10), makeVecs(fileRewrite+10))
			check("the copy and many changes", false)
			mark, err := st.VectorChangesSince(ctx, key.kind, key.space, key.fingerprint, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if h := header(); h.mark.Seq < mark.Mark.Seq && mark.More {
				t.Errorf("after many changes the copy is at %d; want it rewritten", h.mark.Seq)
			}
			// Its rows are in the order of the copy and the log, not the store's, so its
			// noise sample is another (the index's after the same changes has this order too).
			check("the rewritten copy", false)

			// A torn copy is rebuilt.
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-5] ^= 0x55
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			check("a torn copy", true)
			torn := header()

			// A copy the database does not know (a backup restored under it) is rebuilt.
			_, name := vecFilePath(st.Path(), key)
			if err := st.SetVectorCopyToken(ctx, name, "another"); err != nil {
				t.Fatal(err)
			}
			check("a copy of another state", true)
			if h := header(); h.token == torn.token {
				t.Errorf("a copy whose token the database does not hold was used, not rebuilt")
			}

			// A copy a long-lived process's lean snapshot wrote after loading from SQLite.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			lean := &spaceIndex{lean: true}
			if lean.mark, err = st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, lean.add); err != nil {
				t.Fatal(err)
			}
			if err := lean.measureNoiseIn(ctx, st, key); err != nil {
				t.Fatal(err)
			}
			if err := lean.writeCopy(ctx, st, key); err != nil {
				t.Fatal(err)
			}
			if h := header(); h.rows != lean.live() || h.mark != lean.mark {
				t.Errorf("the written copy holds %d rows at %+v, want %d at %+v", h.rows, h.mark, lean.live(), lean.mark)
			}
			check("a copy the index wrote", true)
		})
	}
}

// streamSize is the space BenchmarkStreamingSearch builds in a real store; the default
// keeps CI's -benchtime=1x quick:
//
//	go test -run XXX -bench StreamingSearch ./engine/ -args -stream-size 100000
var streamSize = flag.Int("stream-size", 3000, "vectors in BenchmarkStreamingSearch's space")

// benchStore is a real store with n clustered 1024-d vectors in one space, and the key of
// that space.
func benchStore(b *testing.B, n int) (*store.Store, vectorIndexKey) {
	b.Helper()
	ctx := context.Background()
	const dims = 1024
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "m.db"), store.Options{Words: leg.IndexWords})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	const fp = "v1/bench/1024"
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := clusteredVectors(rng, n, dims, 300)
	for start := 0; start < n; start += 1000 {
		batch := make([]store.Vector, 0, 1000)
		for i := start; i < min(start+1000, n); i++ {
			text := fmt.Sprintf("fact %d", i)
			id, _, err := st.AddFact(ctx, "default", store.NewFact{Content: text, Hash: text})
			if err != nil {
				b.Fatal(err)
			}
			batch = append(batch, store.Vector{Kind: store.KindFact, ID: id, Text: text, Vec: vecs[i]})
		}
		if _, err := st.PutVectors(ctx, fp, batch); err != nil {
			b.Fatal(err)
		}
	}
	return st, vectorIndexKey{kind: store.KindFact, space: "default", fingerprint: fp}
}

// BenchmarkStreamingSearch is a one-shot search's vector part on a space with a current copy
// beside the database: stream the int8 copy, read the change log, re-score from SQLite.
func BenchmarkStreamingSearch(b *testing.B) {
	ctx := context.Background()
	st, key := benchStore(b, *streamSize)
	q := nearQuery(rand.New(rand.NewPCG(5, 6)), clusteredVectors(rand.New(rand.NewPCG(1, 2)), 1, 1024, 300)[0])
	if _, ok, err := streamNearest(ctx, st, key, q, candidateLimit, 0); err != nil || !ok { // writes the copy
		b.Fatal(ok, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, _, err := streamNearest(ctx, st, key, q, candidateLimit, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLeanVectorSearch is a long-lived process's warm search of a large space: int8
// codes in memory, the candidates re-scored from SQLite by id. It reports the snapshot's
// memory per vector (BenchmarkVectorSearch's int8 arm keeps float32 too).
func BenchmarkLeanVectorSearch(b *testing.B) {
	ctx := context.Background()
	st, key := benchStore(b, *streamSize)
	q := nearQuery(rand.New(rand.NewPCG(5, 6)), clusteredVectors(rand.New(rand.NewPCG(1, 2)), 1, 1024, 300)[0])
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	idx := &spaceIndex{lean: true}
	if _, err := st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, idx.add); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if hits, _, err := idx.searchIn(ctx, st, key, q, candidateLimit); err != nil || len(hits) == 0 {
			b.Fatal(hits, err)
		}
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(idx.rows), "heap-B/vector")
}
