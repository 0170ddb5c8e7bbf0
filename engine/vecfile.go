package engine

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
	"unsafe"

	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// Vectors in every process. A process that answers one query and exits (a CLI recall) must
// not read 400 MB of float32 vectors out of SQLite to build an index it searches once: at
// 100k x 1024 that took 15 s and 567 MB. Instead each large space has a copy of its vectors
// in a file beside the database (<db>.vectors/<name>.i8): a cache made from SQLite, never
// the truth, never in a backup. It holds the int8 codes a search scans and the float32 unit
// vectors that re-score the scan's best candidates exactly. A one-shot search streams the
// codes through the int8 kernel into the top-k heap a block at a time (read, not mmap:
// touched mapped pages would count in the process's memory), skips the owners the vector
// change log names since the copy was written and scores their vectors now in their place,
// then re-scores the best candidates exactly from their float32 rows, read by position. A
// long-lived process keeps the codes in memory and re-scores from the same rows (see
// spaceIndex.fileRows). The answer is the one the in-memory index gives
// (TestStreamingSearchMatchesIndex).
//
// The codes are trusted once per load: the body checksum covers them, with every row's
// checksum, and is checked as they are read. The float32 rows are never read whole by a
// search, so each carries its own CRC-32C, checked on every read (about 0.3 us for 4 KB): a
// row that fails it, or cannot be read, is read from SQLite instead, and the copy is
// rebuilt. So the copy needs no fsync before its rename: whatever a crash leaves of it fails
// a checksum.
//
// The copy is rebuilt, while the search that needs it streams SQLite's vectors, when it is
// missing, torn (its checksums fail), for another database (its token is not the one in
// meta), or too far behind (the log was pruned past it, or holds more than fileChanges
// changes): see doc/semantic.md, "Vectors in every process". Writers write a temporary file
// and rename it, so a reader sees a whole copy or none, and any process may write one: each
// copy is consistent with the mark in its own header, and a reader that holds a copy open
// keeps reading the copy it opened when another is renamed over it.

const (
	// streamMinOwners is the size from which a one-shot search streams a space's copy. A
	// smaller space is loaded whole into the in-memory index, as before: it costs little,
	// and a process that asks many questions (eval) keeps it.
	streamMinOwners = 20_000
	// fileChanges is how many logged changes a stream applies on top of its copy; past that
	// the copy is rebuilt from SQLite.
	fileChanges = 8192
	// fileRewrite is how many changed owners make a stream write a fresh copy as it reads
	// the old one (which also measures the space's noise again).
	fileRewrite = 1024
	// staleCopyWrite is how long after its last write a temporary copy is taken for one its
	// writer abandoned without removing it (writing 500 MB takes seconds).
	staleCopyWrite = time.Hour
)

// vecFileMagic opens every copy; the digit is the layout's version (v1 had no float32 rows).
var vecFileMagic = [16]byte{'m', 'e', 'm', 'd', 'e', 's', 'k', ' ', 'i', 'n', 't', '8', ' ', 'v', '2', '\n'}

const vecFileHeaderSize = 128

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var errVecFileUnusable = errors.New("vector copy unusable")

// vecFileHeader is a copy's first 128 bytes. The body follows: blocks of blockRows rows
// (the last one shorter), each the rows' ids (int64), scales (float32), checksums (uint32,
// CRC-32C of the row's float32 bytes) and codes (dims int8 each), then the rows' unit
// vectors (dims float32 each), little-endian. The header's bodyCRC covers every block but its
// float32 rows, which their own checksums cover: a search reads the codes once and the rows
// one at a time.
type vecFileHeader struct {
	dims, rows int
	mark       store.VectorMark
	noise      float64
	maxID      int64
	token      [16]byte
	key        [16]byte // which (kind, space, fingerprint) the copy holds
	bodyCRC    uint32
}

func (h vecFileHeader) encode() []byte {
	b := make([]byte, vecFileHeaderSize)
	copy(b, vecFileMagic[:])
	le := binary.LittleEndian
	le.PutUint32(b[16:], uint32(h.dims))
	le.PutUint64(b[24:], uint64(h.rows))
	le.PutUint64(b[32:], uint64(h.mark.Generation))
	le.PutUint64(b[40:], uint64(h.mark.Seq))
	le.PutUint64(b[48:], math.Float64bits(h.noise))
	le.PutUint64(b[56:], uint64(h.maxID))
	copy(b[64:], h.token[:])
	copy(b[80:], h.key[:])
	le.PutUint32(b[96:], h.bodyCRC)
	le.PutUint32(b[124:], crc32.Checksum(b[:124], castagnoli))
	return b
}

func decodeVecFileHeader(b []byte) (vecFileHeader, error) {
	le := binary.LittleEndian
	if len(b) < vecFileHeaderSize || [16]byte(b[:16]) != vecFileMagic || le.Uint32(b[124:]) != crc32.Checksum(b[:124], castagnoli) {
		return vecFileHeader{}, fmt.Errorf("%w: its header is not whole", errVecFileUnusable)
	}
	h := vecFileHeader{
		dims: int(le.Uint32(b[16:])), rows: int(le.Uint64(b[24:])),
		mark:  store.VectorMark{Generation: int64(le.Uint64(b[32:])), Seq: int64(le.Uint64(b[40:]))},
		noise: math.Float64frombits(le.Uint64(b[48:])), maxID: int64(le.Uint64(b[56:])),
		token: [16]byte(b[64:80]), key: [16]byte(b[80:96]), bodyCRC: le.Uint32(b[96:]),
	}
	if h.dims <= 0 || h.rows < 0 {
		return vecFileHeader{}, fmt.Errorf("%w: its header is not whole", errVecFileUnusable)
	}
	return h, nil
}

// vecFileBodySize is how many bytes the body of rows rows of dims takes: a row is 16 + 5 x
// dims bytes, wherever the block boundaries fall.
func vecFileBodySize(rows, dims int) int64 { return int64(rows) * int64(16+5*dims) }

// vecFileCodesSize is how many bytes the part of a block of rows rows before its float32 rows
// takes.
func vecFileCodesSize(rows, dims int) int64 { return int64(rows) * int64(16+dims) }

// vecFileKey names a space's copy.
func vecFileKey(key vectorIndexKey) [16]byte {
	sum := sha256.Sum256([]byte(key.kind + "\x00" + key.space + "\x00" + key.fingerprint))
	return [16]byte(sum[:16])
}

// vecFilePath is where the copy of key's space lives beside the database at dbPath, and its
// name in meta.
func vecFilePath(dbPath string, key vectorIndexKey) (path, name string) {
	k := vecFileKey(key)
	name = hex.EncodeToString(k[:])
	return filepath.Join(dbPath+".vectors", name+".i8"), name
}

// vecFile is an open copy, checked against the database that reads it.
type vecFile struct {
	f *os.File
	h vecFileHeader
}

// openVecFile opens the copy at path if it is whole and this database's. A missing copy is
// errVecFileUnusable too.
func openVecFile(ctx context.Context, st *store.Store, path, name string, key vectorIndexKey) (*vecFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errVecFileUnusable, err)
	}
	head := make([]byte, vecFileHeaderSize)
	h, err := func() (vecFileHeader, error) {
		if _, err := io.ReadFull(f, head); err != nil {
			return vecFileHeader{}, fmt.Errorf("%w: %w", errVecFileUnusable, err)
		}
		h, err := decodeVecFileHeader(head)
		if err != nil {
			return h, err
		}
		fi, err := f.Stat()
		if err != nil {
			return h, err
		}
		if fi.Size() != vecFileHeaderSize+vecFileBodySize(h.rows, h.dims) || h.key != vecFileKey(key) {
			return h, fmt.Errorf("%w: its size or space is not what its header says", errVecFileUnusable)
		}
		token, err := st.VectorCopyToken(ctx, name)
		if err != nil {
			return h, err
		}
		if token != hex.EncodeToString(h.token[:]) {
			return h, fmt.Errorf("%w: it was written for another database or an older state of this one", errVecFileUnusable)
		}
		return h, nil
	}()
	if err != nil {
		// Not removed: by now another process may have renamed a good copy into its place.
		// The rebuild that follows replaces it.
		f.Close()
		return nil, err
	}
	return &vecFile{f: f, h: h}, nil
}

// vecFileRow is one row of a copy as vecFile.each reads it.
type vecFileRow struct {
	id    int64
	scale float32
	sum   uint32 // CRC-32C of the row's float32 bytes in the copy
	codes []int8
	vec   []float32 // the unit vector, when each was asked for it (checked against sum)
}

// each calls fn with every row of the copy in order, reading one block at a time; the row's
// slices are only valid during the call. withVecs also reads the float32 rows (the whole
// file, for a rewrite); without it only the codes are read. It fails with
// errVecFileUnusable when the body's checksum or a row's does not match: the rows already
// passed to fn are then not to be trusted.
func (v *vecFile) each(withVecs bool, fn func(vecFileRow)) error {
	dims := v.h.dims
	first := min(v.h.rows, blockRows)
	buf := make([]byte, vecFileBodySize(first, dims))
	var vec []float32
	if withVecs {
		vec = make([]float32, dims)
	}
	crc := uint32(0)
	le := binary.LittleEndian
	at := int64(vecFileHeaderSize)
	for start := 0; start < v.h.rows; start += blockRows {
		n := min(blockRows, v.h.rows-start)
		size := vecFileCodesSize(n, dims)
		if withVecs {
			size = vecFileBodySize(n, dims)
		}
		b := buf[:size]
		if _, err := v.f.ReadAt(b, at); err != nil {
			return fmt.Errorf("%w: %w", errVecFileUnusable, err)
		}
		at += vecFileBodySize(n, dims)
		crc = crc32.Update(crc, castagnoli, b[:vecFileCodesSize(n, dims)])
		ids, scales, sums, codes, vecs := b[:8*n], b[8*n:12*n], b[12*n:16*n], b[16*n:vecFileCodesSize(n, dims)], b[vecFileCodesSize(n, dims):]
		for i := range n {
			row := vecFileRow{
				id: int64(le.Uint64(ids[8*i:])), scale: math.Float32frombits(le.Uint32(scales[4*i:])),
				sum: le.Uint32(sums[4*i:]), codes: bytesAsInt8(codes[i*dims : (i+1)*dims]),
			}
			if withVecs {
				raw := vecs[4*i*dims : 4*(i+1)*dims]
				if crc32.Checksum(raw, castagnoli) != row.sum {
					return fmt.Errorf("%w: a row does not match its checksum", errVecFileUnusable)
				}
				decodeFloats(vec, raw)
				row.vec = vec
			}
			fn(row)
		}
	}
	if crc != v.h.bodyCRC {
		return fmt.Errorf("%w: its body does not match its checksum", errVecFileUnusable)
	}
	return nil
}

// vecOffset is where the float32 row row starts in the file.
func (v *vecFile) vecOffset(row int) int64 {
	start := row / blockRows * blockRows
	n := min(blockRows, v.h.rows-start)
	return vecFileHeaderSize + vecFileBodySize(start, v.h.dims) + vecFileCodesSize(n, v.h.dims) + int64(row-start)*int64(4*v.h.dims)
}

// readVec reads the float32 row row into vec (dims long), through buf (4 x dims bytes), and
// reports whether it is the row whose checksum is sum. Safe for concurrent use: it reads with
// pread and changes nothing.
func (v *vecFile) readVec(row int, sum uint32, buf []byte, vec []float32) bool {
	if row < 0 || row >= v.h.rows || len(buf) != 4*v.h.dims || len(vec) != v.h.dims {
		return false
	}
	if littleEndian() {
		buf = float32AsBytes(vec) // read in place: decoding took a third of the re-score
	}
	if _, err := v.f.ReadAt(buf, v.vecOffset(row)); err != nil {
		return false
	}
	if crc32.Checksum(buf, castagnoli) != sum {
		return false
	}
	if !littleEndian() {
		decodeFloats(vec, buf)
	}
	return true
}

// decodeFloats decodes len(dst) little-endian float32s from src.
func decodeFloats(dst []float32, src []byte) {
	src = src[:4*len(dst)]
	if littleEndian() {
		copy(float32AsBytes(dst), src)
		return
	}
	le := binary.LittleEndian
	for i := range dst {
		dst[i] = math.Float32frombits(le.Uint32(src[4*i:]))
	}
}

// littleEndian reports whether float32s are laid out in memory as the copy holds them (on
// amd64 and arm64 they are): a row is then read straight into a []float32.
func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// encodeFloats is decodeFloats' inverse.
func encodeFloats(dst []byte, src []float32) {
	dst = dst[:4*len(src)]
	le := binary.LittleEndian
	for i, x := range src {
		le.PutUint32(dst[4*i:], math.Float32bits(x))
	}
}

func (v *vecFile) close() { v.f.Close() }

// vecFileWriter writes a new copy into a temporary file beside its place; finish renames it
// there and records its token, abandon removes it (after finish, it does nothing: callers
// defer it).
type vecFileWriter struct {
	path, name string
	f          *os.File
	w          *bufio.Writer
	dims       int
	rows       int
	maxID      int64
	crc        uint32
	// The block being filled.
	ids    []int64
	scales []float32
	sums   []uint32
	codes  []int8
	vecs   []byte // the rows' float32 bytes, as they go into the file
	err    error
	// done: finish or abandon has run, and abandon has nothing left to do.
	done bool
}

func newVecFileWriter(path, name string) (*vecFileWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("make the folder of the vector copies: %w", err)
	}
	// A writer that died (a crash, a kill) left its temporary file: 500 MB at 100k x 1024.
	// One younger than staleCopyWrite may be another process's, still writing.
	if stale, err := filepath.Glob(filepath.Join(filepath.Dir(path), name+".tmp-*")); err == nil {
		for _, p := range stale {
			if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > staleCopyWrite {
				os.Remove(p)
			}
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), name+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write a vector copy: %w", err)
	}
	w := &vecFileWriter{path: path, name: name, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	_, w.err = w.w.Write(make([]byte, vecFileHeaderSize))
	return w, nil
}

// add appends one row: its id, its int8 codes and their scale, and the unit vector they
// quantize. It returns the row's checksum. A row of another width than the first is an
// error of the caller's.
func (w *vecFileWriter) add(id int64, scale float32, codes []int8, vec []float32) uint32 {
	if w.dims == 0 {
		w.dims = len(codes)
	}
	at := len(w.vecs)
	w.vecs = slices.Grow(w.vecs, 4*len(vec))[:at+4*len(vec)]
	encodeFloats(w.vecs[at:], vec)
	sum := crc32.Checksum(w.vecs[at:], castagnoli)
	w.ids = append(w.ids, id)
	w.scales = append(w.scales, scale)
	w.sums = append(w.sums, sum)
	w.codes = append(w.codes, codes...)
	w.rows++
	w.maxID = max(w.maxID, id)
	if len(w.ids) == blockRows {
		w.flush()
	}
	return sum
}

// flush writes the rows added since the last flush as one block.
func (w *vecFileWriter) flush() {
	n := len(w.ids)
	if n == 0 || w.err != nil {
		return
	}
	b := make([]byte, vecFileCodesSize(n, w.dims))
	le := binary.LittleEndian
	for i, id := range w.ids {
		le.PutUint64(b[8*i:], uint64(id))
		le.PutUint32(b[8*n+4*i:], math.Float32bits(w.scales[i]))
		le.PutUint32(b[12*n+4*i:], w.sums[i])
	}
	copy(b[16*n:], int8AsBytes(w.codes))
	w.crc = crc32.Update(w.crc, castagnoli, b)
	if _, w.err = w.w.Write(b); w.err == nil {
		_, w.err = w.w.Write(w.vecs)
	}
	w.ids, w.scales, w.sums, w.codes, w.vecs = w.ids[:0], w.scales[:0], w.sums[:0], w.codes[:0], w.vecs[:0]
}

// finish writes the header, puts the copy in its place, records its token in st and returns
// the copy, open: a caller that keeps reading it reads this copy even after another process
// renames its own over it.
func (w *vecFileWriter) finish(ctx context.Context, st *store.Store, key vectorIndexKey, mark store.VectorMark, noise float64) (*vecFile, error) {
	w.flush()
	if w.err == nil {
		w.err = w.w.Flush()
	}
	h := vecFileHeader{dims: max(w.dims, 1), rows: w.rows, mark: mark, noise: noise, maxID: w.maxID, key: vecFileKey(key), bodyCRC: w.crc}
	if w.err == nil {
		_, w.err = rand.Read(h.token[:])
	}
	if w.err == nil {
		_, w.err = w.f.WriteAt(h.encode(), 0)
	}
	// The token goes in first: a reader between the two sees the old copy as foreign and
	// ignores it, not the new one; a crash between them leaves a token with no copy, and
	// the next search rebuilds it. No fsync: a copy a crash tore fails its checksums (see
	// above), and the rows a search reads are checked one by one.
	if w.err == nil {
		w.err = st.SetVectorCopyToken(ctx, w.name, hex.EncodeToString(h.token[:]))
	}
	if w.err == nil {
		w.err = os.Rename(w.f.Name(), w.path)
	}
	if w.err != nil {
		w.abandon()
		return nil, fmt.Errorf("write a vector copy: %w", w.err)
	}
	w.done = true
	return &vecFile{f: w.f, h: h}, nil
}

func (w *vecFileWriter) abandon() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	os.Remove(w.f.Name())
}

// rescoreRow is a candidate of the int8 scan and where its float32 vector is.
type rescoreRow struct {
	id    int64
	upper float32   // its exact cosine is at most this (candidate)
	vec   []float32 // the unit vector, when it is in memory
	// fileRow is its row in the copy when vec is nil, -1 when it is only in the store; sum is
	// that row's checksum, from the codes' part of the copy.
	fileRow int
	sum     uint32
}

// rescoreExact returns the limit rows closest to the unit vector q by exact cosine, best
// first (ties by id). Rows not in memory are read from file by position (nil: none is), each
// checked against its checksum; those not in it or that fail the check (damaged counts
// them) are read from st by id. Either way a row's cosine is the one the in-memory index
// computes: the copy holds the same normalized float32 vector.
//
// Rows go by upper bound, highest first, and stop once the next one's bound is below the
// limit-th best cosine so far: none after it can enter the answer, which is the one scoring
// them all gives. On clustered vectors that skips most of the reads (the candidates beyond
// the query's cluster).
func rescoreExact(ctx context.Context, st *store.Store, key vectorIndexKey, q []float32, rows []rescoreRow, file *vecFile, limit int) (hits []vectorHit, damaged int, err error) {
	slices.SortFunc(rows, func(a, b rescoreRow) int { return cmp.Compare(b.upper, a.upper) })
	out := make([]vectorHit, 0, len(rows))
	// floor holds the limit best cosines so far, a min-heap: floor[0] is the bar.
	floor := make([]candidate, 0, limit)
	var read []int64
	var buf []byte
	var vec []float32
	for _, r := range rows {
		if len(floor) == limit && r.upper < floor[0].score {
			break
		}
		v := r.vec
		if v == nil && r.fileRow >= 0 && file != nil {
			if buf == nil {
				buf, vec = make([]byte, 4*len(q)), make([]float32, len(q))
			}
			if file.readVec(r.fileRow, r.sum, buf, vec) {
				v = vec
			} else {
				damaged++
			}
		}
		if v == nil {
			read = append(read, r.id)
			continue
		}
		cos := min(dot(v, q), 1)
		out = append(out, vectorHit{id: r.id, cos: float64(cos)})
		switch {
		case len(floor) < limit:
			floor = append(floor, candidate{score: cos})
			siftUp(floor, len(floor)-1)
		case cos > floor[0].score:
			floor[0] = candidate{score: cos}
			siftDown(floor, 0)
		}
	}
	if len(read) > 0 {
		got, err := st.VectorsByID(ctx, key.kind, key.space, key.fingerprint, read)
		if err != nil {
			return nil, damaged, err
		}
		for i, id := range got.IDs {
			if len(got.Vecs[i]) == len(q) && normalizeVector(got.Vecs[i]) {
				out = append(out, vectorHit{id: id, cos: min(float64(dot(got.Vecs[i], q)), 1)})
			}
		}
	}
	out = bestFirst(out, limit)
	return out, damaged, nil
}

// streamScan is one query's pass over a space's rows in int8: the best candidates in a
// min-heap and the statistics of all the cosines, as spaceIndex.search keeps them.
type streamScan struct {
	q      []float32
	qc     []int16
	qScale float32
	bound  int8Error
	keep   int
	best   []candidate
	ids    []int64 // every row's id, in order
	// fileRows and sums: every row's row in the copy (-1 when it came from elsewhere) and
	// that row's checksum.
	fileRows []int32
	sums     []uint32
	vecs     map[int64][]float32 // the unit vectors already at hand (changed rows)
	sum      float64
	sumSq    float64
}

func newStreamScan(q []float32, limit int) *streamScan {
	qc, qScale := queryCodes(q)
	keep := max(rescoreFactor*limit, limit+rescoreExtra)
	return &streamScan{q: q, qc: qc, qScale: qScale, bound: newInt8Error(q, qScale), keep: keep, best: make([]candidate, 0, keep), vecs: map[int64][]float32{}}
}

// add scores one row: fileRow is its row in the copy being streamed, or -1.
func (s *streamScan) add(id int64, scale float32, codes []int8, fileRow int32, sum uint32) {
	score := float32(dotInt8(codes, s.qc)) * scale * s.qScale
	s.sum += float64(score)
	s.sumSq += float64(score) * float64(score)
	r := int32(len(s.ids))
	s.ids = append(s.ids, id)
	s.fileRows = append(s.fileRows, fileRow)
	s.sums = append(s.sums, sum)
	switch {
	case len(s.best) < s.keep:
		s.best = append(s.best, candidate{score, s.bound.slack(scale), r})
		siftUp(s.best, len(s.best)-1)
	case score > s.best[0].score:
		s.best[0] = candidate{score, s.bound.slack(scale), r}
		siftDown(s.best, 0)
	}
}

// rescore returns the limit candidates closest by exact cosine, best first (ties by id),
// reading their float32 vectors from file (the copy streamed, or nil) or the store
// (rescoreExact), and the statistics of the int8 cosines.
func (s *streamScan) rescore(ctx context.Context, st *store.Store, key vectorIndexKey, file *vecFile, limit int) ([]vectorHit, cosStats, int, error) {
	rows := make([]rescoreRow, len(s.best))
	for i, c := range s.best {
		id := s.ids[c.row]
		rows[i] = rescoreRow{id: id, upper: c.score + c.slack, vec: s.vecs[id], fileRow: int(s.fileRows[c.row]), sum: s.sums[c.row]}
	}
	hits, damaged, err := rescoreExact(ctx, st, key, s.q, rows, file, limit)
	if err != nil {
		return nil, cosStats{}, damaged, err
	}
	n := len(s.ids)
	stats := cosStats{N: n}
	if n > 0 {
		stats.Mean = s.sum / float64(n)
		stats.SD = math.Sqrt(max(s.sumSq/float64(n)-stats.Mean*stats.Mean, 0))
	}
	return hits, stats, damaged, nil
}

// noiseByID measures a space's noise as spaceIndex.spaceNoise does, on the same sample (the
// live rows of ordinal i*n/m, in row order), reading the sample's vectors by id unless known
// has them.
func noiseByID(ctx context.Context, st *store.Store, key vectorIndexKey, ids []int64, known map[int64][]float32) (float64, error) {
	n := len(ids)
	if n < minNoiseProbes {
		return 0, nil
	}
	m := min(n, spaceNoiseSample)
	sampleIDs := make([]int64, m)
	for i := range m {
		sampleIDs[i] = ids[i*n/m]
	}
	var read []int64
	for _, id := range sampleIDs {
		if _, ok := known[id]; !ok {
			read = append(read, id)
		}
	}
	got, err := st.VectorsByID(ctx, key.kind, key.space, key.fingerprint, read)
	if err != nil {
		return 0, err
	}
	byID := make(map[int64][]float32, m)
	for i, id := range got.IDs {
		if normalizeVector(got.Vecs[i]) {
			byID[id] = got.Vecs[i]
		}
	}
	sample := make([][]float32, 0, m)
	for _, id := range sampleIDs {
		if v, ok := known[id]; ok {
			sample = append(sample, v)
		} else if v, ok := byID[id]; ok {
			sample = append(sample, v)
		}
	}
	return noiseOf(sample), nil
}

// noiseOf is the spaceNoiseQuantile of the cosines between the sample's vectors.
func noiseOf(sample [][]float32) float64 {
	if len(sample) < 2 {
		return 0
	}
	cos := make([]float64, 0, len(sample)*(len(sample)-1)/2)
	for i := range sample {
		for j := i + 1; j < len(sample); j++ {
			cos = append(cos, float64(dot(sample[i], sample[j])))
		}
	}
	sort.Float64s(cos)
	rank := int(math.Ceil(spaceNoiseQuantile*float64(len(cos)))) - 1
	return min(max(cos[max(rank, 0)], 0), 1)
}

// streamNearest is the one-shot search of a space: through its copy when it has a usable
// one, else through SQLite's vectors while a copy is written. It reports false, searching
// nothing, for a space of fewer than minOwners owners without a copy: the in-memory index
// is the better way there.
func streamNearest(ctx context.Context, st *store.Store, key vectorIndexKey, q []float32, limit, minOwners int) (leg.Nearest, bool, error) {
	if len(q) == 0 || limit <= 0 {
		return leg.Nearest{}, true, nil
	}
	path, name := vecFilePath(st.Path(), key)
	src, err := openVecFile(ctx, st, path, name, key)
	if err != nil && !errors.Is(err, errVecFileUnusable) {
		return leg.Nearest{}, false, err
	}
	var d store.VectorDelta
	if src != nil {
		defer src.close()
		d, err = st.VectorChangesSince(ctx, key.kind, key.space, key.fingerprint, src.h.mark.Seq, fileChanges)
		switch {
		case errors.Is(err, store.ErrChangesPruned) || err == nil && d.More:
			src.close()
			src = nil
		case err != nil:
			return leg.Nearest{}, false, err
		}
	}
	if src == nil {
		n, err := st.SpaceOwners(ctx, key.kind, key.space)
		if err != nil {
			return leg.Nearest{}, false, err
		}
		if n < minOwners {
			return leg.Nearest{}, false, nil
		}
	}
	for {
		near, err := streamSearch(ctx, st, key, q, limit, src, d, path, name)
		if src != nil && errors.Is(err, errVecFileUnusable) {
			// Torn or damaged: what it gave is not to be trusted; rebuild it from SQLite.
			src.close()
			src = nil
			continue
		}
		return near, err == nil, err
	}
}

// streamSearch is one pass of streamNearest: over src and the delta d after it, or over
// SQLite's vectors when src is nil; it writes a new copy when there is none or d is large.
func streamSearch(ctx context.Context, st *store.Store, key vectorIndexKey, q []float32, limit int, src *vecFile, d store.VectorDelta, path, name string) (leg.Nearest, error) {
	scan := newStreamScan(q, limit)
	var w *vecFileWriter
	if src == nil || len(d.IDs) > fileRewrite {
		var err error
		if w, err = newVecFileWriter(path, name); err != nil {
			w = nil // a read-only folder: search without writing a copy
		} else {
			defer w.abandon()
		}
	}
	dims := len(q)
	codes := make([]int8, dims)
	addVec := func(id int64, vec []float32) bool {
		if len(vec) != dims || !normalizeVector(vec) {
			return false
		}
		scale := quantize(codes, vec)
		scan.add(id, scale, codes, -1, 0)
		if w != nil {
			w.add(id, scale, codes, vec)
		}
		return true
	}
	var mark store.VectorMark
	noise := 0.0
	if src != nil {
		if src.h.dims != dims && src.h.rows > 0 {
			return leg.Nearest{}, nil // a query of another width finds nothing, as in the index
		}
		changed := make(map[int64]bool, len(d.IDs))
		for _, id := range d.IDs {
			changed[id] = true
		}
		fileRow := int32(-1)
		// A rewrite reads the float32 rows too (the whole copy); a search alone, the codes.
		err := src.each(w != nil, func(r vecFileRow) {
			fileRow++
			if changed[r.id] {
				return
			}
			scan.add(r.id, r.scale, r.codes, fileRow, r.sum)
			if w != nil {
				w.add(r.id, r.scale, r.codes, r.vec)
			}
		})
		if err != nil {
			return leg.Nearest{}, err
		}
		for i, v := range d.Vecs {
			if v != nil && addVec(d.IDs[i], v) {
				scan.vecs[d.IDs[i]] = v
			}
		}
		mark, noise = d.Mark, src.h.noise
	} else {
		var err error
		mark, err = st.ScanVectorsForSpace(ctx, key.kind, key.space, key.fingerprint, func(id int64, vec []float32) { addVec(id, vec) })
		if err != nil {
			return leg.Nearest{}, err
		}
	}
	hits, all, damaged, err := scan.rescore(ctx, st, key, src, limit)
	if err != nil {
		return leg.Nearest{}, err
	}
	if damaged > 0 {
		// The answer is right (those rows came from SQLite), but the copy is not to be
		// trusted: streamNearest searches again while it rebuilds it.
		return leg.Nearest{}, fmt.Errorf("%w: %d of its float32 rows do not match their checksums", errVecFileUnusable, damaged)
	}
	if src == nil || w != nil {
		if noise, err = noiseByID(ctx, st, key, scan.ids, scan.vecs); err != nil {
			return leg.Nearest{}, err
		}
	}
	if w != nil {
		// A copy that cannot be written only costs the next process this pass again.
		if f, err := w.finish(ctx, st, key, mark, noise); err == nil {
			f.close()
		}
	}
	near := leg.Nearest{Hits: make([]leg.VectorHit, len(hits)), All: rank.CosineStats{N: all.N, Mean: all.Mean, SD: all.SD}, Noise: noise}
	for i, h := range hits {
		near.Hits[i] = leg.VectorHit{ID: h.id, Cos: h.cos}
	}
	return near, nil
}

// bytesAsInt8 and int8AsBytes view the same memory both ways: the codes go to and from the
// file without a copy per byte.
func bytesAsInt8(b []byte) []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}
func int8AsBytes(b []int8) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// float32AsBytes views a []float32 as its bytes, in the machine's order.
func float32AsBytes(f []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}
