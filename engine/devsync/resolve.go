package devsync

import (
	"fmt"
	"sort"

	"github.com/memdesk/memdesk/store"
)

// Resolve says what the whole set of one memory's changes means: the state of each
// identity it has, and the conflicts found. It depends on the set alone, never on the order
// the changes arrived in, so two devices holding the same changes hold the same memories.
//
// The changes form a tree: each is made on its base, the version its device showed. Where
// two changes share a base they were made concurrently. The newest (by hybrid clock) carries
// the memory's identity on; each other one starts a memory of its own, identity
// root~changeID, so nothing written is lost: concurrent edits keep both texts (the newer
// current), and a forget concurrent with an edit keeps the edit as a memory. Each forked
// pair is a conflict, shown with the contradictions.
func Resolve(root string, changes []store.SyncChange) store.Resolution {
	byID := make(map[string]store.SyncChange, len(changes))
	for _, c := range changes {
		byID[c.ID] = c
	}
	children := map[string][]store.SyncChange{}
	for _, c := range changes {
		parent := c.Base
		if _, ok := byID[parent]; !ok {
			// An add, or a change whose base has not arrived (made on a third device's
			// change): both hang from the root until the base comes.
			parent = ""
		}
		children[parent] = append(children[parent], c)
	}
	for _, kids := range children {
		sort.Slice(kids, func(i, j int) bool { return kids[j].Before(kids[i]) })
	}
	var res store.Resolution
	type step struct {
		node     string // "" for the root
		identity string
	}
	stack := []step{{"", root}}
	visited := map[string]bool{}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited[s.node] {
			continue
		}
		visited[s.node] = true
		kids := children[s.node]
		if len(kids) == 0 {
			if s.node != "" {
				res.States = append(res.States, stateOf(s.identity, byID[s.node]))
			}
			continue
		}
		kept := kids[0]
		stack = append(stack, step{kept.ID, s.identity})
		for _, k := range kids[1:] {
			if len(children[k.ID]) == 0 && sameState(k, kept) {
				continue // the same change made twice: nothing to keep apart
			}
			fork := root + "~" + k.ID
			stack = append(stack, step{k.ID, fork})
			res.Conflicts = append(res.Conflicts, conflictOf(s.identity, fork, kept, k))
		}
	}
	sort.Slice(res.States, func(i, j int) bool { return res.States[i].UID < res.States[j].UID })
	return res
}

func stateOf(uid string, c store.SyncChange) store.FactState {
	return store.FactState{UID: uid, Space: c.Space, Text: c.Text, Status: c.Status, By: c.By, Version: c.ID,
		Created: c.Created, Updated: c.Wall}
}

func sameState(a, b store.SyncChange) bool {
	return a.Space == b.Space && a.Text == b.Text && a.Status == b.Status && a.By == b.By
}

// conflictOf words the conflict of two concurrent changes: kept carried the identity on,
// forked started its own.
func conflictOf(uid, fork string, kept, forked store.SyncChange) store.SyncConflict {
	active := func(c store.SyncChange) bool { return c.Status == store.StatusActive }
	switch {
	case active(kept) && !active(forked):
		return store.SyncConflict{UID: uid, Other: fork, Kind: "forget-edit", Detail: fmt.Sprintf(
			"device %s changed this memory while device %s %s it; the change is kept: forget it again if that was meant",
			kept.Device, forked.Device, verb(forked))}
	case !active(kept) && active(forked):
		return store.SyncConflict{UID: uid, Other: fork, Kind: "forget-edit", Detail: fmt.Sprintf(
			"device %s %s this memory while device %s changed it; the changed text is kept as its own memory",
			kept.Device, verb(kept), forked.Device)}
	default:
		return store.SyncConflict{UID: uid, Other: fork, Kind: "edit", Detail: fmt.Sprintf(
			"changed on devices %s and %s at once; the newer is current and the other is kept as its own memory",
			kept.Device, forked.Device)}
	}
}

func verb(c store.SyncChange) string {
	if c.Status == store.StatusSuperseded {
		return "superseded"
	}
	return "forgot"
}
