package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// AdminRequest names a maintenance action.
type AdminRequest struct {
	Action string `json:"action"`
	// Progress, when set, receives done/total counts from long actions.
	Progress func(done, total int) `json:"-"`
}

// AdminResult is an action's outcome. OK is false when the action found problems; Details
// lists them (or what was done) as sentences for a person.
type AdminResult struct {
	Action  string   `json:"action"`
	OK      bool     `json:"ok"`
	Details []string `json:"details"`
}

type adminAction struct {
	help string
	run  func(ctx context.Context, req AdminRequest) (AdminResult, error)
}

// adminActions is the dispatch table, built per engine: later legs add their repairs here.
func (e *Engine) adminActions() map[string]adminAction {
	return map[string]adminAction{
		"integrity": {help: "check the SQLite file and its full-text indexes", run: e.integrity},
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
	}
	return res, nil
}
