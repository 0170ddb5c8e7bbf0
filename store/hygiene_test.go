package store

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTriplesAboutAndAll(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	tr := func(list ...Triple) *Triples { return &Triples{Version: 2, List: list} }
	likes := Triple{Subject: "老王", Predicate: "喜欢", Object: "简约风格"}
	lives := Triple{Subject: "老王", Predicate: "住在", Object: "北京"}
	a, _, _ := s.AddFact(ctx, "default", NewFact{Content: "a", Hash: "ha", Triples: tr(likes, lives)})
	b, _, _ := s.AddFact(ctx, "default", NewFact{Content: "b", Hash: "hb", Triples: tr(Triple{Subject: "老王", Predicate: "住在", Object: "上海"})})
	s.AddFact(ctx, "other", NewFact{Content: "c", Hash: "hc", Triples: tr(lives)})
	gone, _, _ := s.AddFact(ctx, "default", NewFact{Content: "d", Hash: "hd", Triples: tr(lives)})
	if _, err := s.SetFactStatus(ctx, gone, StatusDeleted); err != nil {
		t.Fatal(err)
	}
	pending, _, _ := s.AddFact(ctx, "default", NewFact{Content: "e", Hash: "he"})

	got, err := s.TriplesAbout(ctx, "default", []SubjectKey{{"老王", "住在"}}, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []FactTriples{{FactID: a, Space: "default", Triples: []Triple{likes, lives}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TriplesAbout (-want +got):\n%s", diff)
	}

	all, err := s.AllTriples(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, ft := range all {
		ids = append(ids, ft.FactID)
	}
	if diff := cmp.Diff([]int64{a, b}, ids); diff != "" {
		t.Errorf("AllTriples ids (-want +got):\n%s", diff)
	}

	stale, total, err := s.StaleTriples(ctx, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(stale) != 1 || stale[0].ID != pending {
		t.Fatalf("StaleTriples = %v, %d; want only fact %d", stale, total, pending)
	}
	if err := s.SetTriples(ctx, pending, "changed meanwhile", Triples{Version: 2}); !errors.Is(err, ErrChanged) {
		t.Errorf("SetTriples on changed text err = %v, want ErrChanged", err)
	}
	if err := s.SetTriples(ctx, pending, "e", Triples{Version: 2, List: []Triple{lives}}); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := s.StaleTriples(ctx, 2, 10); total != 0 {
		t.Errorf("stale after SetTriples = %d, want 0", total)
	}
}

func TestSupersede(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	old, _, _ := s.AddFact(ctx, "default", NewFact{Content: "CI uses Python 3.11", Hash: "h1"})
	other, _, _ := s.AddFact(ctx, "work", NewFact{Content: "elsewhere", Hash: "h2"})

	t.Run("refused", func(t *testing.T) {
		for name, pair := range map[string][2]int64{
			"itself":           {old, old},
			"other space":      {old, other},
			"missing fact":     {old, 999},
			"missing original": {999, old},
		} {
			if err := s.Supersede(ctx, pair[0], pair[1]); err == nil {
				t.Errorf("%s: Supersede(%d, %d) = nil, want an error", name, pair[0], pair[1])
			}
		}
	})

	repl, dup, err := s.AddFact(ctx, "default", NewFact{Content: "CI uses Python 3.12", Hash: "h3", Supersedes: old})
	if err != nil || dup {
		t.Fatalf("AddFact superseding = %d, %v, %v", repl, dup, err)
	}
	f, _ := s.Fact(ctx, old)
	if f.Status != StatusSuperseded || f.SupersededBy != repl {
		t.Fatalf("old fact = %s by %d, want superseded by %d", f.Status, f.SupersededBy, repl)
	}
	if err := s.Supersede(ctx, old, repl); !errors.Is(err, ErrNotActive) {
		t.Errorf("superseding a superseded fact err = %v, want ErrNotActive", err)
	}
	// Restoring brings it back whole and drops the link.
	if _, err := s.SetFactStatus(ctx, old, StatusActive); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Fact(ctx, old); f.Status != StatusActive || f.SupersededBy != 0 {
		t.Errorf("restored fact = %s by %d, want active with no link", f.Status, f.SupersededBy)
	}
	// A failed supersession writes nothing, not even the new fact.
	if _, _, err := s.AddFact(ctx, "default", NewFact{Content: "new", Hash: "h4", Supersedes: other}); err == nil {
		t.Fatal("AddFact superseding a fact of another space succeeded")
	}
	if facts, _ := s.ListFacts(ctx, FactFilter{Contains: "new", AllStatuses: true}); len(facts) != 0 {
		t.Errorf("a refused supersession left %d facts behind", len(facts))
	}
}

func TestDismissPair(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.DismissPair(ctx, 7, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.DismissPair(ctx, 3, 7); err != nil {
		t.Fatalf("dismissing again: %v", err)
	}
	got, err := s.DismissedPairs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[[2]int64]bool{{3, 7}: true}, got); diff != "" {
		t.Errorf("DismissedPairs (-want +got):\n%s", diff)
	}
}

// TestStatementKeysLeftByAnEditAnswerNothing: keys are never deleted; after an edit changes
// a fact's statements, a lookup under the old (subject, predicate) finds nothing, and under
// the new one finds the fact with its new statements.
func TestStatementKeysLeftByAnEditAnswerNothing(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	old := Triple{Subject: "老王", Predicate: "住在", Object: "北京"}
	id, _, err := s.AddFact(ctx, "default", NewFact{Content: "老王住在北京", Hash: "a", Triples: &Triples{Version: 1, List: []Triple{old}}})
	if err != nil {
		t.Fatal(err)
	}
	now := Triple{Subject: "老李", Predicate: "住在", Object: "上海"}
	if _, err := s.EditFact(ctx, id, NewFact{Content: "老李住在上海", Hash: "b", Triples: &Triples{Version: 1, List: []Triple{now}}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TriplesAbout(ctx, "default", []SubjectKey{{"老王", "住在"}}); err != nil || len(got) != 0 {
		t.Errorf("old key after the edit = %v, %v; want nothing", got, err)
	}
	got, err := s.TriplesAbout(ctx, "default", []SubjectKey{{"老李", "住在"}})
	if err != nil || len(got) != 1 || !cmp.Equal(got[0].Triples, []Triple{now}) {
		t.Errorf("new key after the edit = %+v, %v; want the fact with its new statement", got, err)
	}
}

func TestStatementsRoundTrip(t *testing.T) {
	cases := []struct {
		content string
		list    []Triple
	}{
		{"CI uses Python 3.12 for the build", []Triple{{Subject: "ci", Predicate: "use for build", Object: "python 3.12"}}},
		{"老王不喜欢咖啡，老王住在北京", []Triple{{Subject: "老王", Predicate: "喜欢", Object: "咖啡", Negated: true}, {Subject: "老王", Predicate: "住在", Object: "北京"}}},
		// Strings the text does not hold, empty ones, and a text too short for any piece.
		{"ab", []Triple{{Subject: "ｃｉ", Predicate: "", Object: "zzz"}}},
		{"", []Triple{{Subject: "x", Predicate: "use", Object: "café"}}},
	}
	for _, c := range cases {
		b := encodeStatements(c.list, c.content)
		if got := decodeStatements(b, c.content); !cmp.Equal(got, c.list) {
			t.Errorf("round trip over %q = %+v, want %+v", c.content, got, c.list)
		}
		for cut := range b {
			if got := decodeStatements(b[:cut], c.content); len(got) >= len(c.list) {
				t.Fatalf("a blob cut at %d of %d bytes decoded to %d statements", cut, len(b), len(got))
			}
		}
		// Read against another text (an edit that did not rewrite them), the pieces come
		// out as other strings or not at all, never out of bounds.
		_ = decodeStatements(b, "x")
	}
	content := "Alice uses GitHub Actions for the mobile app in Tokyo (ticket OPS-5)"
	list := []Triple{{Subject: "alice", Predicate: "use for mobile app in tokyo (ticket ops-5", Object: "github actions"}}
	whole := len(encodeStatementsV9(list))
	if got := len(encodeStatements(list, content)); got*3 > whole {
		t.Errorf("statements cut from their text take %d bytes as pieces, %d whole; want a third or less", got, whole)
	}
}

func FuzzStatements(f *testing.F) {
	f.Add("CI uses Python 3.12", "ci", "use", "python 3.12", []byte{5, 1, 2})
	f.Add("老王不喜欢咖啡", "老王", "喜欢", "咖啡", []byte{})
	f.Fuzz(func(t *testing.T, content, subject, predicate, object string, junk []byte) {
		list := []Triple{{Subject: subject, Predicate: predicate, Object: object, Negated: len(junk)%2 == 1}}
		if got := decodeStatements(encodeStatements(list, content), content); !cmp.Equal(got, list) {
			t.Fatalf("round trip = %+v, want %+v", got, list)
		}
		_ = decodeStatements(junk, content) // must not panic
	})
}
