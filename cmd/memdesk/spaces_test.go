package main

import (
	"testing"
)

// TestSpacesCommands: memdesk spaces lists what each space holds; move and spaces rename
// change it; a rename onto a space in use fails and changes nothing.
func TestSpacesCommands(t *testing.T) {
	r := newMemdeskRun(t, memdeskBinary(t))
	var added struct {
		FactID int64 `json:"fact_id"`
	}
	r.mustJSON(t, &added, "remember", "The pelican colony nests on the north pier")
	r.mustJSON(t, &struct{}{}, "remember", "--space", "work", "Standup is at 09:30")
	var moved struct {
		Space string `json:"space"`
	}
	r.mustJSON(t, &moved, "move", itoa(added.FactID), "home")
	r.mustJSON(t, &struct{}{}, "spaces", "rename", "work", "job")
	cmd, _, _ := r.command("spaces", "rename", "job", "home")
	if err := cmd.Run(); err == nil {
		t.Error("renaming onto a space in use succeeded")
	}
	var list struct {
		Spaces []struct {
			Name     string `json:"name"`
			Memories int    `json:"memories"`
		} `json:"spaces"`
	}
	r.mustJSON(t, &list, "spaces")
	got := map[string]int{}
	for _, s := range list.Spaces {
		got[s.Name] = s.Memories
	}
	if moved.Space != "home" || len(got) != 2 || got["home"] != 1 || got["job"] != 1 {
		t.Errorf("moved into %q; spaces %v, want home and job with one memory each", moved.Space, got)
	}
}
