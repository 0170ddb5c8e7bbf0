package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// TestKBAddEveryText imports a folder as a person keeps one: extension-less README and NEWS,
// an extension-less CHANGELOG in Markdown, reStructuredText, Go source, a Latin-1 web page,
// GBK and Big5 notes, UTF-16 files with and without a byte order mark, one text as DOCX,
// ODT and EPUB, and the binaries that sit beside them. Every text is imported and found by a word of its own;
// every binary is skipped with what it is.
func TestKBAddEveryText(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	encode := func(enc encoding.Encoding, s string) []byte {
		t.Helper()
		b, err := enc.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatalf("encode %q: %v", s, err)
		}
		return b
	}
	write("README", []byte("Memdesk\n\nKeeps the quetzal notes searchable.\n"))
	write("NEWS", []byte("Version 2\n\n* The importer reads every text file, even the ocelot ones.\n"))
	write("guide.rst", []byte("Guide\n=====\n\nInstall the axolotl package first.\n"))
	write("main.go", []byte("package main\n\n// pangolinCount says how many were seen.\nfunc pangolinCount() int { return 3 }\n"))
	write("menu.html", encode(charmap.ISO8859_1,
		"<html><head><meta charset=\"iso-8859-1\"><title>Menu</title></head>\n<body><p>Crème brûlée au caramel.</p></body></html>\n"))
	write("会议.txt", encode(simplifiedchinese.GBK, "会议记录\n\n周三的会议改到周四下午三点，地点在杭州办公室。\n"))
	write("說明.txt", encode(traditionalchinese.Big5, "說明文件\n\n這個軟體可以搜尋繁體中文的筆記和文件。\n"))
	write("utf16.txt", encode(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "first line\r\nThe narwhal surfaced at dawn.\r\n"))
	write("export.log", encode(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "exported by an old tool\r\nThe manatee count is 12.\r\n"))
	write("CHANGELOG", []byte("Changes\n=======\n\nRelease 3\n---------\n\nThe tapir importer is faster.\n"))
	for _, name := range []string{"harbour.docx", "harbour.odt", "harbour.epub"} {
		data, err := os.ReadFile(filepath.Join("ingest", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		write(name, data)
	}
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	if w, err := zw.Create("inner.txt"); err != nil {
		t.Fatal(err)
	} else {
		w.Write([]byte("zipped words are not imported"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	write("archive.zip", zipped.Bytes())
	write("notes.txt", zipped.Bytes()) // the name says text, the bytes say ZIP
	// An ELF header as the start of a program: magic, 64-bit, little-endian, then zeros.
	write("tool", append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 120)...))
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	write("photo.png", pic.Bytes())

	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}})
	if err != nil {
		t.Fatalf("KBAdd: %v", err)
	}
	type outcome struct{ Outcome, Reason, Encoding string }
	got := map[string]outcome{}
	for _, f := range res.Files {
		got[filepath.Base(f.Path)] = outcome{f.Outcome, f.Reason, f.Encoding}
	}
	want := map[string]outcome{
		"README":       {ImportAdded, "", ""},
		"NEWS":         {ImportAdded, "", ""},
		"guide.rst":    {ImportAdded, "", ""},
		"main.go":      {ImportAdded, "", ""},
		"menu.html":    {ImportAdded, "", "windows-1252"},
		"会议.txt":       {ImportAdded, "", "GB18030"},
		"說明.txt":       {ImportAdded, "", "Big5"},
		"utf16.txt":    {ImportAdded, "", "UTF-16LE"},
		"export.log":   {ImportAdded, "", "UTF-16LE (no byte order mark)"},
		"CHANGELOG":    {ImportAdded, "", ""},
		"harbour.docx": {ImportAdded, "", ""},
		"harbour.odt":  {ImportAdded, "", ""},
		"harbour.epub": {ImportAdded, "", ""},
		"archive.zip":  {ImportSkipped, "compressed archive (zip): not imported", ""},
		"notes.txt":    {ImportSkipped, "compressed archive (zip): not imported", ""},
		"tool":         {ImportSkipped, "binary file (elf): not imported", ""},
		"photo.png":    {ImportSkipped, "image (png): not imported", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("import outcomes by file (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		query, file string
		line        int    // where the word is in the file itself
		heading     string // the hit's heading path, for formats with headings
	}{
		{"manatee", "export.log", 2, ""},
		{"tapir", "CHANGELOG", 7, "Changes > Release 3"},
		{"Echo sounder Ingrid", "harbour.docx", 0, "Tides and moorings > Equipment"},
		{"Echo sounder Ingrid", "harbour.odt", 0, "Tides and moorings > Equipment"},
		{"Echo sounder Ingrid", "harbour.epub", 0, "Tides and moorings > Equipment"},
		{"quetzal", "README", 3, ""},
		{"ocelot", "NEWS", 3, ""},
		{"axolotl", "guide.rst", 4, ""},
		{"pangolinCount", "main.go", 3, "package main, pangolinCount"},
		{"brûlée", "menu.html", 0, ""},
		{"杭州办公室", "会议.txt", 3, ""},
		{"繁體中文", "說明.txt", 3, ""},
		{"narwhal", "utf16.txt", 2, ""},
	} {
		t.Run(tc.query, func(t *testing.T) {
			rec, err := e.Recall(ctx, RecallRequest{Query: tc.query, Source: SourceKnowledge})
			if err != nil {
				t.Fatal(err)
			}
			// The three harbour files hold one text: it is one hit, in one of them, that says
			// it is in the other two as well (each with the place of its own chunk).
			if len(rec.Hits) == 0 || rec.Hits[0].Doc == nil {
				t.Fatalf("Recall(%q) = %+v, want a hit in %s", tc.query, rec.Hits, tc.file)
			}
			h := rec.Hits[0]
			if filepath.Base(h.Doc.Path) != tc.file {
				i := slices.IndexFunc(h.Doc.AlsoIn, func(p DocPlace) bool { return filepath.Base(p.Path) == tc.file })
				if i < 0 {
					t.Fatalf("Recall(%q) = %+v, want the top hit in %s or that file among its places", tc.query, rec.Hits, tc.file)
				}
				p := h.Doc.AlsoIn[i]
				h.Doc = &DocRef{DocPlace: p}
			}
			if !strings.Contains(h.Text, tc.query) {
				t.Errorf("Recall(%q) top hit %q in %s, want one in %s holding the word", tc.query, h.Text, h.Doc.Path, tc.file)
			}
			if h.Doc.Heading != tc.heading {
				t.Errorf("Recall(%q) hit heading %q, want %q", tc.query, h.Doc.Heading, tc.heading)
			}
			// HTML text is extracted, so its lines are the extract's; every other format's
			// lines are the file's own, whatever encoding it was saved in.
			if tc.line > 0 && (h.Doc.LineStart > tc.line || h.Doc.LineEnd < tc.line) {
				t.Errorf("Recall(%q) hit lines %d-%d, want them to hold line %d", tc.query, h.Doc.LineStart, h.Doc.LineEnd, tc.line)
			}
		})
	}
}
