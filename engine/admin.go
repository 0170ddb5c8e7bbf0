package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/store"
)

// AdminRequest names a maintenance action.
type AdminRequest struct {
	Action string `json:"action"`
	// All repeats bounded passes until nothing is left (entities-sweep); otherwise one pass.
	All bool `json:"all,omitempty"`
	// Budget bounds the rows one pass touches; 0 means the action's default.
	Budget int `json:"budget,omitempty"`
	// To is where backup writes its copy; "" means a timestamped file beside the database.
	To string `json:"to,omitempty"`
	// Progress, when set, receives done/total counts from long actions.
	Progress func(done, total int) `json:"-"`
}

// AdminResult is an action's outcome. OK is false when the action found problems; Details
// lists them (or what was done) as sentences for a person, in words every surface can show.
type AdminResult struct {
	Action  string   `json:"action"`
	OK      bool     `json:"ok"`
	Details []string `json:"details"`
	// Next are what the person can do about the outcome. They are steps, not sentences: the
	// CLI words them as its commands and flags, the window as its screens and buttons, so
	// neither shows the other's (a window offers no --all).
	Next []AdminStep `json:"next,omitempty"`
	// Counts are the action's numbers (e.g. rebuilt, deferred, skipped), for scripts.
	Counts map[string]int `json:"counts,omitempty"`
}

// AdminStep is one thing to do after an action.
type AdminStep struct {
	Kind StepKind `json:"kind"`
	// Action is the repair to run, for StepRun.
	Action string `json:"action,omitempty"`
	// All asks for the repair's every pass, until nothing is left (the CLI's --all), for
	// StepRun.
	All bool `json:"all,omitempty"`
	// Path is the file the step is about, for StepOpenCopy.
	Path string `json:"path,omitempty"`
	// Why says what the step is for ("to finish"), for StepRun.
	Why string `json:"why,omitempty"`
}

// StepKind is what an AdminStep asks for.
type StepKind string

// The steps an action can ask for.
const (
	// StepRun: run the repair Action (again, when it is the same action).
	StepRun StepKind = "run"
	// StepBackupFirst: keep a copy of the database before repairing it.
	StepBackupFirst StepKind = "backup-first"
	// StepSettle: decide each contradicting pair (keep the newer, the older, or both).
	StepSettle StepKind = "settle"
	// StepOpenCopy: the copy at Path opens like any database.
	StepOpenCopy StepKind = "open-copy"
	// StepWaitForModel: the embedding model must answer first (the semantic leg ready).
	StepWaitForModel StepKind = "wait-for-model"
	// StepSeeWhy: the log says why some items failed (the CLI's -v).
	StepSeeWhy StepKind = "see-why"
)

type adminAction struct {
	help string
	run  func(ctx context.Context, req AdminRequest) (AdminResult, error)
}

// adminActions is the dispatch table, built per engine: later legs add their repairs here.
func (e *Engine) adminActions() map[string]adminAction {
	return map[string]adminAction{
		"integrity":        {help: "check the SQLite file and its full-text indexes", run: e.integrity},
		"backup":           {help: "write a consistent copy of the database (VACUUM INTO) beside it, or --to FILE", run: e.backup},
		"salvage":          {help: "write every memory that can still be read from a damaged database beside it, or to --to FILE (.md or .json), for memories import into a new one", run: e.salvage},
		"compact":          {help: "merge the search indexes and give their free space back to the file system (the app does it by itself after large imports)", run: e.compactAdmin},
		"rebuild-index":    {help: "rebuild the full-text indexes and entity rows from the stored text (after integrity reports a damaged index)", run: e.rebuildIndex},
		"entities-sweep":   {help: "re-extract entities and statements that are pending or from older rules (--all: until none are left)", run: e.entitiesSweep},
		"contradictions":   {help: "list pairs of active facts that contradict each other, with the reason", run: e.contradictionsAdmin},
		"vectors-diagnose": {help: "count vectors that are missing, from another embedding model, or orphaned", run: e.vectorsDiagnose},
		"vectors-fix":      {help: "evict orphaned vectors and re-embed stale ones (--all: until none are left)", run: e.vectorsFix},
	}
}

// AdminActions lists the maintenance actions with a line of help each, sorted by name.
func (e *Engine) AdminActions() [][2]string {
	out := make([][2]string, 0, len(e.admin))
	for name, a := range e.admin {
		out = append(out, [2]string{name, a.help})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Admin runs one maintenance action.
func (e *Engine) Admin(ctx context.Context, req AdminRequest) (AdminResult, error) {
	a, ok := e.admin[req.Action]
	if !ok {
		names := make([]string, 0, len(e.admin))
		for _, n := range e.AdminActions() {
			names = append(names, n[0])
		}
		return AdminResult{}, fmt.Errorf("%w: unknown admin action %q (available: %s)", ErrBadRequest, req.Action, strings.Join(names, ", "))
	}
	return a.run(ctx, req)
}

func (e *Engine) integrity(ctx context.Context, _ AdminRequest) (AdminResult, error) {
	problems, err := e.st.Integrity(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	res := AdminResult{Action: "integrity", OK: len(problems) == 0, Details: problems}
	if res.OK {
		res.Details = []string{"database file, full-text indexes and their sync with facts and chunks are ok"}
	} else {
		res.Next = []AdminStep{{Kind: StepBackupFirst},
			{Kind: StepRun, Action: "rebuild-index", Why: "rebuilds the search indexes from your stored text"}}
	}
	return res, nil
}

// rebuildIndex rebuilds every full-text index from the stored text (one transaction per
// index) and has every entity row extracted again in the sweep's bounded passes: the repair
// for a damaged index, which the stored text is not.
func (e *Engine) rebuildIndex(ctx context.Context, req AdminRequest) (AdminResult, error) {
	done, err := e.st.RebuildIndexes(ctx, nil)
	e.lex.Forget()
	if err != nil {
		return AdminResult{}, fmt.Errorf("%w (%d of the indexes were rebuilt; run this again to finish)", err, len(done))
	}
	marked, err := e.st.MarkEntitiesStale(ctx)
	if err != nil {
		return AdminResult{}, err
	}
	if err := e.LoadEntities(ctx); err != nil {
		return AdminResult{}, err
	}
	total, err := sweepPasses(func() (SweepReport, error) { return e.SweepEntities(ctx, req.Budget) }, true, req.Progress)
	if err != nil {
		return AdminResult{}, fmt.Errorf("%w (the full-text indexes are rebuilt; `memdesk admin entities-sweep --all` finishes the entity rows)", err)
	}
	res := AdminResult{Action: "rebuild-index", OK: total.Deferred == 0,
		Counts:  map[string]int{"indexes": len(done), "entity_rows": marked, "rebuilt": total.Rebuilt, "deferred": total.Deferred},
		Details: append(done, fmt.Sprintf("entities of %d facts extracted again, %d left", total.Rebuilt, total.Deferred))}
	if total.Deferred > 0 {
		res.Next = []AdminStep{{Kind: StepRun, Action: "entities-sweep", All: true, Why: "to finish"}}
	}
	return res, nil
}

// sweepPasses repeats a bounded sweep pass: once, or with all until nothing is deferred,
// another pass holds the guard, or a pass after the first makes no progress (rows that keep
// failing are logged and left for a later run). progress, when set, gets done/total after
// each pass. The entity and the statement sweeps, from the CLI and from Run, share it.
func sweepPasses(pass func() (SweepReport, error), all bool, progress func(done, total int)) (SweepReport, error) {
	var total SweepReport
	for first := true; ; first = false {
		rep, err := pass()
		if err != nil {
			return total, err
		}
		total.Rebuilt += rep.Rebuilt
		total.Skipped += rep.Skipped
		total.Deferred = rep.Deferred
		if progress != nil {
			progress(total.Rebuilt, total.Rebuilt+rep.Deferred)
		}
		if !all || rep.Deferred == 0 || rep.Skipped > 0 || rep.Rebuilt == 0 && !first {
			return total, nil
		}
	}
}

func (e *Engine) entitiesSweep(ctx context.Context, req AdminRequest) (AdminResult, error) {
	triples, err := sweepPasses(func() (SweepReport, error) { return e.sweepTriples(ctx, req.Budget) }, req.All, nil)
	if err != nil {
		return AdminResult{}, err
	}
	stale, err := e.loadEntitiesIfStale(ctx, nil)
	if err != nil {
		return AdminResult{}, err
	}
	var total SweepReport
	if stale {
		total, err = sweepPasses(func() (SweepReport, error) { return e.SweepEntities(ctx, req.Budget) }, req.All, req.Progress)
		if err != nil {
			return AdminResult{}, err
		}
	}
	res := AdminResult{Action: "entities-sweep", OK: total.Deferred == 0 && triples.Deferred == 0,
		Counts: map[string]int{"rebuilt": total.Rebuilt, "deferred": total.Deferred, "skipped": total.Skipped,
			"triples_rebuilt": triples.Rebuilt, "triples_deferred": triples.Deferred}}
	res.Details = []string{
		fmt.Sprintf("entities of %d facts re-extracted, %d still stale, %d passes skipped", total.Rebuilt, total.Deferred, total.Skipped),
		fmt.Sprintf("statements of %d facts re-extracted, %d still stale", triples.Rebuilt, triples.Deferred),
	}
	if (total.Deferred > 0 || triples.Deferred > 0) && !req.All {
		res.Next = []AdminStep{{Kind: StepRun, Action: "entities-sweep", All: true, Why: "to finish"}}
	}
	return res, nil
}

// Run is the engine's background work for long-lived processes (the app, the MCP server):
// it completes pending or stale statements (triples), then every fact's pending or stale
// entities in bounded passes (loading the entity extractor only if there are any), and
// compacts the search indexes when enough was written (compact.go). It then keeps the
// vectors caught up (see runSemantic), with an Embedder, and extracts the entities of facts
// stored without the extractor, until ctx is cancelled. The owner cancels ctx and waits for
// it.
func (e *Engine) Run(ctx context.Context) error {
	defer e.setWork(Work{})
	var wg sync.WaitGroup
	defer wg.Wait()
	// A catch-up that fails ends Run, and with it the vectors' catch-up.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The vectors' catch-up does not wait for the entity sweep: they share nothing but the
	// database, and a store of 10k pending names kept "0 of 10,000 embedded" for 30 s.
	if e.opts.Embedder != nil {
		e.semanticRunning.Store(true) // before any recall of this process asks
		wg.Go(func() { _ = e.runSemantic(ctx) })
	}
	if err := e.catchUp(ctx); err != nil {
		if ctx.Err() != nil {
			// Cancelled mid-sweep: the owner stopped Run, which is no failure (the vectors'
			// catch-up, which does not wait for the sweep, may have finished first).
			return nil
		}
		return err
	}
	wg.Go(func() { e.sweepEntitiesWhenWanted(ctx) })
	wg.Go(func() { e.compactWhenWanted(ctx) })
	wg.Go(func() { e.runSync(ctx) })
	<-ctx.Done()
	return nil
}

// catchUp is the start of Run: it warms the search index, then completes what writers left
// pending or stale (statements, then entities).
func (e *Engine) catchUp(ctx context.Context) error {
	e.setWork(Work{Task: WorkWarming})
	e.Warm(ctx)
	if _, err := sweepPasses(func() (SweepReport, error) { return e.sweepTriples(ctx, DefaultSweepBudget) }, true, e.workProgress(WorkStatements)); err != nil {
		return err
	}
	if err := e.sweepEntitiesIfStale(ctx); err != nil {
		return err
	}
	e.setWork(Work{})
	return nil
}

// sweepEntitiesIfStale completes the facts whose entities are pending or stale, loading the
// extractor first when there are any (see loadEntitiesIfStale).
func (e *Engine) sweepEntitiesIfStale(ctx context.Context) error {
	stale, err := e.loadEntitiesIfStale(ctx, func() { e.setWork(Work{Task: WorkLoading}) })
	if err != nil || !stale {
		return err
	}
	_, err = sweepPasses(func() (SweepReport, error) { return e.SweepEntities(ctx, DefaultSweepBudget) }, true, e.workProgress(WorkNames))
	return err
}

// loadEntitiesIfStale reports whether some fact's entities may be pending or stale, and makes
// sure the extractor is loaded when so (calling loading, when set, before it loads). Only
// naming memories needs the extractor (a query's names are looked up among the store's,
// package leg), and it is seconds to load and 125 MB of heap for the rest of the process
// (lingua keeps its models in package-level maps): a window or an MCP server that only
// searches never loads it. With the extractor in, it does not count: the sweep does.
func (e *Engine) loadEntitiesIfStale(ctx context.Context, loading func()) (bool, error) {
	if e.ents.Load() != nil {
		return true, nil
	}
	_, stale, err := e.st.StaleEntities(ctx, entity.RulesVersion, 0)
	if err != nil || stale == 0 {
		return false, err
	}
	if loading != nil {
		loading()
	}
	if err := e.LoadEntities(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// Warm reads now what the first recalls would otherwise read: the lexical leg's owners (100 ms
// over 64k chunks), the English word table (60 ms), the postings of the most common words, up
// to warmPostings per kind (1.2 s of background work at 64k chunks), and the vocabulary for
// spelling suggestions (0.5 s). Run
// calls it first, so a search typed into the app soon after it opens is as fast as later
// ones. A failure is logged, not returned: the first recall will try again and report it.
func (e *Engine) Warm(ctx context.Context) {
	start := time.Now()
	if err := background.Load(); err != nil {
		e.log.Warn("could not load the English word table", "err", err)
	}
	n, err := e.lex.WarmCommon(ctx, warmPostings)
	if err != nil && ctx.Err() == nil {
		e.log.Warn("could not read the word index ahead of the first search", "err", err)
	}
	e.saveLexiconCopy(ctx)
	// The spelling filter reads the whole vocabulary (0.5 s at 64k chunks): better now than
	// on the first query that finds nothing.
	if _, err := e.vocab.filter(ctx, e.st, e.opts.Now()); err != nil && ctx.Err() == nil {
		e.log.Warn("could not read the vocabulary for spelling suggestions", "err", err)
	}
	e.log.Debug("warmed the lexical leg", "postings", n, "took", time.Since(start))
}

// warmPostings is how many postings of common words Warm caches per kind (1.5 MB; the
// lexicon's cache holds 8 times as many). Over 64k real chunks, a quarter of a million took
// the slowest first search of a new word from 130 to 50 ms (BenchmarkTypeToResults50k); four
// times as many gained little more for twice the start-up work.
const warmPostings = 1 << 18

// wantEntitySweep wakes Run's entity sweep; it never blocks, and wakes that come while a
// sweep is due fold into it.
func (e *Engine) wantEntitySweep() { wake(e.entitiesWanted) }

// wake signals ch, a channel of one slot, without blocking: a wake that finds one pending
// folds into it.
func wake(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// sweepEntitiesWhenWanted completes the entities of facts stored pending while the extractor
// was not loaded (extractEntities), one sweep per wake, until ctx ends.
func (e *Engine) sweepEntitiesWhenWanted(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.entitiesWanted:
		}
		err := e.sweepEntitiesIfStale(ctx)
		e.setWork(Work{})
		if err != nil && ctx.Err() == nil {
			e.log.Warn("entity sweep stopped; the next one resumes it", "err", err)
		}
	}
}

// salvage writes the active memories that can still be read, one row at a time, to req.To
// as a memories export: the way out of a database whose pages are damaged, where list,
// export and backup fail whole.
func (e *Engine) salvage(ctx context.Context, req AdminRequest) (AdminResult, error) {
	if strings.TrimSpace(req.To) == "" {
		dir, base := filepath.Split(e.st.Path())
		req.To = filepath.Join(dir, strings.TrimSuffix(base, filepath.Ext(base))+"-salvaged-"+e.opts.Now().Format("20060102-150405")+".md")
	}
	ex := MemoryExport{Format: MemoryExportFormat, ExportedAt: e.opts.Now().UTC(), Memories: []ExportedMemory{}}
	rep, err := e.st.SalvageFacts(ctx, func(f store.Fact) { ex.Memories = append(ex.Memories, exportedMemory(f)) })
	if err != nil {
		return AdminResult{}, err
	}
	if err := WriteMemoriesFile(req.To, ex); err != nil {
		return AdminResult{}, fmt.Errorf("salvage: %w", err)
	}
	res := AdminResult{Action: "salvage", OK: rep.Damaged == 0,
		Counts:  map[string]int{"memories": rep.Read, "damaged_rows": rep.Damaged},
		Details: []string{fmt.Sprintf("wrote %d memories to %s; bring them into a new database with memdesk --db NEW.db memories import %s", rep.Read, req.To, req.To)}}
	if rep.Damaged > 0 {
		res.Details = append(res.Details, fmt.Sprintf("%d stored rows could not be read: they were on damaged pages", rep.Damaged))
	}
	return res, nil
}

func (e *Engine) backup(ctx context.Context, req AdminRequest) (AdminResult, error) {
	to := req.To
	if to == "" {
		dir, base := filepath.Split(e.st.Path())
		to = filepath.Join(dir, strings.TrimSuffix(base, filepath.Ext(base))+"-backup-"+e.opts.Now().Format("20060102-150405")+".db")
	}
	n, err := e.st.Backup(ctx, to)
	if err != nil {
		return AdminResult{}, e.damaged(ctx, err)
	}
	return AdminResult{Action: "backup", OK: true, Counts: map[string]int{"bytes": int(n)},
		Details: []string{fmt.Sprintf("wrote %s (%.1f MB)", to, float64(n)/(1<<20))},
		Next:    []AdminStep{{Kind: StepOpenCopy, Path: to}}}, nil
}

// groupThousands writes n with a comma between groups of three digits ("5,000"), as a count
// in a sentence reads best.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
