package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpaceIndexSearch(t *testing.T) {
	idx := &spaceIndex{dims: 2, ids: []int64{1, 2, 3}, flat: []float32{1, 0, 0, 1, float32(math.Sqrt2) / 2, float32(math.Sqrt2) / 2}}
	got := idx.search([]float32{1, 0}, 0.5, 10)
	want := []vectorHit{{id: 1, cos: 1}, {id: 3, cos: float64(float32(math.Sqrt2) / 2)}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(vectorHit{})); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
	if got := idx.search([]float32{1, 0, 0}, 0, 10); got != nil {
		t.Errorf("search with a query of another width = %v, want nil", got)
	}
}

func TestSpaceNoise(t *testing.T) {
	index := func(vecs ...[]float32) *spaceIndex {
		s := &spaceIndex{dims: len(vecs[0])}
		for i, v := range vecs {
			s.ids = append(s.ids, int64(i+1))
			s.flat = append(s.flat, v...)
		}
		return s
	}
	e := func(i int) []float32 { v := make([]float32, 8); v[i] = 1; return v }
	tests := []struct {
		name string
		s    *spaceIndex
		want float64
	}{
		{"too few texts to measure", index(e(0), e(0), e(0), e(0), e(0)), 0},
		{"unrelated texts", index(e(0), e(1), e(2), e(3), e(4), e(5)), 0},
		{"texts that all say the same", index(e(0), e(0), e(0), e(0), e(0), e(0)), 1},
		// 15 pairs: one at cosine 1 (the two copies of e0), the rest 0; the 95th
		// percentile is the top pair.
		{"one close pair", index(e(0), e(0), e(2), e(3), e(4), e(5)), 1},
		// 21 pairs, one close: the 95th percentile (20th of 21) is 0.
		{"one close pair among more", index(e(0), e(0), e(2), e(3), e(4), e(5), e(6)), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.spaceNoise(); math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("spaceNoise = %v, want %v", got, tc.want)
			}
		})
	}
}

func BenchmarkVectorSearch(b *testing.B) {
	for _, size := range []struct{ n, dims int }{{10_000, 768}, {10_000, 1024}, {100_000, 768}, {100_000, 1024}} {
		b.Run(fmt.Sprintf("%dx%d", size.n, size.dims), func(b *testing.B) {
			idx := &spaceIndex{dims: size.dims, ids: make([]int64, size.n), flat: make([]float32, size.n*size.dims)}
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range idx.ids {
				idx.ids[i] = int64(i + 1)
				row := idx.flat[i*size.dims : (i+1)*size.dims]
				for d := range row {
					row[d] = rng.Float32() - 0.5
				}
				normalizeVector(row)
			}
			q := append([]float32(nil), idx.flat[:size.dims]...)
			b.ReportAllocs()
			for b.Loop() {
				if got := idx.search(q, 0.5, candidateLimit); len(got) == 0 {
					b.Fatal("no hit for a stored vector")
				}
			}
		})
	}
}
