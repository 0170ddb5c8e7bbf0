package ui

import (
	"time"

	"github.com/memdesk/memdesk/engine"
)

// How often an import may touch the window. The engine reports every file; at 200 files a
// second, a widget update and a list reload per file kept the UI goroutine busy and the
// window's import behind the CLI's. The list shows documents as they land, about once a
// second, so a long import is not an empty list while recall already finds its chunks.
const (
	progressEvery   = 150 * time.Millisecond
	listReloadEvery = 750 * time.Millisecond
)

// throttle says whether enough time has passed since it last said yes. It is used from one
// goroutine (the import's progress callback), so it needs no lock.
type throttle struct {
	every time.Duration
	last  time.Time
}

func (th *throttle) due(now time.Time) bool {
	if !th.last.IsZero() && now.Sub(th.last) < th.every {
		return false
	}
	th.last = now
	return true
}

// importProgress is the import's progress callback: it runs on the importing goroutine and
// posts at most one progress update per progressEvery and one list reload per
// listReloadEvery; the end of the import shows the final state (imported).
func (k *knowledgeScreen) importProgress() func(engine.ImportProgress) {
	bar := throttle{every: progressEvery}
	list := throttle{every: listReloadEvery}
	return func(p engine.ImportProgress) {
		now := time.Now()
		if bar.due(now) {
			k.t.do(func() { k.showProgress(p) })
		}
		if list.due(now) {
			k.t.do(k.reload)
		}
	}
}
