package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestSpacesPickedAndMoved: the space selectors offer the store's spaces; the edit dialog
// moves a memory to a space picked or typed there, with Undo.
func TestSpacesPickedAndMoved(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	id := h.remember("The pelican colony nests on the north pier", "")
	h.remember("Standup is at 09:30 in room Fuji", "work")
	h.start()
	h.waitFor("the spaces in the recall selector", func() bool {
		return slices.Equal(h.u.recall.spaceNames, []string{"default", "work"})
	})
	m := h.u.memories
	m.showEdit(h.fact(id))
	h.waitFor("the edit dialog", func() bool { return h.overlay() != nil && m.editSpace != nil })
	if !slices.Contains(m.spaces, "work") {
		t.Errorf("the edit dialog offers spaces %q, want work among them", m.spaces)
	}
	m.editSpace.SetText("home")
	test.Tap(button(h.overlay(), "Save"))
	h.waitFor("the move report", func() bool { return strings.HasPrefix(m.banner.text.Text, "Moved #") })
	if got := h.fact(id).Space; got != "home" {
		t.Fatalf("memory's space after the move = %q, want home", got)
	}
	h.waitFor("home in the selector, and Undo shown", func() bool {
		return slices.Contains(h.u.recall.spaceNames, "home") && shown(button(m.banner.content, "Undo"))
	})
	test.Tap(button(m.banner.content, "Undo"))
	h.waitFor("the move back", func() bool { return h.fact(id).Space == "default" })
}
