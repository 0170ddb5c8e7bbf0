package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

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
	// The model is measured before the store is embedded (once per space; then it is known):
	// recall can use what is embedded as soon as it is, and a model that is the same weights
	// as a stored space's takes that space's vectors over (calibration.go) instead of
	// embedding them all again. A measurement that fails does not stop the embedding.
	e.calibrationOf(ctx, fp, calibrationTimeout)
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
	e.noteVectors(fp, d)
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
// result, when the leg cannot run: off, not ready, not measured yet, slow, failing, or a
// query that embeds to the zero vector (no semantic evidence). cal is what was measured of
// the space's model: the leg's role and floors. wait, when positive, replaces the bound on
// the query's embedding (RecallRequest.MeaningWait).
func (e *Engine) queryVector(ctx context.Context, text string, wait time.Duration) (vec []float32, fp string, cal calibration, note string) {
	fp, ok := e.semanticReady()
	if !ok {
		return nil, "", calibration{}, ""
	}
	bound := queryEmbedTimeout
	switch slowSince := e.slowModel.Load(); {
	case wait > 0:
		bound = wait
	case slowSince != 0 && time.Since(time.Unix(0, slowSince)) < slowModelWindow:
		bound = slowEmbedTimeout
	}
	// Run measures the model in the background as soon as it is ready, and the measurement
	// is stored: a query never waits for it there. A process without Run (a one-shot CLI
	// recall, eval) has one budget for the model in all, the measurement's wait and the
	// query's embedding: a slow model, whose 84 probe texts take longer than the budget,
	// is measured by a long-lived process instead, and this recall answers without it.
	start := time.Now()
	oneShot := !e.semanticRunning.Load()
	measureWait := time.Duration(0)
	if oneShot {
		measureWait = e.opts.SemanticBudget
	}
	cal, ok = e.calibrationOf(ctx, fp, measureWait)
	if !ok {
		if oneShot {
			return nil, "", calibration{}, fmt.Sprintf("semantic leg skipped: the embedding model has not been measured yet and was not within this command's %s; the app or `memdesk mcp` measures it in the background (so does `memdesk admin vectors-fix`), and later recalls use it", e.opts.SemanticBudget)
		}
		return nil, "", calibration{}, "semantic leg skipped: the embedding model is still being measured; it joins in once that is done"
	}
	if oneShot && wait <= 0 { // a caller that set its own wait has chosen it
		bound = min(bound, e.opts.SemanticBudget-time.Since(start))
		if bound <= 0 {
			return nil, "", calibration{}, fmt.Sprintf("semantic leg skipped: measuring the embedding model took this command's %s, so the query was not embedded; the measurement is stored and the next recall uses it", e.opts.SemanticBudget)
		}
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
			return nil, "", calibration{}, fmt.Sprintf("semantic leg skipped: the model did not answer within %s", bound)
		}
		return nil, "", calibration{}, "semantic leg skipped: the query could not be embedded"
	}
	v := append([]float32(nil), vecs[0]...)
	if !normalizeVector(v) {
		return nil, "", calibration{}, ""
	}
	return v, fp, cal, ""
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
	e.noteVectors(fp, d)
	return VectorsDiagnosis{Fingerprint: fp, VectorDiagnosis: d}, nil
}

// VectorCoverage counts the texts a search meets and how many of them have no vector in the
// current model's space yet: DiagnoseVectors' Current+Stale and Stale, from counts (see
// store.VectorCoverage), for a one-shot command that only says how much the semantic leg
// cannot see.
func (e *Engine) VectorCoverage(ctx context.Context) (owners, missing int, err error) {
	fp, ok := e.semanticReady()
	if !ok {
		return 0, 0, fmt.Errorf("count vectors: semantic %s: %w", e.opts.SemanticState(), ErrSemanticOff)
	}
	owners, missing, err = e.st.VectorCoverage(ctx, fp)
	if err != nil {
		return 0, 0, err
	}
	e.noteVectors(fp, store.VectorDiagnosis{Current: owners - missing, Stale: missing})
	return owners, missing, nil
}

func (e *Engine) vectorsDiagnose(ctx context.Context, _ AdminRequest) (AdminResult, error) {
	fp, ok := e.semanticReady()
	if !ok {
		return e.vectorsDiagnoseStored(ctx)
	}
	// Measured first, within the command's budget: a model that is the same weights as a
	// stored space takes its vectors over then, and the counts below say so.
	cal, measured := e.calibrationOf(ctx, fp, e.opts.SemanticBudget)
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
	if measured {
		res.Details = append(res.Details, "semantic role: "+cal.Role()+", because "+cal.explain(), cal.inputs())
	} else {
		res.Details = append(res.Details, "semantic role: not known yet: the model was not measured within this command's wait (vectors-fix measures it, and so do the app and `memdesk mcp` in the background)")
	}
	if !res.OK {
		// --all: one pass does vectorsFixPassBudget texts, and a fix that leaves most of a
		// large store stale is not the fix.
		res.Next = []AdminStep{{Kind: StepRun, Action: "vectors-fix", All: true, Why: "to re-embed what is stale and evict what is orphaned"}}
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
		fmt.Sprintf("%s have no vector in any space, %d vectors are orphaned", groupThousands(owners-withVector), d.Orphans))
	res.Next = []AdminStep{{Kind: StepWaitForModel},
		{Kind: StepRun, Action: "vectors-diagnose", Why: "to count against it"},
		{Kind: StepRun, Action: "vectors-fix", All: true, Why: "to re-embed what is stale"}}
	return res, nil
}

// vectorsFix evicts orphaned vectors in one batch, then re-embeds in bounded passes (one pass,
// or until nothing is left with All), reporting progress after every pass. A pass that fails
// keeps every page it stored; the error says how many, and that a rerun resumes.
func (e *Engine) vectorsFix(ctx context.Context, req AdminRequest) (AdminResult, error) {
	// Measure the model first: its role is then known to stats and recall, and a model that
	// is the same weights as a stored space's (another name or folder) takes that space's
	// vectors over instead of re-embedding them (calibration.go).
	fp, ok := e.semanticReady()
	if !ok {
		return AdminResult{}, fmt.Errorf("vectors-fix: semantic %s: %w", e.opts.SemanticState(), ErrSemanticOff)
	}
	cal, measured := e.calibrationOf(ctx, fp, calibrationTimeout)
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
	if measured {
		res.Details = append(res.Details, "semantic role: "+cal.Role()+", because "+cal.explain())
	} else {
		res.Details = append(res.Details, "semantic role: not known: the model's calibration probes did not embed; the next recall or vectors-fix measures it again")
	}
	switch {
	case total.Remaining > 0 && !req.All:
		res.Next = []AdminStep{{Kind: StepRun, Action: "vectors-fix", All: true, Why: "to finish"}}
	case total.Remaining > 0:
		res.Details = append(res.Details, fmt.Sprintf("the model failed on %d texts", total.Failed))
		res.Next = []AdminStep{{Kind: StepRun, Action: "vectors-fix", All: true, Why: "to retry them"}, {Kind: StepSeeWhy}}
	}
	return res, nil
}

// runSemantic is Run's semantic part: once the embedder is ready, warn once about stale
// vectors, then keep embedding what is missing, polling while idle, until ctx is done.
func (e *Engine) runSemantic(ctx context.Context) error {
	e.semanticRunning.Store(true)
	defer e.semanticRunning.Store(false)
	warned := ""
	for {
		if fp, ok := e.semanticReady(); ok {
			// Measure the space before recall needs it, and before embedding: a model that is
			// the same weights as a stored space adopts that space's vectors (calibration.go)
			// rather than embed everything again. A failure is retried on the next round.
			e.calibrationOf(ctx, fp, calibrationTimeout)
			if warned != fp {
				warned = fp
				if d, err := e.st.DiagnoseVectors(ctx, fp); err == nil {
					e.noteVectors(fp, d)
					if d.Stale > 0 || d.Orphans > 0 {
						e.log.Warn("some facts and chunks have no vector in the current embedding model's space; they are embedded in the background, or now with `memdesk admin vectors-fix --all`",
							"stale", d.Stale, "space_stale", d.SpaceStale, "legacy", d.Legacy, "orphans", d.Orphans, "fingerprint", fp)
					}
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
		case <-e.embedWanted:
		case <-time.After(semanticIdlePoll):
		}
	}
}
