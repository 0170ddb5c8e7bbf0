package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/store"
)

// indexOf is a snapshot of vecs, with ids 1, 2, ... (vecs are copied: add normalizes).
func indexOf(vecs ...[]float32) *spaceIndex {
	s := &spaceIndex{}
	for i, v := range vecs {
		s.add(int64(i+1), slices.Clone(v))
	}
	s.measureNoise()
	return s
}

func TestSpaceIndexSearch(t *testing.T) {
	idx := indexOf([]float32{1, 0}, []float32{0, 1}, []float32{1, 1})
	got, stats := idx.search([]float32{1, 0}, 10)
	want := []vectorHit{{id: 1, cos: 1}, {id: 3, cos: float64(float32(math.Sqrt2) / 2)}, {id: 2, cos: 0}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(vectorHit{})); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
	// Cosines 1, 0 and 0.707: mean 0.569, standard deviation 0.420.
	if stats.N != 3 || math.Abs(stats.Mean-0.569) > 0.005 || math.Abs(stats.SD-0.420) > 0.005 {
		t.Errorf("stats = %+v, want N 3, mean 0.569, SD 0.420", stats)
	}
	if got, _ := idx.search([]float32{1, 0}, 1); len(got) != 1 || got[0].id != 1 {
		t.Errorf("search, limit 1 = %v, want id 1 alone", got)
	}
	if got, stats := idx.search([]float32{1, 0, 0}, 10); got != nil || stats != (cosStats{}) {
		t.Errorf("search with a query of another width = %v, %v; want nothing", got, stats)
	}
}

func TestSpaceNoise(t *testing.T) {
	e := func(i int) []float32 { v := make([]float32, 8); v[i] = 1; return v }
	tests := []struct {
		name string
		s    *spaceIndex
		want float64
	}{
		{"too few texts to measure", indexOf(e(0), e(0), e(0), e(0), e(0)), 0},
		{"unrelated texts", indexOf(e(0), e(1), e(2), e(3), e(4), e(5)), 0},
		{"texts that all say the same", indexOf(e(0), e(0), e(0), e(0), e(0), e(0)), 1},
		// 15 pairs: one at cosine 1 (the two copies of e0), the rest 0; the 95th
		// percentile is the top pair.
		{"one close pair", indexOf(e(0), e(0), e(2), e(3), e(4), e(5)), 1},
		// 21 pairs, one close: the 95th percentile (20th of 21) is 0.
		{"one close pair among more", indexOf(e(0), e(0), e(2), e(3), e(4), e(5), e(6)), 0},
		// The copy of e0 deleted: six unrelated texts are left.
		{"a deleted row is not measured", indexOf(e(0), e(0), e(1), e(2), e(3), e(4), e(5)).apply(store.VectorDelta{IDs: []int64{2}, Vecs: [][]float32{nil}}), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.spaceNoise(); math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("spaceNoise = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDotInt8(t *testing.T) {
	for _, n := range []int{0, 5, 16, 17, 64, 100, 1024, 1031} {
		a, b := make([]int8, n), make([]int16, n)
		for i := range n {
			a[i], b[i] = int8(i*37-5), int16(i*91%16000-8000)
		}
		var want int32
		for i := range n {
			want += int32(a[i]) * int32(b[i])
		}
		if got := dotInt8(a, b); got != want {
			t.Errorf("dotInt8 of %d = %d, want %d", n, got, want)
		}
	}
}

// clusteredVectors makes n unit vectors that look like a text collection's embeddings: a
// shared direction (every model's cosines sit above 0), a few hundred topics, and each text
// spread around its topic. Random vectors would not do: in 1024 dimensions they are all
// nearly orthogonal, and any index finds their neighbours, or none does.
func clusteredVectors(rng *rand.Rand, n, dims, topics int) [][]float32 {
	gauss := func(scale float64) []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale / math.Sqrt(float64(dims)))
		}
		return v
	}
	common := gauss(0.6)
	centres := make([][]float32, topics)
	for i := range centres {
		centres[i] = gauss(1)
	}
	out := make([][]float32, n)
	for i := range out {
		v, c := gauss(0.9), centres[rng.IntN(topics)]
		for d := range v {
			v[d] += c[d] + common[d]
		}
		normalizeVector(v)
		out[i] = v
	}
	return out
}

// nearQuery is a query close to v: v with noise, normalized.
func nearQuery(rng *rand.Rand, v []float32) []float32 {
	q := slices.Clone(v)
	for d := range q {
		q[d] += float32(rng.NormFloat64() * 0.7 / math.Sqrt(float64(len(q))))
	}
	normalizeVector(q)
	return q
}

// exactTop is the ids (1-based) of the k vectors closest to q, by a float64 scan of them all.
func exactTop(vecs [][]float32, q []float32, k int) ([]int64, cosStats) {
	hits := make([]vectorHit, len(vecs))
	var sum, sumSq float64
	for i, v := range vecs {
		var c float64
		for d := range v {
			c += float64(v[d]) * float64(q[d])
		}
		hits[i] = vectorHit{id: int64(i + 1), cos: c}
		sum, sumSq = sum+c, sumSq+c*c
	}
	slices.SortFunc(hits, func(a, b vectorHit) int { return cmpHits(a, b) })
	ids := make([]int64, k)
	for i := range ids {
		ids[i] = hits[i].id
	}
	mean := sum / float64(len(vecs))
	return ids, cosStats{N: len(vecs), Mean: mean, SD: math.Sqrt(sumSq/float64(len(vecs)) - mean*mean)}
}

func cmpHits(a, b vectorHit) int {
	switch {
	case a.cos > b.cos:
		return -1
	case a.cos < b.cos:
		return 1
	}
	return int(a.id - b.id)
}

// TestQuantizedSearchRecall: the int8 scan with exact re-scoring finds the exact top 10 (at
// most 0.5% of them lost over 200 queries near stored texts), and its cosine statistics are
// those of the exact cosines.
func TestQuantizedSearchRecall(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	rng := rand.New(rand.NewPCG(14, 5))
	vecs := clusteredVectors(rng, 4000, 1024, 300)
	idx := indexOf(vecs...)
	const queries, k = 200, 10
	found := 0
	for range queries {
		q := nearQuery(rng, vecs[rng.IntN(len(vecs))])
		want, wantStats := exactTop(vecs, q, k)
		got, stats := idx.search(q, k)
		for _, h := range got {
			if slices.Contains(want, h.id) {
				found++
			}
		}
		if stats.N != wantStats.N || math.Abs(stats.Mean-wantStats.Mean) > 0.002 || math.Abs(stats.SD-wantStats.SD) > 0.002 {
			t.Fatalf("stats = %+v, want about %+v", stats, wantStats)
		}
	}
	t.Logf("recall@10 loss %.4f", 1-float64(found)/(queries*k))
	if loss := 1 - float64(found)/(queries*k); loss > 0.005 {
		t.Errorf("recall@10 loss = %.4f, want <= 0.005", loss)
	}
}

// TestSnapshotApply: a delta makes a new snapshot, with the changed rows replaced, and leaves
// the one recalls may still be searching as it was.
func TestSnapshotApply(t *testing.T) {
	e := func(i int) []float32 { v := make([]float32, 4); v[i] = 1; return v }
	old := indexOf(e(0), e(1), e(2))
	next := old.apply(store.VectorDelta{Mark: store.VectorMark{Generation: 2, Seq: 9},
		IDs: []int64{1, 3, 7}, Vecs: [][]float32{nil, e(3), e(0)}})
	ids := func(s *spaceIndex, q []float32) []int64 {
		var out []int64
		hits, _ := s.search(q, 10)
		for _, h := range hits {
			if h.cos > 0 {
				out = append(out, h.id)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		s    *spaceIndex
		q    []float32
		want []int64
	}{
		{"old snapshot, e0", old, e(0), []int64{1}},
		{"old snapshot, e2", old, e(2), []int64{3}},
		{"new snapshot, e0: id 1 gone, id 7 added", next, e(0), []int64{7}},
		{"new snapshot, e2: id 3 moved", next, e(2), nil},
		{"new snapshot, e3", next, e(3), []int64{3}},
	} {
		if got := ids(tc.s, tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ids = %v, want %v", tc.name, got, tc.want)
		}
	}
	if next.live() != 3 || old.live() != 3 || next.mark.Seq != 9 {
		t.Errorf("live = %d (old %d), mark %+v; want 3, 3 and seq 9", next.live(), old.live(), next.mark)
	}
	// Past the first block: appending keeps every row where it was.
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := clusteredVectors(rng, 3*blockRows+5, 16, 20)
	s := indexOf(vecs[:blockRows-3]...)
	for i := blockRows - 3; i < len(vecs); i += 32 {
		d := store.VectorDelta{}
		for j := i; j < min(i+32, len(vecs)); j++ {
			d.IDs, d.Vecs = append(d.IDs, int64(j+1)), append(d.Vecs, slices.Clone(vecs[j]))
		}
		s = s.apply(d)
	}
	for _, i := range []int{0, blockRows - 1, blockRows, 2*blockRows + 7, len(vecs) - 1} {
		if hits, _ := s.search(vecs[i], 1); len(hits) != 1 || hits[0].id != int64(i+1) {
			t.Errorf("search for vector %d = %v, want itself", i+1, hits)
		}
	}
}

// TestVectorIndexFollowsStore: over a real store, the index reads the vectors written since
// its snapshot, sees removed ones go, and reloads whole in the background when the change log
// was pruned past it, searching its old snapshot meanwhile.
func TestVectorIndexFollowsStore(t *testing.T) {
	ctx := context.Background()
	const kept = 200 // the store's change logs keep this many rows (20,000 by default)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"), store.Options{Words: leg.IndexWords, ChangesKept: kept})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const fp = "v1/test/4"
	e := func(i int) []float32 { v := make([]float32, 4); v[i%4] = 1; v[(i+1)%4] = float32(i) / 100; return v }
	put := func(vs ...store.Vector) {
		t.Helper()
		if _, err := st.PutVectors(ctx, fp, vs); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int64
	for i := range 6 {
		id, _, err := st.AddFact(ctx, "default", store.NewFact{Content: fmt.Sprint("fact ", i), Hash: fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	put(store.Vector{Kind: store.KindFact, ID: ids[0], Text: "fact 0", Vec: e(0)}, store.Vector{Kind: store.KindFact, ID: ids[1], Text: "fact 1", Vec: e(1)})
	var x vectorIndex
	defer x.close()
	key := vectorIndexKey{kind: store.KindFact, space: "default", fingerprint: fp}
	top := func(q int) (int64, *spaceIndex) {
		t.Helper()
		s, err := x.get(ctx, st, key)
		if err != nil {
			t.Fatal(err)
		}
		hits, _ := s.search(e(q), 1)
		if len(hits) == 0 {
			return 0, s
		}
		return hits[0].id, s
	}
	if got, _ := top(1); got != ids[1] {
		t.Errorf("first load: top for e1 = %d, want %d", got, ids[1])
	}
	put(store.Vector{Kind: store.KindFact, ID: ids[2], Text: "fact 2", Vec: e(2)})
	got, before := top(2)
	if got != ids[2] {
		t.Errorf("after a write: top for e2 = %d, want %d", got, ids[2])
	}
	if _, err := st.SetFactStatus(ctx, ids[2], store.StatusDeleted); err != nil {
		t.Fatal(err)
	}
	if got, _ := top(2); got == ids[2] {
		t.Errorf("after a delete: top for e2 is still the deleted fact %d", got)
	}
	if hits, _ := before.search(e(2), 1); len(hits) != 1 || hits[0].id != ids[2] {
		t.Errorf("the snapshot from before the delete = %v, want it unchanged (fact %d)", hits, ids[2])
	}

	// Prune the log past the snapshot: the recall answers from what it has, the background
	// reloads.
	// The store keeps the newest kept changes; each rewrite of fact 4's vector is one.
	put(store.Vector{Kind: store.KindFact, ID: ids[3], Text: "fact 3", Vec: e(3)})
	put(slices.Repeat([]store.Vector{{Kind: store.KindFact, ID: ids[4], Text: "fact 4", Vec: e(0)}}, kept*5/4)...)
	if err := st.PruneChanges(ctx); err != nil {
		t.Fatal(err)
	}
	top(3) // may or may not see fact 3: the reload runs in the background
	x.background.Wait()
	if got, _ := top(3); got != ids[3] {
		t.Errorf("after the background reload: top for e3 = %d, want %d", got, ids[3])
	}
}

// TestInt8ErrorBound: every row's exact cosine (the float32 dot of the unit vectors, as
// re-scoring computes it) is within int8Error's slack of its int8 score, on random,
// clustered and spiky vectors (one large component: the coarsest steps) of several widths.
// rescoreExact skips the rows whose bound says they cannot enter the answer, so a bound
// that failed would change answers.
func TestInt8ErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	shapes := map[string]func(n, dims int) [][]float32{
		"random": func(n, dims int) [][]float32 {
			out := make([][]float32, n)
			for i := range out {
				out[i] = make([]float32, dims)
				for d := range out[i] {
					out[i][d] = float32(rng.NormFloat64())
				}
			}
			return out
		},
		"clustered": func(n, dims int) [][]float32 { return clusteredVectors(rng, n, dims, 30) },
		"spiky": func(n, dims int) [][]float32 {
			out := make([][]float32, n)
			for i := range out {
				out[i] = make([]float32, dims)
				for d := range out[i] {
					out[i][d] = float32(rng.NormFloat64() * 0.01)
				}
				out[i][rng.IntN(dims)] = float32(rng.NormFloat64())
			}
			return out
		},
	}
	for name, gen := range shapes {
		for _, dims := range []int{3, 64, 768, 1024} {
			t.Run(fmt.Sprintf("%s/%d", name, dims), func(t *testing.T) {
				vecs := gen(500, dims)
				idx := indexOf(vecs...)
				queries := append(gen(10, dims), nearQuery(rng, vecs[0]), nearQuery(rng, vecs[1]))
				worst := 0.0
				for _, q := range queries {
					normalizeVector(q)
					qc, qScale := queryCodes(q)
					bound := newInt8Error(q, qScale)
					for r := range idx.rows {
						b, i := idx.row(r)
						score := float32(dotInt8(b.codes[i*dims:(i+1)*dims], qc)) * b.scales[i] * qScale
						cos := dot(idx.vec(r), q)
						slack := bound.slack(b.scales[i])
						if diff := math.Abs(float64(cos - score)); diff > float64(slack) {
							t.Fatalf("row %d: cosine %v, int8 score %v: %v apart, bound %v", r, cos, score, diff, slack)
						} else {
							worst = max(worst, diff/float64(slack))
						}
					}
				}
				t.Logf("the largest error is %.0f%% of its bound", 100*worst)
			})
		}
	}
}

// TestParallelScanScoresEveryRowAsOneGoroutine: a space large enough for the scan to share its
// dot products among goroutines scores every row exactly as one goroutine does, so a
// search's answer and statistics do not depend on how many cores the machine has.
func TestParallelScanScoresEveryRowAsOneGoroutine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := parallelScanRows + blockRows/2 + 3 // past the bound, the last block partial
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, 16)
		for j := range vecs[i] {
			vecs[i][j] = float32(rng.NormFloat64())
		}
	}
	s := indexOf(vecs...)
	q := vecs[n/3]
	normalizeVector(q)
	qc, qScale := queryCodes(q)
	got := s.scores(qc, qScale)
	if len(got) != s.rows {
		t.Fatalf("%d scores for %d rows", len(got), s.rows)
	}
	for r := range s.rows {
		b, i := s.row(r)
		if want := float32(dotInt8(b.codes[i*s.dims:(i+1)*s.dims], qc)) * b.scales[i] * qScale; got[r] != want {
			t.Fatalf("row %d scored %v, one goroutine scores %v", r, got[r], want)
		}
	}
}
