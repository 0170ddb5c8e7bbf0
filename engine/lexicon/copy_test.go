package lexicon

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/store"
)

// ownerState is what a kind's tables say, in terms that do not depend on how the index came
// to hold them (a load numbers spaces in the order it meets them and sizes its arrays to the
// last live id; a copy with changes applied may keep a space with no owner left, or dead ids
// past the last live one).
type ownerState struct {
	Owners   map[int64]string // id: space, length, creation, text length, entities
	Spaces   map[string][2]int
	All      [2]int
	Entities map[uint32][]uint32
}

func stateOf(k *kindIndex) ownerState {
	s := ownerState{Owners: map[int64]string{}, Spaces: map[string][2]int{}, All: [2]int{k.all.n, k.all.words},
		Entities: map[uint32][]uint32{}}
	for id, sp := range k.space {
		if sp != dead {
			s.Owners[int64(id)] = fmt.Sprint(k.spaceNames[sp], k.words[id], k.created[id], k.textLen[id], k.ents[id])
		}
	}
	for i, a := range k.stats {
		if a.n != 0 || a.words != 0 {
			s.Spaces[k.spaceNames[i]] = [2]int{a.n, a.words}
		}
	}
	for e, list := range k.entities {
		if len(list) > 0 {
			s.Entities[e] = slices.Clone(list)
		}
	}
	return s
}

func indexState(t *testing.T, x *Index) map[string]ownerState {
	t.Helper()
	if err := x.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	out := map[string]ownerState{}
	for kind, k := range x.kinds {
		out[kind] = stateOf(k)
	}
	return out
}

// fillStore writes facts in two spaces, some with entities, one forgotten, and a document
// of three chunks.
func fillStore(t testing.TB, st *store.Store) (facts []int64) {
	t.Helper()
	ctx := context.Background()
	facts = append(facts,
		addWithEntities(t, st, "default", "老王喜欢简约风格", "老王", "风格"),
		addWithEntities(t, st, "work", "CI uses Python 3.12 on the build box", "Python"),
		add(t, st, "default", "the team deploys on friday"),
		add(t, st, "home", "redis at home listens on port 6380"),
		add(t, st, "default", "a fact to forget"))
	if _, err := st.SetFactStatus(ctx, facts[4], "deleted"); err != nil {
		t.Fatal(err)
	}
	_, _, err := st.PutDocument(ctx, store.DocumentInput{Space: "default", Path: "/notes/a.md", Title: "a", Format: "markdown",
		Hash: "h1", Bytes: 60, Chunks: []store.Chunk{{Ordinal: 0, Text: "first chunk about redis"},
			{Ordinal: 1, Text: "second chunk about postgres"}, {Ordinal: 2, Text: "third chunk, 老王的笔记"}}})
	if err != nil {
		t.Fatal(err)
	}
	return facts
}

// TestCopyStartsWhereALoadWould: an index that starts from the saved copy holds what a whole
// load holds, before and after other writes, and searches the same.
func TestCopyStartsWhereALoadWould(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	st := openStore(t, path)
	facts := fillStore(t, st)

	first := NewWithCopy(st, st)
	want := indexState(t, first)
	if first.CopyWanted() {
		t.Fatal("a store of a few owners wants a copy: below copyMinOwners a load is cheap")
	}
	first.mu.Lock()
	first.copyWanted = true // as a whole load of a large store does
	first.mu.Unlock()
	if err := first.SaveCopy(ctx); err != nil {
		t.Fatal(err)
	}
	if body, err := st.LexiconCopy(ctx); err != nil || body == nil {
		t.Fatalf("no copy saved: %v", err)
	}

	fromCopy := NewWithCopy(st, st)
	if diff := cmp.Diff(want, indexState(t, fromCopy)); diff != "" {
		t.Fatalf("started from the copy (-loaded +copy):\n%s", diff)
	}
	if fromCopy.sinceCopy != 0 || !fromCopy.copyTried {
		t.Fatalf("the index did not start from the copy: tried %v, %d changes applied", fromCopy.copyTried, fromCopy.sinceCopy)
	}

	// Other writes after the copy: a new process applies them on top of it.
	if _, err := st.EditFact(ctx, facts[2], store.NewFact{Content: "the team deploys every friday at noon", Hash: "edited"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetFactStatus(ctx, facts[3], "deleted"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetFactStatus(ctx, facts[4], "active"); err != nil {
		t.Fatal(err)
	}
	addWithEntities(t, st, "travel", "老王 flies to 上海 next week", "老王", "上海")
	later := NewWithCopy(st, st)
	loaded := New(st)
	if diff := cmp.Diff(indexState(t, loaded), indexState(t, later)); diff != "" {
		t.Fatalf("copy and changes (-loaded +copy):\n%s", diff)
	}
	if later.sinceCopy == 0 {
		t.Fatal("the later index applied no change: it did not start from the copy")
	}
	for _, q := range [][]string{{"redis"}, {"friday", "team"}, {"老王"}, {"chunk"}} {
		for _, kind := range []string{store.KindFact, store.KindChunk} {
			req := Request{Kind: kind, Terms: terms(q...), Limit: 10}
			a, err := loaded.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := later.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("search %v in %s (-loaded +copy):\n%s", q, kind, diff)
			}
		}
	}
}

// TestCopyThatCannotBeUsedIsLoadedAround: a damaged copy and one from another version of the
// analysis do not decode; one older than the change log reaches decodes but is not used.
// Each time the index loads whole and holds what a load holds.
func TestCopyThatCannotBeUsedIsLoadedAround(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, st *store.Store, x *Index, body []byte) []byte
		usable bool // the copy itself decodes
	}{
		{"a flipped byte", func(t *testing.T, st *store.Store, x *Index, body []byte) []byte {
			body[len(body)/2] ^= 0x40
			return body
		}, false},
		{"cut short", func(t *testing.T, st *store.Store, x *Index, body []byte) []byte {
			return body[:len(body)-9]
		}, false},
		{"another analysis version", func(t *testing.T, st *store.Store, x *Index, body []byte) []byte {
			x.mu.Lock()
			defer x.mu.Unlock()
			return x.encodeCopyAs(store.SchemaVersion(), analysis.Version+1)
		}, false},
		{"older than the log reaches", func(t *testing.T, st *store.Store, x *Index, body []byte) []byte {
			for i := range 12 {
				add(t, st, "default", fmt.Sprintf("written after the copy, number %d", i))
			}
			if err := st.PruneChanges(ctx); err != nil { // keeps 5 (ChangesKept below)
				t.Fatal(err)
			}
			return body
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := storeOptions()
			opts.ChangesKept = 5
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			fillStore(t, st)
			x := NewWithCopy(st, st)
			indexState(t, x)
			body := x.encodeCopy()
			body = c.damage(t, st, x, body)
			if err := st.SetLexiconCopy(ctx, body); err != nil {
				t.Fatal(err)
			}
			if _, _, err := decodeCopy(body); (err == nil) != c.usable {
				t.Fatalf("decoding the copy: %v; want it usable: %v", err, c.usable)
			}
			got := indexState(t, NewWithCopy(st, st))
			if diff := cmp.Diff(indexState(t, New(st)), got); diff != "" {
				t.Fatalf("(-loaded +from the copy):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeCopy: no copy, however damaged, panics the decoder or makes it allocate past its
// size, and what it decodes encodes to a copy that decodes to the same tables. The fuzzer's
// input gets a right checksum, so that it reaches the body.
func FuzzDecodeCopy(f *testing.F) {
	st := openStore(f, filepath.Join(f.TempDir(), "m.db"))
	fillStore(f, st)
	x := New(st)
	if err := x.Warm(context.Background()); err != nil {
		f.Fatal(err)
	}
	good := x.encodeCopy()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(append([]byte(nil), copyMagic...))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) >= 4 {
			binary.LittleEndian.PutUint32(body[len(body)-4:], crc32.Checksum(body[:len(body)-4], castagnoli))
		}
		kinds, seq, err := decodeCopy(body)
		if err != nil {
			if !errors.Is(err, errCopyUnusable) {
				t.Fatalf("an error that is not errCopyUnusable: %v", err)
			}
			return
		}
		again, seq2, err := decodeCopy((&Index{kinds: kinds, seq: seq}).encodeCopy())
		if err != nil || seq2 != seq {
			t.Fatalf("encoded again, the copy does not decode: %v (seq %d, was %d)", err, seq2, seq)
		}
		for kind, k := range kinds {
			if diff := cmp.Diff(stateOf(k), stateOf(again[kind])); diff != "" {
				t.Fatalf("%s, decoded and encoded again (-first +again):\n%s", kind, diff)
			}
		}
	})
}
