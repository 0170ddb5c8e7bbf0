package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryWriteIsLogged: each way a memory changes records one change (per memory it
// touches) in the same transaction, with the memory's state after it and the version it
// was made on; with sync off nothing is recorded.
func TestEveryWriteIsLogged(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, _, err := s.AddFact(ctx, "default", NewFact{Content: "written before sync", Hash: "h0"}); err != nil {
		t.Fatal(err)
	}
	if cs, _ := s.SyncChanges(ctx); len(cs) != 0 {
		t.Fatalf("%d changes logged with sync off, want none", len(cs))
	}
	if _, err := s.SyncInit(ctx, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	ops := func() []string {
		t.Helper()
		cs, err := s.SyncChanges(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Op+" "+c.Space+" "+c.Text+" "+c.Status)
		}
		return out
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	a, _, err := s.AddFact(ctx, "default", NewFact{Content: "a", Hash: "ha"})
	must(err)
	_, err = s.EditFact(ctx, a, NewFact{Content: "a2", Hash: "ha2"})
	must(err)
	_, err = s.SetFactStatus(ctx, a, StatusDeleted)
	must(err)
	_, err = s.SetFactStatus(ctx, a, StatusActive)
	must(err)
	must(s.MoveFact(ctx, a, "work"))
	b, _, err := s.AddFact(ctx, "work", NewFact{Content: "b", Hash: "hb", Supersedes: a})
	must(err)
	_, err = s.SetFactStatus(ctx, a, StatusActive)
	must(err)
	must(s.Supersede(ctx, a, b))
	_, err = s.SetFactStatus(ctx, a, StatusActive)
	must(err)
	must(s.DismissPair(ctx, a, b))
	_, _, err = s.RenameSpace(ctx, "work", "job")
	must(err)
	_, _, err = s.AddFacts(ctx, "job", []NewFact{{Content: "c", Hash: "hc"}, {Content: "b", Hash: "hb"}})
	must(err)
	want := []string{
		"add default written before sync active", // logged by SyncInit
		"add default a active", "edit default a2 active", "forget default a2 deleted", "restore default a2 active",
		"move work a2 active", "add work b active", "supersede work a2 superseded", "restore work a2 active",
		"supersede work a2 superseded", "restore work a2 active", "dismiss   ",
		"rename job a2 active", "rename job b active", // one change per memory of the space
		"add job c active", // the duplicate "b" is no change
	}
	if d := cmp.Diff(want, ops()); d != "" {
		t.Errorf("changes logged (-want +got):\n%s", d)
	}
	cs, _ := s.SyncChanges(ctx)
	prev := map[string]string{}
	for _, c := range cs {
		if c.Op == OpDismiss {
			continue
		}
		if c.Base != prev[c.Root] {
			t.Errorf("change %s (%s) was made on %q, want the memory's previous change %q", c.ID, c.Op, c.Base, prev[c.Root])
		}
		prev[c.Root] = c.ID
	}
	if n, _ := s.PendingExport(ctx); n != len(want) {
		t.Errorf("%d changes pending export, want %d", n, len(want))
	}
}
