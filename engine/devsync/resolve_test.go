package devsync

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/memdesk/memdesk/store"
)

// ch is a change of memory root on device dev with clock wall, made on base.
func ch(dev string, seq, wall int64, base, text, status string) store.SyncChange {
	return store.SyncChange{ID: dev + ":" + itoa(seq), Device: dev, Seq: seq, Wall: wall, Op: store.OpEdit, Root: root,
		Base: base, Space: "default", Text: text, Status: status}
}

func itoa(n int64) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestResolve(t *testing.T) {
	add := ch("a", 1, 100, "", "v0", store.StatusActive)
	type want struct {
		states    map[string]string // uid -> text/status
		conflicts []string          // kind of each
	}
	states := func(r store.Resolution) map[string]string {
		out := map[string]string{}
		for _, s := range r.States {
			out[s.UID] = s.Text + "/" + s.Status
		}
		return out
	}
	kinds := func(r store.Resolution) []string {
		var out []string
		for _, c := range r.Conflicts {
			out = append(out, c.Kind)
		}
		return out
	}
	tests := []struct {
		name    string
		changes []store.SyncChange
		want    want
	}{
		{"one add", []store.SyncChange{add}, want{map[string]string{root: "v0/active"}, nil}},
		{"edits one after the other", []store.SyncChange{add, ch("b", 1, 50, "a:1", "v1", "active"), ch("a", 2, 60, "b:1", "v2", "active")},
			// b's clock is behind, but its edit was made on a:1 and a's on b:1: the chain decides.
			want{map[string]string{root: "v2/active"}, nil}},
		{"concurrent edits keep both, the newer current", []store.SyncChange{add, ch("a", 2, 200, "a:1", "from a", "active"), ch("b", 1, 300, "a:1", "from b", "active")},
			want{map[string]string{root: "from b/active", root + "~a:2": "from a/active"}, []string{"edit"}}},
		{"a newer forget does not delete a concurrent edit", []store.SyncChange{add, ch("a", 2, 300, "a:1", "v0", "deleted"), ch("b", 1, 200, "a:1", "edited", "active")},
			want{map[string]string{root: "v0/deleted", root + "~b:1": "edited/active"}, []string{"forget-edit"}}},
		{"a newer edit wins over a concurrent forget", []store.SyncChange{add, ch("a", 2, 200, "a:1", "v0", "deleted"), ch("b", 1, 300, "a:1", "edited", "active")},
			want{map[string]string{root: "edited/active", root + "~a:2": "v0/deleted"}, []string{"forget-edit"}}},
		{"the same forget on both devices is one", []store.SyncChange{add, ch("a", 2, 200, "a:1", "v0", "deleted"), ch("b", 1, 300, "a:1", "v0", "deleted")},
			want{map[string]string{root: "v0/deleted"}, nil}},
		{"an edit of a fork stays in the fork", []store.SyncChange{add, ch("a", 2, 200, "a:1", "from a", "active"), ch("b", 1, 300, "a:1", "from b", "active"),
			ch("a", 3, 400, "a:2", "from a, again", "active")},
			want{map[string]string{root: "from b/active", root + "~a:2": "from a, again/active"}, []string{"edit"}}},
		{"a change whose base has not arrived hangs from the root", []store.SyncChange{add, ch("c", 1, 500, "x:9", "from c", "active")},
			want{map[string]string{root: "from c/active", root + "~a:1": "v0/active"}, []string{"edit"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Resolve(root, tc.changes)
			if d := cmp.Diff(tc.want.states, states(got)); d != "" {
				t.Errorf("states (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want.conflicts, kinds(got)); d != "" {
				t.Errorf("conflicts (-want +got):\n%s", d)
			}
			// The order changes arrive in does not matter.
			rnd := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				shuffled := append([]store.SyncChange(nil), tc.changes...)
				rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				if d := cmp.Diff(got, Resolve(root, shuffled)); d != "" {
					t.Fatalf("another arrival order resolves otherwise (-first +shuffled):\n%s", d)
				}
			}
		})
	}
}
