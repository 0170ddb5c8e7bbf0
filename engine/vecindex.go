package engine

import (
	"context"
	"math"
	"sort"
	"sync"

	"github.com/memdesk/memdesk/store"
)

// vectorIndex caches, per (kind, space, fingerprint), the normalized vectors of one space in
// one flat slice for exact cosine search. An entry is reused while the store's vector
// generation for its kind is unchanged, so a write anywhere in the kind reloads it on the
// next query that needs it.
type vectorIndex struct {
	mu      sync.Mutex
	entries map[vectorIndexKey]*spaceIndex
	// noise is each fingerprint's calibrated noise floor (see noiseFloor).
	noise map[string]float64
}

type vectorIndexKey struct{ kind, space, fingerprint string }

type spaceIndex struct {
	generation int64
	dims       int
	ids        []int64
	flat       []float32 // len(ids) * dims
	// noise is how close this space's own texts are to each other (spaceNoise): a
	// semantic-only answer must be closer to the query than that.
	noise float64
}

// get returns the current index of one space, loading it when it is missing or stale.
func (x *vectorIndex) get(ctx context.Context, st *store.Store, key vectorIndexKey) (*spaceIndex, error) {
	gen, err := st.VectorGeneration(ctx, key.kind)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if cur, ok := x.entries[key]; ok && cur.generation == gen {
		return cur, nil
	}
	sv, err := st.VectorsForSpace(ctx, key.kind, key.space, key.fingerprint)
	if err != nil {
		return nil, err
	}
	idx := &spaceIndex{generation: gen}
	for i, v := range sv.Vecs {
		if idx.dims == 0 {
			idx.dims = len(v)
		}
		if len(v) != idx.dims || !normalizeVector(v) {
			continue // one fingerprint has one width; anything else is not searchable
		}
		idx.ids = append(idx.ids, sv.IDs[i])
		idx.flat = append(idx.flat, v...)
	}
	idx.noise = idx.spaceNoise()
	if x.entries == nil {
		x.entries = map[vectorIndexKey]*spaceIndex{}
	}
	// Only the spaces of the current fingerprint are worth keeping.
	for k := range x.entries {
		if k.fingerprint != key.fingerprint {
			delete(x.entries, k)
		}
	}
	x.entries[key] = idx
	return idx, nil
}

// Space noise. The probes measure a model's noise on short sentences; texts of one space can
// sit closer together than that: a mean-pooled bag of words pulls every long abstract toward
// the average English text (GloVe on SciFact: random abstract pairs at cosine 0.68 median,
// 0.83 at the 95th percentile, above the probes' 0.76, and a nonsense query's neighbours at
// 0.79). So each space also measures itself: the spaceNoiseQuantile of the cosines between
// up to spaceNoiseSample of its texts, spread evenly over it. Texts of one store are not all
// unrelated, which makes this a high bar rather than a low one: right for a leg that may only
// add answers.
const (
	spaceNoiseSample   = 256
	spaceNoiseQuantile = 0.95
)

// spaceNoise is the space's own noise floor (0 for a space of fewer than minNoiseProbes
// texts: too few to measure).
func (s *spaceIndex) spaceNoise() float64 {
	n := len(s.ids)
	if n < minNoiseProbes {
		return 0
	}
	m := min(n, spaceNoiseSample)
	vec := func(i int) []float32 { j := i * n / m; return s.flat[j*s.dims : (j+1)*s.dims] }
	cos := make([]float64, 0, m*(m-1)/2)
	for i := range m {
		for j := i + 1; j < m; j++ {
			cos = append(cos, float64(dot(vec(i), vec(j))))
		}
	}
	sort.Float64s(cos)
	rank := int(math.Ceil(spaceNoiseQuantile*float64(len(cos)))) - 1
	return min(max(cos[max(rank, 0)], 0), 1)
}

// vectorHit is one vector search result.
type vectorHit struct {
	id  int64
	cos float64
}

// search returns up to limit ids whose cosine with the unit vector q is at least minCosine,
// best first (ties by id).
func (s *spaceIndex) search(q []float32, minCosine float64, limit int) []vectorHit {
	if len(q) != s.dims || s.dims == 0 {
		return nil
	}
	var out []vectorHit
	for i, id := range s.ids {
		if cos := float64(dot(s.flat[i*s.dims:(i+1)*s.dims], q)); cos >= minCosine && cos > 0 {
			out = append(out, vectorHit{id: id, cos: min(cos, 1)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].cos != out[j].cos {
			return out[i].cos > out[j].cos
		}
		return out[i].id < out[j].id
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// dot is the dot product of two vectors of equal length. Four accumulators let the CPU
// overlap the multiply-adds: 12.5 -> 9 ms for 10k x 768 on the 2-core dev machine. At 100k
// vectors the scan is bound by memory bandwidth (~100 ms for 300 MB of float32); int8
// quantization with exact re-scoring is the next step there (BenchmarkVectorSearch).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
