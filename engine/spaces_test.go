package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpacesMoveAndRename: the space list counts what each holds; a moved memory is found in
// its new space and no longer in its old one; a rename takes memories and documents along;
// the mistakes a person can make are refused with a reason.
func TestSpacesMoveAndRename(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	add := func(text, space string) int64 {
		t.Helper()
		res, err := e.Remember(ctx, RememberRequest{Text: text, Space: space})
		if err != nil {
			t.Fatal(err)
		}
		return res.FactID
	}
	pelican := add("The pelican colony nests on the north pier", "")
	add("Standup is at 09:30 in room Fuji", "work")
	dup := add("Standup is at 09:30 in room Fuji", "")
	doc := filepath.Join(t.TempDir(), "handbook.md")
	if err := os.WriteFile(doc, []byte("# Handbook\n\nThe quarterly okapi review is in March.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{doc}, Space: "work"}); err != nil {
		t.Fatal(err)
	}
	spaces, err := e.Spaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []SpaceView{{"default", 2, 0}, {"work", 1, 1}}
	if diff := cmp.Diff(want, spaces); diff != "" {
		t.Errorf("spaces (-want +got):\n%s", diff)
	}
	found := func(query, space string) []int64 {
		t.Helper()
		res, err := e.Recall(ctx, RecallRequest{Query: query, Space: space})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		return ids
	}

	moved, err := e.MoveMemory(ctx, pelican, "home")
	if err != nil || moved.Space != "home" {
		t.Fatalf("MoveMemory = %+v, %v", moved, err)
	}
	if !slices.Contains(found("pelican colony", "home"), pelican) || len(found("pelican colony", "")) != 0 {
		t.Errorf("after the move: home finds %v, default finds %v; want only home", found("pelican colony", "home"), found("pelican colony", ""))
	}
	if _, err := e.MoveMemory(ctx, dup, "work"); !errors.Is(err, ErrDuplicate) {
		t.Errorf("moving a memory onto its twin: %v, want ErrDuplicate", err)
	}

	renamed, err := e.RenameSpace(ctx, "work", "job")
	if err != nil || renamed != (SpaceView{"job", 1, 1}) {
		t.Fatalf("RenameSpace = %+v, %v", renamed, err)
	}
	if len(found("okapi review", "job")) == 0 || len(found("okapi review", "work")) != 0 || len(found("standup Fuji", "job")) == 0 {
		t.Errorf("after the rename: job finds %v and %v, work finds %v", found("okapi review", "job"), found("standup Fuji", "job"), found("okapi review", "work"))
	}
	// A memory's twin is told by its content in its space, wherever the memory came from.
	for _, tc := range []struct{ text, space, want string }{
		{"Standup is at 09:30 in room Fuji", "job", StatusDuplicate}, // renamed with its space
		{"Standup is at 09:30 in room Fuji", "work", StatusAdded},    // the old name is empty
		{"The pelican colony nests on the north pier", "home", StatusDuplicate},
		{"The pelican colony nests on the north pier", "", StatusAdded},
	} {
		res, err := e.Remember(ctx, RememberRequest{Text: tc.text, Space: tc.space})
		if err != nil || res.Status != tc.want {
			t.Errorf("Remember(%q in %q) = %s, %v; want %s", tc.text, tc.space, res.Status, err, tc.want)
		}
	}
	kb, err := e.KBList(ctx, "job")
	if err != nil || len(kb.Documents) != 1 {
		t.Errorf("documents of job: %+v, %v", kb.Documents, err)
	}
	for _, tc := range []struct {
		from, to string
		want     error
	}{
		{"job", "default", ErrBadRequest}, // in use
		{"nowhere", "elsewhere", ErrNotFound},
		{"job", "job", ErrBadRequest},
		{"job", "   ", ErrBadRequest}, // "" is the default space, in use
	} {
		if _, err := e.RenameSpace(ctx, tc.from, tc.to); !errors.Is(err, tc.want) {
			t.Errorf("RenameSpace(%q, %q) = %v, want %v", tc.from, tc.to, err, tc.want)
		}
	}
}

// TestMoveMemoryMovesItsVector: the semantic leg's index of each space follows a move: the
// memory is found by meaning in its new space and no longer in the old one.
func TestMoveMemoryMovesItsVector(t *testing.T) {
	ctx := context.Background()
	emb := newFakeEmbedder("fake/a@1/4", semanticVectors())
	e := openSemanticEngine(t, emb, emb.state)
	res, err := e.Remember(ctx, RememberRequest{Text: manager})
	if err != nil {
		t.Fatal(err)
	}
	mustEmbedPending(t, e)
	byMeaning := func(space string) int {
		t.Helper()
		r, err := e.Recall(ctx, RecallRequest{Query: question, Space: space, MeaningOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Hits)
	}
	if byMeaning("") != 1 { // loads the default space's index before the move
		t.Fatal("the memory is not found by meaning before the move")
	}
	if _, err := e.MoveMemory(ctx, res.FactID, "home"); err != nil {
		t.Fatal(err)
	}
	if got := [2]int{byMeaning(""), byMeaning("home")}; got != [2]int{0, 1} {
		t.Errorf("hits by meaning in default and home after the move = %v, want [0 1]", got)
	}
}
