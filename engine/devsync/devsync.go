// Package devsync keeps one person's memories the same on every device they own, through a
// folder that a file sync engine (Syncthing, Dropbox, iCloud Drive, a git repository of the
// folder) copies between them. memdesk never syncs its database file: each device appends
// the changes it makes to its own log in the folder, and replays the logs of the others.
//
// What it owns:
//   - the log format (line.go): one JSON change per line, each with an id (device and
//     sequence number), a hybrid logical clock and the version it was made on;
//   - the log files (log.go): <folder>/memdesk/<device>/<first seq>.jsonl, written only by
//     their device, appended whole and synced to disk, read only up to their last newline;
//   - what a memory's set of changes means (resolve.go), a function of the set alone, so
//     devices that hold the same changes hold the same memories;
//   - the Syncer, which exports, replays and reports (this file).
//
// The store records each change in the transaction of the change itself (store/sync.go),
// so a change committed is a change that will be exported, whatever kills the process. The
// design, the format and the conflict rules are in doc/sync.md.
package devsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memdesk/memdesk/internal/atomicfile"
	"github.com/memdesk/memdesk/store"
)

// ErrOff is returned when sync was never set up for the database.
var ErrOff = store.ErrSyncOff

// Options configure a Syncer.
type Options struct {
	Logger *slog.Logger
	// Now is the device's clock: the future bound of incoming changes. It must be the
	// store's SyncClock. nil means time.Now.
	Now func() time.Time
	// MaxFuture is how far ahead of Now a change's clock may be; 0 means DefaultMaxFuture.
	MaxFuture time.Duration
	// Derive makes the stored form of a replayed text, as a local write makes it. Required.
	Derive func(text string) store.NewFact
	// Poll is how often Run looks at the folder; 0 means 2 s.
	Poll time.Duration
	// ApplyPage is how many changes one replay transaction applies; 0 means 2,000.
	ApplyPage int
}

// Syncer exports and replays the sync log of one store. It is safe for concurrent use;
// several processes of one device may each hold one (the store serializes them).
type Syncer struct {
	st   *store.Store
	opts Options
	log  *slog.Logger
}

// New returns a Syncer of st. It starts nothing.
func New(st *store.Store, opts Options) *Syncer {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxFuture <= 0 {
		opts.MaxFuture = DefaultMaxFuture
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.ApplyPage <= 0 {
		opts.ApplyPage = 2000
	}
	return &Syncer{st: st, opts: opts, log: opts.Logger}
}

// Init sets sync up with the folder dir (made if missing), logs every memory stored so far,
// exports and replays what the other devices wrote.
func (s *Syncer) Init(ctx context.Context, dir string) (Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Report{}, fmt.Errorf("sync folder %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return Report{}, fmt.Errorf("make the sync folder: %w", err)
	}
	dev, err := s.st.SyncInit(ctx, abs)
	if err != nil {
		return Report{}, err
	}
	own := deviceDir(abs, dev)
	if err := os.MkdirAll(own, 0o700); err != nil {
		return Report{}, fmt.Errorf("make this device's log folder: %w", err)
	}
	// A folder that holds less of this device's log than it wrote (a new, emptied or
	// restored folder) gets the rest again.
	logged, err := lastLogged(own)
	if err != nil {
		return Report{}, fmt.Errorf("read this device's log: %w", err)
	}
	if err := s.st.ExportAgainAfter(ctx, logged); err != nil {
		return Report{}, err
	}
	return s.Now(ctx)
}

// Report says what one round of sync did.
type Report struct {
	Exported int // this device's changes appended to its log
	Read     int // lines read from other devices' logs
	Applied  int // changes not seen before
	Problems []store.SyncProblem
	// Facts are the memories written, for the engine's follow-up work (entities).
	Facts []store.NewFact
}

// Now exports this device's pending changes and replays the others'.
func (s *Syncer) Now(ctx context.Context) (Report, error) {
	n, err := s.Export(ctx)
	if err != nil {
		return Report{}, err
	}
	rep, err := s.Replay(ctx)
	rep.Exported = n
	return rep, err
}

// Export appends this device's changes not yet in its log; ErrOff when sync is off.
func (s *Syncer) Export(ctx context.Context) (int, error) {
	cfg, err := s.st.SyncConfig(ctx)
	if err != nil {
		return 0, err
	}
	// A read first: most calls (every sync now, every poll) find nothing to export, and the
	// export itself takes the write lock.
	if n, err := s.st.PendingExport(ctx); err != nil || n == 0 {
		return 0, err
	}
	dir := deviceDir(cfg.Dir, cfg.Device)
	own := func(seq int64) (store.SyncChange, bool) {
		c, err := s.st.OwnChange(ctx, seq)
		return c, err == nil
	}
	return s.st.ExportChanges(ctx, func(page []store.SyncChange) error { return appendChanges(dir, page, own) })
}

// replayLines bounds what one pass of Replay holds in memory.
const replayLines = 50_000

// Replay reads the other devices' logs from where it last stopped and applies the changes
// not seen before, in clock order. Bad lines are reported and skipped.
func (s *Syncer) Replay(ctx context.Context) (Report, error) {
	cfg, err := s.st.SyncConfig(ctx)
	if err != nil {
		return Report{}, err
	}
	var total Report
	for {
		rep, more, err := s.replayPass(ctx, cfg)
		total.Read += rep.Read
		total.Applied += rep.Applied
		total.Problems = append(total.Problems, rep.Problems...)
		total.Facts = append(total.Facts, rep.Facts...)
		if err != nil {
			return total, err
		}
		if !more {
			break
		}
	}
	if total.Read == 0 {
		return total, nil // nothing new: the cursor file says what it said
	}
	if err := s.writeCursor(ctx, cfg); err != nil {
		// The cursor file only tells other devices what this one has seen (for
		// compaction); replay itself is done.
		s.log.Warn("sync cursor file not written", "err", err)
	}
	return total, nil
}

func (s *Syncer) replayPass(ctx context.Context, cfg store.SyncConfig) (rep Report, more bool, err error) {
	files, err := otherLogs(cfg.Dir, cfg.Device)
	if err != nil {
		return rep, false, err
	}
	known, err := s.st.SyncFiles(ctx)
	if err != nil {
		return rep, false, err
	}
	cursors := map[string]store.SyncFileCursor{}
	for _, c := range known {
		cursors[c.Path] = c
	}
	now := s.opts.Now()
	var changes []store.SyncChange
	var moved []store.SyncFileCursor
	budget := replayLines
	for _, f := range files {
		cur, ok := cursors[f.rel]
		if !ok {
			cur = store.SyncFileCursor{Path: f.rel}
		}
		if f.size == cur.Offset {
			continue
		}
		if budget == 0 {
			more = true
			break
		}
		device := f.device
		r, err := readLog(f.path, cur, budget, func(b []byte) (store.SyncChange, error) {
			return ParseLine(b, device, now, s.opts.MaxFuture)
		})
		if errors.Is(err, os.ErrNotExist) {
			continue // renamed away by the sync engine since the listing
		}
		if err != nil {
			return rep, false, fmt.Errorf("read the log of device %s: %w", f.device, err)
		}
		read := int(r.cursor.Line - cur.Line)
		if r.cursor.Offset < cur.Offset {
			read = int(r.cursor.Line)
		}
		budget -= min(budget, max(read, 0))
		rep.Read += max(read, 0)
		if r.cursor != cur {
			moved = append(moved, r.cursor)
		}
		for _, p := range r.problems {
			s.log.Warn("sync log line skipped", "file", p.Path, "line", p.Line, "reason", p.Reason)
		}
		rep.Problems = append(rep.Problems, r.problems...)
		changes = append(changes, r.changes...)
	}
	if len(moved) == 0 {
		return rep, false, nil
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Before(changes[j]) })
	for start := 0; ; start += s.opts.ApplyPage {
		end := min(start+s.opts.ApplyPage, len(changes))
		b := store.ApplyBatch{Changes: changes[start:end], Resolve: Resolve, Derive: s.opts.Derive}
		last := end == len(changes)
		if last {
			// The cursors move with the last page only: a crash before it reads the pages
			// again, and applying a change twice changes nothing.
			b.Cursors, b.Problems = moved, rep.Problems
		}
		applied, err := s.st.ApplyChanges(ctx, b)
		if err != nil {
			return rep, false, err
		}
		rep.Applied += applied.New
		rep.Facts = append(rep.Facts, applied.Facts...)
		if last {
			break
		}
	}
	if rep.Applied > 0 {
		s.log.Info("sync replayed changes from other devices", "read", rep.Read, "applied", rep.Applied)
	}
	return rep, more, nil
}

// cursorFile is what <folder>/memdesk/<device>/cursor.json says: how far this device has
// read each other device's log. A device may compact its log up to what every other
// device's cursor shows it has seen.
type cursorFile struct {
	Device  string           `json:"device"`
	Seen    map[string]int64 `json:"seen"` // device -> highest sequence number applied
	Written time.Time        `json:"written"`
}

func (s *Syncer) writeCursor(ctx context.Context, cfg store.SyncConfig) error {
	seen, err := s.st.SyncSeen(ctx)
	if err != nil {
		return err
	}
	delete(seen, cfg.Device)
	cf := cursorFile{Device: cfg.Device, Seen: seen, Written: s.opts.Now().UTC()}
	path := filepath.Join(deviceDir(cfg.Dir, cfg.Device), "cursor.json")
	if prev, err := os.ReadFile(path); err == nil {
		var old cursorFile
		if json.Unmarshal(prev, &old) == nil && maps.Equal(old.Seen, cf.Seen) {
			return nil // unchanged: do not make the sync engine send it again
		}
	}
	b, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// Status is what sync status shows.
type Status struct {
	Device string `json:"device"`
	Dir    string `json:"dir"`
	// Devices are the devices whose changes this database holds, this one included.
	Devices []DeviceStatus `json:"devices"`
	// PendingExport: this device's changes not in its log yet. PendingApply: lines of
	// other devices' logs not read yet.
	PendingExport int64            `json:"pending_export"`
	PendingApply  int64            `json:"pending_apply_bytes"`
	Conflicts     []ConflictStatus `json:"conflicts,omitempty"`
	Problems      []ProblemStatus  `json:"problems,omitempty"`
}

// DeviceStatus is one device and its last change.
type DeviceStatus struct {
	Device    string    `json:"device"`
	This      bool      `json:"this,omitempty"`
	Changes   int       `json:"changes"`
	LastWrite time.Time `json:"last_write"`
}

// ConflictStatus is one conflict replay found, with the memories it concerns (0: none here).
type ConflictStatus struct {
	// UID is the memory that kept its identity, Other the one forked off.
	UID     string    `json:"uid"`
	Other   string    `json:"other_uid"`
	Kind    string    `json:"kind"`
	Detail  string    `json:"detail"`
	FactID  int64     `json:"fact_id,omitempty"`
	OtherID int64     `json:"other_id,omitempty"`
	Seen    time.Time `json:"seen"`
}

// ProblemStatus is a log line that was skipped.
type ProblemStatus struct {
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

// ProblemsOf is how the store's record of skipped lines is shown.
func ProblemsOf(ps []store.SyncProblem) []ProblemStatus {
	var out []ProblemStatus
	for _, p := range ps {
		out = append(out, ProblemStatus{File: p.Path, Line: p.Line, Reason: p.Reason})
	}
	return out
}

// Status reports this device, the devices seen, what is pending, conflicts and problems.
func (s *Syncer) Status(ctx context.Context) (Status, error) {
	cfg, err := s.st.SyncConfig(ctx)
	if err != nil {
		return Status{}, err
	}
	st, err := s.st.SyncStatus(ctx)
	if err != nil {
		return Status{}, err
	}
	out := Status{Device: cfg.Device, Dir: cfg.Dir, PendingExport: int64(st.Pending)}
	for _, d := range st.Devices {
		out.Devices = append(out.Devices, DeviceStatus{Device: d.Device, This: d.Device == cfg.Device, Changes: d.Changes, LastWrite: d.LastWrite.UTC()})
	}
	for _, c := range st.Conflicts {
		out.Conflicts = append(out.Conflicts, ConflictStatus{UID: c.UID, Other: c.Other, Kind: c.Kind, Detail: c.Detail, FactID: c.FactID, OtherID: c.OtherID, Seen: c.Seen.UTC()})
	}
	out.Problems = ProblemsOf(st.Problems)
	files, err := otherLogs(cfg.Dir, cfg.Device)
	if err != nil {
		return out, err
	}
	read := map[string]int64{}
	for _, c := range st.Files {
		read[c.Path] = c.Offset
	}
	for _, f := range files {
		out.PendingApply += max(f.size-read[f.rel], 0)
	}
	return out, nil
}

// Run keeps sync going until ctx ends: it replays at once, then looks at the folder every
// Poll and replays when a log changed, and exports what this device's other processes
// committed but did not export (a crash between commit and append). applied, when set, is
// told of each replay that changed memories. Run returns nil when sync is off.
func (s *Syncer) Run(ctx context.Context, applied func(Report)) error {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	last := ""
	for {
		cfg, err := s.st.SyncConfig(ctx)
		switch {
		case errors.Is(err, ErrOff):
			// Set up later by another process (sync init from the CLI): keep looking.
		case err != nil:
			s.log.Warn("sync: read the set-up", "err", err)
		default:
			if _, err := s.Export(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("sync: export", "err", err)
			}
			if sig := folderSignature(cfg); sig != last {
				rep, err := s.Replay(ctx)
				switch {
				case err != nil && ctx.Err() == nil:
					s.log.Warn("sync: replay", "err", err)
				case err == nil:
					last = sig
					if rep.Applied > 0 && applied != nil {
						applied(rep)
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// folderSignature changes when a log file of another device is added, grows or is replaced.
func folderSignature(cfg store.SyncConfig) string {
	files, err := otherLogs(cfg.Dir, cfg.Device)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %d %d\n", f.rel, f.size, f.mod.UnixNano())
	}
	return b.String()
}
