package engine

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// The semantic leg's in-memory index. Each (kind, space, fingerprint) has a snapshot, a
// spaceIndex, that never changes once published: a recall searches whichever snapshot is
// current when it starts, and a write is brought in by building the next snapshot beside it
// and swapping a pointer, so a recall never waits for another space's load or for a delta.
//
// A snapshot is brought up to date from the store's vector change log, reading only the
// owners whose vectors changed (store.VectorChangesSince). The recall that notices a change
// applies a small delta itself (a catch-up batch of 32 costs well under a millisecond); a
// recall that finds another build running searches the current snapshot instead of
// waiting. A delta too large to apply in passing, or a log pruned past the snapshot, is
// read in the background while recalls go on with the snapshot they have. Only the first
// load of a space waits: before it there is nothing to search.
//
// A query scans int8 codes (one scale per vector, symmetric) with an integer dot product, a
// quarter of the memory traffic of float32, and re-scores the best candidates exactly from
// their float32 vectors. At 100k x 1024 the scan costs 49 ms in float32 and about 5 ms in
// int8 (BenchmarkVectorSearch), and the exact top hits are the same
// (TestQuantizedSearchRecall). A small space keeps its float32 vectors in memory too; a large
// one (streamMinOwners) keeps only the codes and reads the candidates' float32 rows from its
// copy on disk (vecfile.go): 1,040 bytes a vector in memory at 1024 dimensions instead of
// 5,150 (BenchmarkWarmVectorSearch).

// Index tuning.
const (
	// blockRows is how many vectors one block of a snapshot holds. Blocks are shared between
	// snapshots: a delta appends to the last block in place (past the rows older snapshots
	// see) or starts a new one, and never copies the space.
	blockRows = 1024
	// inlineChanges is how many changes a recall applies itself; past that it hands the rest
	// to the background and searches what it has.
	inlineChanges = 1024
	// backgroundChanges is the page a background catch-up reads at a time, publishing a
	// snapshot after each.
	backgroundChanges = 8192
	// The int8 scan keeps max(rescoreFactor*limit, limit+rescoreExtra) candidates for exact
	// re-scoring. Keeping only limit loses 0.7% of the exact top 10 on clustered vectors
	// (TestQuantizedSearchRecall); these lose none.
	rescoreFactor = 4
	rescoreExtra  = 64
	// noiseDrift is the share of a space's vectors that must change before its noise is
	// measured again: measuring costs ~10 ms (32k cosines), too much for every delta.
	noiseDrift = 0.05
	// cheapNoise bounds sample^2 x dims of a space small enough to measure on every delta
	// (about a millisecond).
	cheapNoise = 4 << 20
)

// vectorIndex caches, per (kind, space, fingerprint), the snapshot of one space. The zero
// value works; close stops its background work.
type vectorIndex struct {
	// mu guards the fields below; it is never held while the store is read or a snapshot
	// built.
	mu      sync.Mutex
	entries map[vectorIndexKey]*spaceSlot
	// log, when set, is told about background catch-ups that failed (the next recall retries).
	log *slog.Logger
	// closed: close was called; no background work starts after it.
	closed bool
	// background counts the catch-ups running in the background.
	background sync.WaitGroup
	// smallSpace: a space of fewer owners keeps its float32 vectors in memory; a larger one
	// re-scores from its copy on disk. 0 means streamMinOwners (tests set less).
	smallSpace int
}

// minFileOwners is the size from which a space is searched through its copy.
func (x *vectorIndex) minFileOwners() int {
	if x.smallSpace > 0 {
		return x.smallSpace
	}
	return streamMinOwners
}

type vectorIndexKey struct{ kind, space, fingerprint string }

// spaceSlot holds one space's current snapshot and the right to build the next.
type spaceSlot struct {
	snap atomic.Pointer[spaceIndex]
	// turn holds a token while a snapshot is being built: one build at a time per space.
	turn chan struct{}
	// cancel stops this space's background catch-up, if one runs (under vectorIndex.mu).
	cancel context.CancelFunc
}

// slot returns key's slot, making it if needed, and forgets the spaces of other fingerprints:
// only the current one is worth keeping.
func (x *vectorIndex) slot(key vectorIndexKey) *spaceSlot {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.entries[key]; ok {
		return s
	}
	if x.entries == nil {
		x.entries = map[vectorIndexKey]*spaceSlot{}
	}
	for k, s := range x.entries {
		if k.fingerprint != key.fingerprint {
			if s.cancel != nil {
				s.cancel()
			}
			delete(x.entries, k)
		}
	}
	s := &spaceSlot{turn: make(chan struct{}, 1)}
	x.entries[key] = s
	return s
}

// has reports whether key's space is loaded.
func (x *vectorIndex) has(key vectorIndexKey) bool {
	x.mu.Lock()
	s, ok := x.entries[key]
	x.mu.Unlock()
	return ok && s.snap.Load() != nil
}

// close stops the background catch-ups and waits for them: after it the store may close.
func (x *vectorIndex) close() {
	x.mu.Lock()
	x.closed = true
	for _, s := range x.entries {
		if s.cancel != nil {
			s.cancel()
		}
	}
	x.mu.Unlock()
	x.background.Wait()
}

// get returns the index of one space: its current snapshot, brought up to date first when
// that is cheap. Only the first load of a space waits for a build.
func (x *vectorIndex) get(ctx context.Context, st *store.Store, key vectorIndexKey) (*spaceIndex, error) {
	gen, err := st.VectorGeneration(ctx, key.kind)
	if err != nil {
		return nil, err
	}
	slot := x.slot(key)
	cur := slot.snap.Load()
	if cur != nil && cur.mark.Generation == gen {
		return cur, nil
	}
	if cur == nil {
		select {
		case slot.turn <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	} else {
		select {
		case slot.turn <- struct{}{}:
		default:
			return cur, nil // another recall or the background is building the next one
		}
	}
	handedOver := false
	defer func() {
		if !handedOver {
			<-slot.turn
		}
	}()
	if cur = slot.snap.Load(); cur == nil {
		next, err := loadSpace(ctx, st, key, true, x.minFileOwners())
		if err != nil {
			return nil, err
		}
		slot.snap.Store(next)
		return next, nil
	}
	if cur.mark.Generation == gen {
		return cur, nil // the build that held the turn brought it up to date
	}
	d, err := st.VectorChangesSince(ctx, key.kind, key.space, key.fingerprint, cur.mark.Seq, inlineChanges)
	switch {
	case errors.Is(err, store.ErrChangesPruned):
		handedOver = x.catchUpInBackground(ctx, st, key, slot, true)
		return cur, nil
	case err != nil:
		return nil, err
	}
	next := cur.apply(d)
	if err := next.refreshNoise(ctx, st, key); err != nil {
		return nil, err
	}
	slot.snap.Store(next)
	if d.More || next.needsCompaction() {
		handedOver = x.catchUpInBackground(ctx, st, key, slot, !d.More)
	}
	return next, nil
}

// catchUpInBackground takes over slot's turn (held by the caller) and brings the space up to
// date in a goroutine that close waits for: reloading it whole, or reading the rest of the
// change log in pages. It reports false, leaving the turn with the caller, once closed.
func (x *vectorIndex) catchUpInBackground(ctx context.Context, st *store.Store, key vectorIndexKey, slot *spaceSlot, whole bool) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return false
	}
	// The recall that started it returns now; the catch-up ends with the index.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	slot.cancel = cancel
	x.background.Add(1)
	go func() {
		defer x.background.Done()
		defer func() { <-slot.turn }()
		defer cancel()
		if err := catchUp(ctx, st, key, slot, whole, x.minFileOwners()); err != nil && ctx.Err() == nil && x.log != nil {
			x.log.Warn("semantic index catch-up failed; the next recall retries", "kind", key.kind, "space", key.space, "err", err)
		}
	}()
	return true
}

// reloadInBackground reloads key's space whole in the background (from SQLite, writing a new
// copy), unless a build already runs: its copy failed a row's checksum.
func (x *vectorIndex) reloadInBackground(ctx context.Context, st *store.Store, key vectorIndexKey) {
	slot := x.slot(key)
	select {
	case slot.turn <- struct{}{}:
	default:
		return // a build runs; the next damaged read asks again
	}
	if !x.catchUpInBackground(ctx, st, key, slot, true) {
		<-slot.turn
	}
}

// catchUp brings slot's snapshot up to date, publishing a snapshot after each step.
func catchUp(ctx context.Context, st *store.Store, key vectorIndexKey, slot *spaceSlot, whole bool, minFileOwners int) error {
	for {
		if whole {
			next, err := loadSpace(ctx, st, key, false, minFileOwners)
			if err != nil {
				return err
			}
			slot.snap.Store(next)
		}
		cur := slot.snap.Load()
		d, err := st.VectorChangesSince(ctx, key.kind, key.space, key.fingerprint, cur.mark.Seq, backgroundChanges)
		if errors.Is(err, store.ErrChangesPruned) {
			whole = true
			continue
		}
		if err != nil {
			return err
		}
		next := cur.apply(d)
		if err := next.refreshNoise(ctx, st, key); err != nil {
			return err
		}
		if whole = next.needsCompaction(); !whole {
			slot.snap.Store(next)
		}
		if !d.More && !whole {
			return nil
		}
	}
}

// spaceIndex is one snapshot of a space's vectors: rows in blocks, all full but the last,
// and the rows deleted since they were loaded. Nothing in it changes once it is published:
// a delta makes a new snapshot that shares the blocks.
type spaceIndex struct {
	// mark is how far into the store's vectors the snapshot reaches; its generation is 0
	// while it is not caught up.
	mark   store.VectorMark
	dims   int
	blocks []*vecBlock
	rows   int      // rows in the blocks, deleted ones included
	dead   []uint64 // bitmap of deleted rows; rows past its end are live
	nDead  int
	maxID  int64 // the largest id ever added: a changed id above it is not in the space
	// noise is how close this space's own texts are to each other (spaceNoise): a
	// semantic-only answer must be closer to the query than that.
	noise float64
	// noiseLive is how many live rows noise was measured on, noiseChanged how many rows were
	// added or removed since.
	noiseLive, noiseChanged int
	// fileRows: the first fileRows rows keep no float32 vectors in memory (a large space:
	// 104 MB at 100k x 1024 instead of 515 MB). They are the rows of file, in its order, and
	// the exact re-score reads their float32 rows from it, checking each row's checksum; from
	// the store by id when file is nil or a row fails its check. The noise sample reads the
	// store. Rows added since keep their float32 vectors in memory. file stays open while
	// any snapshot holds it: os.File closes its descriptor when it is collected, and no one
	// else knows when the last search of an old snapshot ends.
	fileRows int
	file     *vecFile
	// noiseDue: a lean snapshot whose noise is to be measured again (apply cannot read the
	// store).
	noiseDue bool
}

// lean reports whether some rows' float32 vectors are not in memory.
func (s *spaceIndex) lean() bool { return s.fileRows > 0 }

// vecBlock holds up to cap(ids) rows. Rows a published snapshot sees are never written again.
type vecBlock struct {
	ids    []int64
	scales []float32 // row i's component d is about codes[i*dims+d] * scales[i]
	codes  []int8
	// vecs: the unit vectors, for exact re-scoring; nil in a block read from a copy until a
	// row is added to it. sums: the copy's checksums of its float32 rows (spaceIndex.fileRows).
	vecs []float32
	sums []uint32
}

func newVecBlock(capRows, dims int) *vecBlock {
	return &vecBlock{ids: make([]int64, capRows), scales: make([]float32, capRows), codes: make([]int8, capRows*dims), vecs: make([]float32, capRows*dims)}
}

// withVecs is a copy of b with room for float32 vectors: a row added after the copy's rows
// keeps its vector in memory, and older snapshots share b.
func (b *vecBlock) withVecs(dims int) *vecBlock {
	return &vecBlock{ids: slices.Clone(b.ids), scales: slices.Clone(b.scales), codes: slices.Clone(b.codes), sums: slices.Clone(b.sums), vecs: make([]float32, len(b.ids)*dims)}
}

// live is how many vectors the snapshot searches.
func (s *spaceIndex) live() int { return s.rows - s.nDead }

func (s *spaceIndex) isDead(row int) bool {
	return row>>6 < len(s.dead) && s.dead[row>>6]&(1<<(row&63)) != 0
}

// row returns the block and slot of a row.
func (s *spaceIndex) row(r int) (*vecBlock, int) { return s.blocks[r/blockRows], r % blockRows }

// vec is row r's unit vector.
func (s *spaceIndex) vec(r int) []float32 {
	b, i := s.row(r)
	return b.vecs[i*s.dims : (i+1)*s.dims]
}

// needsCompaction reports whether deleted rows take enough of the scan to rebuild without
// them, or the rows added since the copy keep enough float32 vectors in memory (32 MB at 1024
// dimensions) to write a new copy.
func (s *spaceIndex) needsCompaction() bool {
	return s.nDead > blockRows && 4*s.nDead > s.rows || s.lean() && s.rows-s.fileRows > fileChanges
}

// add appends a row to s, which must not be published yet. One fingerprint has one width
// and a zero vector is no evidence: anything else is left out. vec is normalized in place.
func (s *spaceIndex) add(id int64, vec []float32) {
	if s.dims == 0 {
		s.dims = len(vec)
	}
	if len(vec) != s.dims || !normalizeVector(vec) {
		return
	}
	b, slot := s.appendRow(id)
	if b.vecs != nil {
		copy(b.vecs[slot*s.dims:], vec)
	}
	b.scales[slot] = quantize(b.codes[slot*s.dims:(slot+1)*s.dims], vec)
}

// addFileRow appends row s.rows of a copy (its id, scale, codes and its float32 row's
// checksum) to s, which must not be published yet and must hold only such rows so far;
// sealFileRows ends them.
func (s *spaceIndex) addFileRow(id int64, scale float32, sum uint32, codes []int8) {
	if s.dims == 0 {
		s.dims = len(codes)
	}
	slot := s.rows % blockRows
	if slot == 0 {
		s.blocks = append(s.blocks, &vecBlock{ids: make([]int64, blockRows), scales: make([]float32, blockRows), codes: make([]int8, blockRows*s.dims), sums: make([]uint32, blockRows)})
	}
	b := s.blocks[len(s.blocks)-1]
	b.ids[slot], b.scales[slot], b.sums[slot] = id, scale, sum
	copy(b.codes[slot*s.dims:(slot+1)*s.dims], codes)
	s.rows++
	s.maxID = max(s.maxID, id)
}

// sealFileRows marks the rows added so far as file's rows (nil: read them from the store).
func (s *spaceIndex) sealFileRows(file *vecFile) {
	s.fileRows, s.file = s.rows, file
}

// appendRow makes room for one more row, holding id, and returns its block and slot.
func (s *spaceIndex) appendRow(id int64) (*vecBlock, int) {
	last := len(s.blocks) - 1
	slot := s.rows - last*blockRows
	switch {
	case last < 0:
		s.blocks = append(s.blocks, newVecBlock(16, s.dims))
		last, slot = 0, 0
	case slot == blockRows:
		s.blocks = append(s.blocks, newVecBlock(blockRows, s.dims))
		last, slot = last+1, 0
	case slot == len(s.blocks[last].ids):
		// The first block grows by doubling (a small space stays small); the copy leaves
		// the block older snapshots hold as it was.
		old, grown := s.blocks[last], newVecBlock(min(2*len(s.blocks[last].ids), blockRows), s.dims)
		copy(grown.ids, old.ids[:slot])
		copy(grown.scales, old.scales[:slot])
		copy(grown.codes, old.codes[:slot*s.dims])
		if old.vecs != nil {
			copy(grown.vecs, old.vecs[:slot*s.dims])
		}
		s.blocks[last] = grown
	}
	b := s.blocks[last]
	if b.vecs == nil {
		b = b.withVecs(s.dims)
		s.blocks[last] = b
	}
	b.ids[slot] = id
	s.rows++
	s.maxID = max(s.maxID, id)
	return b, slot
}

// quantize writes v's symmetric int8 codes into codes and returns their scale: the largest
// component maps to ±127.
func quantize(codes []int8, v []float32) float32 {
	var peak float32
	for _, x := range v {
		peak = max(peak, x, -x)
	}
	if peak == 0 {
		clear(codes)
		return 0
	}
	inv := 127 / peak
	for i, x := range v {
		codes[i] = int8(roundAway(x * inv))
	}
	return peak / 127
}

// loadSpace reads one space whole. With fromCopy, a space with a usable copy beside the
// database is read from it (the int8 codes; the float32 rows stay on disk), brought up to
// date from the change log here. Otherwise a space of minFileOwners owners or more is read
// from SQLite into a new copy as its codes go into memory; a smaller one, or one whose copy
// cannot be written (a read-only folder, a full disk), keeps its float32 vectors in memory,
// as every space did before (5,150 bytes a vector at 1024 dimensions).
func loadSpace(ctx context.Context, st *store.Store, key vectorIndexKey, fromCopy bool, minFileOwners int) (*spaceIndex, error) {
	if fromCopy {
		if s, err := loadSpaceCopy(ctx, st, key); err != nil || s != nil {
			return s, err
		}
	}
	owners, err := st.SpaceOwners(ctx, key.kind, key.space)
	if err != nil {
		return nil, err
	}
	if owners >= minFileOwners {
		if s, err := loadSpaceWritingCopy(ctx, st, key); err != nil || s != nil {
			return s, err
		}
	}
	s := &spaceIndex{}
	mark, err := st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, s.add)
	if err != nil {
		return nil, err
	}
	s.mark = mark
	s.measureNoise()
	return s, nil
}

// loadSpaceWritingCopy reads key's space from SQLite into a lean snapshot and a new copy at
// once, so the float32 vectors are never all in memory; nil, with no error, when the copy
// cannot be written.
func loadSpaceWritingCopy(ctx context.Context, st *store.Store, key vectorIndexKey) (*spaceIndex, error) {
	path, name := vecFilePath(st.Path(), key)
	w, err := newVecFileWriter(path, name)
	if err != nil {
		return nil, nil
	}
	defer w.abandon()
	s := &spaceIndex{}
	var codes []int8
	mark, err := st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, func(id int64, vec []float32) {
		if s.dims == 0 {
			s.dims, codes = len(vec), make([]int8, len(vec))
		}
		// As add: one fingerprint has one width, and a zero vector is no evidence.
		if len(vec) != s.dims || !normalizeVector(vec) {
			return
		}
		scale := quantize(codes, vec)
		s.addFileRow(id, scale, w.add(id, scale, codes, vec), codes)
	})
	if err != nil {
		return nil, err
	}
	if s.rows == 0 {
		return nil, nil // nothing to re-score: no copy
	}
	s.mark = mark
	s.sealFileRows(nil)
	if err := s.measureNoiseIn(ctx, st, key); err != nil {
		return nil, err
	}
	f, err := w.finish(ctx, st, key, s.mark, s.noise)
	if err != nil {
		return nil, nil // one that cannot be written costs this load again in the next process
	}
	s.file = f
	return s, nil
}

// loadSpaceCopy loads key's space from its copy and the change log after it; nil, with no
// error, when there is no usable copy or the log no longer reaches back to it.
func loadSpaceCopy(ctx context.Context, st *store.Store, key vectorIndexKey) (*spaceIndex, error) {
	path, name := vecFilePath(st.Path(), key)
	f, err := openVecFile(ctx, st, path, name, key)
	if errors.Is(err, errVecFileUnusable) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			f.close()
		}
	}()
	d, err := st.VectorChangesSince(ctx, key.kind, key.space, key.fingerprint, f.h.mark.Seq, fileChanges)
	if errors.Is(err, store.ErrChangesPruned) || err == nil && d.More {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &spaceIndex{mark: f.h.mark, noise: f.h.noise}
	err = f.each(false, func(r vecFileRow) { s.addFileRow(r.id, r.scale, r.sum, r.codes) })
	if errors.Is(err, errVecFileUnusable) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	s.sealFileRows(f)
	s.noiseLive = s.live()
	next := s.apply(d)
	if next.needsCompaction() {
		return nil, nil // most of the copy was deleted since: read the live vectors alone
	}
	if err := next.refreshNoise(ctx, st, key); err != nil {
		return nil, err
	}
	keep = true
	return next, nil
}

// apply returns the snapshot after delta d: the changed ids removed, then those with a
// vector in the space added again. s itself is left as it was.
func (s *spaceIndex) apply(d store.VectorDelta) *spaceIndex {
	next := *s
	next.mark = d.Mark
	next.blocks = slices.Clone(s.blocks)
	var gone map[int64]bool
	for _, id := range d.IDs {
		if id <= s.maxID {
			if gone == nil {
				gone = map[int64]bool{}
			}
			gone[id] = true
		}
	}
	if gone != nil {
		// A linear pass over the ids (~1 ms at 100k) instead of an id -> row map, which
		// every snapshot would have to copy or share.
		next.dead = make([]uint64, (s.rows+63)/64)
		copy(next.dead, s.dead)
		for r := range s.rows {
			b, i := s.row(r)
			if gone[b.ids[i]] && !s.isDead(r) {
				next.dead[r>>6] |= 1 << (r & 63)
				next.nDead++
			}
		}
	}
	for i, v := range d.Vecs {
		if v != nil {
			next.add(d.IDs[i], v)
		}
	}
	next.noiseChanged += len(d.IDs)
	if m := min(next.live(), spaceNoiseSample); m*m*next.dims <= cheapNoise || float64(next.noiseChanged) > noiseDrift*float64(next.noiseLive) {
		if next.lean() {
			next.noiseDue = true // refreshNoise reads the sample
		} else {
			next.measureNoise()
		}
	}
	return &next
}

// refreshNoise measures a lean snapshot's noise when apply found it due. s must not be
// published yet.
func (s *spaceIndex) refreshNoise(ctx context.Context, st *store.Store, key vectorIndexKey) error {
	if !s.noiseDue {
		return nil
	}
	return s.measureNoiseIn(ctx, st, key)
}

// measureNoiseIn is measureNoise for any snapshot: a lean one reads its sample from st.
func (s *spaceIndex) measureNoiseIn(ctx context.Context, st *store.Store, key vectorIndexKey) error {
	if !s.lean() {
		s.measureNoise()
		return nil
	}
	noise, err := noiseByID(ctx, st, key, s.liveIDs(), nil)
	if err != nil {
		return err
	}
	s.noise, s.noiseLive, s.noiseChanged, s.noiseDue = noise, s.live(), 0, false
	return nil
}

// liveIDs are the ids of the live rows, in row order.
func (s *spaceIndex) liveIDs() []int64 {
	ids := make([]int64, 0, s.live())
	for r := range s.rows {
		if !s.isDead(r) {
			b, i := s.row(r)
			ids = append(ids, b.ids[i])
		}
	}
	return ids
}

// Space noise. The probes measure a model's noise on short sentences; texts of one space can
// sit closer together than that: a mean-pooled bag of words pulls every long abstract toward
// the average English text (GloVe on SciFact: random abstract pairs at cosine 0.68 median,
// 0.83 at the 95th percentile, above the probes' 0.76, and a nonsense query's neighbours at
// 0.79). So each space also measures itself: the spaceNoiseQuantile of the cosines between
// up to spaceNoiseSample of its texts, spread evenly over it. Texts of one store are not all
// unrelated, which makes this a high bar rather than a low one: right for a leg that may only
// add answers.
const (
	spaceNoiseSample   = 256
	spaceNoiseQuantile = 0.95
)

// measureNoise sets the space's noise from its live rows now.
func (s *spaceIndex) measureNoise() {
	s.noise, s.noiseLive, s.noiseChanged = s.spaceNoise(), s.live(), 0
}

// spaceNoise is the space's own noise floor (0 for a space of fewer than minNoiseProbes
// texts: too few to measure).
func (s *spaceIndex) spaceNoise() float64 {
	n := s.live()
	if n < minNoiseProbes {
		return 0
	}
	m := min(n, spaceNoiseSample)
	sample := make([][]float32, 0, m)
	next, live := 0, 0 // the next sample is the live row of ordinal next*n/m
	for r := 0; r < s.rows && len(sample) < m; r++ {
		if s.isDead(r) {
			continue
		}
		if live == next*n/m {
			sample = append(sample, s.vec(r))
			next++
		}
		live++
	}
	return noiseOf(sample)
}

// vectorHit is one vector search result.
type vectorHit struct {
	id  int64
	cos float64
}

// cosStats describe the query's cosines with every vector of the space, computed from the
// int8 codes (within ~0.01 of the exact cosine): how many, their mean and standard
// deviation.
type cosStats struct {
	N        int
	Mean, SD float64
}

// candidate is a row the int8 scan keeps for re-scoring, and how far its exact cosine may be
// from score (int8Error).
type candidate struct {
	score, slack float32
	row          int32
}

// int8Error bounds, for one query, how far a row's int8 score may be from its exact cosine.
// A row's codes are within half a step (its scale) of its unit vector v in every component,
// the query's within half a step (qScale) of the query q, so
//
//	|cos - score| <= scale/2 x |q|_1 + qScale/2 x (|v|_1 + dims x scale/2)
//
// with |v|_1 <= sqrt(dims). The factors are 0.51, not 0.5, for float32 rounding in
// quantize, and 1e-4 covers the score's own rounding and the float32 sum of the exact dot
// (about 1.5e-5 at 1024 dimensions). TestInt8ErrorBound checks it on every row it scores.
type int8Error struct{ qL1, qScale, sqrtDims, dims float64 }

func newInt8Error(q []float32, qScale float32) int8Error {
	var l1 float64
	for _, x := range q {
		l1 += math.Abs(float64(x))
	}
	return int8Error{qL1: l1, qScale: float64(qScale), sqrtDims: math.Sqrt(float64(len(q))), dims: float64(len(q))}
}

// slack is the bound for a row quantized with scale.
func (e int8Error) slack(scale float32) float32 {
	s := float64(scale)
	return float32(0.51*s*e.qL1 + 0.51*e.qScale*(e.sqrtDims+e.dims*s) + 1e-4)
}

// searchIn returns the limit vectors closest to the unit vector q by exact cosine, best
// first (ties by id), with no floor applied, and the statistics of q's cosines over the
// space. A lean snapshot re-scores from its copy, or st (rescoreExact); damaged counts the
// copy's rows that failed their checksum (the answer is right: they were read from st).
func (s *spaceIndex) searchIn(ctx context.Context, st *store.Store, key vectorIndexKey, q []float32, limit int) (hits []vectorHit, stats cosStats, damaged int, err error) {
	if !s.lean() {
		hits, stats := s.search(q, limit)
		return hits, stats, 0, nil
	}
	if len(q) != s.dims || s.dims == 0 || limit <= 0 {
		return nil, cosStats{}, 0, nil
	}
	best, stats := s.scan(q, limit)
	rows := make([]rescoreRow, len(best))
	for i, c := range best {
		r := int(c.row)
		b, j := s.row(r)
		rows[i] = rescoreRow{id: b.ids[j], upper: c.score + c.slack, fileRow: -1}
		if r < s.fileRows {
			rows[i].fileRow, rows[i].sum = r, b.sums[j]
		} else {
			rows[i].vec = b.vecs[j*s.dims : (j+1)*s.dims]
		}
	}
	hits, damaged, err = rescoreExact(ctx, st, key, q, rows, s.file, limit)
	return hits, stats, damaged, err
}

// search is searchIn for a snapshot that holds its float32 vectors (not lean).
func (s *spaceIndex) search(q []float32, limit int) ([]vectorHit, cosStats) {
	if len(q) != s.dims || s.dims == 0 || limit <= 0 {
		return nil, cosStats{}
	}
	best, stats := s.scan(q, limit)
	out := make([]vectorHit, len(best))
	for i, c := range best {
		b, j := s.row(int(c.row))
		out[i] = vectorHit{id: b.ids[j], cos: min(float64(dot(b.vecs[j*s.dims:(j+1)*s.dims], q)), 1)}
	}
	out = bestFirst(out, limit)
	return out, stats
}

// bestFirst orders hits best first (ties by id) and keeps the first limit.
func bestFirst(hits []vectorHit, limit int) []vectorHit {
	slices.SortFunc(hits, func(a, b vectorHit) int {
		if c := cmp.Compare(b.cos, a.cos); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	return hits[:min(len(hits), limit)]
}

// scan is the int8 pass of a search: the rows kept for re-scoring, and the statistics of
// q's cosines.
func (s *spaceIndex) scan(q []float32, limit int) ([]candidate, cosStats) {
	qc, qScale := queryCodes(q)
	bound := newInt8Error(q, qScale)
	keep := max(rescoreFactor*limit, limit+rescoreExtra)
	best := make([]candidate, 0, keep) // a min-heap on score
	scores := s.scores(qc, qScale)
	var sum, sumSq float64
	var n int
	for bi, b := range s.blocks {
		rows := min(s.rows-bi*blockRows, blockRows)
		for i := range rows {
			r := bi*blockRows + i
			if s.isDead(r) {
				continue
			}
			score := scores[r]
			sum += float64(score)
			sumSq += float64(score) * float64(score)
			n++
			switch {
			case len(best) < keep:
				best = append(best, candidate{score, bound.slack(b.scales[i]), int32(r)})
				siftUp(best, len(best)-1)
			case score > best[0].score:
				best[0] = candidate{score, bound.slack(b.scales[i]), int32(r)}
				siftDown(best, 0)
			}
		}
	}
	stats := cosStats{N: n}
	if n > 0 {
		stats.Mean = sum / float64(n)
		stats.SD = math.Sqrt(max(sumSq/float64(n)-stats.Mean*stats.Mean, 0))
	}
	return best, stats
}

// scores is every row's int8 score against the query codes, the blocks shared among up to
// scanWorkers goroutines in a large space: the dot products are 4 of a warm search's 5 ms at
// 100k x 1024, and a person's machine has cores to spare while they wait. Only the scores are
// computed apart; scan keeps, sums and orders them in row order, so the answer and its
// statistics are the same as one goroutine's, bit for bit.
func (s *spaceIndex) scores(qc []int16, qScale float32) []float32 {
	out := make([]float32, s.rows)
	score := func(from, to int) { // blocks [from, to)
		for bi := from; bi < to; bi++ {
			b := s.blocks[bi]
			rows := min(s.rows-bi*blockRows, blockRows)
			for i := range rows {
				out[bi*blockRows+i] = float32(dotInt8(b.codes[i*s.dims:(i+1)*s.dims], qc)) * b.scales[i] * qScale
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), scanWorkers, len(s.blocks))
	if s.rows < parallelScanRows || workers < 2 {
		score(0, len(s.blocks))
		return out
	}
	var wg sync.WaitGroup
	per := (len(s.blocks) + workers - 1) / workers
	for from := 0; from < len(s.blocks); from += per {
		wg.Go(func() { score(from, min(from+per, len(s.blocks))) })
	}
	wg.Wait()
	return out
}

const (
	// parallelScanRows is the size from which a scan's dot products are shared among
	// goroutines: below it (20k x 1024 is under a millisecond) starting them costs more than
	// they save.
	parallelScanRows = 20_000
	// scanWorkers bounds the goroutines of one scan: past a few, each has too little to do
	// for what starting it costs, and the machine's other cores stay free for the rest.
	scanWorkers = 4
)

// queryCodes quantizes the unit query to int16, as finely as the int32 sum of the scan
// allows: 127 x qMax x dims must stay below 2^31. At 1024 dimensions that is 16k steps, so
// the query adds next to nothing to the codes' error.
func queryCodes(q []float32) ([]int16, float32) {
	qMax := float32(min(math.MaxInt16, math.MaxInt32/(127*len(q))))
	var peak float32
	for _, x := range q {
		peak = max(peak, x, -x)
	}
	codes := make([]int16, len(q))
	if peak == 0 {
		return codes, 0
	}
	inv := qMax / peak
	for i, x := range q {
		codes[i] = int16(roundAway(x * inv))
	}
	return codes, peak / qMax
}

// roundAway rounds half away from zero, as math.Round does, in float32: a tenth of its cost,
// which was most of applying a delta.
func roundAway(x float32) float32 {
	if x < 0 {
		return float32(int32(x - 0.5))
	}
	return float32(int32(x + 0.5))
}

func siftUp(h []candidate, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].score <= h[i].score {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []candidate, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].score < h[l].score {
			l = r
		}
		if h[i].score <= h[l].score {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// dot is the dot product of two vectors of equal length. Four accumulators let the CPU
// overlap the multiply-adds: 12.5 -> 9 ms for 10k x 768 on the 2-core dev machine.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// dotInt8Go is dotInt8 in plain Go: the fallback, and the tail past the last 16 codes.
func dotInt8Go(a []int8, b []int16) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// vectorSearch is the vector index as the semantic leg searches it (leg.VectorIndex).
type vectorSearch struct {
	x  *vectorIndex
	st *store.Store
	// oneShot: the process has no background work (Run) and is expected to ask little
	// before it exits, so a large space it has not loaded is streamed from its copy on
	// disk (streamNearest) instead of being read whole into memory.
	oneShot bool
}

// Nearest searches the current snapshot of one space (vectorIndex.get), or streams a large
// space's copy in a one-shot process.
func (v vectorSearch) Nearest(ctx context.Context, kind, space, fingerprint string, q []float32, limit int) (leg.Nearest, error) {
	key := vectorIndexKey{kind: kind, space: space, fingerprint: fingerprint}
	if v.oneShot && !v.x.has(key) {
		near, ok, err := streamNearest(ctx, v.st, key, q, limit, streamMinOwners)
		if err != nil || ok {
			return near, err
		}
	}
	idx, err := v.x.get(ctx, v.st, key)
	if err != nil {
		return leg.Nearest{}, err
	}
	hits, all, damaged, err := idx.searchIn(ctx, v.st, key, q, limit)
	if err != nil {
		return leg.Nearest{}, err
	}
	if damaged > 0 {
		if v.x.log != nil {
			v.x.log.Warn("semantic index: rows of a vector copy on disk failed their checksums; read them from the database, rebuilding the copy", "kind", kind, "space", space, "rows", damaged)
		}
		v.x.reloadInBackground(ctx, v.st, key)
	}
	near := leg.Nearest{Hits: make([]leg.VectorHit, len(hits)), All: rank.CosineStats{N: all.N, Mean: all.Mean, SD: all.SD}, Noise: idx.noise}
	for i, h := range hits {
		near.Hits[i] = leg.VectorHit{ID: h.id, Cos: h.cos}
	}
	return near, nil
}
