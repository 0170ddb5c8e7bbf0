package engine

import (
	stdcmp "cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// TestStreamingSearchMatchesIndex: a one-shot search streaming a space's copy (or SQLite's
// vectors while the copy is written) answers exactly what the in-memory index answers, on
// random and clustered vectors: with no copy yet, with one, after writes and deletes the copy
// does not have, after many of them (the copy is rewritten), and with a copy that is torn or
// belongs to another state of the database (both rebuilt).
func TestStreamingSearchMatchesIndex(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	const n = 2500
	// The copy's layout and the int8 bound do not depend on the width: short mode checks
	// them at 256 dimensions, a quarter of the work of a real model's 1024.
	dims := 1024
	if testing.Short() {
		dims = 256
	}
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
			// Every query is checked against six searches at each of seven steps; three
			// queries cover the ordering the streamed and loaded searches must agree on,
			// a dozen is the fuller run.
			queries := makeVecs(12)
			if testing.Short() {
				queries = queries[:3]
			}
			for _, q := range queries {
				normalizeVector(q)
			}

			// exactHits is the exact float32 search over the store's vectors now: every
			// vector normalized as the index does, every cosine computed, no int8 pass.
			exactHits := func(q []float32, limit int) []leg.VectorHit {
				t.Helper()
				var out []leg.VectorHit
				if _, err := st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, func(id int64, v []float32) {
					if len(v) == len(q) && normalizeVector(v) {
						out = append(out, leg.VectorHit{ID: id, Cos: min(float64(dot(v, q)), 1)})
					}
				}); err != nil {
					t.Fatal(err)
				}
				slices.SortFunc(out, func(a, b leg.VectorHit) int {
					if c := stdcmp.Compare(b.Cos, a.Cos); c != 0 {
						return c
					}
					return stdcmp.Compare(a.ID, b.ID)
				})
				return out[:min(limit, len(out))]
			}
			// memory is the index as a small space keeps it: float32 vectors in memory.
			memory := func() *spaceIndex {
				t.Helper()
				s := &spaceIndex{}
				var err error
				if s.mark, err = st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, s.add); err != nil {
					t.Fatal(err)
				}
				return s
			}
			// long is a long-lived process's index over the whole test: loaded once, then
			// following the change log, its float32 vectors in the copy it loaded.
			long := &vectorIndex{smallSpace: 1}
			defer long.close()

			// check compares, with the exact search, the answers of a one-shot stream, of a
			// freshly loaded long-lived index (from the copy, or from SQLite writing one), of
			// long, and of the index with its float32 vectors in memory. warmFirst loads the
			// fresh index before the stream can rebuild the copy. It returns the rows of the
			// copy the fresh index found damaged.
			check := func(step string, wantNoise, warmFirst bool) (damaged int) {
				t.Helper()
				ref := memory()
				x := &vectorIndex{smallSpace: 1}
				defer x.close()
				var fresh *spaceIndex
				loadFresh := func() {
					var err error
					if fresh, err = x.get(ctx, st, key); err != nil {
						t.Fatal(err)
					}
					if !fresh.lean() || fresh.file == nil {
						t.Fatalf("%s: the fresh index keeps its float32 vectors in memory; want them in the copy", step)
					}
				}
				if warmFirst {
					loadFresh()
				}
				// long catches up in the background past inlineChanges: let it finish.
				if _, err := long.get(ctx, st, key); err != nil {
					t.Fatal(err)
				}
				long.background.Wait()
				warm, err := long.get(ctx, st, key)
				if err != nil {
					t.Fatal(err)
				}
				if !warm.lean() || warm.mark != ref.mark {
					t.Fatalf("%s: the long-lived index is at %+v (lean %v), want %+v and lean", step, warm.mark, warm.lean(), ref.mark)
				}
				for qi, q := range queries {
					for _, limit := range []int{10, 50} {
						got, ok, err := streamNearest(ctx, st, key, q, limit, 0)
						if err != nil || !ok {
							t.Fatalf("%s: streamNearest = %v, %v", step, ok, err)
						}
						if fresh == nil {
							loadFresh()
						}
						want := exactHits(q, limit)
						hitsOf := func(hits []vectorHit) []leg.VectorHit {
							out := make([]leg.VectorHit, len(hits))
							for i, h := range hits {
								out[i] = leg.VectorHit{ID: h.id, Cos: h.cos}
							}
							return out
						}
						refHits, refStats := ref.search(q, limit)
						if diff := cmp.Diff(want, hitsOf(refHits)); diff != "" {
							t.Fatalf("%s, query %d, top %d: the in-memory index differs from the exact search (-exact +index):\n%s", step, qi, limit, diff)
						}
						if diff := cmp.Diff(want, got.Hits); diff != "" {
							t.Fatalf("%s, query %d, top %d: streamed hits differ from the exact search (-exact +stream):\n%s", step, qi, limit, diff)
						}
						sameStats := func(a rank.CosineStats, b cosStats) bool {
							return a.N == b.N && fmt.Sprintf("%.6f %.6f", a.Mean, a.SD) == fmt.Sprintf("%.6f %.6f", b.Mean, b.SD)
						}
						if !sameStats(got.All, refStats) {
							t.Errorf("%s: streamed cosine stats %+v, index %+v", step, got.All, refStats)
						}
						for _, idx := range []struct {
							name string
							s    *spaceIndex
						}{{"fresh", fresh}, {"long-lived", warm}} {
							hits, stats, bad, err := idx.s.searchIn(ctx, st, key, q, limit)
							if err != nil {
								t.Fatal(err)
							}
							if idx.name == "fresh" {
								damaged += bad
							} else if bad > 0 {
								t.Errorf("%s: the long-lived index found %d damaged rows", step, bad)
							}
							if diff := cmp.Diff(want, hitsOf(hits)); diff != "" {
								t.Fatalf("%s, query %d, top %d: the %s index's hits differ from the exact search (-exact +index):\n%s", step, qi, limit, idx.name, diff)
							}
							if !sameStats(rank.CosineStats{N: stats.N, Mean: stats.Mean, SD: stats.SD}, refStats) {
								t.Errorf("%s: the %s index's cosine stats %+v, in memory %+v", step, idx.name, stats, refStats)
							}
						}
						if wantNoise && got.Noise != fresh.noise {
							t.Errorf("%s: streamed noise %v, index %v", step, got.Noise, fresh.noise)
						}
					}
				}
				return damaged
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

			// clean is check for a copy with no damaged rows.
			clean := func(step string, wantNoise, warmFirst bool) {
				t.Helper()
				if damaged := check(step, wantNoise, warmFirst); damaged != 0 {
					t.Errorf("%s: the fresh index found %d damaged rows in a good copy", step, damaged)
				}
			}

			clean("no copy yet", true, false)
			if h := header(); h.rows != n {
				t.Fatalf("the copy holds %d rows, want %d", h.rows, n)
			}
			clean("from the copy", true, false)

			// A few changes: deletes, rewrites and new facts, applied from the log.
			for _, i := range []int{3, 500, 1999} {
				if _, err := st.SetFactStatus(ctx, ids[i], store.StatusDeleted); err != nil {
					t.Fatal(err)
				}
			}
			put(10, makeVecs(20))
			put(addFacts(30), makeVecs(30))
			before := header()
			clean("the copy and a few changes", false, false)
			if h := header(); h.token != before.token {
				t.Errorf("a few changes rewrote the copy")
			}

			// Many changes: the copy is rewritten from itself and the log.
			put(addFacts(fileRewrite+10), makeVecs(fileRewrite+10))
			clean("the copy and many changes", false, false)
			mark, err := st.VectorChangesSince(ctx, key.kind, key.space, key.fingerprint, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if h := header(); h.mark.Seq < mark.Mark.Seq && mark.More {
				t.Errorf("after many changes the copy is at %d; want it rewritten", h.mark.Seq)
			}
			// Its rows are in the order of the copy and the log, not the store's, so its
			// noise sample is another (the index's after the same changes has this order too).
			clean("the rewritten copy", false, false)

			tear := func(offsets func(h vecFileHeader) []int64) {
				t.Helper()
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				h, err := decodeVecFileHeader(b)
				if err != nil {
					t.Fatal(err)
				}
				for _, at := range offsets(h) {
					b[at] ^= 0x55
				}
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// A copy whose codes are torn fails the body's checksum and is rebuilt.
			tear(func(h vecFileHeader) []int64 {
				return []int64{vecFileHeaderSize + vecFileCodesSize(blockRows, h.dims) - 5}
			})
			clean("a copy with torn codes", true, true)
			torn := header()

			// A copy whose float32 rows are torn (every row, so that every candidate is one)
			// loads, but no damaged row is used: they are read from SQLite, and the copy is
			// rebuilt.
			everyRow := func(h vecFileHeader) []int64 {
				v := vecFile{h: h}
				out := make([]int64, h.rows)
				for r := range out {
					out[r] = v.vecOffset(r) + int64(4*(r%h.dims))
				}
				return out
			}
			tear(everyRow)
			if damaged := check("a copy with torn float32 rows", false, true); damaged == 0 {
				t.Errorf("the fresh index found no damaged row in a copy whose every float32 row is torn")
			}
			if h := header(); h.token == torn.token {
				t.Errorf("the stream kept a copy with torn float32 rows; want it rebuilt")
			}
			// A long-lived process that finds a damaged row rebuilds its copy in the background.
			torn = header()
			tear(everyRow)
			{
				x := &vectorIndex{smallSpace: 1}
				if _, err := (vectorSearch{x: x, st: st}).Nearest(ctx, key.kind, key.space, key.fingerprint, queries[0], 10); err != nil {
					t.Fatal(err)
				}
				x.background.Wait()
				idx, err := x.get(ctx, st, key)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, damaged, err := idx.searchIn(ctx, st, key, queries[0], 10); err != nil || damaged > 0 {
					t.Errorf("after a damaged search the long-lived index searches %d damaged rows (%v); want its copy rebuilt", damaged, err)
				}
				x.close()
				if h := header(); h.token == torn.token {
					t.Errorf("a long-lived index searched a damaged copy and did not rebuild it")
				}
				torn = header()
			}

			// A copy the database does not know (a backup restored under it) is rebuilt.
			_, name := vecFilePath(st.Path(), key)
			if err := st.SetVectorCopyToken(ctx, name, "another"); err != nil {
				t.Fatal(err)
			}
			clean("a copy of another state", true, false)
			if h := header(); h.token == torn.token {
				t.Errorf("a copy whose token the database does not hold was used, not rebuilt")
			}

			// A copy a long-lived process wrote as it loaded the space from SQLite.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			clean("a copy the index wrote", true, true)
			s, err := loadSpace(ctx, st, key, true, 1)
			if err != nil {
				t.Fatal(err)
			}
			if h := header(); h.rows != s.live() || h.mark != s.mark {
				t.Errorf("the written copy holds %d rows at %+v, want %d at %+v", h.rows, h.mark, s.live(), s.mark)
			}
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

// warmRounds repeats BenchmarkWarmVectorSearch's arms on the one store it builds, so that on
// a shared machine they are measured in the same minutes:
//
//	go test -run XXX -bench WarmVectorSearch ./engine/ -args -stream-size 100000 -warm-rounds 5
var warmRounds = flag.Int("warm-rounds", 1, "rounds of BenchmarkWarmVectorSearch's arms")

// BenchmarkWarmVectorSearch is a long-lived process's warm search of a large space, the int8
// codes in memory and the candidates re-scored exactly from: the copy's float32 rows
// ("copy", what a large space does), the float32 vectors in memory ("memory", what every
// space did before and a small one does), or SQLite by id ("store", a copy that cannot be
// read). It reports the snapshot's memory per vector.
func BenchmarkWarmVectorSearch(b *testing.B) {
	ctx := context.Background()
	st, key := benchStore(b, *streamSize)
	q := nearQuery(rand.New(rand.NewPCG(5, 6)), clusteredVectors(rand.New(rand.NewPCG(1, 2)), 1, 1024, 300)[0])
	if _, err := loadSpace(ctx, st, key, false, 1); err != nil { // writes the copy
		b.Fatal(err)
	}
	load := map[string]func() *spaceIndex{
		"copy": func() *spaceIndex {
			s, err := loadSpace(ctx, st, key, true, 1)
			if err != nil || s.file == nil {
				b.Fatal("no copy", err)
			}
			return s
		},
		"memory": func() *spaceIndex {
			s, err := loadSpace(ctx, st, key, false, math.MaxInt)
			if err != nil || s.lean() {
				b.Fatal("lean", err)
			}
			return s
		},
		"store": func() *spaceIndex {
			s := &spaceIndex{}
			var codes []int8
			if _, err := st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, func(id int64, vec []float32) {
				if codes == nil {
					codes = make([]int8, len(vec))
				}
				if normalizeVector(vec) {
					s.addFileRow(id, quantize(codes, vec), 0, codes)
				}
			}); err != nil {
				b.Fatal(err)
			}
			s.sealFileRows(nil)
			return s
		},
	}
	for range *warmRounds {
		for _, arm := range []string{"copy", "memory", "store"} {
			b.Run(arm, func(b *testing.B) {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				idx := load[arm]()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportAllocs()
				for b.Loop() {
					if hits, _, damaged, err := idx.searchIn(ctx, st, key, q, candidateLimit); err != nil || len(hits) == 0 || damaged > 0 {
						b.Fatal(hits, damaged, err)
					}
				}
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(idx.rows), "heap-B/vector")
				runtime.KeepAlive(idx)
			})
		}
	}
}
