package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/timeexpr"
)

// recallFilters are the narrowing options the CLI and the MCP tool share, as a person or an
// agent writes them; narrow turns them into the engine's request fields.
type recallFilters struct {
	since, until, folder, sort string
}

// narrow fills req's date range, folder and sort from f, read against now. A relative
// folder is taken from the working directory, as kb add takes paths.
func (f recallFilters) narrow(req *engine.RecallRequest, now time.Time) error {
	var err error
	if req.Since, err = parseWhen("since", f.since, now, false); err != nil {
		return err
	}
	if req.Until, err = parseWhen("until", f.until, now, true); err != nil {
		return err
	}
	if folder := strings.TrimSpace(f.folder); folder != "" {
		if req.Folder, err = filepath.Abs(folder); err != nil {
			return fmt.Errorf("%w: folder %q: %w", engine.ErrBadRequest, folder, err)
		}
	}
	req.Sort = engine.Sort(strings.TrimSpace(f.sort))
	return nil
}

// maxAgeDays is the furthest back an age may count (about 2,700 years).
const maxAgeDays = 1_000_000

// parseWhen reads a --since or --until value: a day (2026-11-30, in local time), a moment
// (RFC 3339), an age (7d, 2w, 12h: that long before now), or words a query understands
// (yesterday, last week, 上周: --since takes where that time begins, --until where it
// ends). A day given to --until (end) counts whole, so --since 2026-11-01 --until
// 2026-11-30 is all of November.
func parseWhen(name, s string, now time.Time, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		if end {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	// Words a person says: yesterday, last week, 上周, this month. --since takes where the
	// time begins, --until where it ends.
	if rest, found := timeexpr.Parse(s, now); strings.TrimSpace(rest) == "" {
		if r, ok := timeexpr.Cover(found); ok {
			if end {
				return r.To, nil
			}
			return r.From, nil
		}
	}
	// Ages count back on the calendar, in days and hours apart: as a time.Duration, 106752d
	// (about 292 years) overflowed into a time after now, and matched nothing, silently.
	days := map[byte]int{'h': 0, 'd': 1, 'w': 7}
	if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && n >= 0 {
		if per, ok := days[s[len(s)-1]]; ok {
			back := n * per
			if per == 0 {
				back = n / 24
			}
			if back > maxAgeDays || back < 0 { // AddDate would overflow as well
				return time.Time{}, usagef("--%s %s is further back than any memory: use a day (2026-11-30) or a smaller age", name, s)
			}
			if per == 0 {
				return now.AddDate(0, 0, -back).Add(-time.Duration(n%24) * time.Hour), nil
			}
			return now.AddDate(0, 0, -back), nil
		}
	}
	return time.Time{}, usagef("--%s takes a day (2026-11-30), a moment (2026-11-30T09:00:00Z), an age (12h, 7d, 2w) or words such as yesterday or last week, not %q", name, s)
}
