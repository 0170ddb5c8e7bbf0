package ingest

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/md5"
	"crypto/rc4"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// testParser is one Parser for a whole test, as an import has: starting PDFium for every
// file would cost seconds each.
func testParser(t testing.TB) *Parser {
	// scripts/test.sh shares one PDFium compile among the suite's test processes: under
	// the race detector a compile is ~20 s of CPU. Unset, the process compiles its own.
	p := NewParser(os.Getenv("MEMDESK_TEST_PDF_CACHE"))
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Parser.Close: %v", err)
		}
	})
	return p
}

func TestParsePDF(t *testing.T) {
	doc, err := testParser(t).ReadFile(context.Background(), "testdata/report.pdf", Limits{})
	if err != nil {
		t.Fatalf("ReadFile(report.pdf) error: %v", err)
	}
	doc.Hash, doc.Path = "", ""
	page1, page2 := "Revenue grew in the third quarter.", "Costs fell after the move."
	// Each page is its own chunk, however short: a chunk never spans pages.
	want := Document{
		Title:  "Quarterly Report",
		Format: "pdf",
		Text:   page1 + "\n\n" + page2,
		Chunks: []Chunk{
			{Ordinal: 0, Text: page1, ByteStart: 0, ByteEnd: len(page1), LineStart: 1, LineEnd: 1, Page: 1},
			{Ordinal: 1, Text: page2, ByteStart: len(page1) + 2, ByteEnd: len(page1) + 2 + len(page2), LineStart: 1, LineEnd: 1, Page: 2},
		},
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
		{"operator with the wrong arguments", pdfFile("", catalog,
			"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
			pdfStream("BT /F1 Tf (x) (y) Tj ET", false), pdfFont, textPage), "run OCR"},
	}
	p := testParser(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := p.Parse(context.Background(), "x.pdf", tc.data, Limits{})
			if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Parse() = %+v, %v; want %v saying %q", doc, err, ErrNoText, tc.wantMsg)
			}
		})
	}
}

// cjkPDF writes Chinese text the way CJK PDFs do: two-byte glyph ids in an Identity-H
// Type0 font, with a ToUnicode map that says which character each glyph is. The font is not
// embedded; text extraction needs only the map.
func cjkPDF() []byte {
	text := []rune("知识库导入测试。第二句话")
	var glyphs, cmap strings.Builder
	for i, r := range text {
		fmt.Fprintf(&glyphs, "%04X", i+1)
		fmt.Fprintf(&cmap, "<%04X> <%04X>\n", i+1, r)
	}
	toUnicode := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"/CMapName /memdesk-test def /CMapType 2 def\n" +
		"1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		fmt.Sprintf("%d beginbfchar\n%sendbfchar\n", len(text), cmap.String()) +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	return pdfFile("",
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		pdfStream("BT /F1 12 Tf 72 720 Td <"+glyphs.String()+"> Tj ET", false),
		"<< /Type /Font /Subtype /Type0 /BaseFont /MemdeskSong /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /MemdeskSong /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 >>",
		pdfStream(toUnicode, false),
	)
}

// encryptedPDF is reportPDF's first page behind the standard security handler (revision 2,
// RC4 40-bit) with the user password "secret": /O and /U are computed as the PDF reference
// (algorithms 3.2-3.4) says, so the empty password fails the check as it would in a viewer.
// The content stream is left unencrypted; without the password no reader gets that far.
func encryptedPDF() []byte {
	pad := []byte("\x28\xBF\x4E\x5E\x4E\x75\x8A\x41\x64\x00\x4E\x56\xFF\xFA\x01\x08\x2E\x2E\x00\xB6\xD0\x68\x3E\x80\x2F\x0C\xA9\xFE\x64\x53\x69\x7A")
	padded := func(pw string) []byte { return append([]byte(pw), pad...)[:32] }
	rc4Of := func(key, data []byte) []byte {
		c, _ := rc4.NewCipher(key)
		out := make([]byte, len(data))
		c.XORKeyStream(out, data)
		return out
	}
	ownerKey := md5.Sum(padded("owner"))
	o := rc4Of(ownerKey[:5], padded("secret"))
	id := []byte("memdesk-test-id!")
	const perms = -4
	h := md5.New()
	h.Write(padded("secret"))
	h.Write(o)
	h.Write([]byte{byte(perms & 0xff), byte(perms >> 8 & 0xff), byte(perms >> 16 & 0xff), byte(perms >> 24 & 0xff)})
	h.Write(id)
	u := rc4Of(h.Sum(nil)[:5], pad)
	return pdfFile(fmt.Sprintf("/Encrypt 6 0 R /ID [<%x> <%x>] ", id, id),
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		pdfFont,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		pdfStream("BT /F1 12 Tf 72 720 Td (Revenue grew in the third quarter.) Tj ET", false),
		fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P %d >>", o, u, perms),
	)
}

// ligaturePDF draws "ﬁle ﬂow" with the ligature glyphs, mapped by ToUnicode to U+FB01 and
// U+FB02 as TeX fonts do.
func ligaturePDF() []byte {
	toUnicode := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"/CMapName /memdesk-lig def /CMapType 2 def\n" +
		"1 begincodespacerange <00> <FF> endcodespacerange\n" +
		"6 beginbfchar\n<01> <FB01>\n<02> <FB02>\n<6C> <006C>\n<65> <0065>\n<6F> <006F>\n<77> <0077>\nendbfchar\n" +
		"1 beginbfrange <20> <20> <0020> endbfrange\n" +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	return pdfFile("",
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		pdfStream("BT /F1 12 Tf 72 720 Td (\x01le \x02ow) Tj ET", false),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
		pdfStream(toUnicode, false),
	)
}

func TestParsePDFText(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"CJK through a ToUnicode map", cjkPDF(), "知识库导入测试。第二句话"},
		{"ligatures folded into letters", ligaturePDF(), "file flow"},
		// PDFium rebuilds a broken cross-reference table as viewers do, so the file reads.
		{"object offset pointing into the header", withXrefOffset(reportPDF(), 2, 3),
			"Revenue grew in the third quarter.\n\nCosts fell after the move."},
	}
	p := testParser(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := p.Parse(context.Background(), "x.pdf", tc.data, Limits{})
			if err != nil {
				t.Fatalf("Parse() error: %v", err)
			}
			if doc.Text != tc.want {
				t.Errorf("Parse().Text = %q, want %q", doc.Text, tc.want)
			}
			for _, c := range doc.Chunks {
				if c.Page < 1 {
					t.Errorf("chunk %d %q has page %d, want 1 or more", c.Ordinal, c.Text, c.Page)
				}
			}
		})
	}
}

func TestParsePDFEncrypted(t *testing.T) {
	doc, err := testParser(t).Parse(context.Background(), "x.pdf", encryptedPDF(), Limits{})
	if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "encrypted: needs a password") {
		t.Errorf("Parse(encrypted) = %+v, %v; want %v saying %q", doc, err, ErrNoText, "encrypted: needs a password")
	}
}

// TestParsePDFTruncated cuts a PDF at many points: each cut either still reads (PDFium
// repairs what it can) or is refused as unreadable, never half a page of garbage or a panic.
func TestParsePDFTruncated(t *testing.T) {
	data := reportPDF()
	p := testParser(t)
	step := 1
	if testing.Short() {
		step = 13
	}
	for n := 0; n < len(data); n += step {
		doc, err := p.Parse(context.Background(), "x.pdf", data[:n], Limits{})
		if err != nil {
			if !errors.Is(err, ErrNoText) {
				t.Errorf("Parse(first %d bytes) error = %v, want %v", n, err, ErrNoText)
			}
			continue
		}
		for _, c := range doc.Chunks {
			if c.Page < 1 || !utf8.ValidString(c.Text) {
				t.Errorf("Parse(first %d bytes) chunk %+v: want a page and valid text", n, c)
			}
		}
	}
}

// slowPDF has pages pages that all show one compressed content stream of glyphs many
// glyphs long: small on disk, and seconds of work for any reader that extracts its text.
func slowPDF(pages, glyphs int) []byte {
	kids := make([]string, pages)
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", pdfFont,
		pdfStream("BT /F1 1 Tf 0 700 Td "+strings.Repeat("(ab) Tj 0.01 0 Td ", glyphs)+"ET", true)}
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", len(objects)+1)
		objects = append(objects, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	return pdfFile("", objects...)
}

// TestParsePDFTimeLimit: a PDF that takes longer than MaxPDFTime is skipped with that
// reason, long before it would have finished, and the Parser reads the next PDF as usual.
func TestParsePDFTimeLimit(t *testing.T) {
	p := testParser(t)
	data := slowPDF(400, 20000)
	if _, err := p.Parse(context.Background(), "report.pdf", reportPDF(), Limits{}); err != nil {
		t.Fatal(err) // starts PDFium, which is not the slow file's time
	}
	start := time.Now()
	_, err := p.Parse(context.Background(), "slow.pdf", data, Limits{MaxPDFTime: 200 * time.Millisecond})
	took := time.Since(start)
	if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "took over 200ms") {
		t.Errorf("Parse(slow.pdf) error = %v, want %v saying it took over 200ms", err, ErrNoText)
	}
	t.Logf("stopped after %s (%d bytes of PDF)", took, len(data))
	if doc, err := p.Parse(context.Background(), "report.pdf", reportPDF(), Limits{}); err != nil || len(doc.Chunks) != 2 {
		t.Errorf("Parse(report.pdf) after a killed one = %d chunks, %v; want 2 chunks", len(doc.Chunks), err)
	}
}

// TestParsePDFCancelled: a cancelled import stops reading a PDF with the context's error,
// not as a fault of the file.
func TestParsePDFCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := testParser(t).Parse(ctx, "x.pdf", reportPDF(), Limits{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrNoText) {
		t.Errorf("Parse(cancelled) error = %v, want %v and not %v", err, context.Canceled, ErrNoText)
	}
}

// BenchmarkPDFiumStart is what the first PDF of a process costs on top of reading it:
// compiling PDFium's WebAssembly (or, with a cache folder a run before filled, loading it)
// and starting its first instance.
func BenchmarkPDFiumStart(b *testing.B) {
	data := reportPDF()
	cache := filepath.Join(b.TempDir(), "pdfium")
	warm := NewParser(cache)
	if _, err := warm.Parse(context.Background(), "report.pdf", data, Limits{}); err != nil {
		b.Fatal(err)
	}
	warm.Close()
	for _, bc := range []struct{ name, cacheDir string }{{"compile", ""}, {"cached", cache}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := NewParser(bc.cacheDir)
				if _, err := p.Parse(context.Background(), "report.pdf", data, Limits{}); err != nil {
					b.Fatal(err)
				}
				p.Close()
			}
		})
	}
}

// TestPDFiumCacheDir: a Parser with a cache folder leaves compiled PDFium there, and the
// next process's Parser (here, the next Parser) reads PDFs with it.
func TestPDFiumCacheDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pdfium")
	for i := range 2 {
		p := NewParser(dir)
		doc, err := p.Parse(context.Background(), "report.pdf", reportPDF(), Limits{})
		if cerr := p.Close(); cerr != nil {
			t.Errorf("Close: %v", cerr)
		}
		if err != nil || len(doc.Chunks) != 2 {
			t.Fatalf("Parser %d: Parse(report.pdf) = %d chunks, %v; want 2", i+1, len(doc.Chunks), err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) == 0 {
			t.Errorf("after Parser %d the cache folder holds %v, %v; want the compiled module", i+1, entries, err)
		}
		if info, err := os.Stat(dir); err == nil && info.Mode().Perm()&0o077 != 0 {
			t.Errorf("cache folder mode %v; want it closed to other users, it holds code this process runs", info.Mode().Perm())
		}
	}
}

// TestPDFiumModuleIsGoPDFiums: the embedded module is go-pdfium's own, byte for byte, for the
// go-pdfium version in go.mod. After an upgrade, -update writes it anew.
func TestPDFiumModuleIsGoPDFiums(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/klippa-app/go-pdfium").Output()
	if err != nil {
		t.Fatalf("find the go-pdfium module: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "pdfium_wasm", "pdfium.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(want)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("pdfium.wasm.gz", gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := pdfiumModule()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("pdfium.wasm.gz (%d bytes inflated) is not go-pdfium's module (%d bytes): run\n"+
			"  go test ./engine/ingest -run TestPDFiumModuleIsGoPDFiums -update", len(got), len(want))
	}
}
