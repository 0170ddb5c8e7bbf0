package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/store"
)

// copyVault copies the Obsidian vault fixture into a temporary folder, so a test can change
// it, and returns the folder's resolved path (as imports store paths).
func copyVault(t *testing.T) string {
	t.Helper()
	dir := mustReal(t, t.TempDir())
	src := filepath.Join("testdata", "vault")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dir, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// vaultLinks shows the links of the note at rel in vault as "text -> where", where is the
// linked note's path in the vault and line, or "nothing".
func vaultLinks(t *testing.T, e *Engine, vault, rel string) []string {
	t.Helper()
	id, _, err := e.st.DocumentHash(context.Background(), "default", filepath.Join(vault, rel))
	if err != nil || id == 0 {
		t.Fatalf("no document at %s (%v)", rel, err)
	}
	links, err := e.KBLinks(context.Background(), id)
	if err != nil {
		t.Fatalf("KBLinks(%s): %v", rel, err)
	}
	var out []string
	for _, l := range links {
		where := "nothing"
		if l.To != nil {
			to, _ := filepath.Rel(vault, l.To.Path)
			where = fmt.Sprintf("%s:%d", filepath.ToSlash(to), l.To.Line)
		}
		mark := ""
		if l.Embed {
			mark = "!"
		}
		out = append(out, fmt.Sprintf("%s%s -> %s", mark, l.Text, where))
	}
	return out
}

// The links of the vault fixture, and where each leads with every note imported.
var (
	readingLinks = []string{
		"路线图 -> Projects/Memdesk.md:16",
		"Memdesk#^design-goal -> Projects/Memdesk.md:14",
		"!Memdesk#Design -> Projects/Memdesk.md:12",
		"记忆桌面 -> Projects/Memdesk.md:0",
		"不存在的笔记 -> nothing",
	}
	dailyLinks = []string{
		"Projects/Memdesk -> Projects/Memdesk.md:0",
		"roadmap -> Projects/Memdesk.md:16",
		"!diagram.png -> nothing",
		"Meeting 2024-05-08 -> nothing",
	}
	archiveLinks = []string{"Memdesk -> Archive/2023/Memdesk.md:0"}
)

func TestVaultLinksWhateverTheImportOrder(t *testing.T) {
	notes := []string{"读书笔记.md", "Daily/2024-05-01.md", "Archive/2023/notes.md", "Archive/2023/Memdesk.md", "Projects/Memdesk.md"}
	for _, order := range []string{"whole folder", "linking notes first", "linked notes first"} {
		t.Run(order, func(t *testing.T) {
			ctx := context.Background()
			e := openTestEngine(t)
			vault := copyVault(t)
			var batches [][]string
			switch order {
			case "whole folder":
				batches = [][]string{{vault}}
			case "linking notes first":
				for _, n := range notes {
					batches = append(batches, []string{filepath.Join(vault, n)})
				}
			case "linked notes first":
				for i := len(notes) - 1; i >= 0; i-- {
					batches = append(batches, []string{filepath.Join(vault, notes[i])})
				}
			}
			for _, paths := range batches {
				res, err := e.KBAdd(ctx, KBAddRequest{Paths: paths})
				if err != nil || res.Failed > 0 {
					t.Fatalf("KBAdd(%v) = %+v, %v", paths, res, err)
				}
				for _, f := range res.Files {
					if strings.Contains(f.Path, ".obsidian") {
						t.Errorf("imported %s: the vault's settings are no note", f.Path)
					}
				}
			}
			for rel, want := range map[string][]string{"读书笔记.md": readingLinks, "Daily/2024-05-01.md": dailyLinks,
				"Archive/2023/notes.md": archiveLinks} {
				if diff := cmp.Diff(want, vaultLinks(t, e, vault, rel)); diff != "" {
					t.Errorf("links of %s mismatch (-want +got):\n%s", rel, diff)
				}
			}
		})
	}
}

func TestVaultNotePropertiesAndDate(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	vault := copyVault(t)
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{vault}}); err != nil {
		t.Fatal(err)
	}
	list, err := e.KBList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, d := range list.Documents {
		rel, _ := filepath.Rel(vault, d.Path)
		titles[filepath.ToSlash(rel)] = d.Title
	}
	want := map[string]string{"Projects/Memdesk.md": "Memdesk project", "读书笔记.md": "读书笔记",
		"Daily/2024-05-01.md": "2024-05-01", "Archive/2023/Memdesk.md": "Memdesk (2023 draft)", "Archive/2023/notes.md": "Notes, 2023"}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("titles mismatch (-want +got):\n%s", diff)
	}
	// Tags and aliases are searchable through the note's properties chunk.
	hits := knowledgeHits(t, e, "记忆桌面")
	if len(hits) == 0 || hits[0].Doc == nil || hits[0].Doc.Heading != "Properties" || !strings.HasSuffix(hits[0].Doc.Path, "Memdesk.md") {
		t.Errorf("Recall(记忆桌面) = %+v, want the Memdesk note's properties first", hits)
	}
	doc, err := e.parser.ReadFileWithin(ctx, vault, filepath.Join(vault, "Projects", "Memdesk.md"), e.opts.Import)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 3, 12, 1, 30, 0, 0, time.UTC); !doc.Dated.Equal(want) {
		t.Errorf("Dated = %v, want the created property, %v", doc.Dated, want)
	}
}

func TestVaultLinksFollowNotesThatComeAndGo(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	vault := copyVault(t)
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{vault}}); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(vault, "Projects", "Memdesk.md")
	if _, err := e.KBRemovePath(ctx, "default", project); err != nil {
		t.Fatal(err)
	}
	// With the project note gone, its name leads to the only note left that has it, which
	// has no such heading; its alias leads nowhere.
	want := []string{
		"路线图 -> Archive/2023/Memdesk.md:0",
		"Memdesk#^design-goal -> Archive/2023/Memdesk.md:0",
		"!Memdesk#Design -> Archive/2023/Memdesk.md:0",
		"记忆桌面 -> nothing",
		"不存在的笔记 -> nothing",
	}
	if diff := cmp.Diff(want, vaultLinks(t, e, vault, "读书笔记.md")); diff != "" {
		t.Errorf("links after the project note left mismatch (-want +got):\n%s", diff)
	}
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{project}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readingLinks, vaultLinks(t, e, vault, "读书笔记.md")); diff != "" {
		t.Errorf("links after the project note came back mismatch (-want +got):\n%s", diff)
	}
}

func TestWatchedVaultLinksFollowNewNotes(t *testing.T) {
	e := openTestEngine(t)
	vault := copyVault(t)
	_, _ = watching(t, e, vault)
	if diff := cmp.Diff(readingLinks, vaultLinks(t, e, vault, "读书笔记.md")); diff != "" {
		t.Errorf("links after the watch's first scan mismatch (-want +got):\n%s", diff)
	}
	missing := func() string { return vaultLinks(t, e, vault, "读书笔记.md")[4] }
	note := filepath.Join(vault, "不存在的笔记.md")
	writeFile(t, note, "# 不存在的笔记\n\n现在写了。\n")
	waitFor(t, "the link to a new note leads to it", func() bool { return missing() == "不存在的笔记 -> 不存在的笔记.md:0" })
	if err := os.Remove(note); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the link to a removed note leads nowhere", func() bool { return missing() == "不存在的笔记 -> nothing" })
}

func TestPlaceInChunks(t *testing.T) {
	chunks := []store.Chunk{
		{ID: 1, Heading: "Memdesk", Text: "# Memdesk\n\nIntro.", LineStart: 1},
		{ID: 2, Heading: "Memdesk > Q&A: plans [draft]", Text: "## Q&A: plans [draft]\n\nFirst.\nSecond line. ^b-1", LineStart: 5},
		{ID: 3, Heading: "Memdesk > 路线图", Text: "## 路线图\n\n第一项。", LineStart: 10},
	}
	tests := []struct {
		heading, block string
		wantID         int64
		wantLine       int
	}{
		{heading: "q&a  plans draft", wantID: 2, wantLine: 5},
		{heading: "路线图", wantID: 3, wantLine: 10},
		{block: "b-1", wantID: 2, wantLine: 8},
		{heading: "Missing"},
		{block: "b"},
	}
	for _, tc := range tests {
		c, line, ok := placeInChunks(chunks, tc.heading, tc.block)
		if ok != (tc.wantID != 0) || c.ID != tc.wantID || line != tc.wantLine {
			t.Errorf("placeInChunks(%q, %q) = chunk %d, line %d, %v; want chunk %d, line %d",
				tc.heading, tc.block, c.ID, line, ok, tc.wantID, tc.wantLine)
		}
	}
}
