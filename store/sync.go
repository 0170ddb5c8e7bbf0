package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file holds the SQL of device sync (package engine/devsync, doc/sync.md). The rules
// (what a set of changes means) live in devsync; the store records changes, keeps the
// clock and writes the states devsync decides, each in the transaction of the change that
// caused it.

// Sync operations: what a change did. Every memory change carries the memory's whole state
// after it, so replay needs only the newest change of a line of versions.
const (
	OpAdd       = "add"
	OpEdit      = "edit"
	OpForget    = "forget"
	OpRestore   = "restore"
	OpSupersede = "supersede"
	OpMove      = "move"
	OpRename    = "rename"
	// OpDismiss records that a person kept both memories of a reported pair (A, B).
	OpDismiss = "dismiss"
)

// SyncChange is one change of the sync log.
type SyncChange struct {
	ID     string // Device + ":" + Seq
	Device string
	Seq    int64
	// Wall (Unix ms) and Ctr are the hybrid logical clock; Device breaks ties.
	Wall int64
	Ctr  int64
	Op   string
	// Root is the identity of the memory the change belongs to as it was added (its uid
	// before any fork); Base is the change whose version this one was made on ("" for an add).
	Root, Base string
	// The memory's state after the change.
	Space, Text, Status string
	By                  string // the uid that supersedes it (status superseded)
	Created             int64  // when the memory was first written, Unix ms
	// A and B are the uids of a dismissed pair (OpDismiss).
	A, B string
}

// Before orders changes by their clock: wall time, counter, device.
func (c SyncChange) Before(d SyncChange) bool {
	if c.Wall != d.Wall {
		return c.Wall < d.Wall
	}
	if c.Ctr != d.Ctr {
		return c.Ctr < d.Ctr
	}
	if c.Device != d.Device {
		return c.Device < d.Device
	}
	return c.Seq < d.Seq
}

const syncChangeColumns = `id, device, seq, wall, ctr, op, root, base, space, text, status, by_uid, created, a, b`

func scanSyncChange(r rowScanner) (SyncChange, error) {
	var c SyncChange
	err := r.Scan(&c.ID, &c.Device, &c.Seq, &c.Wall, &c.Ctr, &c.Op, &c.Root, &c.Base, &c.Space, &c.Text, &c.Status, &c.By, &c.Created, &c.A, &c.B)
	return c, err
}

// ErrSyncOff is returned by sync calls on a database where sync was never set up.
var ErrSyncOff = errors.New("sync is not set up for this database")

// SyncConfig is this database's sync set-up.
type SyncConfig struct {
	Device string // this database's device id
	Dir    string // the sync folder
}

// syncDevice is this database's device id, "" while sync is off.
func syncDevice(ctx context.Context, q querier) (string, error) {
	var dev string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'sync_device'`).Scan(&dev)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return dev, err
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SyncConfig reads the sync set-up; ErrSyncOff when there is none.
func (s *Store) SyncConfig(ctx context.Context) (SyncConfig, error) {
	var c SyncConfig
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM meta WHERE key IN ('sync_device', 'sync_dir')`)
	if err != nil {
		return SyncConfig{}, fmt.Errorf("read the sync set-up: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return SyncConfig{}, fmt.Errorf("read the sync set-up: %w", err)
		}
		if k == "sync_device" {
			c.Device = v
		} else {
			c.Dir = v
		}
	}
	if err := rows.Err(); err != nil {
		return SyncConfig{}, fmt.Errorf("read the sync set-up: %w", err)
	}
	if c.Device == "" || c.Dir == "" {
		return SyncConfig{}, ErrSyncOff
	}
	return c, nil
}

// sqlNullString scans a NULL as "".
type sqlNullString struct{ s *string }

func (n *sqlNullString) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n.s = ""
	case string:
		*n.s = x
	case []byte:
		*n.s = string(x)
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}

// SyncInit sets the sync folder up and returns the device id, made the first time and kept
// for good: a device keeps its identity when its folder moves. Every memory not logged yet
// is logged as an add of its current state, so the other devices receive what was stored
// before sync began.
func (s *Store) SyncInit(ctx context.Context, dir string) (device string, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		if device, err = syncDevice(ctx, tx); err != nil {
			return err
		}
		if device == "" {
			var b [8]byte
			if _, err := rand.Read(b[:]); err != nil {
				return err
			}
			device = hex.EncodeToString(b[:])
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('sync_device', ?)`, device); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('sync_dir', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1`, dir); err != nil {
			return err
		}
		ids, err := queryIDs(ctx, tx, `SELECT id FROM facts WHERE sync_version = '' ORDER BY id`)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.logFact(ctx, tx, id, OpAdd); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("set up sync in %q: %w", dir, err)
	}
	return device, nil
}

func queryIDs(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// clock reads the hybrid logical clock's last value.
func readClock(ctx context.Context, tx *sql.Tx) (wall, ctr int64, err error) {
	var v string
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'sync_clock'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	w, c, _ := strings.Cut(v, " ")
	wall, _ = strconv.ParseInt(w, 10, 64)
	ctr, _ = strconv.ParseInt(c, 10, 64)
	return wall, ctr, nil
}

func writeClock(ctx context.Context, tx *sql.Tx, wall, ctr int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('sync_clock', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1`,
		fmt.Sprintf("%d %d", wall, ctr))
	return err
}

// tick advances the clock for a local change (Kulkarni et al.'s send rule): the clock lives in
// the database and moves inside the writer's transaction, so the GUI, the CLI and the MCP
// server writing one database share one clock.
func (s *Store) tick(ctx context.Context, tx *sql.Tx) (wall, ctr int64, err error) {
	l, c, err := readClock(ctx, tx)
	if err != nil {
		return 0, 0, err
	}
	if pt := s.opts.SyncClock().UnixMilli(); pt > l {
		l, c = pt, 0
	} else {
		c++
	}
	return l, c, writeClock(ctx, tx, l, c)
}

// receive merges a remote change's clock into ours (the receive rule), so every later
// local change orders after everything this device has seen.
func (s *Store) receive(ctx context.Context, tx *sql.Tx, mWall, mCtr int64) error {
	l, c, err := readClock(ctx, tx)
	if err != nil {
		return err
	}
	pt := s.opts.SyncClock().UnixMilli()
	nl := max(l, mWall, pt)
	switch {
	case nl == l && nl == mWall:
		c = max(c, mCtr) + 1
	case nl == l:
		c++
	case nl == mWall:
		c = mCtr + 1
	default:
		c = 0
	}
	return writeClock(ctx, tx, nl, c)
}

// logFact records the change op just made to fact id inside tx, when sync is on: the
// fact's whole state after it, on the version it was made on. It runs in the transaction of
// the change itself, so a change is committed with its log entry or not at all.
func (s *Store) logFact(ctx context.Context, tx *sql.Tx, id int64, op string) error {
	dev, err := syncDevice(ctx, tx)
	if err != nil || dev == "" {
		return err
	}
	var c SyncChange
	var uid string
	err = tx.QueryRowContext(ctx, `SELECT f.uid, f.sync_version, f.space, f.content, f.status, coalesce(b.uid, ''), f.created_at
		FROM facts f LEFT JOIN facts b ON b.id = f.superseded_by WHERE f.id = ?`, id).
		Scan(&uid, &c.Base, &c.Space, &c.Text, &c.Status, &c.By, &c.Created)
	if err != nil {
		return fmt.Errorf("read fact %d for the sync log: %w", id, err)
	}
	c.Root, _, _ = strings.Cut(uid, "~")
	c.Op = op
	if err := s.appendChange(ctx, tx, dev, &c); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE facts SET sync_version = ? WHERE id = ?`, c.ID, id)
	return err
}

// logFacts logs op for each of ids.
func (s *Store) logFacts(ctx context.Context, tx *sql.Tx, op string, ids ...int64) error {
	for _, id := range ids {
		if err := s.logFact(ctx, tx, id, op); err != nil {
			return err
		}
	}
	return nil
}

// appendChange gives c this device's next sequence number and clock and stores it as not
// exported yet.
func (s *Store) appendChange(ctx context.Context, tx *sql.Tx, dev string, c *SyncChange) error {
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM sync_changes WHERE device = ?`, dev).Scan(&seq); err != nil {
		return err
	}
	wall, ctr, err := s.tick(ctx, tx)
	if err != nil {
		return err
	}
	c.Device, c.Seq, c.Wall, c.Ctr = dev, seq, wall, ctr
	c.ID = dev + ":" + strconv.FormatInt(seq, 10)
	return insertChange(ctx, tx, *c, false)
}

// insertChange stores c; inserted is false when it was known already (replay is idempotent).
func insertChange(ctx context.Context, tx *sql.Tx, c SyncChange, exported bool) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sync_changes(`+syncChangeColumns+`, exported) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.ID, c.Device, c.Seq, c.Wall, c.Ctr, c.Op, c.Root, c.Base, c.Space, c.Text, c.Status, c.By, c.Created, c.A, c.B, exported)
	return err
}

// logDismiss records a dismissed pair, when sync is on.
func (s *Store) logDismiss(ctx context.Context, tx *sql.Tx, a, b int64) error {
	dev, err := syncDevice(ctx, tx)
	if err != nil || dev == "" {
		return err
	}
	c := SyncChange{Op: OpDismiss}
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT uid FROM facts WHERE id = ?), (SELECT uid FROM facts WHERE id = ?)`, a, b).
		Scan(&sqlNullString{&c.A}, &sqlNullString{&c.B}); err != nil {
		return err
	}
	if c.A == "" || c.B == "" {
		return nil
	}
	return s.appendChange(ctx, tx, dev, &c)
}

// ExportChanges hands this device's changes not yet in its log to appendLog, oldest first,
// in pages, and marks each page exported once appendLog returns nil. It holds the database's
// write lock meanwhile, so two processes of this device never append to the log at once:
// the log file has one writer.
func (s *Store) ExportChanges(ctx context.Context, appendLog func([]SyncChange) error) (int, error) {
	total := 0
	for {
		n := 0
		err := s.write(ctx, func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, `SELECT `+syncChangeColumns+` FROM sync_changes WHERE exported = 0 ORDER BY seq LIMIT 1000`)
			if err != nil {
				return err
			}
			var page []SyncChange
			for rows.Next() {
				c, err := scanSyncChange(rows)
				if err != nil {
					rows.Close()
					return err
				}
				page = append(page, c)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if len(page) == 0 {
				return nil
			}
			// A local write may have taken the row a duplicate was hidden behind out of the
			// active set: the duplicate shows again before the write goes out. Once per
			// export, not per page: a write made while the export runs gets its scan at
			// the next export, which its own change brings.
			if total == 0 {
				if err := reviveDuplicates(ctx, tx); err != nil {
					return err
				}
			}
			if err := appendLog(page); err != nil {
				return err
			}
			n = len(page)
			_, err = tx.ExecContext(ctx, `UPDATE sync_changes SET exported = 1 WHERE exported = 0 AND seq <= ?`, page[len(page)-1].Seq)
			return err
		})
		if err != nil {
			return total, fmt.Errorf("export sync changes: %w", err)
		}
		total += n
		if n == 0 {
			return total, nil
		}
	}
}

// LastOwnSeq is the highest sequence number this device has logged, 0 when none.
func (s *Store) LastOwnSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM sync_changes WHERE device = (SELECT value FROM meta WHERE key = 'sync_device')`).Scan(&seq)
	return seq, err
}

// FactState is the state replay decided for one memory identity.
type FactState struct {
	UID, Space, Text, Status string
	By                       string // uid of the memory that supersedes it
	Version                  string // the change the state is from
	Created, Updated         int64  // Unix ms
}

// SyncConflict is a conflict replay found: two versions of one memory made concurrently.
type SyncConflict struct {
	UID, Other string // the memory that kept the identity, and the one forked off
	Kind       string // "edit", "forget-edit", "duplicate"
	Detail     string
}

// Resolution is what a memory's set of changes means.
type Resolution struct {
	States    []FactState
	Conflicts []SyncConflict
}

// SyncFileCursor is how far one log file has been read: Offset bytes, Line lines.
type SyncFileCursor struct {
	Path   string
	Offset int64
	Line   int64
}

// SyncProblem is a log line that was refused, and why.
type SyncProblem struct {
	Path   string
	Line   int64
	Reason string
}

// ApplyBatch is a page of other devices' changes with what it takes to apply them.
type ApplyBatch struct {
	Changes []SyncChange
	// Cursors are where each file read for the batch now ends.
	Cursors  []SyncFileCursor
	Problems []SyncProblem
	// Resolve says what the whole set of a memory's changes (root) means.
	Resolve func(root string, changes []SyncChange) Resolution
	// Derive makes the stored form of a text (hash, entities, triples), as a local write does.
	Derive func(text string) NewFact
}

// ApplyReport says what a batch changed.
type ApplyReport struct {
	New     int     // changes not seen before
	Touched []int64 // facts written
	Facts   []NewFact
}

// ApplyChanges stores the new changes of b, writes the state of every memory they touch
// and moves the file cursor, in one transaction: a crash leaves all of it or none.
func (s *Store) ApplyChanges(ctx context.Context, b ApplyBatch) (ApplyReport, error) {
	var rep ApplyReport
	err := s.write(ctx, func(tx *sql.Tx) error {
		rep = ApplyReport{}
		dirty := map[string]bool{}
		var dismissals int
		for _, c := range b.Changes {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sync_changes(`+syncChangeColumns+`, exported) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)`,
				c.ID, c.Device, c.Seq, c.Wall, c.Ctr, c.Op, c.Root, c.Base, c.Space, c.Text, c.Status, c.By, c.Created, c.A, c.B)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			rep.New++
			if err := s.receive(ctx, tx, c.Wall, c.Ctr); err != nil {
				return err
			}
			if c.Op == OpDismiss {
				dismissals++
			} else {
				dirty[c.Root] = true
			}
		}
		roots := make([]string, 0, len(dirty))
		for r := range dirty {
			roots = append(roots, r)
		}
		sort.Strings(roots)
		in := newInterner(tx)
		defer in.close()
		for _, root := range roots {
			if err := s.resolveRoot(ctx, tx, in, root, b, &rep); err != nil {
				return fmt.Errorf("memory %s: %w", root, err)
			}
		}
		// A memory superseded by one that was written after it in this batch (or an earlier
		// one) gets its link now that both are here.
		if len(roots) > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE facts SET superseded_by = (SELECT b.id FROM facts b
				WHERE b.uid = (SELECT c.by_uid FROM sync_changes c WHERE c.id = facts.sync_version))
				WHERE status = 'superseded' AND superseded_by IS NULL AND sync_version != ''`); err != nil {
				return err
			}
		}
		if len(roots) > 0 {
			if err := reviveDuplicates(ctx, tx); err != nil {
				return err
			}
		}
		// Every dismissal is applied again, not only the new ones: a pair may name a memory
		// that only now arrived (a fork made by this batch, or another device's add).
		if dismissals > 0 || len(roots) > 0 {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO dismissed_pairs(a, b, created_at)
				SELECT min(x.id, y.id), max(x.id, y.id), ?1 FROM sync_changes c JOIN facts x ON x.uid = c.a JOIN facts y ON y.uid = c.b
				WHERE c.op = 'dismiss' AND x.id != y.id`, nowMillis()); err != nil {
				return err
			}
		}
		for _, c := range b.Cursors {
			if _, err := tx.ExecContext(ctx, `INSERT INTO sync_files(path, offset, line) VALUES (?1, ?2, ?3)
				ON CONFLICT(path) DO UPDATE SET offset = ?2, line = ?3`, c.Path, c.Offset, c.Line); err != nil {
				return err
			}
		}
		for _, p := range b.Problems {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO sync_problems(path, line, reason, seen) VALUES (?, ?, ?, ?)`,
				p.Path, p.Line, p.Reason, nowMillis()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ApplyReport{}, fmt.Errorf("apply %d sync changes: %w", len(b.Changes), err)
	}
	return rep, nil
}

// resolveRoot writes the states the whole change set of root means, and forgets (without
// a log entry: it is derived) the forks of it no longer in them.
func (s *Store) resolveRoot(ctx context.Context, tx *sql.Tx, in *interner, root string, b ApplyBatch, rep *ApplyReport) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+syncChangeColumns+` FROM sync_changes WHERE root = ?`, root)
	if err != nil {
		return err
	}
	var changes []SyncChange
	for rows.Next() {
		c, err := scanSyncChange(rows)
		if err != nil {
			rows.Close()
			return err
		}
		changes = append(changes, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	res := b.Resolve(root, changes)
	// First every row of the memory that changes leaves the active set, so the states are
	// written in any order: a fork may take over the text another row of the memory shows
	// until its own state is written, and the duplicate check must not see that.
	for _, st := range res.States {
		if _, err := tx.ExecContext(ctx, `UPDATE facts SET status = 'deleted', superseded_by = NULL
			WHERE uid = ?1 AND status = 'active' AND (sync_version != ?2 OR space != ?3 OR content != ?4 OR status != ?5)`,
			st.UID, st.Version, st.Space, st.Text, st.Status); err != nil {
			return err
		}
	}
	keep := map[string]bool{}
	for _, st := range res.States {
		keep[st.UID] = true
		conflict, err := s.writeState(ctx, tx, in, st, b.Derive, rep)
		if err != nil {
			return err
		}
		if conflict != nil {
			res.Conflicts = append(res.Conflicts, *conflict)
		}
	}
	stale, err := tx.QueryContext(ctx, `SELECT id, uid FROM facts WHERE (uid = ?1 OR (uid > ?1 || '~' AND uid < ?1 || '~~')) AND status = 'active'`, root)
	if err != nil {
		return err
	}
	var gone []int64
	for stale.Next() {
		var id int64
		var uid string
		if err := stale.Scan(&id, &uid); err != nil {
			stale.Close()
			return err
		}
		if !keep[uid] {
			gone = append(gone, id)
		}
	}
	stale.Close()
	for _, id := range gone {
		if _, err := tx.ExecContext(ctx, `UPDATE facts SET status = 'deleted', superseded_by = NULL WHERE id = ?`, id); err != nil {
			return err
		}
	}
	for _, c := range res.Conflicts {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sync_conflicts(uid, other, kind, detail, seen) VALUES (?, ?, ?, ?, ?)`,
			c.UID, c.Other, c.Kind, c.Detail, nowMillis()); err != nil {
			return err
		}
	}
	return nil
}

// writeState makes the row of st.UID show st. A state that would make two active facts of
// a space say the same thing keeps the one already active and stores this one superseded
// by it (a "duplicate" conflict): the active memories are the same either way.
func (s *Store) writeState(ctx context.Context, tx *sql.Tx, in *interner, st FactState, derive func(string) NewFact, rep *ApplyReport) (*SyncConflict, error) {
	var (
		id                          int64
		space, content, status, ver string
		key                         int64
	)
	err := tx.QueryRowContext(ctx, `SELECT id, space, content, status, sync_version, dedupe FROM facts WHERE uid = ?`, st.UID).
		Scan(&id, &space, &content, &status, &ver, &key)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if exists && ver == st.Version && space == st.Space && content == st.Text && status == st.Status {
		return nil, nil
	}
	if !exists && st.Status != StatusActive {
		return nil, nil // nothing to show: a memory never seen active here is not made
	}
	var nf NewFact
	textChanged := !exists || content != st.Text
	switch {
	case textChanged:
		nf = derive(st.Text)
		key = spacedKey(dedupeKey(nf.Hash), st.Space)
	case space != st.Space:
		key = respacedKey(key, space, st.Space)
	}
	var by sql.NullInt64
	if st.By != "" {
		if err := tx.QueryRowContext(ctx, `SELECT id FROM facts WHERE uid = ?`, st.By).Scan(&by.Int64); err == nil {
			by.Valid = true
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	target := st.Status
	var conflict *SyncConflict
	if target == StatusActive {
		other, otherUID, found, err := activeCopy(ctx, tx, key, id)
		if err != nil {
			return nil, err
		}
		if found {
			target, by = StatusSuperseded, sql.NullInt64{Int64: other, Valid: true}
			conflict = &SyncConflict{UID: otherUID, Other: st.UID, Kind: "duplicate",
				Detail: "the same memory was written on two devices; one copy is kept"}
		}
	}
	if target != StatusSuperseded {
		by = sql.NullInt64{}
	}
	updated := st.Updated
	if !exists {
		ents, err := in.columns(ctx, nf.Entities)
		if err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO facts(uid, sync_version, space, content, dedupe, status, superseded_by, created_at, updated_after,
			entity_rules, entity_ids, entity_count, triple_rules, statements, wlen)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, max(?9 - ?8, 0), ?10, ?11, ?12, ?13, ?14, memdesk_wlen(?4))`,
			st.UID, st.Version, st.Space, st.Text, key, target, by, st.Created, updated, ents.rules, ents.ids, ents.count,
			tripleRules(nf.Triples), statementsBlob(nf.Triples, nf.Content))
		if err != nil {
			return nil, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return nil, err
		}
		if nf.Triples != nil {
			for _, t := range nf.Triples.List {
				if _, err := tx.ExecContext(ctx, insertStatementKey, statementKey(t.Subject, t.Predicate), id); err != nil {
					return nil, err
				}
			}
		}
		rep.Touched = append(rep.Touched, id)
		rep.Facts = append(rep.Facts, nf)
		return conflict, nil
	}
	if space != st.Space {
		if err := noteVectorsMoved(ctx, tx, KindFact, `SELECT ?`, id); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE facts SET space = ?1, content = ?2, dedupe = ?3, status = ?4, superseded_by = ?5,
		updated_after = max(?6 - created_at, 0), sync_version = ?7, wlen = memdesk_wlen(?2) WHERE id = ?8`,
		st.Space, st.Text, key, target, by, updated, st.Version, id); err != nil {
		return nil, err
	}
	if textChanged {
		if err := putEntities(ctx, tx, in, id, nf.Entities); err != nil {
			return nil, err
		}
		if err := putTriples(ctx, tx, id, st.Text, nf.Triples); err != nil {
			return nil, err
		}
		rep.Facts = append(rep.Facts, nf)
	}
	rep.Touched = append(rep.Touched, id)
	return conflict, nil
}

// activeCopy is the row other than id that shows the text of dedupe key in its space, and
// its uid; found is false when no row does. There is at most one (facts_active_dedupe).
func activeCopy(ctx context.Context, tx *sql.Tx, key, id int64) (other int64, uid string, found bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT id, uid FROM facts WHERE dedupe = ? AND status = 'active' AND id != ?`, key, id).
		Scan(&other, &uid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return other, uid, err == nil, err
}

// reviveDuplicates shows again each memory replay stored superseded as a duplicate
// (writeState: its text was active in another row of the space when its state came) once
// that row no longer shows the text. Its own state is active; it was hidden only so that
// one copy of the text is active, and which copy a device keeps depends on the order the
// changes came in. Without this, a device whose kept copy was then forgotten, edited or
// moved showed neither copy, while a device that had the changes in the other order showed
// the other one.
//
// Every such row has its "duplicate" conflict recorded (ApplyChanges), so the rows are
// looked up from those records, not by a scan of every memory: this runs after each local
// write's export. A row still hidden is one whose version's state (active) differs from its
// own (superseded); a memory superseded by a change of its own never matches.
func reviveDuplicates(ctx context.Context, tx *sql.Tx) error {
	type hidden struct{ id, key int64 }
	var rows []hidden
	q, err := tx.QueryContext(ctx, `SELECT DISTINCT f.id, f.dedupe FROM sync_conflicts d
		JOIN facts f ON f.uid = d.other
		JOIN sync_changes c ON c.id = f.sync_version
		LEFT JOIN facts k ON k.id = f.superseded_by
		WHERE d.kind = 'duplicate' AND f.status = 'superseded' AND c.status = 'active'
			AND (k.id IS NULL OR k.status != 'active' OR k.dedupe != f.dedupe)
		ORDER BY f.id`)
	if err != nil {
		return err
	}
	for q.Next() {
		var h hidden
		if err := q.Scan(&h.id, &h.key); err != nil {
			q.Close()
			return err
		}
		rows = append(rows, h)
	}
	q.Close()
	if err := q.Err(); err != nil {
		return err
	}
	for _, h := range rows {
		// Another copy may still be active (or one revived just before): the row stays a
		// duplicate, of that one.
		other, _, found, err := activeCopy(ctx, tx, h.key, h.id)
		if err != nil {
			return err
		}
		if found {
			_, err = tx.ExecContext(ctx, `UPDATE facts SET superseded_by = ? WHERE id = ?`, other, h.id)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE facts SET status = 'active', superseded_by = NULL WHERE id = ?`, h.id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// SyncDevice is what this database has received from one device.
type SyncDevice struct {
	Device  string
	Changes int
	LastSeq int64
	// LastWrite is the clock time of the device's newest change.
	LastWrite time.Time
}

// SyncStatus is what the sync tables hold.
type SyncStatus struct {
	Devices   []SyncDevice
	Pending   int // own changes not in the log yet
	Conflicts []SyncConflictView
	Problems  []SyncProblem
	Files     []SyncFileCursor
}

// SyncConflictView is a conflict with the facts it concerns (0: not stored here).
type SyncConflictView struct {
	SyncConflict
	FactID, OtherID int64
	Seen            time.Time
}

// SyncStatus reads the sync tables.
func (s *Store) SyncStatus(ctx context.Context) (SyncStatus, error) {
	var out SyncStatus
	wrap := func(err error) error { return fmt.Errorf("read the sync status: %w", err) }
	rows, err := s.db.QueryContext(ctx, `SELECT device, count(*), max(seq), max(wall) FROM sync_changes GROUP BY device ORDER BY device`)
	if err != nil {
		return out, wrap(err)
	}
	for rows.Next() {
		var d SyncDevice
		var wall int64
		if err := rows.Scan(&d.Device, &d.Changes, &d.LastSeq, &wall); err != nil {
			rows.Close()
			return out, wrap(err)
		}
		d.LastWrite = time.UnixMilli(wall)
		out.Devices = append(out.Devices, d)
	}
	rows.Close()
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sync_changes WHERE exported = 0`).Scan(&out.Pending); err != nil {
		return out, wrap(err)
	}
	rows, err = s.db.QueryContext(ctx, `SELECT c.uid, c.other, c.kind, c.detail, c.seen, coalesce(a.id, 0), coalesce(b.id, 0)
		FROM sync_conflicts c LEFT JOIN facts a ON a.uid = c.uid LEFT JOIN facts b ON b.uid = c.other ORDER BY c.seen, c.uid, c.other`)
	if err != nil {
		return out, wrap(err)
	}
	for rows.Next() {
		var c SyncConflictView
		var seen int64
		if err := rows.Scan(&c.UID, &c.Other, &c.Kind, &c.Detail, &seen, &c.FactID, &c.OtherID); err != nil {
			rows.Close()
			return out, wrap(err)
		}
		c.Seen = time.UnixMilli(seen)
		out.Conflicts = append(out.Conflicts, c)
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, `SELECT path, line, reason FROM sync_problems ORDER BY path, line`)
	if err != nil {
		return out, wrap(err)
	}
	for rows.Next() {
		var p SyncProblem
		if err := rows.Scan(&p.Path, &p.Line, &p.Reason); err != nil {
			rows.Close()
			return out, wrap(err)
		}
		out.Problems = append(out.Problems, p)
	}
	rows.Close()
	files, err := s.SyncFiles(ctx)
	if err != nil {
		return out, err
	}
	out.Files = files
	return out, nil
}

// SyncFiles returns how far each log file has been read.
func (s *Store) SyncFiles(ctx context.Context) ([]SyncFileCursor, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, offset, line FROM sync_files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("read the sync file cursors: %w", err)
	}
	defer rows.Close()
	var out []SyncFileCursor
	for rows.Next() {
		var c SyncFileCursor
		if err := rows.Scan(&c.Path, &c.Offset, &c.Line); err != nil {
			return nil, fmt.Errorf("read the sync file cursors: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SyncPairs returns the pairs of active facts sync reported as edited concurrently and
// not dismissed: the hygiene report shows them with the contradictions.
func (s *Store) SyncPairs(ctx context.Context) ([]SyncConflictView, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.uid, c.other, c.kind, c.detail, c.seen, a.id, b.id
		FROM sync_conflicts c JOIN facts a ON a.uid = c.uid JOIN facts b ON b.uid = c.other
		WHERE a.status = 'active' AND b.status = 'active' AND c.kind != 'duplicate'
		AND NOT EXISTS (SELECT 1 FROM dismissed_pairs d WHERE d.a = min(a.id, b.id) AND d.b = max(a.id, b.id))
		ORDER BY a.id, b.id`)
	if err != nil {
		return nil, fmt.Errorf("read the sync conflicts: %w", err)
	}
	defer rows.Close()
	var out []SyncConflictView
	for rows.Next() {
		var c SyncConflictView
		var seen int64
		if err := rows.Scan(&c.UID, &c.Other, &c.Kind, &c.Detail, &seen, &c.FactID, &c.OtherID); err != nil {
			return nil, fmt.Errorf("read the sync conflicts: %w", err)
		}
		c.Seen = time.UnixMilli(seen)
		out = append(out, c)
	}
	return out, rows.Err()
}

// FactUID returns a fact's identity across devices.
func (s *Store) FactUID(ctx context.Context, id int64) (string, error) {
	var uid string
	if err := s.db.QueryRowContext(ctx, `SELECT uid FROM facts WHERE id = ?`, id).Scan(&uid); err != nil {
		return "", fmt.Errorf("read the identity of fact %d: %w", id, err)
	}
	return uid, nil
}

// SyncChanges returns every change this database knows, in clock order (tests, diagnostics).
func (s *Store) SyncChanges(ctx context.Context) ([]SyncChange, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+syncChangeColumns+` FROM sync_changes ORDER BY wall, ctr, device, seq`)
	if err != nil {
		return nil, fmt.Errorf("read the sync changes: %w", err)
	}
	defer rows.Close()
	var out []SyncChange
	for rows.Next() {
		c, err := scanSyncChange(rows)
		if err != nil {
			return nil, fmt.Errorf("read the sync changes: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// PendingExport counts this device's changes not yet in its log file.
func (s *Store) PendingExport(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sync_changes WHERE exported = 0`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the changes to export: %w", err)
	}
	return n, nil
}

// SyncSeen returns the highest sequence number held of each device.
func (s *Store) SyncSeen(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT device, max(seq) FROM sync_changes GROUP BY device`)
	if err != nil {
		return nil, fmt.Errorf("read what was seen of each device: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var dev string
		var seq int64
		if err := rows.Scan(&dev, &seq); err != nil {
			return nil, fmt.Errorf("read what was seen of each device: %w", err)
		}
		out[dev] = seq
	}
	return out, rows.Err()
}

// ExportAgainAfter marks this device's changes after seq as not exported, for a log that
// holds only up to seq.
func (s *Store) ExportAgainAfter(ctx context.Context, seq int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sync_changes SET exported = 0
			WHERE device = (SELECT value FROM meta WHERE key = 'sync_device') AND seq > ? AND exported = 1`, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark changes to export again: %w", err)
	}
	return nil
}

// OwnChange returns this device's change with sequence number seq.
func (s *Store) OwnChange(ctx context.Context, seq int64) (SyncChange, error) {
	c, err := scanSyncChange(s.db.QueryRowContext(ctx, `SELECT `+syncChangeColumns+` FROM sync_changes
		WHERE device = (SELECT value FROM meta WHERE key = 'sync_device') AND seq = ?`, seq))
	if err != nil {
		return SyncChange{}, fmt.Errorf("read this device's change %d: %w", seq, err)
	}
	return c, nil
}
