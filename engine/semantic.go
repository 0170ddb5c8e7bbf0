package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// Embedder is the semantic leg's backend, as the engine needs it. cmd adapts modelboot's
// Ollama client to it; tests use fakes. A nil Embedder (Options.Embedder) switches the
// semantic leg off.
type Embedder interface {
	// Embed returns one vector per text, in order: the document side, for the facts and
	// chunks that are stored and searched. When some inputs fail it returns the
	// vectors with a nil entry for each failed input and a non-nil error; an entry of length
	// 0 (or of zero norm) means the text embedded to the zero vector: no semantic evidence,
	// recorded as such and not retried. Any other error with no vectors fails the call.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the vector of one search query: the query side, which a model
	// trained with a query instruction words differently from Embed's texts. A vector of
	// length 0 (or of zero norm) means the query carries no semantic evidence.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
	// Fingerprint declares the representation the vectors are made in (backend, model,
	// digest, width, pooling, normalization, input window, input template), "" while it is
	// not known. The
	// engine versions it (fingerprintVersion); vectors of two fingerprints are never mixed.
	Fingerprint() string
	// Ready reports whether Embed can be expected to work now. It must not block.
	Ready() bool
}

// Semantic-leg constants.
const (
	// fingerprintVersion prefixes every stored fingerprint; a stored fingerprint without it
	// is legacy. Bump it when the meaning of a vector changes while the backend's declared
	// representation does not (e.g. how text is cut before embedding).
	fingerprintVersion = "v1/"
	// embedPageSize is how many texts one catch-up page embeds and stores (one transaction).
	// The embedder splits a page into requests sized to the model's speed; a page must be
	// long enough not to cap a fast model's requests (GloVe on the testbed: Ollama embeds
	// 2,750/s in requests of 512, 2,300/s of 256, 750/s of 32), and a crash loses at most
	// two pages of model time (the one being stored, the one being embedded).
	embedPageSize = 512
	// vectorsFixPassBudget is how many owners one vectors-fix pass embeds when no budget is
	// given. Every pass ends with a full count and drains the page pipeline: 2,048 a pass
	// measured 2,500/s where 512 did 2,100/s (testbed, 5k facts).
	vectorsFixPassBudget = 2048
	// DefaultEmbedBudget is how many owners one catch-up pass embeds.
	DefaultEmbedBudget = 512
	// queryEmbedTimeout bounds embedding the query: recall never waits long for the model.
	// A short query embeds in well under it on a CPU; a model Ollama must load first may not,
	// and that query answers on the other legs.
	queryEmbedTimeout = time.Second
	// slowEmbedTimeout bounds it for slowModelWindow after the model last missed its bound:
	// a server answering slower than recall can wait costs each recall this much, not
	// queryEmbedTimeout, until one embed is on time again.
	slowEmbedTimeout = 200 * time.Millisecond
	slowModelWindow  = time.Minute
	// semanticIdlePoll is how often Run looks for new rows to embed once caught up, or for
	// the embedder to become ready.
	semanticIdlePoll = 5 * time.Second
)

// fingerprint is the current versioned fingerprint, or "" when the embedder is off or has not
// declared one yet.
func (e *Engine) fingerprint() string {
	if e.opts.Embedder == nil {
		return ""
	}
	fp := e.opts.Embedder.Fingerprint()
	if fp == "" {
		return ""
	}
	return fingerprintVersion + fp
}

// SemanticState is the semantic leg's state for a status line ("off", "offline", "ready", ...).
func (e *Engine) SemanticState() string { return e.opts.SemanticState() }

// semanticReady reports whether the semantic leg can run now, and its fingerprint.
func (e *Engine) semanticReady() (string, bool) {
	if e.opts.Embedder == nil || !e.opts.Embedder.Ready() {
		return "", false
	}
	fp := e.fingerprint()
	return fp, fp != ""
}

// EmbedReport is the outcome of one catch-up pass.
type EmbedReport struct {
	Embedded  int `json:"embedded"`  // vectors stored
	Zero      int `json:"zero"`      // texts that embedded to the zero vector (recorded as no evidence)
	Failed    int `json:"failed"`    // texts the embedder failed on (left for a later pass)
	Remaining int `json:"remaining"` // owners still without a vector in the fingerprint
}

// ErrSemanticOff: the semantic leg is off or its model is not ready.
var ErrSemanticOff = errors.New("semantic leg not ready")

// EmbedPending embeds up to budget facts and chunks that have no vector in the current
// fingerprint (new, edited, or made by another model), in pages that are each stored in
// their own transaction, so a cancelled or crashed pass keeps what it finished and the next
// pass resumes. While one page is stored the next is already being embedded: the model
// does not wait for the database. A text that embeds to the zero vector is stored as a zero
// marker and never retried in this fingerprint; a text the embedder fails on is skipped for
// the rest of this pass (the pass walks ids upward) and tried again by the next one. Writes
// made meanwhile are never overwritten: a vector is stored only if its owner still holds the
// embedded text. On an error the report counts what was stored before it.
func (e *Engine) EmbedPending(ctx context.Context, budget int) (EmbedReport, error) {
	var rep EmbedReport
	fp, ok := e.semanticReady()
	if !ok {
		return rep, fmt.Errorf("embed pending: semantic %s: %w", e.opts.SemanticState(), ErrSemanticOff)
	}
	if budget <= 0 {
		budget = DefaultEmbedBudget
	}
	left := budget
	for _, kind := range []string{store.KindFact, store.KindChunk} {
		if err := e.embedKind(ctx, kind, fp, &left, &rep); err != nil {
			return rep, err
		}
	}
	d, err := e.st.DiagnoseVectors(ctx, fp)
	if err != nil {
		return rep, err
	}
	rep.Remaining = d.Stale
	return rep, nil
}

// embeddingPage is one page of owners on its way through the embedder.
type embeddingPage struct {
	owners []store.StaleOwner
	vecs   [][]float32
	err    error
	done   chan struct{} // closed when vecs and err are set
}

// embedKind is EmbedPending's walk over the owners of one kind, taking from *left and
// counting into rep: it reads a page, starts embedding it, stores the page before it
// meanwhile, then waits for the embedding.
func (e *Engine) embedKind(ctx context.Context, kind, fp string, left *int, rep *EmbedReport) error {
	ctx, cancel := context.WithCancel(ctx)
	var inflight *embeddingPage
	defer func() {
		cancel()
		if inflight != nil {
			<-inflight.done // the embedding goroutine ends with its call
		}
	}()
	var after int64
	var ready *embeddingPage // embedded, to be stored
	for {
		var owners []store.StaleOwner
		if *left > 0 {
			var err error
			if owners, err = e.st.NextMissingVectors(ctx, kind, fp, after, min(e.embedPage, *left)); err != nil {
				return err
			}
		}
		if len(owners) > 0 {
			after = owners[len(owners)-1].ID
			*left -= len(owners)
			inflight = e.startEmbedding(ctx, owners)
		}
		if ready != nil {
			if err := e.storePage(ctx, kind, fp, ready, rep); err != nil {
				return err
			}
			ready = nil
		}
		if inflight == nil {
			return nil
		}
		<-inflight.done
		ready, inflight = inflight, nil
	}
}

// startEmbedding embeds the texts of owners in a goroutine that ends when the call does;
// the caller waits on the page's done.
func (e *Engine) startEmbedding(ctx context.Context, owners []store.StaleOwner) *embeddingPage {
	p := &embeddingPage{owners: owners, done: make(chan struct{})}
	texts := make([]string, len(owners))
	for i, o := range owners {
		texts[i] = o.Text
	}
	go func() {
		defer close(p.done)
		p.vecs, p.err = e.opts.Embedder.Embed(ctx, texts)
	}()
	return p
}

// storePage stores an embedded page in one transaction and counts it into rep.
func (e *Engine) storePage(ctx context.Context, kind, fp string, p *embeddingPage, rep *EmbedReport) error {
	vecs, err := p.vecs, p.err
	if len(vecs) != len(p.owners) {
		if err == nil {
			err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(p.owners))
		}
		return fmt.Errorf("embed pending: %w", err)
	}
	if err != nil {
		e.log.Debug("some texts failed to embed; a later pass retries them", "kind", kind, "err", err)
	}
	if e.fingerprint() != fp {
		// The model changed under us: these vectors belong to neither space for sure.
		return fmt.Errorf("embed pending: the embedding model changed during the pass: %w", ErrSemanticOff)
	}
	batch := make([]store.Vector, 0, len(p.owners))
	for i, o := range p.owners {
		v := vecs[i]
		if v == nil {
			rep.Failed++
			continue
		}
		if !normalizeVector(v) {
			v = nil // zero marker
		}
		batch = append(batch, store.Vector{Kind: kind, ID: o.ID, Text: o.Text, Vec: v})
	}
	// The page cost seconds of model time: wait for a busy lock, not lose it, and keep it
	// when the pass is cancelled meanwhile (the next page's embedding may be what saw the
	// cancel): one short transaction, then the pass stops.
	keep := context.WithoutCancel(ctx)
	if err := waitOutBusy(keep, func() error { _, err := e.st.PutVectors(keep, fp, batch); return err }); err != nil {
		return err
	}
	for _, v := range batch {
		if len(v.Vec) == 0 {
			rep.Zero++
		} else {
			rep.Embedded++
		}
	}
	return nil
}

// normalizeVector scales v to unit length in place and reports false for a vector of zero (or
// non-finite) norm, which carries no semantic evidence and must never be divided by.
func normalizeVector(v []float32) bool {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	norm := math.Sqrt(sum)
	if len(v) == 0 || norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return false
	}
	inv := 1 / norm
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return true
}

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

// Calibration. Cosine has no meaning shared across models: unrelated English sentences
// score up to ~0.75 under a mean-pooled bag of words (the testbed's GloVe model), up to ~0.98
// under a random model, and ~0.3-0.5 under bge-m3, so one configured floor cannot separate
// evidence from noise for every model. Each vector space measures its own noise once, when
// it is first used: it embeds noiseProbes, a fixed bundle of mutually unrelated sentences in
// Chinese and English, and takes the highest cosine between two of them as its noise floor
// (a semantic-only answer must beat every pair of sentences about nothing in common). It
// then checks the model can tell meaning at all: the median cosine of paraphraseProbes must
// clear that noise floor, or the model is given no say (noise floor 1). The semantic floor a
// recall applies is the larger of the noise floor and the configured one
// (min_semantic_similarity acts as a minimum; 0 still switches the floor off). Measured in
// doc/semantic.md.
const (
	// minNoiseProbes is how many noise probes must embed to a non-zero vector for the noise
	// to be measured; with fewer the configured floor stands alone.
	minNoiseProbes = 6
	// minParaphraseProbes is how many paraphrase pairs must embed for the model's sense of
	// meaning to be judged; with fewer it is not judged.
	minParaphraseProbes = 3
	// calibrationTimeout bounds embedding the probes (once per vector space).
	calibrationTimeout = 30 * time.Second
	// noSemantics is the noise floor of a model that cannot tell a paraphrase from noise.
	noSemantics = 1.0
)

// noiseProbes are about nothing in common with each other: every topic appears once, in
// Chinese or in English. Changing them changes every calibrated floor: measure first.
func noiseProbes() []string {
	return []string{
		"Our flight to Lisbon was delayed by three hours because of fog.",
		"The violin concerto was first performed in Vienna in 1806.",
		"Rotate the tires every ten thousand kilometres to keep the wear even.",
		"Photosynthesis turns sunlight, water and carbon dioxide into sugar.",
		"The quarterly tax return is due at the end of the month.",
		"She knitted a green scarf for her grandson's birthday.",
		"The backup job restarts the database server every night at two.",
		"Elephants can recognise themselves in a mirror.",
		"He scored the winning goal in the last minute of extra time.",
		"Jupiter has at least ninety known moons.",
		"Wet paint: please do not lean on the railing.",
		"The bakery on the corner sells rye bread only on Saturdays.",
		"明天上午十点在三楼会议室面试新同事。",
		"这只猫每天晚上都要爬到书架上睡觉。",
		"长江是中国最长的河流，全长约六千三百公里。",
		"快递员说包裹下午送到小区门口。",
		"奶奶种的西红柿今年结得特别多。",
		"这双跑鞋穿了两年，鞋底还很新。",
		"唐代诗人李白留下了近千首诗。",
		"外婆的老房子在一条很窄的巷子里。",
		"感冒的时候要多喝水、多休息。",
		"他在大学里学的是土木工程。",
		"冬天的哈尔滨会举办冰雕节。",
		"这份合同需要两位股东签字才能生效。",
	}
}

// paraphraseProbes are pairs that say the same thing in other words (and across languages):
// a model with any sense of meaning puts them closer than unrelated sentences.
func paraphraseProbes() [][2]string {
	return [][2]string{
		{"The doctor said I should rest my knee for two weeks.", "My physician told me not to use my injured leg for a fortnight."},
		{"The car would not start this morning.", "My vehicle's engine failed to turn on today."},
		{"I am allergic to peanuts.", "Eating nuts makes me ill."},
		{"The meeting was moved to Friday.", "We rescheduled the conference call to the end of the week."},
		{"老王喜欢简约风格。", "我的领导偏爱简单朴素的设计。"},
		{"我下周要去北京出差。", "下个星期我因为工作要到首都去。"},
		{"小李对花生过敏。", "Xiao Li has a peanut allergy."},
		{"这台笔记本电脑的电池只能用两个小时。", "The laptop battery lasts only two hours."},
	}
}

// noiseFloor returns the calibrated noise floor of vector space fp, embedding the probes
// the first time a space is asked about. ok is false when the probes could not be embedded
// now (the embedder failed as a whole): the caller skips the semantic leg rather than trust
// an uncalibrated cosine.
func (e *Engine) noiseFloor(ctx context.Context, fp string) (floor float64, ok bool) {
	x := &e.vectors
	x.mu.Lock()
	floor, ok = x.noise[fp]
	x.mu.Unlock()
	if ok {
		return floor, true
	}
	texts := noiseProbes()
	pairs := paraphraseProbes()
	for _, p := range pairs {
		texts = append(texts, p[0], p[1])
	}
	ctx, cancel := context.WithTimeout(ctx, calibrationTimeout)
	defer cancel()
	vecs, err := e.opts.Embedder.Embed(ctx, texts)
	if len(vecs) != len(texts) {
		e.log.Debug("semantic calibration: the probes did not embed", "err", err)
		return 0, false
	}
	if e.fingerprint() != fp {
		return 0, false // the model changed meanwhile: these vectors are of neither space
	}
	n := len(noiseProbes())
	floor = calibrate(vecs[:n], vecs[n:])
	x.mu.Lock()
	if x.noise == nil {
		x.noise = map[string]float64{}
	}
	x.noise[fp] = floor
	x.mu.Unlock()
	e.log.Debug("semantic calibration", "fingerprint", fp, "noise_floor", floor)
	return floor, true
}

// calibrate is the noise floor measured from the vectors of the noise probes and of the
// paraphrase pairs (first, second, first, second, ...): the highest cosine between two
// noise probes, or noSemantics when the paraphrases' median cosine does not clear it. A nil,
// empty or zero vector is no evidence (the pair or probe is left out); too few usable noise
// probes measure nothing (0: the configured floor alone), too few usable pairs judge nothing.
// The vectors are not modified.
func calibrate(noise, paraphrases [][]float32) float64 {
	var unit [][]float32
	for _, v := range noise {
		if u, ok := unitCopy(v); ok && (len(unit) == 0 || len(u) == len(unit[0])) {
			unit = append(unit, u)
		}
	}
	if len(unit) < minNoiseProbes {
		return 0
	}
	floor := float32(-1)
	for i := range unit {
		for j := i + 1; j < len(unit); j++ {
			floor = max(floor, dot(unit[i], unit[j]))
		}
	}
	var para []float64
	for i := 0; i+1 < len(paraphrases); i += 2 {
		a, okA := unitCopy(paraphrases[i])
		b, okB := unitCopy(paraphrases[i+1])
		if okA && okB && len(a) == len(unit[0]) && len(b) == len(a) {
			para = append(para, float64(dot(a, b)))
		}
	}
	if len(para) >= minParaphraseProbes {
		sort.Float64s(para)
		if median := (para[(len(para)-1)/2] + para[len(para)/2]) / 2; median <= float64(floor) {
			return noSemantics
		}
	}
	return min(max(float64(floor), 0), 1)
}

func unitCopy(v []float32) ([]float32, bool) {
	if len(v) == 0 {
		return nil, false
	}
	u := append([]float32(nil), v...)
	return u, normalizeVector(u)
}

// noteEmbedTime remembers whether the model missed the query's bound: late starts (or
// extends) the slow window, on time ends it. A caller that gave up first says nothing.
func (e *Engine) noteEmbedTime(ctx context.Context, late bool) {
	switch {
	case ctx.Err() != nil:
	case late:
		e.slowModel.Store(time.Now().UnixNano())
	default:
		e.slowModel.Store(0)
	}
}

// queryVector embeds the query for the semantic leg. It returns nil, with a note for the
// result, when the leg cannot run: off, not ready, slow, failing, or a query that embeds to
// the zero vector (no semantic evidence).
// noise is the space's calibrated noise floor.
func (e *Engine) queryVector(ctx context.Context, text string) (vec []float32, fp string, noise float64, note string) {
	fp, ok := e.semanticReady()
	if !ok {
		return nil, "", 0, ""
	}
	bound := queryEmbedTimeout
	if slowSince := e.slowModel.Load(); slowSince != 0 && time.Since(time.Unix(0, slowSince)) < slowModelWindow {
		bound = slowEmbedTimeout
	}
	// Run measures the noise floor in the background as soon as the model is ready; a
	// process without Run (a one-shot CLI recall, eval) pays for it once, here, bounded
	// like the query's own embedding.
	calibrateCtx, cancelCalibrate := context.WithTimeout(ctx, bound)
	noise, ok = e.noiseFloor(calibrateCtx, fp)
	late := calibrateCtx.Err() != nil
	cancelCalibrate()
	if !ok {
		e.noteEmbedTime(ctx, late)
		return nil, "", 0, "semantic leg skipped: the model's noise floor could not be measured yet"
	}
	embedCtx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	vecs, err := embedQueryAsList(embedCtx, e.opts.Embedder, text)
	e.noteEmbedTime(ctx, embedCtx.Err() != nil)
	if len(vecs) != 1 || vecs[0] == nil {
		if err == nil {
			err = errors.New("no vector returned")
		}
		e.log.Debug("semantic leg skipped: the query did not embed", "err", err)
		if embedCtx.Err() != nil && ctx.Err() == nil {
			return nil, "", 0, fmt.Sprintf("semantic leg skipped: the model did not answer within %s", bound)
		}
		return nil, "", 0, "semantic leg skipped: the query could not be embedded"
	}
	v := append([]float32(nil), vecs[0]...)
	if !normalizeVector(v) {
		return nil, "", 0, ""
	}
	return v, fp, noise, ""
}

// semanticLeg returns the candidates of kind in space whose cosine with the query vector
// clears the loosest semantic floor (rank applies the profile's own floor), and the noise
// floor of the space: the larger of the model's (noise) and the space's own.
func (e *Engine) semanticLeg(ctx context.Context, kind, space string, q []float32, fp string, noise float64) (map[rank.Key]float64, float64, error) {
	if q == nil {
		return nil, 0, nil
	}
	idx, err := e.vectors.get(ctx, e.st, vectorIndexKey{kind: kind, space: space, fingerprint: fp})
	if err != nil {
		return nil, 0, err
	}
	noise = max(noise, idx.noise)
	out := map[rank.Key]float64{}
	for _, s := range idx.search(q, rank.LoosestSemanticFloor(*e.opts.Floors, noise), candidateLimit) {
		out[rank.Key{Kind: kind, ID: s.id}] = s.cos
	}
	return out, noise, nil
}

// VectorsDiagnosis is the vectors-diagnose report.
type VectorsDiagnosis struct {
	Fingerprint string `json:"fingerprint"`
	store.VectorDiagnosis
}

// DiagnoseVectors counts vectors against the current fingerprint.
func (e *Engine) DiagnoseVectors(ctx context.Context) (VectorsDiagnosis, error) {
	fp, ok := e.semanticReady()
	if !ok {
		return VectorsDiagnosis{}, fmt.Errorf("diagnose vectors: semantic %s: %w", e.opts.SemanticState(), ErrSemanticOff)
	}
	d, err := e.st.DiagnoseVectors(ctx, fp)
	if err != nil {
		return VectorsDiagnosis{}, err
	}
	return VectorsDiagnosis{Fingerprint: fp, VectorDiagnosis: d}, nil
}

func (e *Engine) vectorsDiagnose(ctx context.Context, _ AdminRequest) (AdminResult, error) {
	if _, ok := e.semanticReady(); !ok {
		return e.vectorsDiagnoseStored(ctx)
	}
	d, err := e.DiagnoseVectors(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	res := AdminResult{Action: "vectors-diagnose", OK: d.Stale == 0 && d.Orphans == 0,
		Counts: map[string]int{"current": d.Current, "zero": d.Zero, "stale": d.Stale,
			"space_stale": d.SpaceStale, "legacy": d.Legacy, "orphans": d.Orphans}}
	res.Details = []string{
		"vector space " + d.Fingerprint,
		fmt.Sprintf("%d current (%d of them embed to zero: no semantic evidence), %d stale (%d made in another vector space, %d of those legacy), %d orphaned",
			d.Current, d.Zero, d.Stale, d.SpaceStale, d.Legacy, d.Orphans),
	}
	if !res.OK {
		res.Details = append(res.Details, "run `memdesk admin vectors-fix` to re-embed and evict")
	}
	return res, nil
}

// vectorsDiagnoseStored is vectors-diagnose when the embedding model cannot be asked which
// vector space is current: it counts the vectors per stored fingerprint, which needs only
// the database, and says the model was not checked.
func (e *Engine) vectorsDiagnoseStored(ctx context.Context) (AdminResult, error) {
	spaces, owners, err := e.st.VectorSpaces(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	d, err := e.st.DiagnoseVectors(ctx, "") // no fingerprint: only its orphan count is read
	if err != nil {
		return AdminResult{}, err
	}
	res := AdminResult{Action: "vectors-diagnose", OK: false,
		Counts: map[string]int{"owners": owners, "spaces": len(spaces), "orphans": d.Orphans}}
	res.Details = []string{fmt.Sprintf("the embedding model could not be checked (semantic: %s), so which vector space is current is not known; the stored vectors of %s facts and chunks:",
		e.opts.SemanticState(), groupThousands(owners))}
	withVector := 0
	for _, sp := range spaces {
		withVector += sp.Vectors
		res.Details = append(res.Details, fmt.Sprintf("vector space %s: %s vectors (%d of them embed to zero)", sp.Fingerprint, groupThousands(sp.Vectors), sp.Zero))
	}
	res.Counts["unembedded"] = owners - withVector
	res.Details = append(res.Details,
		fmt.Sprintf("%s have no vector in any space, %d vectors are orphaned", groupThousands(owners-withVector), d.Orphans),
		"once Ollama answers with the configured model (`memdesk stats` says semantic: ready), run this again to count against it, and `memdesk admin vectors-fix` to re-embed what is stale")
	return res, nil
}

// vectorsFix evicts orphaned vectors in one batch, then re-embeds in bounded passes (one pass,
// or until nothing is left with All), reporting progress after every pass. A pass that fails
// keeps every page it stored; the error says how many, and that a rerun resumes.
func (e *Engine) vectorsFix(ctx context.Context, req AdminRequest) (AdminResult, error) {
	d, err := e.DiagnoseVectors(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	evicted, err := e.st.EvictVectors(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	budget := req.Budget
	if budget <= 0 {
		budget = vectorsFixPassBudget
	}
	var total EmbedReport
	total.Remaining = d.Stale
	for total.Remaining > 0 {
		rep, err := e.EmbedPending(ctx, budget)
		total.Embedded += rep.Embedded
		total.Zero += rep.Zero
		if err != nil {
			kept := total.Embedded + total.Zero
			return AdminResult{}, fmt.Errorf("%w (%s of %s re-embedded and kept; run `memdesk admin vectors-fix --all` again to resume the remaining %s)",
				err, groupThousands(kept), groupThousands(d.Stale), groupThousands(max(d.Stale-kept, 0)))
		}
		total.Failed = rep.Failed // failures of the last pass: earlier ones were retried
		total.Remaining = rep.Remaining
		if req.Progress != nil {
			req.Progress(total.Embedded+total.Zero, total.Embedded+total.Zero+rep.Remaining)
		}
		if !req.All || rep.Embedded+rep.Zero == 0 {
			break // one pass, or a pass that made no progress (failures left for later)
		}
	}
	res := AdminResult{Action: "vectors-fix", OK: total.Remaining == 0,
		Counts: map[string]int{"reembedded": total.Embedded + total.Zero, "evicted": evicted,
			"failed": total.Failed, "remaining": total.Remaining}}
	res.Details = []string{fmt.Sprintf("%d re-embedded (%d to the zero vector), %d evicted, %d failed, %d remaining",
		total.Embedded+total.Zero, total.Zero, evicted, total.Failed, total.Remaining)}
	switch {
	case total.Remaining > 0 && !req.All:
		res.Details = append(res.Details, "run `memdesk admin vectors-fix --all` to finish")
	case total.Remaining > 0:
		res.Details = append(res.Details, fmt.Sprintf("the model failed on %d texts; run `memdesk admin vectors-fix --all` again to retry them (with -v to see why)", total.Failed))
	}
	return res, nil
}

// runSemantic is Run's semantic part: once the embedder is ready, warn once about stale
// vectors, then keep embedding what is missing, polling while idle, until ctx is done.
func (e *Engine) runSemantic(ctx context.Context) error {
	warned := ""
	for {
		if fp, ok := e.semanticReady(); ok {
			// Calibrate the space before recall needs it (a failure is retried there).
			e.noiseFloor(ctx, fp)
			if warned != fp {
				warned = fp
				if d, err := e.st.DiagnoseVectors(ctx, fp); err == nil && (d.Stale > 0 || d.Orphans > 0) {
					e.log.Warn("some facts and chunks have no vector in the current embedding model's space; they are re-embedded in the background, or now with `memdesk admin vectors-fix`",
						"stale", d.Stale, "space_stale", d.SpaceStale, "legacy", d.Legacy, "orphans", d.Orphans, "fingerprint", fp)
				}
			}
			rep, err := e.EmbedPending(ctx, DefaultEmbedBudget)
			switch {
			case ctx.Err() != nil:
				return nil
			case err != nil:
				e.log.Debug("semantic catch-up paused", "err", err)
			case rep.Embedded+rep.Zero > 0 && rep.Remaining > 0:
				continue // more to do, and progress was made
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(semanticIdlePoll):
		}
	}
}
