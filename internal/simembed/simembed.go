// Package simembed is a simulated embedding model of known quality, for tuning and testing
// the semantic leg where no strong real model can be downloaded. It knows which texts are
// about the same thing (a benchmark's qrels, the engine's paraphrase probes) and embeds:
//
//   - every document on a direction of its own (pseudo-random, seeded by its id), and every
//     text cut from it (a chunk, a normalized copy) on the same direction: it finds the
//     document by shingles of its normalized text;
//   - every query on the mean direction of its relevant documents, mixed with a direction of
//     its own: Quality is the cosine weight of the relevant part, 1 a perfect model, 0 noise;
//   - a share of the queries (NoiseShare, a fixed subset chosen by their text) on their own
//     direction alone, as a real model embeds a name, a code or a typo: noise whatever the
//     quality, which only per-query trust can tell;
//   - every paraphrase (AddParaphrase: the engine's calibration probes) like a query of
//     ProbeQuality: a model can tell general-language paraphrases better, or worse, than it
//     finds a store's answers, and the calibration only sees the probes;
//   - every other text on its own direction.
//
// Every vector also shares one common direction, with cosine Baseline between unrelated
// texts: real models put unrelated texts at 0.2-0.5, not at 0, and the engine's floors must
// cope with that offset. Vectors are deterministic: the same text always embeds the same.
package simembed

import (
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"
)

// Config is a simulated model's quality.
type Config struct {
	// Dims is the vector width (default 256).
	Dims int
	// Quality in [0, 1]: how much of a query's vector points at its relevant documents.
	Quality float64
	// Baseline in [0, 1): the cosine of two unrelated texts, on average (default 0).
	Baseline float64
	// ProbeQuality is Quality for paraphrases (AddParaphrase); 0: Quality.
	ProbeQuality float64
	// NoiseShare in [0, 1] is the share of queries that embed on their own direction alone
	// (chosen by a hash of their text, so the same queries every run).
	NoiseShare float64
	// Seed varies every direction (a different model of the same quality).
	Seed uint64
}

// Model is a simulated embedding model. Its methods are safe for concurrent use once
// Add* calls are done.
type Model struct {
	cfg Config
	mu  sync.RWMutex
	// groups are documents (by id): a text found in one embeds on its direction.
	shingles map[uint64]int32
	groups   []string
	groupOf  map[string]int32
	// byText maps a document's whole normalized text to its group: copies of one text under
	// other ids (LongMemEval's haystacks share sessions) are one document, or a query
	// pointing at the second copy would miss the first one's direction.
	byText map[uint64]int32
	// queries maps a query's normalized text to its relevant documents' groups and grades;
	// queryShingles finds a query whose text the engine cut (its time words, say).
	queries       map[string][]weighted
	queryShingles map[uint64]string
	// paraphrases are the query keys AddParaphrase registered: they embed at ProbeQuality.
	paraphrases map[string]bool
}

type weighted struct {
	group  int32
	weight float64
}

// New returns an empty model.
func New(cfg Config) *Model {
	if cfg.Dims <= 0 {
		cfg.Dims = 256
	}
	cfg.Quality = min(max(cfg.Quality, 0), 1)
	cfg.Baseline = min(max(cfg.Baseline, 0), 0.99)
	if cfg.ProbeQuality <= 0 {
		cfg.ProbeQuality = cfg.Quality
	}
	cfg.ProbeQuality = min(cfg.ProbeQuality, 1)
	cfg.NoiseShare = min(max(cfg.NoiseShare, 0), 1)
	return &Model{cfg: cfg, shingles: map[uint64]int32{}, groupOf: map[string]int32{}, byText: map[uint64]int32{},
		queries: map[string][]weighted{}, queryShingles: map[uint64]string{}, paraphrases: map[string]bool{}}
}

// Shingles: windows of shingleRunes runes of the normalized text; a document keeps every
// window whose hash falls in 1 of shingleKeep (content-chosen, so a chunk cut anywhere holds
// the same windows as its document where they overlap), and a short one (fewer than
// shortWindows) keeps them all.
const (
	shingleRunes = 12
	shingleKeep  = 4
	shortWindows = 64
)

// AddDocument registers a document: texts cut from it embed on its direction.
func (m *Model) AddDocument(id, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	norm := normalize(text)
	whole := hashRunes(norm)
	if g, ok := m.byText[whole]; ok {
		if _, known := m.groupOf[id]; !known {
			m.groupOf[id] = g
		}
		return
	}
	g := m.group(id)
	m.byText[whole] = g
	all := windows(norm)
	for _, h := range all {
		if h%shingleKeep == 0 || len(all) < shortWindows {
			if _, taken := m.shingles[h]; !taken {
				m.shingles[h] = g
			}
		}
	}
}

// AddQuery registers a query and its relevant documents (ids given to AddDocument, or new
// ids: then the documents are known by id alone) with their grades.
func (m *Model) AddQuery(text string, relevant map[string]float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	norm := normalize(text)
	key := string(norm)
	for _, h := range windows(norm) {
		if _, taken := m.queryShingles[h]; !taken {
			m.queryShingles[h] = key
		}
	}
	for id, w := range relevant {
		if w > 0 {
			m.queries[key] = append(m.queries[key], weighted{group: m.group(id), weight: w})
		}
	}
}

// AddParaphrase registers b as saying what a says: b embeds like a query whose one relevant
// document is a.
func (m *Model) AddParaphrase(a, b string) {
	id := "paraphrase:" + a
	m.AddDocument(id, a)
	m.AddQuery(b, map[string]float64{id: 1})
	m.mu.Lock()
	m.paraphrases[string(normalize(b))] = true
	m.mu.Unlock()
}

// NoiseQuery says whether query (as given to AddQuery) is one of the NoiseShare queries
// that embed on their own direction alone.
func (m *Model) NoiseQuery(query string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.noiseKey(string(normalize(query)))
}

// noiseKey is NoiseQuery of a normalized key; the caller holds m.mu.
func (m *Model) noiseKey(key string) bool {
	if m.cfg.NoiseShare <= 0 || m.paraphrases[key] {
		return false
	}
	h := fnv.New64a()
	h.Write([]byte("noise:" + key))
	return float64(h.Sum64()%10000) < m.cfg.NoiseShare*10000
}

func (m *Model) group(id string) int32 {
	if g, ok := m.groupOf[id]; ok {
		return g
	}
	m.groups = append(m.groups, id)
	m.groupOf[id] = int32(len(m.groups) - 1)
	return int32(len(m.groups) - 1)
}

// Embed returns text's unit vector.
func (m *Model) Embed(text string) []float32 {
	norm := normalize(text)
	m.mu.RLock()
	key := string(norm)
	rel, isQuery := m.queries[key]
	if !isQuery {
		if found := m.findQuery(norm); found != "" {
			key = found
			rel, isQuery = m.queries[key]
		}
	}
	var doc int32 = -1
	if !isQuery {
		doc = m.findDocument(norm)
	}
	q := m.cfg.Quality
	switch {
	case isQuery && m.paraphrases[key]:
		q = m.cfg.ProbeQuality
	case isQuery && m.noiseKey(key):
		q = 0
	}
	m.mu.RUnlock()
	dims := m.cfg.Dims
	own := direction(m.cfg.Seed, "text:"+key, dims)
	var specific []float64
	switch {
	case isQuery:
		target := make([]float64, dims)
		for _, r := range rel {
			addScaled(target, direction(m.cfg.Seed, m.groupName(r.group), dims), r.weight)
		}
		unit(target)
		specific = make([]float64, dims)
		addScaled(specific, target, q)
		addScaled(specific, own, math.Sqrt(1-q*q))
		unit(specific)
	case doc >= 0:
		specific = direction(m.cfg.Seed, m.groupName(doc), dims)
	default:
		specific = own
	}
	// The common direction is the first axis' pseudo-random one: cos(a, b) = Baseline + (1 -
	// Baseline) cos(a', b') for the specific parts a', b'.
	common := direction(m.cfg.Seed, "common", dims)
	v := make([]float64, dims)
	addScaled(v, common, math.Sqrt(m.cfg.Baseline))
	// Keep the specific part orthogonal to the common direction, so the baseline is exact.
	var along float64
	for i := range specific {
		along += specific[i] * common[i]
	}
	addScaled(specific, common, -along)
	unit(specific)
	addScaled(v, specific, math.Sqrt(1-m.cfg.Baseline))
	unit(v)
	out := make([]float32, dims)
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func (m *Model) groupName(g int32) string { return "doc:" + m.groups[g] }

// findDocument returns the group most of text's windows belong to, or -1: at least an
// eighth of its windows must agree (a chunk of a long document finds about a quarter of
// them). A text too short for a window is looked up whole.
func (m *Model) findDocument(norm []rune) int32 {
	votes := map[int32]int{}
	all := windows(norm)
	kept := len(all)
	for _, h := range all {
		if g, ok := m.shingles[h]; ok {
			votes[g]++
		}
	}
	best, bestVotes := int32(-1), 0
	for g, n := range votes {
		if n > bestVotes || n == bestVotes && g < best {
			best, bestVotes = g, n
		}
	}
	if kept == 0 || bestVotes*8 < kept {
		return -1
	}
	return best
}

// findQuery returns the key of the query at least half of text's windows come from, or "".
func (m *Model) findQuery(norm []rune) string {
	votes := map[string]int{}
	all := windows(norm)
	for _, h := range all {
		if key, ok := m.queryShingles[h]; ok {
			votes[key]++
		}
	}
	best, bestVotes := "", 0
	for key, n := range votes {
		if n > bestVotes || n == bestVotes && key < best {
			best, bestVotes = key, n
		}
	}
	if len(all) == 0 || bestVotes*2 < len(all) {
		return ""
	}
	return best
}

// normalize keeps letters and digits, lower-cased: whitespace, punctuation and case are
// what a store's normalization may change in a text.
func normalize(text string) []rune {
	out := make([]rune, 0, len(text))
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, r)
		}
	}
	return out
}

// windows hashes every shingleRunes-rune window of norm (the whole text when shorter).
func windows(norm []rune) []uint64 {
	if len(norm) == 0 {
		return nil
	}
	if len(norm) < shingleRunes {
		return []uint64{hashRunes(norm)}
	}
	out := make([]uint64, 0, len(norm)-shingleRunes+1)
	for i := 0; i+shingleRunes <= len(norm); i++ {
		out = append(out, hashRunes(norm[i:i+shingleRunes]))
	}
	return out
}

func hashRunes(rs []rune) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, r := range rs {
		b[0], b[1], b[2], b[3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}

// direction is a pseudo-random unit vector seeded by name: Gaussian coordinates (Box-Muller
// over splitmix64), so directions are uniform on the sphere.
func direction(seed uint64, name string, dims int) []float64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64() ^ seed
	v := make([]float64, dims)
	for i := 0; i < dims; i += 2 {
		x = splitmix64(x)
		u1 := (float64(x>>11) + 1) / (1 << 53)
		x = splitmix64(x)
		u2 := float64(x>>11) / (1 << 53)
		r := math.Sqrt(-2 * math.Log(u1))
		v[i] = r * math.Cos(2*math.Pi*u2)
		if i+1 < dims {
			v[i+1] = r * math.Sin(2*math.Pi*u2)
		}
	}
	unit(v)
	return v
}

func addScaled(dst, v []float64, s float64) {
	for i := range dst {
		dst[i] += s * v[i]
	}
}

func unit(v []float64) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return
	}
	inv := 1 / math.Sqrt(n)
	for i := range v {
		v[i] *= inv
	}
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
