package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Vectors: one row per fact or chunk, in the vector space (fingerprint) it was made in. The
// store does not know what a fingerprint means beyond two rules: vectors of two fingerprints
// are never returned together, and a fingerprint that does not start with a version
// ("v1/...") is legacy, written before the fingerprint format existed.
//
// A row with dims = 0 and an empty blob is a zero-vector marker: the text embedded to a
// vector of zero norm in that space (no semantic evidence). It counts as done, so the
// catch-up does not embed the text again and again, and it is never searched.

// Vector is one owner's embedding, made from Text. PutVectors writes it only if the owner
// still holds Text. A nil or empty Vec writes a zero-vector marker.
type Vector struct {
	Kind string
	ID   int64
	Text string
	Vec  []float32
}

// PutVectors writes vectors made in fingerprint in one transaction, replacing each owner's
// previous vector (of any fingerprint). Owners deleted or edited since their text was read
// are skipped: the catch-up reads them again. It returns how many rows were written.
func (s *Store) PutVectors(ctx context.Context, fingerprint string, vs []Vector) (int, error) {
	written := 0
	now := nowMillis()
	err := s.write(ctx, func(tx *sql.Tx) error {
		written = 0
		for _, v := range vs {
			textCol, active := "content", " AND status = 'active'"
			if v.Kind == KindChunk {
				textCol, active = "text", ""
			}
			res, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO vectors(owner_kind, owner_id, fingerprint, dims, vec, created_at)
				SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM `+ownerTable(v.Kind)+` WHERE id = ? AND `+textCol+` = ?`+active+`)`,
				v.Kind, v.ID, fingerprint, len(v.Vec), EncodeVector(v.Vec), now, v.ID, v.Text)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			written += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store vectors: %w", err)
	}
	return written, nil
}

// EncodeVector is the blob form of a vector: little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads a blob written by EncodeVector into dst (grown as needed).
func DecodeVector(dst []float32, b []byte) []float32 {
	n := len(b) / 4
	dst = dst[:0]
	for i := range n {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return dst
}

// validVector is SQL for "this row is a usable vector or zero marker of fingerprint ?". Every
// row has the width its dims say: the vectors_width trigger drops any other.
const validVector = `v.fingerprint = ?`

// MissingVectors returns up to limit owners of kind, with id > afterID in id order, that have
// no valid vector in fingerprint (none at all, one of another fingerprint, or a blob of the
// wrong width), and how many there are in all. Only active facts count.
func (s *Store) MissingVectors(ctx context.Context, kind, fingerprint string, afterID int64, limit int) ([]StaleOwner, int, error) {
	from, args := missingVectorsFrom(kind, fingerprint)
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) `+from, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count missing vectors: %w", err)
	}
	out, err := s.NextMissingVectors(ctx, kind, fingerprint, afterID, limit)
	return out, total, err
}

// NextMissingVectors is MissingVectors without the count, which scans every owner of kind: a
// catch-up walking the owners page by page needs the pages, not the total each time.
func (s *Store) NextMissingVectors(ctx context.Context, kind, fingerprint string, afterID int64, limit int) ([]StaleOwner, error) {
	textCol := "content"
	if kind == KindChunk {
		textCol = "text"
	}
	from, args := missingVectorsFrom(kind, fingerprint)
	rows, err := s.db.QueryContext(ctx, `SELECT o.id, o.`+textCol+` `+from+` AND o.id > ? ORDER BY o.id LIMIT ?`,
		append(args, afterID, limit)...)
	if err != nil {
		return nil, fmt.Errorf("read missing vectors: %w", err)
	}
	defer rows.Close()
	var out []StaleOwner
	for rows.Next() {
		var o StaleOwner
		if err := rows.Scan(&o.ID, &o.Text); err != nil {
			return nil, fmt.Errorf("read missing vectors: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// missingVectorsFrom is the FROM and WHERE of the owners of kind with no valid vector in
// fingerprint (the owner table is o), and its arguments.
func missingVectorsFrom(kind, fingerprint string) (string, []any) {
	active := ` AND o.status = 'active'`
	if kind == KindChunk {
		// Not the chunks of an import still being staged or a version being removed.
		active = ` AND EXISTS (SELECT 1 FROM documents d WHERE d.id = o.doc_id AND ` + notReserved + `)`
	}
	return `FROM ` + ownerTable(kind) + ` o WHERE NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_by_owner WHERE v.owner_kind = ? AND v.owner_id = o.id AND ` +
		validVector + `)` + active, []any{kind, fingerprint}
}

// VectorSpaceCount is how many of the current owners' vectors one fingerprint holds.
type VectorSpaceCount struct {
	Fingerprint string `json:"fingerprint"`
	// Vectors counts the owners with a usable vector or zero marker in it; Zero of them are
	// zero markers.
	Vectors int `json:"vectors"`
	Zero    int `json:"zero"`
}

// VectorSpaces counts, per fingerprint, the vectors of active facts and of the chunks of
// documents, most first: what the database holds when the current model cannot be asked
// for its fingerprint. Owners is how many facts and chunks there are in all.
func (s *Store) VectorSpaces(ctx context.Context) (spaces []VectorSpaceCount, owners int, err error) {
	const current = `SELECT 'fact' AS kind, id FROM facts WHERE status = 'active' UNION ALL
		SELECT 'chunk', c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE ` + notReserved
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (`+current+`)`).Scan(&owners); err != nil {
		return nil, 0, fmt.Errorf("count vector spaces: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT v.fingerprint, count(*), coalesce(sum(v.dims = 0), 0)
		FROM (`+current+`) o JOIN vectors v INDEXED BY vectors_by_owner ON v.owner_kind = o.kind AND v.owner_id = o.id
		GROUP BY v.fingerprint ORDER BY count(*) DESC, v.fingerprint`)
	if err != nil {
		return nil, 0, fmt.Errorf("count vector spaces: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c VectorSpaceCount
		if err := rows.Scan(&c.Fingerprint, &c.Vectors, &c.Zero); err != nil {
			return nil, 0, fmt.Errorf("count vector spaces: %w", err)
		}
		spaces = append(spaces, c)
	}
	return spaces, owners, rows.Err()
}

// SpaceVectors are the searchable vectors of one kind and space in one fingerprint: IDs[i]
// owns Vecs[i]. Zero-vector markers are left out.
type SpaceVectors struct {
	IDs  []int64
	Vecs [][]float32
}

// VectorsForSpace reads the vectors of active owners of kind in space made in fingerprint.
func (s *Store) VectorsForSpace(ctx context.Context, kind, space, fingerprint string) (SpaceVectors, error) {
	var out SpaceVectors
	_, err := s.ScanVectorsForSpace(ctx, kind, space, fingerprint, func(id int64, vec []float32) {
		out.IDs = append(out.IDs, id)
		out.Vecs = append(out.Vecs, append([]float32(nil), vec...))
	})
	return out, err
}

// VectorMark is how far a read of the vectors reaches: the kind's generation
// (VectorGeneration) and the last vector change it includes, from which VectorChangesSince
// reads on.
type VectorMark struct {
	Generation int64
	Seq        int64
}

// spaceVectors is SQL for the searchable vectors of kind (columns owner_id, vec) in space ?
// made in fingerprint ? (in that order), narrowed by and (" AND ..." or "").
func spaceVectors(kind, and string) string {
	if kind == KindChunk {
		return `SELECT v.owner_id, v.vec FROM vectors v JOIN chunks o ON o.id = v.owner_id JOIN documents d ON d.id = o.doc_id
			WHERE v.owner_kind = 'chunk' AND d.space = ? AND ` + validVector + ` AND v.dims > 0` + and
	}
	return `SELECT v.owner_id, v.vec FROM vectors v JOIN facts o ON o.id = v.owner_id
		WHERE v.owner_kind = 'fact' AND o.status = 'active' AND o.space = ? AND ` + validVector + ` AND v.dims > 0` + and
}

// spaceVectorsScan reads a whole space's vectors starting from the space's owners, so its
// cost follows the space's size, not the store's: left to itself the planner walks every
// vector of the fingerprint (its index) and joins the owners, which for a store of many small
// spaces (a per-user or per-question layout) reads the whole table on each space's first
// query. CROSS JOIN fixes the order; no ORDER BY, which would sort the blobs.
func spaceVectorsScan(kind string) string {
	if kind == KindChunk {
		return `SELECT o.id, v.vec FROM documents d CROSS JOIN chunks o ON o.doc_id = d.id
			CROSS JOIN vectors v ON v.owner_kind = 'chunk' AND v.owner_id = o.id
			WHERE d.space = ? AND ` + validVector + ` AND v.dims > 0`
	}
	return `SELECT o.id, v.vec FROM facts o CROSS JOIN vectors v ON v.owner_kind = 'fact' AND v.owner_id = o.id
		WHERE o.status = 'active' AND o.space = ? AND ` + validVector + ` AND v.dims > 0`
}

// ScanVectorsForSpace calls fn, in no particular order, with each vector of an active owner
// of kind in space made in fingerprint, and returns the mark the read is consistent with. vec
// is only valid during the call (it is reused): a caller that keeps it copies it. Reading
// row by row, a space of 100k vectors never exists twice in memory.
func (s *Store) ScanVectorsForSpace(ctx context.Context, kind, space, fingerprint string, fn func(id int64, vec []float32)) (VectorMark, error) {
	var mark VectorMark
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		if mark, err = vectorMark(ctx, tx, kind); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, wholeScan+spaceVectorsScan(kind), space, fingerprint)
		if err != nil {
			return err
		}
		defer rows.Close()
		var vec []float32
		for rows.Next() {
			var id int64
			var blob sql.RawBytes
			if err := rows.Scan(&id, &blob); err != nil {
				return err
			}
			vec = DecodeVector(vec, blob)
			fn(id, vec)
		}
		return rows.Err()
	})
	if err != nil {
		return VectorMark{}, fmt.Errorf("read vectors: %w", err)
	}
	return mark, nil
}

// vectorMark reads the generation of kind and the last vector change.
func vectorMark(ctx context.Context, tx *sql.Tx, kind string) (VectorMark, error) {
	var m VectorMark
	err := tx.QueryRowContext(ctx, `SELECT
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0),
		coalesce((SELECT max(seq) FROM vector_changes), 0)`, "vectors_generation_"+kind).Scan(&m.Generation, &m.Seq)
	return m, err
}

// VectorDelta is what changed in one space after a mark: every owner of the kind whose
// vector was written or removed, in id order, with its searchable vector in the space now,
// or nil when it has none there (removed, a zero marker, made in another fingerprint, an
// owner of another space or no longer active).
type VectorDelta struct {
	// Mark is how far the delta reaches: applied to an index at the asked seq, the index is
	// at Mark. With More, Mark.Seq is the last change read and Mark.Generation is 0: the
	// index is not current until it has read on from Mark.Seq.
	Mark VectorMark
	More bool
	IDs  []int64
	Vecs [][]float32
}

// VectorChangesSince returns what changed in kind's vectors of space in fingerprint after
// change seq, reading at most limit changes (of any kind or space). It returns
// ErrChangesPruned when changes after seq were pruned away: the caller reloads whole.
func (s *Store) VectorChangesSince(ctx context.Context, kind, space, fingerprint string, seq int64, limit int) (VectorDelta, error) {
	var d VectorDelta
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var pruned int64
		err := tx.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vector_changes_pruned'`).Scan(&pruned)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if pruned > seq {
			return ErrChangesPruned
		}
		if d.Mark, err = vectorMark(ctx, tx, kind); err != nil {
			return err
		}
		upTo := d.Mark.Seq
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), ?1) FROM
			(SELECT seq FROM vector_changes WHERE seq > ?1 ORDER BY seq LIMIT ?2)`, seq, limit).Scan(&upTo); err != nil {
			return err
		}
		if upTo < d.Mark.Seq {
			d.More, d.Mark = true, VectorMark{Seq: upTo}
		}
		// The vector each changed owner has now, looked up by its key: one probe per owner.
		vec := strings.Replace(spaceVectors(kind, ` AND v.owner_id = c.id`), "v.owner_id, v.vec", "v.vec", 1)
		rows, err := tx.QueryContext(ctx, `WITH c(id) AS (SELECT DISTINCT owner_id FROM vector_changes
			WHERE seq > ? AND seq <= ? AND owner_kind = ?)
			SELECT c.id, (`+vec+`) FROM c ORDER BY c.id`, seq, upTo, kind, space, fingerprint)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var blob []byte
			if err := rows.Scan(&id, &blob); err != nil {
				return err
			}
			var v []float32
			if len(blob) > 0 {
				v = DecodeVector(make([]float32, 0, len(blob)/4), blob)
			}
			d.IDs = append(d.IDs, id)
			d.Vecs = append(d.Vecs, v)
		}
		return rows.Err()
	})
	if errors.Is(err, ErrChangesPruned) {
		return VectorDelta{}, err
	}
	if err != nil {
		return VectorDelta{}, fmt.Errorf("read vector changes: %w", err)
	}
	return d, nil
}

// VectorGeneration changes whenever a vector of kind is written or removed (a counter kept by
// triggers): a cached index built at one generation is current while it stays the same.
func (s *Store) VectorGeneration(ctx context.Context, kind string) (int64, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, "vectors_generation_"+kind).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read vector generation: %w", err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read vector generation %q: %w", v, err)
	}
	return n, nil
}

// VectorDiagnosis counts, over active facts and the chunks of documents, what stands between the database
// and a complete index in one fingerprint.
type VectorDiagnosis struct {
	// Current owners have a usable vector (or a zero-vector marker) in the fingerprint.
	Current int `json:"current"`
	// Zero of those are zero-vector markers: no semantic evidence.
	Zero int `json:"zero"`
	// Stale owners have no vector, or one of the wrong width, in the fingerprint.
	Stale int `json:"stale"`
	// SpaceStale owners have a vector made in another fingerprint (also counted in Stale).
	SpaceStale int `json:"space_stale"`
	// Legacy of those were made before fingerprints were versioned ("" or no "vN/" prefix).
	Legacy int `json:"legacy"`
	// Orphans are vectors whose owner is gone or no longer active: EvictVectors removes them.
	Orphans int `json:"orphans"`
}

// DiagnoseVectors counts current, stale, space-stale, legacy and orphaned vectors.
//
// Every checked CLI command runs it, so it reads no vector and probes no index per owner:
// the owners' ids and the vectors' owner index (vectors_by_owner, in owner order) are read
// once each and merged here. Joined in SQL, 100k owners cost 100k index probes: 0.55 s.
func (s *Store) DiagnoseVectors(ctx context.Context, fingerprint string) (VectorDiagnosis, error) {
	var d VectorDiagnosis
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		d = VectorDiagnosis{}
		for _, kind := range []string{KindFact, KindChunk} {
			if err := diagnoseKind(ctx, tx, kind, fingerprint, &d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return VectorDiagnosis{}, fmt.Errorf("diagnose vectors: %w", err)
	}
	return d, nil
}

// VectorCoverage counts the owners a search meets (active facts, chunks of documents in a
// person's space) and how many of them have no vector in fingerprint: DiagnoseVectors'
// Current+Stale and Stale, for a one-shot recall that only says how much its semantic leg
// cannot see. It counts over indexes (75 ms of a 300 ms recall at 100k facts, against 190 ms
// for the whole diagnosis) and keeps the counts in meta with the marks of both change logs:
// until a text or a vector changes, the next process reads them back.
//
// It relies on what the triggers of schema v5 keep true: a fact's vectors go when it stops
// being active, a chunk's when it is deleted. Vectors a store kept from before them
// (DiagnoseVectors' orphans) would make it count too few missing.
func (s *Store) VectorCoverage(ctx context.Context, fingerprint string) (owners, missing int, err error) {
	var mark, kept string
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq); err != nil {
			return err
		}
		facts, err := vectorMark(ctx, tx, KindFact)
		if err != nil {
			return err
		}
		chunks, err := vectorMark(ctx, tx, KindChunk)
		if err != nil {
			return err
		}
		mark = fmt.Sprintf("%d %d %d %s", seq, facts.Generation, chunks.Generation, fingerprint)
		if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'vector_coverage'`).Scan(&kept); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if m, ok := strings.CutPrefix(kept, mark+"\n"); ok {
			if _, err := fmt.Sscan(m, &owners, &missing); err == nil {
				return nil
			}
		}
		kept = ""
		owners, missing, err = countCoverage(ctx, tx, fingerprint)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("count the vectors: %w", err)
	}
	if kept == "" && !s.ReadOnly() {
		// Kept for the next process if the database is free now: a recall does not wait
		// for another process's write to finish, for a cache.
		wctx, cancel := context.WithTimeout(ctx, coverageWriteWait)
		defer cancel()
		_ = s.write(wctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(wctx, `INSERT INTO meta(key, value) VALUES ('vector_coverage', ?)
				ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fmt.Sprintf("%s\n%d %d", mark, owners, missing))
			return err
		})
	}
	return owners, missing, nil
}

// coverageWriteWait bounds how long VectorCoverage waits for the database to keep its counts.
const coverageWriteWait = 50 * time.Millisecond

// countCoverage is VectorCoverage's count, in tx.
func countCoverage(ctx context.Context, tx *sql.Tx, fingerprint string) (owners, missing int, err error) {
	var facts, chunks, factVecs, chunkVecs, reservedVecs int
	for _, c := range []struct {
		n    *int
		q    string
		args []any
	}{
		{&facts, `SELECT count(*) FROM facts WHERE status = 'active'`, nil},
		{&chunks, `SELECT count(*) FROM chunks WHERE doc_id IN (SELECT d.id FROM documents d WHERE ` + notReserved + `)`, nil},
		{&factVecs, `SELECT count(*) FROM vectors WHERE fingerprint = ? AND owner_kind = 'fact'`, []any{fingerprint}},
		{&chunkVecs, `SELECT count(*) FROM vectors WHERE fingerprint = ? AND owner_kind = 'chunk'`, []any{fingerprint}},
		// The chunks of documents being staged or removed: few, and not met by a search.
		{&reservedVecs, `SELECT count(*) FROM chunks c JOIN vectors v ON v.owner_kind = 'chunk' AND v.owner_id = c.id AND v.fingerprint = ?
			WHERE c.doc_id IN (SELECT d.id FROM documents d WHERE NOT (` + notReserved + `))`, []any{fingerprint}},
	} {
		if err := tx.QueryRowContext(ctx, c.q, c.args...).Scan(c.n); err != nil {
			return 0, 0, err
		}
	}
	return facts + chunks, max(facts-factVecs, 0) + max(chunks-(chunkVecs-reservedVecs), 0), nil
}

// diagnoseKind counts the owners and vectors of one kind into d.
func diagnoseKind(ctx context.Context, tx *sql.Tx, kind, fingerprint string, d *VectorDiagnosis) error {
	// current are the owners a search meets; exists also holds the chunks of documents
	// being staged or removed, whose vectors are neither current nor orphaned.
	q := `SELECT id, 1 FROM facts WHERE status = 'active'`
	if kind == KindChunk {
		q = `SELECT c.id, d.id IS NOT NULL AND ` + notReserved + ` FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	var current, exists []int64
	for rows.Next() {
		var id int64
		var cur bool
		if err := rows.Scan(&id, &cur); err != nil {
			rows.Close()
			return err
		}
		exists = append(exists, id)
		if cur {
			current = append(current, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	slices.Sort(current)
	slices.Sort(exists)

	// The fingerprints are compared in SQL: a row then crosses into Go as four integers.
	rows, err = tx.QueryContext(ctx, `SELECT owner_id, fingerprint = ?, fingerprint GLOB 'v[0-9]*/*', dims = 0
		FROM vectors INDEXED BY vectors_by_owner WHERE owner_kind = ? ORDER BY owner_id`, fingerprint, kind)
	if err != nil {
		return err
	}
	defer rows.Close()
	ci, ei := 0, 0
	for rows.Next() {
		var id int64
		var same, versioned, zero bool
		if err := rows.Scan(&id, &same, &versioned, &zero); err != nil {
			return err
		}
		for ci < len(current) && current[ci] < id {
			d.Stale++ // an owner with no vector
			ci++
		}
		for ei < len(exists) && exists[ei] < id {
			ei++
		}
		switch {
		case ci < len(current) && current[ci] == id:
			ci++
			if same {
				d.Current++
				if zero {
					d.Zero++
				}
			} else {
				d.Stale++
				d.SpaceStale++
				if !versioned {
					d.Legacy++
				}
			}
		case ei < len(exists) && exists[ei] == id:
			// A chunk of a document being staged or removed.
		default:
			d.Orphans++
		}
	}
	d.Stale += len(current) - ci
	return rows.Err()
}

// orphanVector is SQL for a vector whose owner is gone or (a fact) no longer active.
const orphanVector = `(v.owner_kind = 'fact' AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.id = v.owner_id AND f.status = 'active'))
	OR (v.owner_kind = 'chunk' AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.owner_id))`

// EvictVectors deletes, in one statement, the vectors of deleted chunks and of facts that are
// gone or no longer active, and returns how many it deleted. The triggers of schema v5 keep
// this at zero for changes made since; it cleans up after anything older.
func (s *Store) EvictVectors(ctx context.Context) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM vectors AS v WHERE `+orphanVector)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("evict vectors: %w", err)
	}
	return int(n), nil
}

// VectorsByID reads the searchable vectors in space and fingerprint of the given owners of
// kind: what a search that picked candidates from a derived copy of the vectors re-scores
// exactly. An owner with no such vector now (removed, moved, no longer active) is left out;
// the order is the store's.
func (s *Store) VectorsByID(ctx context.Context, kind, space, fingerprint string, ids []int64) (SpaceVectors, error) {
	var out SpaceVectors
	for len(ids) > 0 {
		page := ids[:min(len(ids), 500)]
		ids = ids[len(page):]
		args := []any{space, fingerprint}
		marks := make([]string, len(page))
		for i, id := range page {
			marks[i] = "?"
			args = append(args, id)
		}
		rows, err := s.db.QueryContext(ctx, spaceVectors(kind, ` AND v.owner_id IN (`+strings.Join(marks, ",")+`)`), args...)
		if err != nil {
			return SpaceVectors{}, fmt.Errorf("read vectors by id: %w", err)
		}
		for rows.Next() {
			var id int64
			var blob sql.RawBytes
			if err := rows.Scan(&id, &blob); err != nil {
				rows.Close()
				return SpaceVectors{}, fmt.Errorf("read vectors by id: %w", err)
			}
			out.IDs = append(out.IDs, id)
			out.Vecs = append(out.Vecs, DecodeVector(make([]float32, 0, len(blob)/4), blob))
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return SpaceVectors{}, fmt.Errorf("read vectors by id: %w", err)
		}
	}
	return out, nil
}

// SpaceOwners counts the owners of kind in space that a search of it could meet: the active
// facts, or the chunks of its documents. It reads an index, not the vectors: an upper bound
// on the space's vectors, for deciding how to search it.
func (s *Store) SpaceOwners(ctx context.Context, kind, space string) (int, error) {
	q := `SELECT count(*) FROM facts WHERE space = ? AND status = 'active'`
	if kind == KindChunk {
		q = `SELECT count(*) FROM documents d JOIN chunks c ON c.doc_id = d.id WHERE d.space = ?`
	}
	var n int
	if err := s.db.QueryRowContext(ctx, q, space).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the owners of space %q: %w", space, err)
	}
	return n, nil
}

// The engine keeps derived copies of large vector spaces in files beside the database (a
// cache: SQLite stays the truth). Each copy is named by a token that is also written here,
// in meta, as the copy is put in place: a copy whose token this database does not hold was written for
// another database, or for this one before a backup was restored, and is not used. A
// database that holds the token holds the history the copy was made from.

// VectorCopyToken is the token of the copy called name, "" when there is none.
func (s *Store) VectorCopyToken(ctx context.Context, name string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, "vector_copy_"+name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the vector copy's token: %w", err)
	}
	return v, nil
}

// SetVectorCopyToken records the token of the copy called name.
func (s *Store) SetVectorCopyToken(ctx context.Context, name, token string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
			"vector_copy_"+name, token)
		return err
	})
	if err != nil {
		return fmt.Errorf("record the vector copy's token: %w", err)
	}
	return nil
}
