package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/memdesk/memdesk/engine/probes"
	"github.com/memdesk/memdesk/engine/rank"
)

// Calibration. Cosine has no meaning shared across models: unrelated English sentences
// score up to ~0.75 under a mean-pooled bag of words (the testbed's GloVe model), up to ~0.98
// under a random model, and ~0.3-0.5 under bge-m3, so neither one configured floor nor one
// fusion weight is right for every model. Each vector space measures its model once, on a
// bilingual probe set (package probes), stores what it found in the database, and the
// semantic leg plays the role the measurement earns (rank/semantic.go):
//
//  1. Noise: the highest cosine between two unrelated probes, and their mean and spread. A
//     supporting leg's floor is the highest (a semantic-only answer must beat every pair of
//     sentences about nothing in common); a leading leg's is the chance level those
//     statistics give for the size of the searched space.
//  2. Sense of meaning: when the paraphrases' median cosine does not clear the noise, the
//     model cannot tell a paraphrase from noise and is given no say (noise floor 1).
//  3. Strength: the share of paraphrase pairs, across both languages, whose cosine beats the
//     noise. A probe that embeds to zero (GloVe's Chinese) is no evidence, and its pair counts
//     as not told apart: a model blind to one of the store's languages cannot lead.
//  4. Role: leading when the strength is at least leadStrength and the model embeds at least
//     leadCoverage of the probes; supporting otherwise.
//
// Measured in doc/semantic.md.
const (
	// minNoiseProbes is how many noise probes must embed to a non-zero vector for the noise
	// to be measured; with fewer the configured floor stands alone.
	minNoiseProbes = 6
	// minParaphraseProbes is how many paraphrase pairs must embed for the model's sense of
	// meaning to be judged; with fewer it is not judged.
	minParaphraseProbes = 3
	// calibrationTimeout bounds measuring one space: 84 probe texts, up to ~3 s for a CPU
	// model at 30 ms a text, with room for a model that loads first.
	calibrationTimeout = 2 * time.Minute
	// noSemantics is the noise floor of a model that cannot tell a paraphrase from noise.
	noSemantics = 1.0
	// leadStrength and leadCoverage are what a model must show to lead (see above).
	leadStrength = 0.75
	leadCoverage = 0.9
)

// calibration is what was measured of one vector space's model. It is stored as JSON.
type calibration struct {
	Probes string `json:"probes"` // the probe set's version
	// Noise is the supporting leg's noise floor (see above); NoiseMean and NoiseSD describe
	// the unrelated probes' cosines.
	Noise     float64 `json:"noise"`
	NoiseMean float64 `json:"noise_mean"`
	NoiseSD   float64 `json:"noise_sd"`
	// Paraphrase is the paraphrase pairs' median cosine.
	Paraphrase float64 `json:"paraphrase"`
	// Coverage is the share of probe texts that embed to a non-zero vector; Strength the
	// share of paraphrase pairs told from noise.
	Coverage float64 `json:"coverage"`
	Strength float64 `json:"strength"`
	Leading  bool    `json:"leading"`
	// Measured is when (UTC).
	Measured time.Time `json:"measured"`
}

// role is the semantic leg's role for ranking.
func (c calibration) model() rank.Model {
	return rank.Model{Leading: c.Leading, Strength: c.Strength, ProbeMean: c.NoiseMean, ProbeSD: c.NoiseSD}
}

// Role names the role for a person: "leading", "supporting" or "no say".
func (c calibration) Role() string {
	switch {
	case c.Noise >= noSemantics:
		return "no say"
	case c.Leading:
		return "leading"
	}
	return "supporting"
}

// calibrations caches each space's calibration and runs at most one measurement per space.
// The zero value works; close stops the measurements and waits for them, so none writes to
// a closed store.
type calibrations struct {
	mu       sync.Mutex
	known    map[string]calibration
	inflight map[string]chan struct{}
	// stop ends every measurement's context (made with the first one); closed refuses new
	// ones; running counts those in flight.
	stop    context.CancelFunc
	life    context.Context
	closed  bool
	running sync.WaitGroup
}

// close stops the measurements in flight and waits for them.
func (x *calibrations) close() {
	x.mu.Lock()
	x.closed = true
	if x.stop != nil {
		x.stop()
	}
	x.mu.Unlock()
	x.running.Wait()
}

// calibrationOf returns the calibration of space fp: from memory, from the database, or
// measured now. A measurement runs in the background with its own budget, shared by every
// caller; the caller waits for it at most wait (0: not at all). ok is false when it is not
// known yet: the caller skips the semantic leg rather than trust an unmeasured cosine.
func (e *Engine) calibrationOf(ctx context.Context, fp string, wait time.Duration) (calibration, bool) {
	x := &e.calib
	x.mu.Lock()
	if c, ok := x.known[fp]; ok {
		x.mu.Unlock()
		return c, true
	}
	done, running := x.inflight[fp]
	if !running {
		if x.closed {
			x.mu.Unlock()
			return calibration{}, false
		}
		if x.life == nil {
			x.life, x.stop = context.WithCancel(context.Background())
		}
		done = make(chan struct{})
		if x.inflight == nil {
			x.inflight = map[string]chan struct{}{}
		}
		x.inflight[fp] = done
		x.running.Add(1)
		go e.measureSpace(x.life, fp, done)
	}
	x.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	c, ok := x.known[fp]
	return c, ok
}

// measureSpace reads space fp's stored calibration or measures and stores it, then closes
// done. A failed measurement is forgotten, so the next query tries again. life ends when the
// engine closes.
func (e *Engine) measureSpace(life context.Context, fp string, done chan struct{}) {
	x := &e.calib
	defer x.running.Done()
	defer func() {
		x.mu.Lock()
		delete(x.inflight, fp)
		x.mu.Unlock()
		close(done)
	}()
	ctx, cancel := context.WithTimeout(life, calibrationTimeout)
	defer cancel()
	c, ok := e.storedCalibration(ctx, fp)
	if !ok {
		var probeVecs [][]float32
		if c, probeVecs, ok = e.measure(ctx, fp); !ok {
			return
		}
		// Adopt before the calibration is known: until then recall skips the leg and the
		// catch-up waits, so neither searches nor embeds this space half taken over.
		e.adoptSameModel(ctx, fp, probeVecs)
		raw, _ := json.Marshal(c)
		if err := waitOutBusy(ctx, func() error { return e.st.PutCalibration(ctx, fp, string(raw)) }); err != nil {
			e.log.Warn("the embedding model's calibration was measured but not stored; it is measured again next time", "err", err)
		}
	}
	x.mu.Lock()
	if x.known == nil {
		x.known = map[string]calibration{}
	}
	x.known[fp] = c
	x.mu.Unlock()
}

// storedCalibration reads space fp's calibration from the database, if one was stored with
// this probe set.
func (e *Engine) storedCalibration(ctx context.Context, fp string) (calibration, bool) {
	raw, ok, err := e.st.Calibration(ctx, fp)
	if err != nil {
		e.log.Debug("stored calibration not read", "err", err)
		return calibration{}, false
	}
	var c calibration
	if !ok || json.Unmarshal([]byte(raw), &c) != nil || c.Probes != probes.Version {
		return calibration{}, false
	}
	return c, true
}

// measure embeds the probes in space fp and calibrates from them. It also returns the noise
// probes' vectors: what this model makes of a fixed text set, to recognise it by.
func (e *Engine) measure(ctx context.Context, fp string) (calibration, [][]float32, bool) {
	noise := probes.Noise()
	pairs := probes.Paraphrases()
	texts := append([]string(nil), noise...)
	for _, p := range pairs {
		texts = append(texts, p[0], p[1])
	}
	vecs, err := e.opts.Embedder.Embed(ctx, texts)
	if len(vecs) != len(texts) {
		e.log.Debug("semantic calibration: the probes did not embed", "err", err)
		return calibration{}, nil, false
	}
	if e.fingerprint() != fp {
		return calibration{}, nil, false // the model changed meanwhile: these vectors are of neither space
	}
	c := calibrate(vecs[:len(noise)], vecs[len(noise):])
	c.Measured = e.opts.Now().UTC()
	e.log.Info("semantic leg calibrated", "fingerprint", fp, "role", c.Role(), "strength", c.Strength,
		"coverage", c.Coverage, "noise_floor", c.Noise)
	return c, vecs[:len(noise)], true
}

// calibrate measures a model from the vectors of the noise probes and of the paraphrase
// pairs (first, second, first, second, ...). A nil, empty or zero vector is no evidence.
// The vectors are not modified.
func calibrate(noise, paraphrases [][]float32) calibration {
	c := calibration{Probes: probes.Version}
	var unit [][]float32
	embedded := 0
	for _, v := range noise {
		if u, ok := unitCopy(v); ok {
			embedded++
			if len(unit) == 0 || len(u) == len(unit[0]) {
				unit = append(unit, u)
			}
		}
	}
	var para []float64
	pairs := len(paraphrases) / 2
	for i := 0; i+1 < len(paraphrases); i += 2 {
		a, okA := unitCopy(paraphrases[i])
		b, okB := unitCopy(paraphrases[i+1])
		if okA {
			embedded++
		}
		if okB {
			embedded++
		}
		if okA && okB && len(unit) > 0 && len(a) == len(unit[0]) && len(b) == len(a) {
			para = append(para, float64(dot(a, b)))
		}
	}
	if total := len(noise) + 2*pairs; total > 0 {
		c.Coverage = float64(embedded) / float64(total)
	}
	if len(unit) < minNoiseProbes {
		return c // too few to measure: the configured floor alone, and no lead
	}
	var cos []float64
	for i := range unit {
		for j := i + 1; j < len(unit); j++ {
			cos = append(cos, float64(dot(unit[i], unit[j])))
		}
	}
	c.Noise, c.NoiseMean, c.NoiseSD = spread(cos)
	c.Noise = min(max(c.Noise, 0), 1)
	if len(para) < minParaphraseProbes {
		return c
	}
	sorted := append([]float64(nil), para...)
	sort.Float64s(sorted)
	c.Paraphrase = (sorted[(len(sorted)-1)/2] + sorted[len(sorted)/2]) / 2
	if c.Paraphrase <= c.Noise {
		c.Noise = noSemantics
		return c
	}
	told := 0
	for _, p := range para {
		if p > c.Noise {
			told++
		}
	}
	c.Strength = float64(told) / float64(max(pairs, 1))
	c.Leading = c.Strength >= leadStrength && c.Coverage >= leadCoverage
	return c
}

// spread returns the highest, the mean and the standard deviation of xs (not empty).
func spread(xs []float64) (top, mean, sd float64) {
	top = math.Inf(-1)
	for _, x := range xs {
		top = max(top, x)
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return top, mean, math.Sqrt(sd / float64(len(xs)))
}

func unitCopy(v []float32) ([]float32, bool) {
	if len(v) == 0 {
		return nil, false
	}
	u := append([]float32(nil), v...)
	return u, normalizeVector(u)
}

// SemanticRole is the role the semantic leg plays with the current model and why, in plain
// words, from its stored measurement; "", "" while the model is off, not ready or not
// measured yet. It never measures.
func (e *Engine) SemanticRole(ctx context.Context) (role, why string) {
	fp, ok := e.semanticReady()
	if !ok {
		return "", ""
	}
	e.calib.mu.Lock()
	c, ok := e.calib.known[fp]
	e.calib.mu.Unlock()
	if !ok {
		if c, ok = e.storedCalibration(ctx, fp); !ok {
			return "", ""
		}
	}
	return c.Role(), c.explain()
}

// explain says what the measurement found and what it means for recall.
func (c calibration) explain() string {
	pairs := len(probes.Paraphrases())
	told := int(math.Round(c.Strength * float64(pairs)))
	switch c.Role() {
	case "no say":
		return fmt.Sprintf("the model puts paraphrases (median cosine %.2f) no closer than unrelated sentences (up to %.2f): it cannot tell meaning, so recall ignores it", c.Paraphrase, c.Noise)
	case "leading":
		return fmt.Sprintf("the model told %d of %d paraphrases from unrelated sentences: its finds rank with the word and name matches, weighted by that", told, pairs)
	}
	if c.Coverage < leadCoverage {
		return fmt.Sprintf("the model embeds only %.0f%% of the test sentences (one of the two languages comes out empty): it can add answers after the word and name matches, never reorder them", 100*c.Coverage)
	}
	return fmt.Sprintf("the model told %d of %d paraphrases from unrelated sentences, short of %d: it can add answers after the word and name matches, never reorder them", told, pairs, int(math.Ceil(leadStrength*float64(pairs))))
}

// inputs lists what the role was decided from.
func (c calibration) inputs() string {
	return fmt.Sprintf("measured %s on %s: unrelated sentences up to cosine %.3f (mean %.3f, sd %.3f), paraphrases median %.3f, strength %.2f (lead from %.2f), %.0f%% of the probe texts embedded (lead from %.0f%%)",
		c.Measured.Format("2006-01-02 15:04"), c.Probes, c.Noise, c.NoiseMean, c.NoiseSD, c.Paraphrase, c.Strength, leadStrength, 100*c.Coverage, 100*leadCoverage)
}
