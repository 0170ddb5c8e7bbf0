package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The harbour fixtures are one Markdown text (testdata/golden/harbour-source.md.txt) written
// by pandoc 2.17 as DOCX, ODT and EPUB. Each must read to the same paragraphs, with the
// same headings and the document's own title.
func TestParseOfficeDocuments(t *testing.T) {
	p := testParser(t)
	var texts []string
	for _, name := range []string{"harbour.docx", "harbour.odt", "harbour.epub"} {
		doc, err := p.ReadFile(context.Background(), filepath.Join("testdata", name), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := strings.TrimPrefix(filepath.Ext(name), ".")
		if doc.Format != want {
			t.Errorf("%s: format %q, want %q", name, doc.Format, want)
		}
		// The content decides, as for every file: the same bytes under another name.
		head, _ := os.ReadFile(filepath.Join("testdata", name))
		if got, err := DetectFormat("saved-"+want, head[:min(len(head), sniffBytes)]); got != want || err != nil {
			t.Errorf("DetectFormat(%s without its extension) = %q, %v; want %q", name, got, err, want)
		}
		if doc.Title != "Field Notes on the Harbour Survey" {
			t.Errorf("%s: title %q", name, doc.Title)
		}
		for _, want := range []string{
			"The harbour master keeps the mooring ledger in the blue cabinet. Spring tides reach 4.2 metres",
			"Echo sounder Ingrid", // a table row is one line, its cells apart
			"gauge --calibrate --offset 0.35",
			"老王负责潮汐记录，每周三把数据上传到共享盘。",
		} {
			if !strings.Contains(doc.Text, want) {
				t.Errorf("%s: text lacks %q:\n%s", name, want, doc.Text)
			}
		}
		headings := map[string]string{}
		for _, c := range doc.Chunks {
			headings[strings.SplitN(c.Text, "\n", 2)[0]] = c.Heading
		}
		for first, want := range map[string]string{"Equipment": "Tides and moorings > Equipment", "港口调查笔记": "港口调查笔记"} {
			if headings[first] != want {
				t.Errorf("%s: the chunk starting %q has heading %q, want %q (all: %q)", name, first, headings[first], want, headings)
			}
		}
		checkChunks(t, doc.Text, doc.Chunks, Limits{})
		texts = append(texts, doc.Text)
	}
	if texts[0] != texts[1] || texts[1] != texts[2] {
		t.Errorf("the three formats of one text read differently:\ndocx: %q\nodt:  %q\nepub: %q", texts[0], texts[1], texts[2])
	}
}

// zipOf builds a ZIP file of the given members, in order.
func zipOf(t *testing.T, members ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.Create(m[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(m[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wordDoc = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>`

// TestParseDOCXWhatAReaderSees covers what Word writes beyond pandoc's plain documents:
// tracked deletions, field codes, text boxes written twice (mc:Choice and mc:Fallback),
// localized heading styles named in styles.xml, outline levels, tabs and line breaks.
func TestParseDOCXWhatAReaderSees(t *testing.T) {
	doc := wordDoc +
		`<w:p><w:pPr><w:pStyle w:val="berschrift1"/></w:pPr><w:r><w:t>Jahresbericht</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">Kept </w:t></w:r><w:del><w:r><w:delText>deleted </w:delText></w:r></w:del>` +
		`<w:r><w:instrText> PAGE \* MERGEFORMAT </w:instrText></w:r><w:r><w:t>words</w:t><w:tab/><w:t>after a tab</w:t><w:br/><w:t>next line &amp; more</w:t></w:r></w:p>` +
		`<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Box text once</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>` +
		`<mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Box text once</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		`<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>Level two by outline</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>Body under it.</w:t></w:r></w:p></w:body></w:document>`
	styles := `<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
		`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style></w:styles>`
	data := zipOf(t, [2]string{"[Content_Types].xml", "<Types/>"}, [2]string{"word/document.xml", doc}, [2]string{"word/styles.xml", styles})
	got, err := Parse("bericht.docx", data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Jahresbericht\n\nKept words\tafter a tab\nnext line & more\n\nBox text once\n\nLevel two by outline\n\nBody under it."
	if got.Text != want {
		t.Errorf("text\n%q, want\n%q", got.Text, want)
	}
	if got.Title != "Jahresbericht" {
		t.Errorf("title %q, want the first heading", got.Title)
	}
	last := got.Chunks[len(got.Chunks)-1]
	if last.Heading != "Jahresbericht > Level two by outline" {
		t.Errorf("last chunk's heading %q", last.Heading)
	}
}

// TestParseBrokenContainers: a damaged, empty or hostile container is refused with a reason
// the skipped list can show, and nothing is half read.
func TestParseBrokenContainers(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "harbour.docx"))
	if err != nil {
		t.Fatal(err)
	}
	// 64 MB of one repeated run inflates from about 100 KB.
	bomb := zipOf(t, [2]string{"word/document.xml", wordDoc + strings.Repeat("<w:p><w:r><w:t>aaaa</w:t></w:r></w:p>", 64<<20/37)})
	cases := []struct {
		name   string
		data   []byte
		lim    Limits
		want   error
		reason string
	}{
		{"cut.docx", good[:len(good)/2], Limits{}, ErrUnsupported, "is not a readable Word document (zip: not a valid zip file)"},
		{"fake.docx", []byte("PK\x03\x04 not really a docx"), Limits{}, ErrUnsupported, "is not a readable Word document"},
		{"empty.docx", zipOf(t, [2]string{"[Content_Types].xml", "<Types/>"}), Limits{}, ErrUnsupported, "it has no word/document.xml"},
		{"nochapters.epub", zipOf(t, [2]string{"mimetype", "application/epub+zip"}), Limits{}, ErrUnsupported, "is not a readable EPUB book (it has no META-INF/container.xml)"},
		{"bomb.docx", bomb, Limits{MaxFileBytes: 1 << 20}, ErrTooLarge, "is a Word document whose text expands to more than 16 MB; not imported"},
		{"sheet.xlsx", zipOf(t, [2]string{"[Content_Types].xml", "<Types/>"}, [2]string{"xl/workbook.xml", "<workbook/>"}), Limits{}, ErrBinary, "(xlsx): not imported; save it as PDF or text to import it"},
	}
	for _, tc := range cases {
		doc, err := Parse(tc.name, tc.data, tc.lim)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: Parse = %d chunks, %v; want %v saying %q", tc.name, len(doc.Chunks), err, tc.want, tc.reason)
		}
	}
}

// TestParseEPUBSpine: chapters are read in the spine's order, not the archive's; a chapter
// the manifest names but the archive lacks is left out and the others still read; the
// table of contents outside the spine is not text.
func TestParseEPUBSpine(t *testing.T) {
	data := zipOf(t,
		[2]string{"mimetype", "application/epub+zip"},
		[2]string{"META-INF/container.xml", `<container><rootfiles><rootfile full-path="OPS/book.opf"/></rootfiles></container>`},
		[2]string{"OPS/book.opf", `<package><metadata><dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">Two Chapters</dc:title></metadata><manifest>` +
			`<item id="a" href="text/one%20a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/two.xhtml" media-type="application/xhtml+xml"/>` +
			`<item id="gone" href="text/missing.xhtml" media-type="application/xhtml+xml"/><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml"/></manifest>` +
			`<spine><itemref idref="b"/><itemref idref="gone"/><itemref idref="a"/></spine></package>`},
		[2]string{"OPS/nav.xhtml", `<html><body><nav>Contents list</nav></body></html>`},
		[2]string{"OPS/text/one a.xhtml", `<html><body><h1>First written</h1><p>The lighthouse keeper.</p></body></html>`},
		[2]string{"OPS/text/two.xhtml", `<html><body><h1>Read first</h1><p>The harbour pilot.</p></body></html>`},
	)
	doc, err := Parse("book.epub", data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Read first\n\nThe harbour pilot.\n\nFirst written\n\nThe lighthouse keeper."; doc.Text != want {
		t.Errorf("text %q, want %q", doc.Text, want)
	}
	if doc.Title != "Two Chapters" {
		t.Errorf("title %q", doc.Title)
	}
}

// TestZipBombRefusedBeforeInflating: a member whose header says it inflates past the budget
// is refused before a byte of it is inflated; reading a bomb up to the budget took 6-28 s
// and up to 854 MB.
func TestZipBombRefusedBeforeInflating(t *testing.T) {
	bomb := zipOf(t, [2]string{"word/document.xml", wordDoc + strings.Repeat("<w:p><w:r><w:t>aaaa</w:t></w:r></w:p>", 16<<20/37)})
	budget := containerBudget * int64(len(bomb))
	for _, read := range []struct {
		name string
		run  func(d *zipDoc) error
	}{
		{"read", func(d *zipDoc) error { _, err := d.read("word/document.xml"); return err }},
		{"walk", func(d *zipDoc) error {
			return d.walk("word/document.xml", func(*xml.Decoder, xml.Token) error { return nil })
		}},
	} {
		d, err := openZipDoc(bomb, budget)
		if err != nil {
			t.Fatal(err)
		}
		if err := read.run(d); !errors.Is(err, errExpandsTooFar) {
			t.Errorf("%s of a 16 MB member under a %d-byte budget: %v, want errExpandsTooFar", read.name, budget, err)
		}
		if d.budget != budget {
			t.Errorf("%s inflated %d bytes of the bomb before refusing it, want none", read.name, budget-d.budget)
		}
	}
}
