// Package lexicon is the lexical leg's in-memory copy of what the word index (SQLite FTS5)
// stores, and its bm25. FTS5 scores every posting of every OR'd term through the SQLite
// engine and reads each row's length from a table as it goes: at 100k facts a common term
// costs 20-30 ms, far from search-as-you-type. Reading a term's postings list alone is cheap
// (a few ms for 15k postings), and so is scoring it in Go. So the index keeps, per kind of
// owner (facts, chunks):
//
//   - every live owner's space, creation time and length, loaded once (one scan) and kept up
//     to date from the store's change log, so Search has the statistics of the whole
//     kind and of each space (its N and average length) and filters by space without SQL;
//   - the postings of the terms queries ask for, read from FTS5 on first use and patched in
//     place as owners change, within a memory budget.
//
// A process that opens the store for one recall (the CLI) starts from the copy of the owner
// tables a process before it saved in the store (copy.go) and pays a read per query term; a
// long-lived one (the app, the MCP server) answers from memory. Every process
// sees every other's writes: each Search first applies what the change log says happened.
package lexicon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/store"
)

// Reader is what the index reads from the store.
type Reader interface {
	LastChange(ctx context.Context) (int64, error)
	ChangesSince(ctx context.Context, seq int64, limit int) ([]store.Change, error)
	LiveOwners(ctx context.Context, kind string, fn func(store.Owner)) (int64, error)
	OwnersByID(ctx context.Context, kind string, ids []int64) (map[int64]store.Owner, map[int64]string, error)
	DocumentChunkIDs(ctx context.Context, docID int64) ([]int64, error)
	TermOwners(ctx context.Context, kind, from, to string) (map[string][]int64, error)
	EntityNameIDs(ctx context.Context, names []string) (map[string]int64, error)
	CommonTerms(ctx context.Context, kind string, limit int, marker func(string) bool) ([]string, error)
}

// bm25 parameters: the usual ones (Robertson; Lucene's defaults).
const (
	k1 = 1.2
	b  = 0.75
)

const (
	// maxIncremental is how many changes a refresh applies one by one; past it the index
	// reloads whole, which is cheaper than patching every cached list that many times.
	maxIncremental = 2000
	// postingBudget bounds the postings cached per kind (each costs 6 bytes, so 12 MB): past
	// it the least recently used lists are dropped and read again when asked for. It was 8M
	// (48 MB per kind), room the searches of a long session filled in the window's heap;
	// typing over 64k real chunks measured the same with 2M (BenchmarkTypeToResults50k:
	// p50 11-16 / p95 51-52 ms, against 18-20 / 52-63 ms with 8M), and so did memdesk bench.
	postingBudget = 2 << 20
)

// Index is the in-memory copy. It is safe for concurrent use; Searches take turns.
type Index struct {
	rd     Reader
	mu     sync.Mutex
	loaded bool
	seq    int64 // the last change applied
	kinds  map[string]*kindIndex
	clock  uint64 // counts uses, for least-recently-used eviction
	// names caches entity name ids: an id, once given, never changes. unnamed holds the
	// names the store had no id for as of change unnamedSeq: until the index applies
	// another change no owner it knows can carry them, so asking again would change nothing
	// (a query's pieces that are no entity are asked on every recall otherwise).
	names      map[string]uint32
	unnamed    map[string]bool
	unnamedSeq int64

	// searching counts searches waiting for mu; stopWarm cancels the WarmCommon read holding
	// it (nil between reads). A common word's list takes 25-130 ms to read, and a first
	// search typed while the app warms up waited behind one such read per term it looked up.
	searching atomic.Int32
	warmMu    sync.Mutex
	stopWarm  context.CancelFunc

	// keeper holds the copy of the owner tables a new process starts from (copy.go); nil
	// keeps none. copyTried: this process looked for it already (only its first load does;
	// after Forget the index trusts nothing it did not read). copyWanted: a whole load made
	// a state worth saving; sinceCopy counts owners changed since the copy was read or saved.
	keeper     CopyKeeper
	copyTried  bool
	copyWanted bool
	sinceCopy  int
}

// lockForSearch takes mu for a search: ahead of WarmCommon, whose read in progress is
// cancelled (it reads that list again later).
func (x *Index) lockForSearch() {
	x.searching.Add(1)
	defer x.searching.Add(-1)
	x.warmMu.Lock()
	if x.stopWarm != nil {
		x.stopWarm()
	}
	x.warmMu.Unlock()
	x.mu.Lock()
}

// New returns an index over rd. It reads nothing until the first Search.
func New(rd Reader) *Index {
	return &Index{rd: rd}
}

// NewWithCopy is New with a keeper of the owner tables' copy: the first load starts from
// the copy when it can, and SaveCopy saves one (copy.go).
func NewWithCopy(rd Reader, keeper CopyKeeper) *Index {
	return &Index{rd: rd, keeper: keeper}
}

// Warm loads the owners now, so the first Search does not: a process that will answer
// queries (the app, the MCP server) calls it at start, before anyone types.
func (x *Index) Warm(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.refresh(ctx)
}

// WarmCommon reads the postings of each kind's most common terms (not stopwords, which
// queries do not search) until budget postings per kind are cached, so the first search with
// a common word does not read its list: 25-130 ms for a word in thousands of chunks, against
// 1-10 ms once cached. Rare words are cheap to read when asked for. The lock is taken per
// list, and a search that wants it cancels the list being read (read again after it), so a
// search typed meanwhile waits for no list but its own. It returns the postings cached.
func (x *Index) WarmCommon(ctx context.Context, budget int) (int, error) {
	if err := x.Warm(ctx); err != nil {
		return 0, err
	}
	marker := func(term string) bool { return strings.Contains(term, "⁺") || analysis.IsStopword(term) }
	total := 0
	for _, kind := range []string{store.KindFact, store.KindChunk} {
		terms, err := x.rd.CommonTerms(ctx, kind, maxWarmTerms, marker)
		if err != nil {
			return total, err
		}
		cached := 0
		for i := 0; i < len(terms) && cached < budget && ctx.Err() == nil; {
			n, err := x.warmStep(ctx, kind, terms[i])
			switch {
			case ctx.Err() != nil:
				return total, ctx.Err()
			case errors.Is(err, errWarmYielded):
				continue // a search came first: read this list again once it is done
			case err != nil:
				return total, err
			}
			cached += n
			i++
		}
		total += cached
	}
	return total, ctx.Err()
}

// maxWarmTerms bounds the terms WarmCommon looks at per kind.
const maxWarmTerms = 5000

// errWarmYielded: a search cancelled a warm read to take the lock first.
var errWarmYielded = errors.New("warm read yielded to a search")

// warmStep is warmList when no search wants the lock, cancellable by one that comes (see
// lockForSearch). It waits while searches are waiting; a read cancelled by a search returns
// errWarmYielded.
func (x *Index) warmStep(ctx context.Context, kind, term string) (int, error) {
	for x.searching.Load() > 0 {
		t := time.NewTimer(warmPause)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
		}
	}
	step, cancel := context.WithCancel(ctx)
	defer cancel()
	x.warmMu.Lock()
	x.stopWarm = cancel
	x.warmMu.Unlock()
	n, err := x.warmList(step, kind, term)
	x.warmMu.Lock()
	x.stopWarm = nil
	x.warmMu.Unlock()
	if err != nil && step.Err() != nil && ctx.Err() == nil {
		return 0, errWarmYielded
	}
	return n, err
}

// warmPause is how long WarmCommon waits before looking again while searches wait.
const warmPause = 5 * time.Millisecond

// warmList reads one term's postings into the cache under the lock; it returns their number.
func (x *Index) warmList(ctx context.Context, kind, term string) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	k, ok := x.kinds[kind]
	if !ok {
		return 0, nil // Forget ran meanwhile; the next search loads
	}
	pl, err := x.postings(ctx, k, term)
	if err != nil {
		return 0, err
	}
	return len(pl.ids), nil
}

// Forget drops everything read so far: the next Search loads the owners and reads every
// postings list anew. After the word index was rebuilt, a list read from the damaged one
// must not be kept.
func (x *Index) Forget() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.loaded, x.kinds, x.unnamed = false, nil, nil
}

// catchUp refreshes the index, unless fresh says a Fresh view already did for this
// caller and the index has not been forgotten since.
func (x *Index) catchUp(ctx context.Context, fresh bool) error {
	if fresh && x.loaded {
		return nil
	}
	return x.refresh(ctx)
}

// Fresh is the index as of one refresh: its searches do not ask the change log again. A
// recall makes several searches (entity names, words and entities of each kind) and each
// asked it (one SQL query, 5-10% of a recall at 100k facts); one look makes them all see
// the store as of one moment, which also keeps a recall's legs consistent with each other.
type Fresh struct {
	x *Index
}

// Fresh refreshes the index from the change log and returns a view that will not again.
func (x *Index) Fresh(ctx context.Context) (Fresh, error) {
	x.lockForSearch()
	defer x.mu.Unlock()
	if err := x.refresh(ctx); err != nil {
		return Fresh{}, fmt.Errorf("refresh the word index: %w", err)
	}
	return Fresh{x}, nil
}

// Search is Index.Search without the refresh.
func (f Fresh) Search(ctx context.Context, req Request) (Result, error) {
	return f.x.search(ctx, req, true)
}

// Stats is Index.Stats without the refresh.
func (f Fresh) Stats(ctx context.Context, kind, space string) (int, error) {
	return f.x.stats(ctx, kind, space, true)
}

// EntitySearch is Index.EntitySearch without the refresh.
func (f Fresh) EntitySearch(ctx context.Context, kind, space string, names []string,
	choose func(df map[string]int, n int) []string, limit int) (EntityResult, error) {
	return f.x.entitySearch(ctx, kind, space, names, choose, limit, true)
}

// KnownNames is Index.KnownNames without the refresh.
func (f Fresh) KnownNames(ctx context.Context, names []string) (map[string]bool, error) {
	return f.x.knownNames(ctx, names, true)
}

// Describe is Index.Describe.
func (f Fresh) Describe(kind string, ids []int64) map[int64]Owner {
	return f.x.Describe(kind, ids)
}

// dead marks an id with no live owner in kindIndex.space.
const dead = math.MaxUint32

// aggregate is what bm25 needs of a set of owners.
type aggregate struct {
	n     int
	words int
}

func (a aggregate) avgLen() float64 {
	if a.n == 0 {
		return 1
	}
	return max(float64(a.words)/float64(a.n), 1)
}

type postingList struct {
	ids     []uint32 // ascending
	tfs     []uint16
	lastUse uint64
}

// kindIndex is the copy of one kind of owner. What scoring reads per posting is kept in
// parallel arrays by owner id (space, length), so the inner loops touch two words per
// posting.
type kindIndex struct {
	kind string
	// By owner id: the space id (dead when no live owner has the id), length in index
	// terms, creation time (Unix ms), text length in bytes, entity name ids.
	space   []uint32
	words   []uint32
	created []int64
	textLen []uint32
	ents    [][]uint32

	spaceIDs   map[string]uint32
	spaceNames []string
	stats      []aggregate // by space id
	all        aggregate
	cache      map[string]*postingList
	cached     int // postings in cache
	// entities holds, per entity name id, the live owners carrying it (ascending): every
	// entity, not a cache; they are few per owner.
	entities map[uint32][]uint32
	// scores, matched, touched, picked, atCut and chosen are the scratch space of one search
	// (under the lock).
	scores  []float64
	matched []uint64
	touched []uint32
	picked  []scored
	atCut   []uint32
	chosen  []uint32
}

func newKindIndex(kind string) *kindIndex {
	return &kindIndex{kind: kind, spaceIDs: map[string]uint32{}, cache: map[string]*postingList{},
		entities: map[uint32][]uint32{}}
}

func (k *kindIndex) spaceID(name string) uint32 {
	if id, ok := k.spaceIDs[name]; ok {
		return id
	}
	id := uint32(len(k.spaceNames))
	k.spaceIDs[name] = id
	k.spaceNames = append(k.spaceNames, name)
	k.stats = append(k.stats, aggregate{})
	return id
}

// grow makes room for owner id n-1.
func (k *kindIndex) grow(n int) {
	for len(k.space) < n {
		k.space = append(k.space, dead)
	}
	k.words = slices.Grow(k.words, n-len(k.words))[:n]
	k.created = slices.Grow(k.created, n-len(k.created))[:n]
	k.textLen = slices.Grow(k.textLen, n-len(k.textLen))[:n]
	k.ents = slices.Grow(k.ents, n-len(k.ents))[:n]
}

// set records o's current state, keeping the aggregates and entity postings in step.
func (k *kindIndex) set(id int64, o store.Owner) {
	k.drop(id)
	if !o.Live || id < 0 || id >= dead {
		return
	}
	if int(id) >= len(k.space) {
		k.grow(int(id) + 1)
	}
	sp := k.spaceID(o.Space)
	var ents []uint32
	if len(o.Entities) > 0 {
		ents = make([]uint32, 0, len(o.Entities))
		for _, e := range o.Entities {
			if e >= 0 && e < dead {
				ents = append(ents, uint32(e))
			}
		}
	}
	k.space[id], k.words[id], k.created[id] = sp, uint32(min(o.Words, dead-1)), o.CreatedAt.UnixMilli()
	k.textLen[id], k.ents[id] = uint32(min(o.TextLen, dead-1)), ents
	k.stats[sp].n++
	k.stats[sp].words += o.Words
	k.all.n++
	k.all.words += o.Words
	u := uint32(id)
	for _, e := range ents {
		list := k.entities[e]
		if n := len(list); n == 0 || list[n-1] < u {
			k.entities[e] = append(list, u) // the common case: a load in id order, or a new owner
			continue
		}
		if i, found := slices.BinarySearch(list, u); !found {
			k.entities[e] = slices.Insert(list, i, u)
		}
	}
}

// drop forgets id's state (it is no longer live).
func (k *kindIndex) drop(id int64) {
	if id < 0 || int(id) >= len(k.space) || k.space[id] == dead {
		return
	}
	sp := k.space[id]
	k.stats[sp].n--
	k.stats[sp].words -= int(k.words[id])
	k.all.n--
	k.all.words -= int(k.words[id])
	u := uint32(id)
	for _, e := range k.ents[id] {
		list := k.entities[e]
		if i, found := slices.BinarySearch(list, u); found {
			list = slices.Delete(list, i, i+1)
		}
		if len(list) == 0 {
			delete(k.entities, e)
		} else {
			k.entities[e] = list
		}
	}
	k.space[id], k.words[id], k.created[id], k.textLen[id], k.ents[id] = dead, 0, 0, 0, nil
}

// spaceOf is id's space id, dead when it has no live owner.
func (k *kindIndex) spaceOf(id uint32) uint32 {
	if int(id) >= len(k.space) {
		return dead
	}
	return k.space[id]
}

// scratch makes sure the search arrays cover every owner id.
func (k *kindIndex) scratch() {
	if len(k.scores) < len(k.space) {
		k.scores = make([]float64, len(k.space))
		k.matched = make([]uint64, len(k.space))
	}
	k.touched = k.touched[:0]
}

// refresh brings the index up to the store's last change: a whole load the first time or
// when the index fell too far behind, else the changes one by one.
func (x *Index) refresh(ctx context.Context) error {
	if !x.loaded && !x.copyTried && x.keeper != nil {
		x.copyTried = true
		if _, err := x.loadCopy(ctx); err != nil {
			return err
		}
	}
	last, err := x.rd.LastChange(ctx)
	if err != nil {
		return err
	}
	if x.loaded && last == x.seq {
		return nil
	}
	if x.loaded {
		changes, err := x.rd.ChangesSince(ctx, x.seq, maxIncremental+1)
		switch {
		case errors.Is(err, store.ErrChangesPruned):
		case err != nil:
			return err
		case len(changes) <= maxIncremental:
			return x.apply(ctx, changes)
		}
	}
	return x.load(ctx)
}

// load reads every live owner anew and forgets every cached list.
func (x *Index) load(ctx context.Context) error {
	kinds := map[string]*kindIndex{}
	var seq int64
	for _, kind := range []string{store.KindFact, store.KindChunk} {
		k := newKindIndex(kind)
		s, err := x.rd.LiveOwners(ctx, kind, func(o store.Owner) { k.set(o.ID, o) })
		if err != nil {
			return err
		}
		if kind == store.KindFact || s < seq {
			// Two reads, two snapshots: changes after the older one are applied again
			// next time, which is harmless (applying a change is idempotent).
			seq = s
		}
		kinds[kind] = k
	}
	x.kinds, x.seq, x.loaded = kinds, seq, true
	x.copyWanted, x.sinceCopy = kinds[store.KindFact].all.n+kinds[store.KindChunk].all.n >= copyMinOwners, 0
	return nil
}

// apply brings the owners named by changes up to date and patches the cached lists.
func (x *Index) apply(ctx context.Context, changes []store.Change) error {
	ids := map[string][]int64{}
	seen := map[store.Change]bool{}
	for _, c := range changes {
		key := store.Change{Kind: c.Kind, ID: c.ID}
		if seen[key] {
			continue
		}
		seen[key] = true
		switch c.Kind {
		case store.KindFact, store.KindChunk:
			ids[c.Kind] = append(ids[c.Kind], c.ID)
		case "document":
			chunks, err := x.rd.DocumentChunkIDs(ctx, c.ID)
			if err != nil {
				return err
			}
			ids[store.KindChunk] = append(ids[store.KindChunk], chunks...)
		}
	}
	for kind, list := range ids {
		k := x.kinds[kind]
		x.sinceCopy += len(list)
		owners, texts, err := x.rd.OwnersByID(ctx, kind, list)
		if err != nil {
			return err
		}
		for _, id := range list {
			k.uncache(id)
			o, ok := owners[id]
			if !ok {
				k.drop(id)
				continue
			}
			k.set(id, o)
			if o.Live {
				k.cacheTerms(id, texts[id])
			}
		}
	}
	x.seq = changes[len(changes)-1].Seq
	return nil
}

// uncache removes id from every cached list.
func (k *kindIndex) uncache(id int64) {
	if id < 0 || id > math.MaxUint32 {
		return
	}
	u := uint32(id)
	for _, pl := range k.cache {
		if i, ok := slices.BinarySearch(pl.ids, u); ok {
			pl.ids = slices.Delete(pl.ids, i, i+1)
			pl.tfs = slices.Delete(pl.tfs, i, i+1)
			k.cached--
		}
	}
}

// cacheTerms adds id to the cached lists of the terms text holds.
func (k *kindIndex) cacheTerms(id int64, text string) {
	if id < 0 || id > math.MaxUint32 || len(k.cache) == 0 {
		return
	}
	tf := map[string]int{}
	for t := range analysis.Terms(text) {
		if _, ok := k.cache[t.Text]; ok && tf[t.Text] < analysis.MaxTF {
			tf[t.Text]++ // the index records at most MaxTF occurrences
		}
	}
	u := uint32(id)
	for term, n := range tf {
		pl := k.cache[term]
		i, found := slices.BinarySearch(pl.ids, u)
		if found {
			pl.tfs[i] = uint16(min(n, math.MaxUint16))
			continue
		}
		pl.ids = slices.Insert(pl.ids, i, u)
		pl.tfs = slices.Insert(pl.tfs, i, uint16(min(n, math.MaxUint16)))
		k.cached++
	}
}

// postings returns term's list, reading it from the store when it is not cached.
func (x *Index) postings(ctx context.Context, k *kindIndex, term string) (*postingList, error) {
	x.clock++
	if pl, ok := k.cache[term]; ok {
		pl.lastUse = x.clock
		return pl, nil
	}
	owners, err := x.rd.TermOwners(ctx, k.kind, term, term)
	if err != nil {
		return nil, err
	}
	ids := owners[term]
	pl := &postingList{ids: make([]uint32, 0, len(ids)), tfs: make([]uint16, 0, len(ids)), lastUse: x.clock}
	for _, id := range ids {
		if id < 0 || id >= dead {
			continue
		}
		pl.ids = append(pl.ids, uint32(id))
		pl.tfs = append(pl.tfs, 1)
	}
	if len(pl.ids) > 0 {
		// How often: one more for each occurrence marker an owner holds.
		more, err := x.rd.TermOwners(ctx, k.kind, analysis.TFMarker(term, 2), analysis.TFMarker(term, analysis.MaxTF))
		if err != nil {
			return nil, err
		}
		for _, ids := range more {
			for _, id := range ids {
				if i, ok := slices.BinarySearch(pl.ids, uint32(id)); ok && id >= 0 && id < dead {
					pl.tfs[i]++
				}
			}
		}
	}
	k.cache[term] = pl
	k.cached += len(pl.ids)
	if k.cached > postingBudget {
		k.evict(term)
	}
	return pl, nil
}

// evict drops the least recently used lists until the cache is at three quarters of its
// budget, keeping keep (the list just read).
func (k *kindIndex) evict(keep string) {
	type entry struct {
		term string
		use  uint64
	}
	var all []entry
	for term, pl := range k.cache {
		if term != keep {
			all = append(all, entry{term, pl.lastUse})
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return int(a.use) - int(b.use) })
	for _, e := range all {
		if k.cached <= postingBudget*3/4 {
			break
		}
		k.cached -= len(k.cache[e.term].ids)
		delete(k.cache, e.term)
	}
}

// Term is one query term for Search.
type Term struct {
	Text string
	// Weight scales the term's bm25; 0 makes it evidence only: Search records which
	// candidates hold it and counts its document frequency, but it neither scores nor finds.
	Weight float64
}

// Request is one search of one kind of owner.
type Request struct {
	Kind  string
	Space string // "" for every space
	// Terms may be up to MaxAsked; when more than MaxTerms of them are held by some text of
	// the scope, the MaxTerms rarest are searched (a long query's distinctive words, wherever
	// they are in it, not its first ones).
	Terms []Term
	Limit int
}

// Match is one candidate: its bm25 over the weighted terms, and which terms it holds (bit i
// for Terms[i]).
type Match struct {
	ID        int64
	Score     float64
	Matched   uint64
	CreatedAt time.Time
	TextLen   int
}

// Result is a search's best matches, best first (ties by id), with the statistics of the
// scope searched: its number of live owners, the request terms searched (Terms[i] is the
// index into Request.Terms of the term of Match bit i) and each one's document frequency.
type Result struct {
	Matches []Match
	N       int
	Terms   []int
	DF      []int
}

// MaxTerms is how many terms one Search scores; MaxAsked how many it is asked about.
const (
	MaxTerms = 64
	MaxAsked = 512
)

// Search refreshes the index from the change log and returns the best Limit owners of
// Request.Kind in Request.Space by bm25, weighed with the statistics of the whole kind, with
// the document frequencies of the space searched.
func (x *Index) Search(ctx context.Context, req Request) (Result, error) {
	return x.search(ctx, req, false)
}

func (x *Index) search(ctx context.Context, req Request, fresh bool) (Result, error) {
	if len(req.Terms) > MaxAsked {
		return Result{}, fmt.Errorf("lexicon search: %d terms, at most %d", len(req.Terms), MaxAsked)
	}
	x.lockForSearch()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx, fresh); err != nil {
		return Result{}, fmt.Errorf("refresh the word index: %w", err)
	}
	k, ok := x.kinds[req.Kind]
	if !ok {
		return Result{}, fmt.Errorf("lexicon search: unknown kind %q", req.Kind)
	}
	scope := k.all
	space, all := uint32(0), req.Space == ""
	if !all {
		id, ok := k.spaceIDs[req.Space]
		if !ok {
			return Result{}, nil
		}
		space, scope = id, k.stats[id]
	}
	res := Result{N: scope.n}
	if scope.n == 0 {
		return res, nil
	}
	k.scratch()
	// bm25 weighs terms by the statistics of every space of this kind, not the searched
	// one's alone, as a search engine does under a filter: a space of 9 facts says little
	// about how common a word is, the whole store more. Ranking a user's 85 memories with
	// the idf of all of them (MADial zh) or of one conversation's 244 turns with that of
	// 240 conversations' (LongMemEval-S) gains 0.006-0.015 recall@10 and nDCG@10
	// (doc/retrieval.md). The scope's own counts (DF, N) are what the ranking stage's
	// evidence needs: how likely a match is by chance among the texts searched.
	avg := k.all.avgLen()
	lists := make([]*postingList, len(req.Terms))
	dfs := make([]int, len(req.Terms))
	globalDF := make([]int, len(req.Terms))
	for i, t := range req.Terms {
		pl, err := x.postings(ctx, k, t.Text)
		if err != nil {
			return Result{}, err
		}
		lists[i] = pl
		for _, id := range pl.ids {
			sp := k.spaceOf(id)
			if sp == dead {
				continue
			}
			globalDF[i]++
			if all || sp == space {
				dfs[i]++
			}
		}
	}
	res.Terms = rarest(dfs, MaxTerms)
	res.DF = make([]int, len(res.Terms))
	for bit, i := range res.Terms {
		res.DF[bit] = dfs[i]
		t, pl := req.Terms[i], lists[i]
		idf := math.Log(1 + (float64(k.all.n)-float64(globalDF[i])+0.5)/(float64(globalDF[i])+0.5))
		mask := uint64(1) << bit
		for j, id := range pl.ids {
			sp := k.spaceOf(id)
			if sp == dead || !all && sp != space {
				continue
			}
			if k.matched[id] == 0 {
				k.touched = append(k.touched, id)
			}
			k.matched[id] |= mask
			if t.Weight == 0 {
				continue
			}
			tf := float64(pl.tfs[j])
			norm := k1 * (1 - b + b*float64(k.words[id])/avg)
			k.scores[id] += t.Weight * idf * tf * (k1 + 1) / (tf + norm)
		}
	}
	// A common term touches tens of thousands of owners: only the best Limit become
	// Matches, chosen in the search's scratch space, so a query allocates for what it
	// returns and not for everything it scored.
	k.picked = k.picked[:0]
	for _, id := range k.touched {
		if s := k.scores[id]; s > 0 {
			k.picked = append(k.picked, scored{id: id, score: s, matched: k.matched[id]})
		}
		k.scores[id], k.matched[id] = 0, 0
	}
	top := best(k.picked, req.Limit)
	res.Matches = make([]Match, len(top))
	for i, m := range top {
		res.Matches[i] = Match{ID: int64(m.id), Score: m.score, Matched: m.matched,
			CreatedAt: time.UnixMilli(k.created[m.id]), TextLen: int(k.textLen[m.id])}
	}
	return res, nil
}

// Stats returns the number of live owners of kind in space ("" for every space).
func (x *Index) Stats(ctx context.Context, kind, space string) (int, error) {
	return x.stats(ctx, kind, space, false)
}

func (x *Index) stats(ctx context.Context, kind, space string, fresh bool) (int, error) {
	x.lockForSearch()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx, fresh); err != nil {
		return 0, fmt.Errorf("refresh the word index: %w", err)
	}
	k, ok := x.kinds[kind]
	if !ok {
		return 0, fmt.Errorf("lexicon stats: unknown kind %q", kind)
	}
	if space == "" {
		return k.all.n, nil
	}
	id, ok := k.spaceIDs[space]
	if !ok {
		return 0, nil
	}
	return k.stats[id].n, nil
}

// scored is one owner a search scored, before it becomes a Match: small, so choosing the
// best among a common term's owners moves little memory.
type scored struct {
	score   float64
	matched uint64
	id      uint32
}

// better orders matches best first: higher score, then lower id.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// best returns the limit best of ms (all when limit <= 0), best first, in ms's own
// memory. It selects with a bounded heap, so a common term's thousands of matches are not
// all sorted.
func best(ms []scored, limit int) []scored {
	if limit <= 0 || len(ms) <= limit {
		slices.SortFunc(ms, cmpScored)
		return ms
	}
	// h is a min-heap (worst on top) of the best limit seen so far, kept at the front of ms:
	// every later element is read before its slot could be written.
	h := ms[:limit]
	worse := func(i, j int) bool { return better(h[j], h[i]) }
	down := func(i int) {
		for {
			l, r, m := 2*i+1, 2*i+2, i
			if l < len(h) && worse(l, m) {
				m = l
			}
			if r < len(h) && worse(r, m) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, m := range ms[limit:] {
		if better(m, h[0]) {
			h[0] = m
			down(0)
		}
	}
	slices.SortFunc(h, cmpScored)
	return h
}

func cmpScored(a, b scored) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// EntityMatch is one owner carrying some of the anchors.
type EntityMatch struct {
	ID int64
	// Shared names the anchors it carries, in the anchors' order; Total is how many
	// entities it has.
	Shared    []string
	Total     int
	CreatedAt time.Time
	TextLen   int
}

// EntityResult is an entity search: the scope's number of live owners, each asked name's
// document frequency in it, the anchors chosen from those, and the owners carrying them.
type EntityResult struct {
	N       int
	DF      map[string]int
	Anchors []string
	Matches []EntityMatch
}

// EntitySearch finds the live owners of kind in space ("" for every space) that carry the
// anchors among names. choose picks the anchors from each name's document frequency in the
// scope and the scope's size (package rank decides what anchors a query); at most limit
// matches come back, those sharing the most anchors first, then by id.
func (x *Index) EntitySearch(ctx context.Context, kind, space string, names []string,
	choose func(df map[string]int, n int) []string, limit int) (EntityResult, error) {
	return x.entitySearch(ctx, kind, space, names, choose, limit, false)
}

func (x *Index) entitySearch(ctx context.Context, kind, space string, names []string,
	choose func(df map[string]int, n int) []string, limit int, fresh bool) (EntityResult, error) {
	x.lockForSearch()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx, fresh); err != nil {
		return EntityResult{}, fmt.Errorf("refresh the entity index: %w", err)
	}
	k, ok := x.kinds[kind]
	if !ok {
		return EntityResult{}, fmt.Errorf("entity search: unknown kind %q", kind)
	}
	ids, err := x.nameIDs(ctx, names)
	if err != nil {
		return EntityResult{}, err
	}
	scope, sp, all := k.all, uint32(0), space == ""
	if !all {
		id, ok := k.spaceIDs[space]
		if !ok {
			return EntityResult{DF: map[string]int{}}, nil
		}
		sp, scope = id, k.stats[id]
	}
	res := EntityResult{N: scope.n, DF: make(map[string]int, len(names))}
	for _, name := range names {
		n := 0
		if id, ok := ids[name]; ok {
			for _, o := range k.entities[id] {
				if s := k.spaceOf(o); s != dead && (all || s == sp) {
					n++
				}
			}
		}
		res.DF[name] = n
	}
	res.Anchors = choose(res.DF, res.N)
	if len(res.Anchors) > 64 {
		res.Anchors = res.Anchors[:64]
	}
	k.scratch()
	for i, name := range res.Anchors {
		id, ok := ids[name]
		if !ok {
			continue
		}
		for _, o := range k.entities[id] {
			if s := k.spaceOf(o); s != dead && (all || s == sp) {
				if k.matched[o] == 0 {
					k.touched = append(k.touched, o)
				}
				k.matched[o] |= 1 << i
			}
		}
	}
	// The best limit by shared anchors (then id): count per number shared, find the count
	// the cut falls in, keep everything above it and the lowest ids at it.
	var perCount [65]int
	for _, o := range k.touched {
		perCount[bits.OnesCount64(k.matched[o])]++
	}
	cut, above := 0, 0
	if limit > 0 && len(k.touched) > limit {
		for c := 64; c > 0; c-- {
			if above+perCount[c] >= limit {
				cut = c
				break
			}
			above += perCount[c]
		}
	}
	atCut, chosen := k.atCut[:0], k.chosen[:0]
	shared := 0 // anchors held, summed over the chosen owners
	for _, o := range k.touched {
		c := bits.OnesCount64(k.matched[o])
		switch {
		case c > cut:
			chosen = append(chosen, o)
			shared += c
		case c == cut && cut > 0:
			atCut = append(atCut, o)
		}
	}
	if cut > 0 {
		slices.Sort(atCut)
		chosen = append(chosen, atCut[:limit-above]...)
		shared += cut * (limit - above)
	}
	// One array holds every match's shared anchors: hundreds of owners of a common entity
	// would otherwise make as many small slices.
	held := make([]string, 0, shared)
	if len(chosen) > 0 {
		res.Matches = make([]EntityMatch, 0, len(chosen))
	}
	for _, o := range chosen {
		from := len(held)
		for i, a := range res.Anchors {
			if k.matched[o]&(1<<i) != 0 {
				held = append(held, a)
			}
		}
		res.Matches = append(res.Matches, EntityMatch{ID: int64(o), Shared: held[from:len(held):len(held)],
			Total: len(k.ents[o]), CreatedAt: time.UnixMilli(k.created[o]), TextLen: int(k.textLen[o])})
	}
	k.atCut, k.chosen = atCut, chosen
	for _, o := range k.touched {
		k.matched[o] = 0
	}
	slices.SortFunc(res.Matches, func(a, b EntityMatch) int {
		if len(a.Shared) != len(b.Shared) {
			return len(b.Shared) - len(a.Shared)
		}
		return int(a.ID - b.ID)
	})
	return res, nil
}

// KnownNames returns which of names are entity names some live owner, of any kind, carries:
// the store's own vocabulary, which a query's entities are read by (entity.Known).
func (x *Index) KnownNames(ctx context.Context, names []string) (map[string]bool, error) {
	return x.knownNames(ctx, names, false)
}

func (x *Index) knownNames(ctx context.Context, names []string, fresh bool) (map[string]bool, error) {
	x.lockForSearch()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx, fresh); err != nil {
		return nil, fmt.Errorf("refresh the entity index: %w", err)
	}
	ids, err := x.nameIDs(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for name, id := range ids {
		for _, k := range x.kinds {
			if len(k.entities[id]) > 0 {
				out[name] = true
				break
			}
		}
	}
	return out, nil
}

// Owner is what the index knows of one live owner without reading the store.
type Owner struct {
	CreatedAt time.Time
	TextLen   int
}

// Describe returns the live owners among ids of kind, as of the last refresh.
func (x *Index) Describe(kind string, ids []int64) map[int64]Owner {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[int64]Owner, len(ids))
	k, ok := x.kinds[kind]
	if !ok {
		return out
	}
	for _, id := range ids {
		if id >= 0 && id < dead && k.spaceOf(uint32(id)) != dead {
			out[id] = Owner{CreatedAt: time.UnixMilli(k.created[id]), TextLen: int(k.textLen[id])}
		}
	}
	return out
}

// nameIDs returns the ids of the entity names the store knows, asking it only for names not
// seen before.
func (x *Index) nameIDs(ctx context.Context, names []string) (map[string]uint32, error) {
	if x.names == nil {
		x.names = map[string]uint32{}
	}
	if x.unnamed == nil || x.unnamedSeq != x.seq || len(x.unnamed) > maxUnnamed {
		x.unnamed, x.unnamedSeq = map[string]bool{}, x.seq
	}
	out := make(map[string]uint32, len(names))
	var ask []string
	for _, n := range names {
		if id, ok := x.names[n]; ok {
			out[n] = id
		} else if !x.unnamed[n] {
			ask = append(ask, n)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	got, err := x.rd.EntityNameIDs(ctx, ask)
	if err != nil {
		return nil, err
	}
	for n, id := range got {
		if id >= 0 && id <= math.MaxUint32 {
			x.names[n], out[n] = uint32(id), uint32(id)
		}
	}
	for _, n := range ask {
		if _, ok := out[n]; !ok {
			x.unnamed[n] = true
		}
	}
	return out, nil
}

// maxUnnamed bounds the names remembered as unknown between two changes.
const maxUnnamed = 10000

// rarest returns, in request order, the indices of the at most n terms with the smallest
// non-zero document frequency (ties: the earlier term).
func rarest(dfs []int, n int) []int {
	var held []int
	for i, df := range dfs {
		if df > 0 {
			held = append(held, i)
		}
	}
	if len(held) <= n {
		return held
	}
	byDF := slices.Clone(held)
	slices.SortStableFunc(byDF, func(a, b int) int { return dfs[a] - dfs[b] })
	keep := byDF[:n]
	slices.Sort(keep)
	return keep
}
