package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// putDoc stores a one-chunk document and returns its id.
func putDoc(t *testing.T, s *Store, in DocumentInput) int64 {
	t.Helper()
	if in.Space == "" {
		in.Space = "default"
	}
	if in.Format == "" {
		in.Format = "markdown"
	}
	if in.Hash == "" {
		in.Hash = "hash of " + in.Path
	}
	in.Chunks = []Chunk{{Text: "text of " + in.Path, ByteEnd: 8 + len(in.Path), LineStart: 1, LineEnd: 1}}
	id, _, err := s.PutDocument(context.Background(), in)
	if err != nil {
		t.Fatalf("PutDocument(%s): %v", in.Path, err)
	}
	return id
}

func TestLinksReplacedWithTheirDocument(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	links := []Link{
		{Target: "Projects/Memdesk", Heading: "Roadmap", Label: "路线图", ByteStart: 10, ByteEnd: 45, Line: 3},
		{Target: "diagram.png", Embed: true, ByteStart: 50, ByteEnd: 66, Line: 4},
	}
	in := DocumentInput{Path: "/v/读书笔记.md", Links: links, Aliases: []string{"reading"}}
	id := putDoc(t, s, in)
	got, err := s.Links(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{links[0], links[1]}
	want[0].DocID, want[1].DocID, want[1].Ordinal = id, id, 1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Links after import mismatch (-want +got):\n%s", diff)
	}

	in.Hash, in.Links, in.Aliases = "changed", links[1:], nil
	if id2 := putDoc(t, s, in); id2 != id {
		t.Fatalf("changed file stored as document %d, want it in place as %d", id2, id)
	}
	got, err = s.Links(ctx, id)
	want = []Link{{DocID: id, Target: "diagram.png", Embed: true, ByteStart: 50, ByteEnd: 66, Line: 4}}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("Links after the file changed = %+v, %v; want %+v", got, err, want)
	}
	if targets, err := s.LinkTargets(ctx, "default", "reading", "reading"); err != nil || len(targets) != 0 {
		t.Errorf("LinkTargets(reading) after the alias went = %+v, %v; want none", targets, err)
	}

	if err := s.DeleteDocument(ctx, id); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT (SELECT count(*) FROM document_links) + (SELECT count(*) FROM document_aliases)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d link and alias rows (%v) left after the document was removed, want 0", n, err)
	}
}

func TestLinkTargets(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	p := func(parts ...string) string {
		return filepath.Join(append([]string{string(filepath.Separator) + "v"}, parts...)...)
	}
	project := putDoc(t, s, DocumentInput{Path: p("Projects", "Memdesk.md"), Title: "Memdesk", Aliases: []string{"md"}})
	archive := putDoc(t, s, DocumentInput{Path: p("Archive", "memdesk.md"), Title: "old"})
	putDoc(t, s, DocumentInput{Path: p("Memdesk Notes.md")})
	putDoc(t, s, DocumentInput{Path: p("axb.md")})
	putDoc(t, s, DocumentInput{Path: p("Memdesk.md"), Space: "elsewhere"})
	// A copy: same bytes at a second path, held by the first document.
	putDoc(t, s, DocumentInput{Path: p("Copy", "MEMDESK.md"), Hash: "hash of " + p("Projects", "Memdesk.md")})
	pdf := putDoc(t, s, DocumentInput{Path: p("report.pdf"), Format: "pdf"})

	tests := []struct {
		name, alias string
		want        []LinkTarget
	}{
		{"Memdesk", "memdesk", []LinkTarget{
			{DocID: archive, Path: p("Archive", "memdesk.md"), Title: "old"},
			{DocID: project, Path: p("Copy", "MEMDESK.md"), Title: "Memdesk"},
			{DocID: project, Path: p("Projects", "Memdesk.md"), Title: "Memdesk"},
		}},
		{"md", "md", []LinkTarget{{DocID: project, Path: p("Projects", "Memdesk.md"), Title: "Memdesk", Alias: true}}},
		{"a_b", "a_b", nil},
		{"report.pdf", "report.pdf", []LinkTarget{{DocID: pdf, Path: p("report.pdf"), Title: ""}}},
		{"Notes", "notes", nil},
	}
	for _, tc := range tests {
		got, err := s.LinkTargets(ctx, "default", tc.name, tc.alias)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("LinkTargets(%q) mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestMigrateRereadsMarkdown: Markdown imported before links were kept is read again by the
// next import and by a watch's rescan (its stamp is gone); other formats are left as they are.
func TestMigrateRereadsMarkdown(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, versionBefore(schemaDocumentLinks), strings.ToLower)
	for _, q := range []string{
		`INSERT INTO documents(id, space, path, title, format, hash, bytes, imported_at) VALUES
			(1, 'default', '/v/a.md', 'a', 'markdown', 'h1', 10, 1), (2, 'default', '/v/b.txt', 'b', 'text', 'h2', 10, 1)`,
		`INSERT INTO chunks(doc_id, ordinal, text, heading, byte_start, byte_end, line_start, line_end) VALUES
			(1, 0, 'notes', '', 0, 5, 1, 1), (2, 0, 'notes', '', 0, 5, 1, 1)`,
		`INSERT INTO file_stamps(space, path, size, mtime_ns) VALUES ('default', '/v/a.md', 10, 1), ('default', '/v/b.txt', 10, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: strings.ToLower})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stamps, err := s.FileStamps(ctx, "default", "/v")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stamps["/v/a.md"]; ok {
		t.Error("the Markdown file kept its stamp, so a rescan would not read it again")
	}
	if _, ok := stamps["/v/b.txt"]; !ok {
		t.Error("the text file lost its stamp")
	}
	for doc, want := range map[int64]string{1: ImportUpdated, 2: ImportUnchanged} {
		d, err := s.Document(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		in := DocumentInput{Space: d.Space, Path: d.Path, Title: d.Title, Format: d.Format, Hash: "h" + string(rune('0'+doc)),
			Chunks: []Chunk{{Text: "notes", ByteEnd: 5, LineStart: 1, LineEnd: 1}}}
		if _, outcome, err := s.PutDocument(ctx, in); err != nil || outcome != want {
			t.Errorf("PutDocument(%s, same hash) = %q, %v; want %q", d.Path, outcome, err, want)
		}
	}
}
