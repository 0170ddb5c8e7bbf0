package ingest

import (
	"bytes"
	"compress/zlib"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the generated PDF fixtures in testdata")

// pdfFile assembles a minimal PDF 1.4 file from numbered object bodies (object 1 is the
// catalog), writing the cross-reference table with the real byte offsets. The header must be
// exactly "%PDF-1.x" plus a newline: the reader checks the ninth byte for '\r' or '\n'.
func pdfFile(trailerExtra string, objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, obj := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, obj)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, trailerExtra, xref)
	return b.Bytes()
}

// withXrefOffset points the cross-reference entry of object obj at offset. Entries are
// 20 bytes each and follow the "0 N" line after "xref".
func withXrefOffset(data []byte, obj, offset int) []byte {
	xref := bytes.LastIndex(data, []byte("\nxref\n")) + len("\nxref\n")
	entries := xref + bytes.IndexByte(data[xref:], '\n') + 1
	out := bytes.Clone(data)
	copy(out[entries+obj*20:], fmt.Sprintf("%010d", offset))
	return out
}

func pdfStream(content string, compress bool) string {
	if !compress {
		return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(content))
	w.Close()
	return fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String())
}

const pdfFont = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// reportPDF has two pages of text, the second one compressed as real PDFs usually are, and a
// Title in its Info dictionary.
func reportPDF() []byte {
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
	return pdfFile("/Info 7 0 R ",
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R 5 0 R] /Count 2 >>",
		pdfFont,
		fmt.Sprintf(page, 6),
		fmt.Sprintf(page, 8),
		pdfStream("BT /F1 12 Tf 72 720 Td (Revenue grew in the third quarter.) Tj ET", false),
		"<< /Title (Quarterly Report) /Producer (memdesk tests) >>",
		pdfStream("BT /F1 12 Tf 72 720 Td (Costs fell after the move.) Tj ET", true),
	)
}

// scanPDF has a page that only paints a rectangle, like a scan without OCR.
func scanPDF() []byte {
	return pdfFile("",
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		pdfStream("0.5 g 72 72 468 648 re f", false),
	)
}

// TestPDFFixtures keeps the committed PDFs in step with the generators above.
func TestPDFFixtures(t *testing.T) {
	for name, data := range map[string][]byte{"report.pdf": reportPDF(), "scan.pdf": scanPDF()} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from its generator; run go test -run TestPDFFixtures -update", path)
		}
	}
}

func TestParsePDF(t *testing.T) {
	doc, err := ReadFile("testdata/report.pdf", Limits{})
	if err != nil {
		t.Fatalf("ReadFile(report.pdf) error: %v", err)
	}
	doc.Hash, doc.Path = "", ""
	text := "Revenue grew in the third quarter.\n\nCosts fell after the move."
	want := Document{
		Title:  "Quarterly Report",
		Format: "pdf",
		Text:   text,
		Chunks: []Chunk{{Text: text, ByteStart: 0, ByteEnd: len(text), LineStart: 1, LineEnd: 3}},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("ReadFile(report.pdf) mismatch (-want +got):\n%s", diff)
	}
}

func TestParsePDFErrors(t *testing.T) {
	catalog := "<< /Type /Catalog /Pages 2 0 R >>"
	textPage := "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>"
	cases := []struct {
		name    string
		data    []byte
		wantMsg string
	}{
		{"no text layer", scanPDF(), "run OCR"},
		{"not a pdf at all", []byte("hello, I am not a PDF\n"), "print it to a new PDF"},
		{"truncated", reportPDF()[:300], "print it to a new PDF"},
		{"empty page tree", pdfFile("", catalog, "<< /Type /Pages /Kids [] /Count 0 >>"), "run OCR"},
		{"page tree that loops", pdfFile("", catalog,
			"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"), "run OCR"},
		{"content that is not a stream", pdfFile("", catalog,
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 99 >>"), "run OCR"},
		{"object offset pointing into the header makes the library panic",
			withXrefOffset(reportPDF(), 2, 3), "print it to a new PDF"},
		{"operator with the wrong arguments", pdfFile("", catalog,
			"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
			pdfStream("BT /F1 Tf (x) (y) Tj ET", false), pdfFont, textPage), "run OCR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse("x.pdf", tc.data, Limits{})
			if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Parse() = %+v, %v; want %v saying %q", doc, err, ErrNoText, tc.wantMsg)
			}
		})
	}
}
