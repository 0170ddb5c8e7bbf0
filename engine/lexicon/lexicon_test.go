package lexicon

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/store"
)

// storeOptions are the store's options as the engine's analysis sets them.
func storeOptions() store.Options {
	words := func(s string) string { w, _ := analysis.IndexText(s); return w }
	return store.Options{Words: words, WordCount: analysis.Length, WordsVersion: analysis.Version}
}

func openStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, storeOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func add(t testing.TB, st *store.Store, space, text string) int64 {
	t.Helper()
	id, _, err := st.AddFact(context.Background(), space, store.NewFact{Content: text, Hash: space + "/" + text})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func terms(words ...string) []Term {
	out := make([]Term, len(words))
	for i, w := range words {
		out[i] = Term{Text: analysis.Stem(w), Weight: 1}
	}
	return out
}

func ids(ms []Match) []int64 {
	out := []int64{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// TestSearchScoresBM25WithTheWholeKindsStatistics checks the numbers: bm25 with k1 1.2, b 0.75
// and Lucene's idf over every space's N, document frequencies and average length, while the
// result's N and DF are the asked space's own (what the ranking stage's evidence needs).
func TestSearchScoresBM25WithTheWholeKindsStatistics(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "m.db"))
	a := add(t, st, "work", "redis port six")
	b := add(t, st, "work", "redis cluster")
	c := add(t, st, "work", "postgres port")
	add(t, st, "home", "redis at home")
	x := New(st)
	res, err := x.Search(ctx, Request{Kind: store.KindFact, Space: "work", Terms: terms("redis", "port"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 3 || !cmp.Equal(res.DF, []int{2, 2}) {
		t.Fatalf("N %d, DF %v; want 3 and [2 2]: the statistics of space work alone", res.N, res.DF)
	}
	// Over both spaces: 4 texts, redis in 3, port in 2, 10 words in all.
	idfRedis := math.Log(1 + (4-3+0.5)/(3+0.5))
	idfPort := math.Log(1 + (4-2+0.5)/(2+0.5))
	avg := (3.0 + 2 + 2 + 3) / 4
	norm := func(dl float64) float64 { return 2.2 / (1 + 1.2*(1-0.75+0.75*dl/avg)) }
	want := map[int64]float64{a: (idfRedis + idfPort) * norm(3), b: idfRedis * norm(2), c: idfPort * norm(2)}
	got := map[int64]float64{}
	for _, m := range res.Matches {
		got[m.ID] = m.Score
	}
	for id, w := range want {
		if math.Abs(got[id]-w) > 1e-9 {
			t.Errorf("scores = %v, want %v", got, want)
			break
		}
	}
	if res.Matches[0].ID != a || res.Matches[0].Matched != 0b11 {
		t.Errorf("best = %+v, want fact %d holding both terms", res.Matches[0], a)
	}
	all, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms("redis"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if all.N != 4 || all.DF[0] != 3 || len(all.Matches) != 3 {
		t.Errorf("every space: N %d, DF %v, %d matches; want 4, [3], 3", all.N, all.DF, len(all.Matches))
	}
}

func TestSearchEvidenceTermsNeitherScoreNorFind(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "m.db"))
	both := add(t, st, "", "python version pinned")
	add(t, st, "", "version control")
	x := New(st)
	res, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: []Term{{Text: "python", Weight: 1}, {Text: "version", Weight: 0}}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || res.Matches[0].ID != both || res.Matches[0].Matched != 0b11 || res.DF[1] != 2 {
		t.Errorf("matches %+v, DF %v; want only fact %d, holding both terms, and version's df 2", res.Matches, res.DF, both)
	}
}

// TestSearchFollowsWritesFromAnotherProcess: a second store on the same file (another
// process: the CLI beside the app) adds, edits and forgets facts; the index sees each change
// at its next search, through the change log, with the postings it had cached patched.
func TestSearchFollowsWritesFromAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	mine, other := openStore(t, path), openStore(t, path)
	first := add(t, mine, "", "the kubernetes cluster runs in frankfurt")
	x := New(mine)
	search := func(word string) []int64 {
		t.Helper()
		res, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms(word), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return ids(res.Matches)
	}
	if got := search("kubernetes"); !cmp.Equal(got, []int64{first}) {
		t.Fatalf("kubernetes = %v, want [%d]", got, first)
	}
	second := add(t, other, "", "kubernetes upgrade on friday")
	if got := search("kubernetes"); len(got) != 2 {
		t.Errorf("after another process added a fact: kubernetes = %v, want both facts", got)
	}
	if _, err := other.EditFact(ctx, second, store.NewFact{Content: "nomad upgrade on friday", Hash: "e"}); err != nil {
		t.Fatal(err)
	}
	if got := search("kubernetes"); !cmp.Equal(got, []int64{first}) {
		t.Errorf("after the edit: kubernetes = %v, want [%d]", got, first)
	}
	if got := search("nomad"); !cmp.Equal(got, []int64{second}) {
		t.Errorf("after the edit: nomad = %v, want [%d]", got, second)
	}
	if _, err := other.SetFactStatus(ctx, first, store.StatusDeleted); err != nil {
		t.Fatal(err)
	}
	if got := search("kubernetes"); len(got) != 0 {
		t.Errorf("after forgetting: kubernetes = %v, want none", got)
	}
	if n, err := x.Stats(ctx, store.KindFact, ""); err != nil || n != 1 {
		t.Errorf("Stats = %d, %v; want 1 live fact", n, err)
	}
}

// TestSearchReloadsAfterManyChanges: past maxIncremental changes (or a pruned log) the index
// reloads whole and still answers exactly.
func TestSearchReloadsAfterManyChanges(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	mine, other := openStore(t, path), openStore(t, path)
	add(t, mine, "", "seed fact about zebras")
	x := New(mine)
	if _, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms("zebras"), Limit: 10}); err != nil {
		t.Fatal(err)
	}
	batch := make([]store.NewFact, maxIncremental+10)
	for i := range batch {
		text := fmt.Sprintf("zebra sighting number %d", i)
		batch[i] = store.NewFact{Content: text, Hash: text}
	}
	if _, _, err := other.AddFacts(ctx, "", batch); err != nil {
		t.Fatal(err)
	}
	res, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms("zebra"), Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != len(batch)+1 || res.DF[0] != len(batch)+1 || len(res.Matches) != 5 {
		t.Errorf("after %d changes: N %d, DF %v, %d matches; want %d, %d, 5", len(batch), res.N, res.DF, len(res.Matches),
			len(batch)+1, len(batch)+1)
	}
}

func TestBestKeepsTheLimitBestInOrder(t *testing.T) {
	var ms []scored
	for i := range 1000 {
		ms = append(ms, scored{id: uint32(i), score: float64((i * 7919) % 101)})
	}
	got := best(append([]scored(nil), ms...), 10)
	want := best(append([]scored(nil), ms...), 0)[:10]
	scoredIDs := func(ms []scored) []uint32 {
		out := make([]uint32, len(ms))
		for i, m := range ms {
			out[i] = m.id
		}
		return out
	}
	if diff := cmp.Diff(scoredIDs(want), scoredIDs(got)); diff != "" {
		t.Errorf("best 10 (-sorted all +heap):\n%s", diff)
	}
}

func addWithEntities(t testing.TB, st *store.Store, space, text string, names ...string) int64 {
	t.Helper()
	id, _, err := st.AddFact(context.Background(), space, store.NewFact{Content: text, Hash: space + "/" + text,
		Entities: &store.Entities{Version: 1, Names: names}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestEntitySearch: document frequencies in the asked space, the anchors the chooser picks
// from them, the owners carrying them with what they share, and a forget or an edit by
// another process seen at the next search.
func TestEntitySearch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	mine, other := openStore(t, path), openStore(t, path)
	wang := addWithEntities(t, mine, "default", "老王喜欢简约风格", "老王", "风格")
	li := addWithEntities(t, mine, "default", "老李喜欢复古风格", "老李", "风格", "复古")
	addWithEntities(t, mine, "work", "老王在公司", "老王", "公司")
	x := New(mine)
	all := func(df map[string]int, n int) []string {
		var out []string
		for _, name := range []string{"老王", "风格", "nobody"} {
			if df[name] > 0 {
				out = append(out, name)
			}
		}
		return out
	}
	res, err := x.EntitySearch(ctx, store.KindFact, "default", []string{"老王", "风格", "nobody"}, all, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 2 || !cmp.Equal(res.DF, map[string]int{"老王": 1, "风格": 2, "nobody": 0}) || !cmp.Equal(res.Anchors, []string{"老王", "风格"}) {
		t.Fatalf("N %d, DF %v, anchors %v; want 2, 老王 1 风格 2 nobody 0, [老王 风格]", res.N, res.DF, res.Anchors)
	}
	want := []EntityMatch{{ID: wang, Shared: []string{"老王", "风格"}, Total: 2, TextLen: 24}, {ID: li, Shared: []string{"风格"}, Total: 3, TextLen: 24}}
	if diff := cmp.Diff(want, res.Matches, cmpopts.IgnoreFields(EntityMatch{}, "CreatedAt")); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if _, err := other.SetFactStatus(ctx, wang, store.StatusDeleted); err != nil {
		t.Fatal(err)
	}
	if err := other.SetEntities(ctx, li, "老李喜欢复古风格", store.Entities{Version: 2, Names: []string{"老李", "复古"}}); err != nil {
		t.Fatal(err)
	}
	res, err = x.EntitySearch(ctx, store.KindFact, "default", []string{"老王", "风格"}, all, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 1 || res.DF["老王"] != 0 || res.DF["风格"] != 0 || len(res.Matches) != 0 {
		t.Errorf("after a forget and a re-extraction elsewhere: N %d, DF %v, matches %v; want 1, zeros, none", res.N, res.DF, res.Matches)
	}
	res, _ = x.EntitySearch(ctx, store.KindFact, "", []string{"老王"}, func(map[string]int, int) []string { return []string{"老王"} }, 10)
	if res.N != 2 || res.DF["老王"] != 1 || len(res.Matches) != 1 {
		t.Errorf("every space: N %d, DF %v, matches %v; want 2, 1, one (the work fact)", res.N, res.DF, res.Matches)
	}
}

// TestEntitySearchKeepsTheBestLimit: with more owners than the limit, those sharing the most
// anchors come first and, among equals, the lowest ids.
func TestEntitySearchKeepsTheBestLimit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "m.db"))
	var both []int64
	for i := range 30 {
		names := []string{"redis"}
		if i%10 == 9 {
			names = append(names, "port")
		}
		id := addWithEntities(t, st, "", fmt.Sprintf("redis note %d", i), names...)
		if len(names) == 2 {
			both = append(both, id)
		}
	}
	x := New(st)
	res, err := x.EntitySearch(ctx, store.KindFact, "", []string{"redis", "port"},
		func(map[string]int, int) []string { return []string{"redis", "port"} }, 5)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, m := range res.Matches {
		got = append(got, m.ID)
	}
	want := append(append([]int64(nil), both...), 1, 2) // three share both, then the lowest ids sharing one
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("best 5 (-want +got):\n%s", diff)
	}
}

// ownerCountingReader counts whole loads of the owners.
type ownerCountingReader struct {
	Reader
	loads int
	reads map[string]int // TermOwners calls by first term
}

func (r *ownerCountingReader) TermOwners(ctx context.Context, kind, from, to string) (map[string][]int64, error) {
	if r.reads == nil {
		r.reads = map[string]int{}
	}
	r.reads[from]++
	return r.Reader.TermOwners(ctx, kind, from, to)
}

func (r *ownerCountingReader) LiveOwners(ctx context.Context, kind string, fn func(store.Owner)) (int64, error) {
	r.loads++
	return r.Reader.LiveOwners(ctx, kind, fn)
}

// TestWarmLoadsBeforeTheFirstSearch: after Warm, the first Search reads no owners; a write
// made after Warm is still seen.
func TestWarmLoadsBeforeTheFirstSearch(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "m.db"))
	add(t, st, "", "the heron nests by the weir")
	rd := &ownerCountingReader{Reader: st}
	x := New(rd)
	if err := x.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	warmed := rd.loads
	add(t, st, "", "a second heron arrived")
	res, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms("heron"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if warmed == 0 || rd.loads != warmed {
		t.Errorf("owner loads: %d by Warm, %d after the first Search; want the Search to load none", warmed, rd.loads-warmed)
	}
	if len(res.Matches) != 2 {
		t.Errorf("Search after Warm and one more write found %d facts, want 2", len(res.Matches))
	}
}

// TestWarmCommonCachesTheCommonestLists: within its budget, WarmCommon reads the lists of the
// terms most owners hold, never a stopword's, so a search for them reads nothing; a rarer
// term past the budget is read when searched.
func TestWarmCommonCachesTheCommonestLists(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "m.db"))
	var batch []store.NewFact
	for i := range 30 {
		text := fmt.Sprintf("the kestrel %d hovers", i) // kestrel and hovers: 30 owners each, the rest fewer
		if i < 3 {
			text += " over the osprey" // osprey: 3 owners
		}
		batch = append(batch, store.NewFact{Content: text, Hash: text})
	}
	if _, _, err := st.AddFacts(ctx, "", batch); err != nil {
		t.Fatal(err)
	}
	rd := &ownerCountingReader{Reader: st}
	x := New(rd)
	n, err := x.WarmCommon(ctx, 50) // room for two lists of 30, not three
	if err != nil {
		t.Fatal(err)
	}
	if n != 60 {
		t.Errorf("WarmCommon cached %d postings, want 60 (kestrel and hovers)", n)
	}
	if rd.reads["the"] != 0 {
		t.Error("WarmCommon read the list of a stopword")
	}
	before := rd.reads[analysis.Stem("kestrel")] + rd.reads[analysis.Stem("hovers")]
	for _, w := range []string{"kestrel", "hovers", "osprey"} {
		if _, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms(w), Limit: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if after := rd.reads[analysis.Stem("kestrel")] + rd.reads[analysis.Stem("hovers")]; after != before || before != 2 {
		t.Errorf("lists of kestrel and hovers read %d times by WarmCommon and %d more by searches; want 2 and 0", before, after-before)
	}
	if rd.reads[analysis.Stem("osprey")] != 1 {
		t.Errorf("osprey's list read %d times, want once, by its search", rd.reads[analysis.Stem("osprey")])
	}
}

// stallingReader stalls the first read of one term's list until its reader gives up: a
// common word's list that takes long to read.
type stallingReader struct {
	Reader
	stall   string
	once    sync.Once
	stalled chan struct{} // closed as that read begins
}

func (r *stallingReader) TermOwners(ctx context.Context, kind, from, to string) (map[string][]int64, error) {
	if from == r.stall {
		first := false
		r.once.Do(func() { first = true; close(r.stalled) })
		if first {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	}
	return r.Reader.TermOwners(ctx, kind, from, to)
}

// TestASearchDoesNotWaitForWarmCommon: a search typed while WarmCommon reads a long list
// takes the lock at once, cancelling that read, and WarmCommon reads the list again after
// it. The first search typed into a window warming up waited behind one such read (25-130
// ms each) per term it looked up.
func TestASearchDoesNotWaitForWarmCommon(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "m.db"))
	for i := range 5 {
		add(t, st, "", fmt.Sprintf("the kestrel %d hovers", i))
	}
	kingfisher := add(t, st, "", "a kingfisher on the weir")
	rd := &stallingReader{Reader: st, stall: analysis.Stem("kestrel"), stalled: make(chan struct{})}
	x := New(rd)
	warmed := make(chan error, 1)
	go func() {
		_, err := x.WarmCommon(ctx, 1000)
		warmed <- err
	}()
	<-rd.stalled // WarmCommon holds the lock, in a read that would never end by itself

	type answer struct {
		res Result
		err error
	}
	searched := make(chan answer, 1)
	go func() {
		res, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms("kingfisher"), Limit: 5})
		searched <- answer{res, err}
	}()
	var res Result
	select {
	case a := <-searched:
		if a.err != nil {
			t.Fatalf("search while WarmCommon reads: %v", a.err)
		}
		res = a.res
	case <-time.After(time.Minute): // a deadline for a loaded machine, not an expectation
		t.Fatal("the search waited a minute behind WarmCommon's read")
	}
	if got := ids(res.Matches); len(got) != 1 || got[0] != kingfisher {
		t.Errorf("search while WarmCommon reads found %v, want [%d]", got, kingfisher)
	}
	if err := <-warmed; err != nil {
		t.Fatalf("WarmCommon after yielding: %v", err)
	}
	if _, err := x.Search(ctx, Request{Kind: store.KindFact, Terms: terms("kestrel"), Limit: 5}); err != nil {
		t.Fatal(err)
	}
}

// TestKnownNamesSeesANewName: a name the store did not know is remembered as unknown only
// until the next change, so one that another process then writes is known at once.
func TestKnownNamesSeesANewName(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	mine, other := openStore(t, path), openStore(t, path)
	addWithEntities(t, mine, "default", "老王喜欢简约风格", "老王", "风格")
	x := New(mine)
	for range 2 { // the second time from memory
		known, err := x.KnownNames(ctx, []string{"老王", "老李"})
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(known, map[string]bool{"老王": true}) {
			t.Fatalf("known %v; want only 老王", known)
		}
	}
	addWithEntities(t, other, "default", "老李喜欢复古风格", "老李", "风格")
	known, err := x.KnownNames(ctx, []string{"老王", "老李"})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(known, map[string]bool{"老王": true, "老李": true}) {
		t.Errorf("after another process wrote 老李: known %v; want 老王 and 老李", known)
	}
}

// TestFreshLooksOnce: a Fresh view searches the index as of its refresh, so the searches of
// one recall agree; the next view, or a plain Search, sees what was written since.
func TestFreshLooksOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	mine, other := openStore(t, path), openStore(t, path)
	first := add(t, mine, "default", "zebra crossing")
	x := New(mine)
	view, err := x.Fresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second := add(t, other, "default", "zebra sighting")
	search := func(name string, s func(context.Context, Request) (Result, error), want ...int64) {
		t.Helper()
		res, err := s(ctx, Request{Kind: store.KindFact, Terms: terms("zebra"), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, ids(res.Matches), cmpopts.SortSlices(func(a, b int64) bool { return a < b })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	search("the view made before the write", view.Search, first)
	search("Index.Search", x.Search, first, second)
	later, err := x.Fresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	search("a view made after the write", later.Search, first, second)
}
