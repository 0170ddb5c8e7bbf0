package engine

// Work is what the engine's background work (Run) is doing now, for a status line: a long
// sweep after a bulk import takes minutes, and a person should see it moving rather than
// wonder why a memory written elsewhere has no names yet.
type Work struct {
	// Task is one of the Work* constants; "" when Run is idle (or not running).
	Task string `json:"task"`
	// Done of Total rows; Total is 0 for a task without a count.
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Background tasks, as Work.Task names them.
const (
	WorkWarming    = "warming"    // reading the search index ahead of the first searches
	WorkStatements = "statements" // extracting facts' statements (contradiction checks)
	WorkLoading    = "loading"    // loading the entity extractor
	WorkNames      = "names"      // extracting facts' entity names
)

// BackgroundWork returns what Run is doing now. It never blocks.
func (e *Engine) BackgroundWork() Work {
	if w := e.work.Load(); w != nil {
		return *w
	}
	return Work{}
}

// setWork records what Run is doing; a zero Work records idle.
func (e *Engine) setWork(w Work) {
	if w.Task == "" {
		e.work.Store(nil)
		return
	}
	e.work.Store(&w)
}

// workProgress returns a sweepPasses progress callback that records task's count.
func (e *Engine) workProgress(task string) func(done, total int) {
	e.setWork(Work{Task: task})
	return func(done, total int) { e.setWork(Work{Task: task, Done: done, Total: total}) }
}
