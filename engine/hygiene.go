package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/memdesk/memdesk/engine/hygiene"
	"github.com/memdesk/memdesk/engine/query"
	"github.com/memdesk/memdesk/store"
)

// Near-duplicate bars (see doc/hygiene.md). Word overlap is Jaccard over the index's own
// terms (CJK bigrams, stemmed Latin words without stopwords), so a restatement that adds a
// particle or reorders words still overlaps; entity overlap confirms a weaker word overlap.
const (
	nearDupWords          = 0.6
	nearDupWordsConfirmed = 0.4
	nearDupEntities       = 0.5
	// nearDupCandidates bounds how many lexical neighbours (the newest holding any of the
	// probe's rare words) a write is compared with.
	nearDupCandidates = 200
	// A word in more than nearDupCommonDF facts is common: the near-duplicate search asks
	// for the rare words, at least nearDupMinProbe and at most nearDupMaxProbe of them.
	nearDupCommonDF = 100
	nearDupMinProbe = 2
	nearDupMaxProbe = 8
	// maxContradictionPairs bounds one full pass's report; a store with more pairs than this
	// needs a person's attention more than a longer list.
	maxContradictionPairs = 1000
)

// Contradiction is another fact the subject fact disagrees with, and why.
type Contradiction struct {
	FactID int64  `json:"fact_id"`
	Text   string `json:"text"`
	Kind   string `json:"kind"`   // negation | different_object
	Reason string `json:"reason"` // a sentence for a person
}

// extractTriples returns text's statements stamped with the triple-rules version.
func extractTriples(text string) *store.Triples {
	ts := hygiene.Extract(text)
	out := &store.Triples{Version: hygiene.RulesVersion, List: make([]store.Triple, 0, len(ts))}
	for _, t := range ts {
		out.List = append(out.List, store.Triple{Subject: t.Subject, Predicate: t.Predicate, Object: t.Object, Negated: t.Negated})
	}
	return out
}

func fromStore(ts []store.Triple) []hygiene.Triple {
	out := make([]hygiene.Triple, len(ts))
	for i, t := range ts {
		out[i] = hygiene.Triple{Subject: t.Subject, Predicate: t.Predicate, Object: t.Object, Negated: t.Negated}
	}
	return out
}

func subjectKeys(ts []store.Triple) []store.SubjectKey {
	var keys []store.SubjectKey
	seen := map[store.SubjectKey]bool{}
	for _, t := range ts {
		k := store.SubjectKey{Subject: t.Subject, Predicate: t.Predicate}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// hygieneReport fills res with the active facts of space that the fact (id, text) restates
// or contradicts. It runs after the write has committed: a failure here is logged and loses
// nothing, since the full pass (admin contradictions) finds the same pairs later.
func (e *Engine) hygieneReport(ctx context.Context, res *RememberResult, space, text string, triples *store.Triples) {
	contradicts, err := e.contradictionsOf(ctx, res.FactID, space, triples)
	if err != nil {
		e.log.Warn("contradiction check skipped", "fact", res.FactID, "err", err)
	}
	res.Contradicts = contradicts
	similar, err := e.similarFacts(ctx, res.FactID, space, text)
	if err != nil {
		e.log.Warn("near-duplicate check skipped", "fact", res.FactID, "err", err)
	}
	if len(similar) == 0 {
		return
	}
	// A restatement a person chose to keep beside its twin ("Keep both") is not reported
	// again, as a dismissed contradiction is not.
	dismissed, err := e.st.DismissedPairs(ctx)
	if err != nil {
		e.log.Warn("near-duplicate check skipped", "fact", res.FactID, "err", err)
		return
	}
	for _, id := range similar {
		if !containsFact(contradicts, id) && !dismissed[orderedPair(res.FactID, id)] {
			res.SimilarTo = append(res.SimilarTo, id)
		}
	}
}

func containsFact(cs []Contradiction, id int64) bool {
	for _, c := range cs {
		if c.FactID == id {
			return true
		}
	}
	return false
}

// contradictionsOf finds the active facts of space whose statements contradict triples:
// candidates come from the (subject, predicate) index, never a scan.
func (e *Engine) contradictionsOf(ctx context.Context, id int64, space string, triples *store.Triples) ([]Contradiction, error) {
	if triples == nil || len(triples.List) == 0 {
		return nil, nil
	}
	cands, err := e.st.TriplesAbout(ctx, space, subjectKeys(triples.List), id)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	dismissed, err := e.st.DismissedPairs(ctx)
	if err != nil {
		return nil, err
	}
	mine := fromStore(triples.List)
	var out []Contradiction
	for _, c := range cands {
		if dismissed[orderedPair(id, c.FactID)] {
			continue
		}
		conflict, ok := hygiene.Contradicts(mine, fromStore(c.Triples))
		if !ok {
			continue
		}
		f, err := e.st.Fact(ctx, c.FactID)
		if err != nil {
			return out, err
		}
		out = append(out, Contradiction{FactID: c.FactID, Text: f.Content, Kind: conflict.Kind, Reason: conflict.Reason})
	}
	return out, nil
}

func orderedPair(a, b int64) [2]int64 { return [2]int64{min(a, b), max(a, b)} }

// similarFacts returns the active facts of space that restate text: lexical neighbours from
// the word index, kept when their word overlap is high, or moderate and confirmed by shared
// entities. The semantic leg is deliberately not asked: the new text has no vector yet, and
// embedding it here would make every write wait on a model.
func (e *Engine) similarFacts(ctx context.Context, id int64, space, text string) ([]int64, error) {
	words := query.WordTerms(text)
	terms := stemmedSet(words)
	if len(terms) == 0 {
		return nil, nil
	}
	probe, err := e.nearDupProbe(ctx, space, words)
	if err != nil || len(probe) == 0 {
		return nil, err
	}
	cands, err := e.st.WordCandidates(ctx, store.KindFact, query.MatchExpr(probe),
		store.SearchScope{Space: space, Limit: nearDupCandidates})
	if err != nil {
		return nil, err
	}
	var mineEnts map[string]bool
	if x := e.ents.Load(); x != nil {
		mineEnts = setOf(x.Extract(text))
	}
	var out []int64
	for _, c := range cands {
		if c.ID == id {
			continue
		}
		words := jaccard(terms, stemmedSet(query.WordTerms(c.Text)))
		switch {
		case words >= nearDupWords:
		case words >= nearDupWordsConfirmed && mineEnts != nil && jaccard(mineEnts, setOf(e.ents.Load().Extract(c.Text))) >= nearDupEntities:
		default:
			continue
		}
		out = append(out, c.ID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// nearDupProbe picks the words a near-duplicate search asks the index for: the fact's rare
// words (in at most nearDupCommonDF facts), rarest first, and at least nearDupMinProbe words
// however common. An OR of every word would walk the posting lists of common words for each
// write (88 % of a remember's time at 10k facts); a restatement shares the rare words too.
// What this gives up: a restatement made only of common words can be missed.
func (e *Engine) nearDupProbe(ctx context.Context, space string, terms []string) ([]string, error) {
	df, err := e.st.WordDF(ctx, store.KindFact, space, terms, nearDupCommonDF)
	if err != nil {
		return nil, err
	}
	var present []string
	for _, t := range terms {
		if df[t] > 0 {
			present = append(present, t)
		}
	}
	sort.SliceStable(present, func(i, j int) bool { return df[present[i]] < df[present[j]] })
	n := 0
	for n < len(present) && n < nearDupMaxProbe && (n < nearDupMinProbe || df[present[n]] <= nearDupCommonDF) {
		n++
	}
	return present[:n], nil
}

// stemmedSet is the set two texts are compared by: the word index's terms (Latin ones
// stemmed by the analyzer, so "uses" and "use" agree).
func stemmedSet(words []string) map[string]bool {
	out := make(map[string]bool, len(words))
	for _, t := range words {
		out[t] = true
	}
	return out
}

func setOf(ss []string) map[string]bool {
	out := make(map[string]bool, len(ss))
	for _, s := range ss {
		out[s] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	shared := 0
	for t := range a {
		if b[t] {
			shared++
		}
	}
	return float64(shared) / float64(len(a)+len(b)-shared)
}

// ContradictionPair is two active facts of one space that disagree.
type ContradictionPair struct {
	A      FactView `json:"a"`
	B      FactView `json:"b"`
	Kind   string   `json:"kind"`
	Reason string   `json:"reason"`
}

// ContradictionsRequest selects the facts a full contradiction pass looks at.
type ContradictionsRequest struct {
	Space string `json:"space,omitempty"` // "" checks every space (pairs never cross spaces)
}

// ContradictionsResult lists the pairs, older fact first, in id order.
type ContradictionsResult struct {
	Pairs []ContradictionPair `json:"pairs"`
	// Truncated is set when there were more than the report holds.
	Truncated bool `json:"truncated,omitempty"`
}

// Contradictions runs the full pass: every pair of active facts in one space that share a
// subject and predicate and disagree, except pairs a person dismissed.
func (e *Engine) Contradictions(ctx context.Context, req ContradictionsRequest) (ContradictionsResult, error) {
	all, err := e.st.AllTriples(ctx, strings.TrimSpace(req.Space))
	if err != nil {
		return ContradictionsResult{}, err
	}
	dismissed, err := e.st.DismissedPairs(ctx)
	if err != nil {
		return ContradictionsResult{}, err
	}
	type groupKey struct {
		space string
		key   store.SubjectKey
	}
	groups := map[groupKey][]int{}
	var order []groupKey
	for i, ft := range all {
		for _, k := range subjectKeys(ft.Triples) {
			g := groupKey{ft.Space, k}
			if len(groups[g]) == 0 {
				order = append(order, g)
			}
			if n := len(groups[g]); n == 0 || groups[g][n-1] != i {
				groups[g] = append(groups[g], i)
			}
		}
	}
	type found struct {
		a, b     int
		conflict hygiene.Conflict
	}
	var pairs []found
	seen := map[[2]int64]bool{}
	res := ContradictionsResult{Pairs: []ContradictionPair{}}
	for _, g := range order {
		members := groups[g]
		for x := 0; x < len(members); x++ {
			if err := ctx.Err(); err != nil {
				return ContradictionsResult{}, err
			}
			for y := x + 1; y < len(members); y++ {
				a, b := all[members[x]], all[members[y]]
				p := orderedPair(a.FactID, b.FactID)
				if seen[p] || dismissed[p] {
					continue
				}
				seen[p] = true
				if c, ok := hygiene.Contradicts(fromStore(a.Triples), fromStore(b.Triples)); ok {
					if len(pairs) == maxContradictionPairs {
						res.Truncated = true
						break
					}
					pairs = append(pairs, found{members[x], members[y], c})
				}
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].a != pairs[j].a {
			return pairs[i].a < pairs[j].a
		}
		return pairs[i].b < pairs[j].b
	})
	synced, err := e.syncPairs(ctx, seen)
	if err != nil {
		return ContradictionsResult{}, err
	}
	// A fact in several pairs is read once.
	views := map[int64]FactView{}
	view := func(id int64) (FactView, error) {
		if v, ok := views[id]; ok {
			return v, nil
		}
		f, err := e.st.Fact(ctx, id)
		views[id] = factView(f)
		return views[id], err
	}
	for _, p := range pairs {
		a, err := view(all[p.a].FactID)
		if err != nil {
			return ContradictionsResult{}, err
		}
		b, err := view(all[p.b].FactID)
		if err != nil {
			return ContradictionsResult{}, err
		}
		res.Pairs = append(res.Pairs, ContradictionPair{A: a, B: b, Kind: p.conflict.Kind, Reason: p.conflict.Reason})
	}
	res.Pairs = append(res.Pairs, synced...)
	return res, nil
}

// DismissContradiction records that a person keeps both facts of a reported pair (a
// contradiction or a restatement), so neither the full pass nor a later write or edit
// reports it again.
func (e *Engine) DismissContradiction(ctx context.Context, a, b int64) error {
	if a == b || a <= 0 || b <= 0 {
		return fmt.Errorf("%w: dismiss needs two different fact ids", ErrBadRequest)
	}
	for _, id := range []int64{a, b} {
		if _, err := e.st.Fact(ctx, id); err != nil {
			return err
		}
	}
	if err := e.st.DismissPair(ctx, a, b); err != nil {
		return err
	}
	e.exportSync(ctx)
	return nil
}

// supersede marks old superseded by the fact by: both active and in one space.
func (e *Engine) supersede(ctx context.Context, old, by int64) (RememberResult, error) {
	if old <= 0 || by <= 0 {
		return RememberResult{}, fmt.Errorf("%w: supersede needs the id of the old fact and of the fact that replaces it", ErrBadRequest)
	}
	if err := e.st.Supersede(ctx, old, by); err != nil {
		return RememberResult{}, mapSupersede(err)
	}
	return RememberResult{FactID: old, Status: StatusSuperseded, SupersededBy: by}, nil
}

func mapSupersede(err error) error {
	if errors.Is(err, store.ErrNotActive) {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return err
}

func (e *Engine) contradictionsAdmin(ctx context.Context, req AdminRequest) (AdminResult, error) {
	res, err := e.Contradictions(ctx, ContradictionsRequest{})
	if err != nil {
		return AdminResult{}, err
	}
	out := AdminResult{Action: "contradictions", OK: len(res.Pairs) == 0,
		Counts: map[string]int{"pairs": len(res.Pairs)}}
	for _, p := range res.Pairs {
		out.Details = append(out.Details, fmt.Sprintf("#%d %q and #%d %q: %s", p.A.ID, p.A.Text, p.B.ID, p.B.Text, p.Reason))
	}
	switch {
	case len(res.Pairs) == 0:
		out.Details = []string{"no active facts contradict each other"}
	default:
		if res.Truncated {
			out.Details = append(out.Details, fmt.Sprintf("only the first %d pairs are listed", maxContradictionPairs))
		}
		out.Next = []AdminStep{{Kind: StepSettle}}
	}
	return out, nil
}

// sweepTriples re-extracts up to budget active facts whose triples are pending or were
// made by other rules, each in its own short transaction: the entity sweep's loop, for
// statements. It needs no model, so it also runs before the entity extractor has loaded.
func (e *Engine) sweepTriples(ctx context.Context, budget int) (SweepReport, error) {
	if budget <= 0 {
		budget = DefaultSweepBudget
	}
	owners, total, err := e.st.StaleTriples(ctx, hygiene.RulesVersion, budget)
	if err != nil {
		return SweepReport{}, err
	}
	rep := SweepReport{Deferred: total}
	for _, o := range owners {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		triples := *extractTriples(o.Text)
		if err := waitOutBusy(ctx, func() error { return e.st.SetTriples(ctx, o.ID, o.Text, triples) }); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			if !errors.Is(err, store.ErrChanged) {
				e.log.Warn("triple sweep: fact left for the next pass", "id", o.ID, "err", err)
			}
			continue
		}
		rep.Rebuilt++
		rep.Deferred--
	}
	return rep, nil
}

// KBConflict is a sentence of an imported document that contradicts or restates an active
// memory of the same space.
type KBConflict struct {
	Path      string `json:"path"`
	Page      int    `json:"page,omitempty"` // PDF page; the lines are then of that page
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Sentence  string `json:"sentence"`
	FactID    int64  `json:"fact_id"`
	FactText  string `json:"fact_text"`
	Kind      string `json:"kind"` // contradicts | restates
	Reason    string `json:"reason,omitempty"`
}

// Conflict kinds of an import report.
const (
	ConflictContradicts = "contradicts"
	ConflictRestates    = "restates"
)

// maxConflictsPerDocument bounds one document's report: past it, a person needs to look at
// the document, not at a longer list.
const maxConflictsPerDocument = 50

// documentConflicts compares every sentence of chunks that makes a statement with the
// active memories of space about the same subject and predicate.
func (e *Engine) documentConflicts(ctx context.Context, space, path string, chunks []store.Chunk) ([]KBConflict, error) {
	var out []KBConflict
	seen := map[[2]string]bool{} // (sentence, fact id) reported once per document
	for _, c := range chunks {
		for _, sent := range sentences(c.Text) {
			ts := extractTriples(sent.text)
			if len(ts.List) == 0 {
				continue
			}
			facts, err := e.st.TriplesAbout(ctx, space, subjectKeys(ts.List))
			if err != nil {
				return out, err
			}
			mine := fromStore(ts.List)
			for _, f := range facts {
				kb := KBConflict{Path: path, Page: c.Page, LineStart: c.LineStart + sent.line, Sentence: sent.text, FactID: f.FactID}
				kb.LineEnd = kb.LineStart + strings.Count(sent.text, "\n")
				theirs := fromStore(f.Triples)
				if conflict, ok := hygiene.Contradicts(mine, theirs); ok {
					kb.Kind, kb.Reason = ConflictContradicts, conflict.Reason
				} else if hygiene.Restates(mine, theirs) {
					kb.Kind = ConflictRestates
				} else {
					continue
				}
				key := [2]string{sent.text, fmt.Sprint(f.FactID)}
				if seen[key] {
					continue
				}
				seen[key] = true
				fact, err := e.st.Fact(ctx, f.FactID)
				if err != nil {
					return out, err
				}
				kb.FactText = fact.Content
				out = append(out, kb)
				if len(out) == maxConflictsPerDocument {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

type sentence struct {
	text string
	line int // lines before it in its chunk
}

// sentences cuts a chunk at sentence ends (。！？；!?; and ". " or a line break), keeping
// each sentence's line offset so a report can point into the file.
func sentences(text string) []sentence {
	var out []sentence
	start, line, startLine := 0, 0, 0
	flush := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, sentence{text: s, line: startLine})
		}
		start, startLine = end, line
	}
	for i, r := range text {
		switch r {
		case '\n':
			flush(i)
			line++
			startLine = line
		case '。', '！', '？', '；', '!', '?', ';':
			flush(i + len(string(r)))
		case '.':
			if i+1 == len(text) || text[i+1] == ' ' {
				flush(i + 1)
			}
		}
	}
	flush(len(text))
	return out
}
