package lexicon

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/store"
)

// The owner tables' copy. A process that opens the store to answer one query (a CLI recall)
// read every live owner's row to learn the statistics bm25 needs: 260 ms of a 480 ms recall
// at 100k facts, for a table that changes a few rows between two queries. So the index keeps
// a copy of its owner tables in the store itself (CopyKeeper): a new process decodes it
// (about 10 ms) and applies what the change log says happened since, exactly as a long-lived
// process catches up. Kept in the database, the copy goes wherever the database goes (a
// backup, a restore, a compaction) together with the change log it is consistent with, so
// nothing outside the file can disagree with it.
//
// A copy is used only when it is whole (its checksum), made by this layout, schema and
// analysis (an upgrade can change what a length means), and the change log still holds every
// change since it was made (else the index loads whole, as before). Being a cache, a copy
// that cannot be used is never an error: the index loads from the tables and the process
// that did so saves a fresh one.

// CopyKeeper stores the index's copy of its owner tables.
type CopyKeeper interface {
	// LexiconCopy returns the saved copy, nil when there is none.
	LexiconCopy(ctx context.Context) ([]byte, error)
	SetLexiconCopy(ctx context.Context, body []byte) error
}

const (
	// copyMinOwners is the size from which a whole load makes the index want a copy saved:
	// below it the load is cheap (a few ms per thousand owners) and a copy only more to
	// write.
	copyMinOwners = 10_000
	// copyRewrite is how many owners' changes, applied on top of a copy or since the last
	// save, make the index want a fresh one: every new process would apply them again.
	copyRewrite = 1000
)

// copyMagic opens every copy; the digit is the layout's version.
var copyMagic = []byte("memdesk owners v1\n")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var errCopyUnusable = errors.New("owner table copy unusable")

// CopyWanted reports whether the index holds a state worth saving as the store's copy:
// after a whole load of a large store, or many changes since the copy it started from.
func (x *Index) CopyWanted() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.wantsCopy()
}

// wantsCopy is CopyWanted under the lock.
func (x *Index) wantsCopy() bool {
	return x.keeper != nil && x.loaded && (x.copyWanted || x.sinceCopy >= copyRewrite)
}

// SaveCopy saves the index's owner tables as the store's copy when CopyWanted. The copy is
// encoded under the lock, as of the index's last applied change, and written after it, so a
// search does not wait for the write.
func (x *Index) SaveCopy(ctx context.Context) error {
	x.mu.Lock()
	if !x.wantsCopy() {
		x.mu.Unlock()
		return nil
	}
	body := x.encodeCopy()
	x.copyWanted, x.sinceCopy = false, 0
	x.mu.Unlock()
	if err := x.keeper.SetLexiconCopy(ctx, body); err != nil {
		x.mu.Lock()
		x.copyWanted = true // try again next time
		x.mu.Unlock()
		return fmt.Errorf("save the word index's owner tables: %w", err)
	}
	return nil
}

// loadCopy replaces the index's state with the store's copy, when there is a usable one. It
// reports whether it did; a copy that cannot be used is not an error (the caller loads whole).
func (x *Index) loadCopy(ctx context.Context) (bool, error) {
	body, err := x.keeper.LexiconCopy(ctx)
	if err != nil || body == nil {
		return false, err
	}
	kinds, seq, err := decodeCopy(body)
	if err != nil {
		return false, nil
	}
	x.kinds, x.seq, x.loaded = kinds, seq, true
	x.sinceCopy, x.copyWanted = 0, false
	return true, nil
}

// encodeCopy writes the owner tables: a header (magic, schema, analysis version, change seq,
// kinds), then per kind its spaces' names and its live owners in id order, each as varints
// (id delta, space, length in terms, creation time delta, text length, entity ids), and a
// CRC-32C of all that at the end.
func (x *Index) encodeCopy() []byte {
	return x.encodeCopyAs(store.SchemaVersion(), analysis.Version)
}

// encodeCopyAs is encodeCopy for the given schema and analysis versions.
func (x *Index) encodeCopyAs(schema, words int) []byte {
	b := append([]byte(nil), copyMagic...)
	b = binary.AppendUvarint(b, uint64(schema))
	b = binary.AppendUvarint(b, uint64(words))
	b = binary.AppendVarint(b, x.seq)
	kinds := []string{store.KindFact, store.KindChunk}
	b = binary.AppendUvarint(b, uint64(len(kinds)))
	for _, kind := range kinds {
		k := x.kinds[kind]
		b = appendString(b, kind)
		b = binary.AppendUvarint(b, uint64(len(k.spaceNames)))
		for _, name := range k.spaceNames {
			b = appendString(b, name)
		}
		b = binary.AppendUvarint(b, uint64(k.all.n))
		b = binary.AppendUvarint(b, uint64(len(k.space)))
		prevID, prevCreated := -1, int64(0)
		for id, sp := range k.space {
			if sp == dead {
				continue
			}
			b = binary.AppendUvarint(b, uint64(id-prevID))
			b = binary.AppendUvarint(b, uint64(sp))
			b = binary.AppendUvarint(b, uint64(k.words[id]))
			b = binary.AppendVarint(b, k.created[id]-prevCreated)
			b = binary.AppendUvarint(b, uint64(k.textLen[id]))
			b = binary.AppendUvarint(b, uint64(len(k.ents[id])))
			for _, e := range k.ents[id] {
				b = binary.AppendUvarint(b, uint64(e))
			}
			prevID, prevCreated = id, k.created[id]
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// copyReader reads a copy's varints; the first error sticks and every later read returns 0.
type copyReader struct {
	b   []byte
	err error
}

func (r *copyReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("%w: it ends early or holds a value out of range", errCopyUnusable)
	}
	r.b = nil
}

func (r *copyReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *copyReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length that must fit in what is left of the copy, each item at least per
// bytes: a damaged length cannot make the reader allocate more than the copy's own size.
func (r *copyReader) count(per int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/per) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *copyReader) string() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeCopy reads a copy written by encodeCopy; the kinds it returns are what load would
// have built from the tables as of seq.
func decodeCopy(body []byte) (map[string]*kindIndex, int64, error) {
	if len(body) < len(copyMagic)+4 || string(body[:len(copyMagic)]) != string(copyMagic) {
		return nil, 0, fmt.Errorf("%w: not a copy of this layout", errCopyUnusable)
	}
	payload := body[:len(body)-4]
	if binary.LittleEndian.Uint32(body[len(body)-4:]) != crc32.Checksum(payload, castagnoli) {
		return nil, 0, fmt.Errorf("%w: its checksum does not match", errCopyUnusable)
	}
	r := &copyReader{b: payload[len(copyMagic):]}
	if r.uvarint() != uint64(store.SchemaVersion()) || r.uvarint() != uint64(analysis.Version) {
		return nil, 0, fmt.Errorf("%w: made by another version of memdesk", errCopyUnusable)
	}
	seq := r.varint()
	kinds := map[string]*kindIndex{}
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		k := newKindIndex(r.string())
		if kinds[k.kind] != nil {
			r.fail()
			break
		}
		for s := r.count(1); s > 0 && r.err == nil; s-- {
			if name := r.string(); k.spaceID(name) != uint32(len(k.spaceNames)-1) {
				r.fail() // a space named twice
			}
		}
		owners := r.count(6) // six varints of a byte at least each
		size := r.uvarint()
		if size > math.MaxUint32 || r.err != nil {
			r.fail()
			break
		}
		k.presize(int(size))
		id, created := int64(-1), int64(0)
		for range owners {
			step := r.uvarint() // at least 1: ids ascend
			id += int64(step)
			sp, words := r.uvarint(), r.uvarint()
			created += r.varint()
			textLen := r.uvarint()
			ents := make([]uint32, r.count(1))
			bad := false
			for i := range ents {
				e := r.uvarint()
				bad = bad || e >= dead
				ents[i] = uint32(e)
			}
			if r.err != nil || bad || step == 0 || id < 0 || id >= int64(size) || sp >= uint64(len(k.spaceNames)) || words >= dead || textLen >= dead {
				r.fail()
				break
			}
			if len(ents) == 0 {
				ents = nil
			}
			k.place(id, uint32(sp), uint32(words), created, uint32(textLen), ents)
		}
		kinds[k.kind] = k
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	if len(r.b) != 0 || len(kinds) != 2 || kinds[store.KindFact] == nil || kinds[store.KindChunk] == nil {
		return nil, 0, fmt.Errorf("%w: its kinds are not the ones the index keeps", errCopyUnusable)
	}
	return kinds, seq, nil
}

// presize makes the arrays by owner id n long at once, every id dead: a load knows its size.
func (k *kindIndex) presize(n int) {
	k.space = make([]uint32, n)
	for i := range k.space {
		k.space[i] = dead
	}
	k.words = make([]uint32, n)
	k.created = make([]int64, n)
	k.textLen = make([]uint32, n)
	k.ents = make([][]uint32, n)
}

// place records a live owner, read in ascending id order, into presized arrays, as set does:
// the aggregates and entity postings are kept in step (each list grows at its end).
func (k *kindIndex) place(id int64, sp, words uint32, created int64, textLen uint32, ents []uint32) {
	k.space[id], k.words[id], k.created[id], k.textLen[id], k.ents[id] = sp, words, created, textLen, ents
	k.stats[sp].n++
	k.stats[sp].words += int(words)
	k.all.n++
	k.all.words += int(words)
	u := uint32(id)
	for _, e := range ents {
		list := k.entities[e]
		if n := len(list); n == 0 || list[n-1] < u {
			k.entities[e] = append(list, u)
		}
	}
}
