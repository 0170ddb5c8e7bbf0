package ui

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/memdesk/memdesk/engine"
)

// writeSections writes a Markdown file of n sections (one chunk each); section at holds
// word, the others only filler.
func writeSections(t testing.TB, dir, name string, n, at int, word string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Handbook\n\n")
	for i := range n {
		fmt.Fprintf(&b, "## Part %d\n\nThis part %d covers the routine upkeep of the garden shed and its tools.", i, i)
		if i == at {
			fmt.Fprintf(&b, " The %s lands on the north lawn.", word)
		}
		b.WriteString("\n\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// importAndFind imports path and recalls query, returning its first document hit.
func (h *harness) importAndFind(path, query string) engine.Hit {
	h.t.Helper()
	if _, err := h.eng.KBAdd(context.Background(), engine.KBAddRequest{Paths: []string{path}}); err != nil {
		h.t.Fatalf("import %s: %v", path, err)
	}
	res, err := h.eng.Recall(context.Background(), engine.RecallRequest{Query: query})
	if err != nil {
		h.t.Fatalf("recall %q: %v", query, err)
	}
	for _, hit := range res.Hits {
		if hit.Doc != nil {
			return hit
		}
	}
	h.t.Fatalf("recall %q found no document hit: %+v", query, res.Hits)
	return engine.Hit{}
}

// markedWords are the words shown in the matched style under root.
func markedWords(root fyne.CanvasObject) []string {
	var out []string
	walk(root, func(o fyne.CanvasObject) {
		rt, ok := o.(*widget.RichText)
		if !ok {
			return
		}
		for _, seg := range rt.Segments {
			// Labels and buttons render as rich text too; the hit's bold caption is skipped.
			if ts, ok := seg.(*widget.TextSegment); ok && ts.Style == matchedStyle() && !strings.HasPrefix(ts.Text, "▶") {
				out = append(out, ts.Text)
			}
		}
	})
	return out
}

func TestOpenDocumentHitAtItsChunk(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	dir := t.TempDir()
	path := writeSections(t, dir, "handbook.md", 60, 40, "zeppelin")
	hit := h.importAndFind(path, "zeppelin")

	var opened []string
	h.u.docs.openURL = func(u *url.URL) error { opened = append(opened, u.String()); return nil }
	r := h.u.recall
	test.Type(r.query, "zeppelin")
	h.waitFor("the document hit", func() bool { return len(r.shown.Hits) > 0 && r.shown.Hits[0].Doc != nil })
	h.pressKey(fyne.KeyDown)
	h.pressKey(fyne.KeyEnter)
	h.waitFor("the document view", func() bool { return h.overlay() != nil && h.u.docs.isOpen() })

	v := h.u.docs
	shown := texts(h.overlay())
	if !strings.Contains(shown, "▶ match · #") || !strings.Contains(shown, "Part 40") {
		t.Errorf("view does not mark the hit's chunk (Part 40):\n%s", shown)
	}
	if strings.Contains(shown, "Part 0\n") || strings.Contains(shown, "#0 ·") {
		t.Errorf("view loaded the document from its start, not around the hit:\n%s", shown)
	}
	if got := markedWords(h.overlay()); len(got) != 1 || !strings.EqualFold(got[0], "zeppelin") {
		t.Errorf("marked words = %q, want zeppelin", got)
	}
	if v.page.Hit < 0 || v.page.Chunks[v.page.Hit].ID != hit.ID {
		t.Errorf("page hit = %d of %+v, want chunk %d", v.page.Hit, v.page.Chunks, hit.ID)
	}
	if v.scroll.Offset.Y <= 0 {
		t.Errorf("view scrolled to %v, want the hit's chunk (below the earlier ones) at the top", v.scroll.Offset.Y)
	}

	test.Tap(button(h.overlay(), "Open in its app"))
	test.Tap(button(h.overlay(), "Show in folder"))
	wantURLs := []string{(&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String(),
		(&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()}
	if strings.Join(opened, " ") != strings.Join(wantURLs, " ") {
		t.Errorf("opened %q, want %q", opened, wantURLs)
	}
	test.Tap(button(h.overlay(), "Copy passage"))
	if got := h.u.fa.Clipboard().Content(); !strings.Contains(got, "zeppelin lands") {
		t.Errorf("clipboard after Copy passage = %q, want the hit's chunk", got)
	}
	test.Tap(button(h.overlay(), "Copy path"))
	if got := h.u.fa.Clipboard().Content(); got != path {
		t.Errorf("clipboard after Copy path = %q, want %q", got, path)
	}

	// Earlier chunks load above without losing the hit.
	before := len(v.page.Chunks)
	test.Tap(button(h.overlay(), "Show earlier"))
	h.waitFor("earlier chunks", func() bool { return len(v.page.Chunks) > before })
	if v.page.Chunks[v.page.Hit].ID != hit.ID {
		t.Errorf("after Show earlier the hit is chunk %d, want %d", v.page.Chunks[v.page.Hit].ID, hit.ID)
	}

	if f := h.u.win.Canvas().Focused(); f != nil {
		t.Errorf("a button of the view kept the keyboard (%T): Esc would not reach the window", f)
	}
	h.pressKey(fyne.KeyEscape)
	if h.overlay() != nil || v.isOpen() {
		t.Error("Esc left the document view open")
	}
}

// BenchmarkOpenHit50k opens a hit deep in a document over a store of 50k chunks, from the
// Enter on the hit to the view shown and scrolled: the target is well under 300 ms.
func BenchmarkOpenHit50k(b *testing.B) {
	const files, perFile = 10, 5000
	h := newHarness(b, Options{}, nil).start()
	h.poll = 100 * time.Microsecond
	dir := b.TempDir()
	var path string
	for i := range files {
		path = writeSections(b, dir, fmt.Sprintf("book%02d.md", i), perFile, perFile*3/4, fmt.Sprintf("zeppelin%d", i))
	}
	start := time.Now()
	hit := h.importAndFind(dir, fmt.Sprintf("zeppelin%d", files-1))
	st, err := h.eng.Stats(context.Background())
	if err != nil || st.Chunks < files*perFile {
		b.Fatalf("store holds %d chunks (%v), want %d", st.Chunks, err, files*perFile)
	}
	b.Logf("imported %d chunks in %v; hit in %s", st.Chunks, time.Since(start), filepath.Base(path))
	v := h.u.docs
	b.ReportAllocs()
	for b.Loop() {
		h.u.openHit(hit)
		h.waitFor("the view", func() bool { return v.isOpen() && v.page.Hit >= 0 })
		v.close()
	}
}

// TestDocViewFollowsVaultLink opens a hit in a note of the Obsidian vault fixture, follows
// its [[Memdesk#Roadmap|路线图]] link to the linked note at that heading, and comes back.
func TestDocViewFollowsVaultLink(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	vault, err := filepath.Abs(filepath.Join("..", "engine", "testdata", "vault"))
	if err != nil {
		t.Fatal(err)
	}
	h.importAndFind(vault, "深度工作")
	r := h.u.recall
	test.Type(r.query, "深度工作")
	h.waitFor("the note's hit", func() bool { return len(r.shown.Hits) > 0 && r.shown.Hits[0].Doc != nil })
	h.pressKey(fyne.KeyDown)
	h.pressKey(fyne.KeyEnter)
	v := h.u.docs
	h.waitFor("the note with its link buttons", func() bool {
		return h.overlay() != nil && v.isOpen() && shown(button(h.overlay(), "路线图"))
	})
	if !strings.HasSuffix(v.page.Document.Path, "读书笔记.md") {
		t.Fatalf("opened %s, want 读书笔记.md", v.page.Document.Path)
	}
	if b := button(h.overlay(), "不存在的笔记 (not imported)"); !shown(b) || !b.Disabled() {
		t.Errorf("the link to a missing note: %v, want a disabled button saying it is not imported", b)
	}
	if b := button(h.overlay(), "不是链接"); b != nil {
		t.Error("a [[link]] inside a code block became a button")
	}

	test.Tap(button(h.overlay(), "路线图"))
	h.waitFor("the linked note at its Roadmap heading", func() bool {
		s := texts(h.overlay())
		return v.isOpen() && strings.Contains(s, "▶ linked · ") && strings.Contains(s, "Memdesk > Roadmap") &&
			strings.Contains(s, "路线图的第一项是导入 Obsidian 笔记库")
	})
	if !strings.HasSuffix(v.page.Document.Path, filepath.Join("Projects", "Memdesk.md")) {
		t.Errorf("the link opened %s, want Projects/Memdesk.md", v.page.Document.Path)
	}
	if hit := v.page.Chunks[v.page.Hit]; hit.Heading != "Memdesk > Roadmap" || hit.LineStart != 16 {
		t.Errorf("opened at chunk %+v, want the one at the Roadmap heading, line 16", hit)
	}
	if f := h.u.win.Canvas().Focused(); f != nil {
		t.Errorf("the link button kept the keyboard (%T): Esc would not reach the window", f)
	}

	test.Tap(button(h.overlay(), "Back"))
	h.waitFor("the linking note again", func() bool {
		return v.isOpen() && strings.HasSuffix(v.page.Document.Path, "读书笔记.md") && shown(button(h.overlay(), "路线图"))
	})
	if b := button(h.overlay(), "Back"); b != nil {
		t.Error("Back is still shown at the first note")
	}
}

// TestOpenConversationOpensItsExport: a chat conversation's path names it inside its export
// file; the view's buttons open the export and the folder it is in.
func TestOpenConversationOpensItsExport(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	data, err := os.ReadFile(filepath.Join("..", "engine", "ingest", "testdata", "chatgpt", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "conversations.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	hit := h.importAndFind(path, "nail polish remover")
	if filepath.Dir(hit.Doc.Path) != path {
		t.Fatalf("hit in %q, want a conversation under %q", hit.Doc.Path, path)
	}

	var opened []string
	h.u.docs.openURL = func(u *url.URL) error { opened = append(opened, u.String()); return nil }
	r := h.u.recall
	test.Type(r.query, "nail polish remover")
	h.waitFor("the conversation hit", func() bool { return len(r.shown.Hits) > 0 && r.shown.Hits[0].Doc != nil })
	h.pressKey(fyne.KeyDown)
	h.pressKey(fyne.KeyEnter)
	h.waitFor("the document view", func() bool { return h.overlay() != nil && h.u.docs.isOpen() })
	test.Tap(button(h.overlay(), "Open in its app"))
	test.Tap(button(h.overlay(), "Show in folder"))
	want := []string{(&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String(),
		(&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()}
	if strings.Join(opened, " ") != strings.Join(want, " ") {
		t.Errorf("opened %q, want %q", opened, want)
	}
}
