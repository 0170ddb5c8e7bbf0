package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine"
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

// parseWhen reads a --since or --until value: a day (2026-11-30, in local time), a moment
// (RFC 3339), or an age (7d, 2w, 12h: that long before now). A day given to --until (end)
// counts whole, so --since 2026-11-01 --until 2026-11-30 is all of November.
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
	units := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && n >= 0 && units[s[len(s)-1]] != 0 {
		return now.Add(-time.Duration(n) * units[s[len(s)-1]]), nil
	}
	return time.Time{}, usagef("--%s takes a day (2026-11-30), a moment (2026-11-30T09:00:00Z) or an age (12h, 7d, 2w), not %q", name, s)
}
