package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/unicode/norm"
)

// TestParseGolden parses each fixture and compares the whole Document with a golden file,
// so a change in extraction or chunking is reviewed as a diff. Refresh with -update.
func TestParseGolden(t *testing.T) {
	p := testParser(t)
	for _, name := range []string{"notes.md", "plain.txt", "page.html", "report.pdf", "harbour.docx", "harbour.odt", "harbour.epub"} {
		t.Run(name, func(t *testing.T) {
			doc, err := p.ReadFile(context.Background(), filepath.Join("testdata", name), Limits{})
			if err != nil {
				t.Fatalf("ReadFile(%s) error: %v", name, err)
			}
			checkChunks(t, doc.Text, doc.Chunks, Limits{})
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // keep "A > B" headings readable in review
			enc.SetIndent("", "  ")
			if err := enc.Encode(doc); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("ReadFile(%s) differs from %s (-want +got):\n%s", name, golden, diff)
			}
		})
	}
}

var parseCases = []struct {
	name, path, data string
	want             Document // Hash and Chunks are not compared; see wantHeadings
	wantHeadings     []string
}{
	{
		name: "byte order mark, CRLF and NFC", path: "notes.txt", data: "\uFEFFcafe\u0301\r\nline two\r\n",
		want: Document{Title: "notes", Format: "text", Text: "café\nline two\n"},
	},
	{
		name: "markdown title is the first H1, not an H2", path: "dir/Guide.MARKDOWN", data: "## Intro\n# Real Title\ntext",
		want:         Document{Title: "Real Title", Format: "markdown", Text: "## Intro\n# Real Title\ntext"},
		wantHeadings: []string{"Intro", "Real Title"},
	},
	{
		name: "markdown without H1 is titled by its file name", path: "a/b/meeting notes.md", data: "just text",
		want: Document{Title: "meeting notes", Format: "markdown", Text: "just text"},
	},
	{
		name: "html title collapses white space", path: "p.HTM",
		data: "<title>\n  Hello\n  World </title><p>body</p>",
		want: Document{Title: "Hello World", Format: "html", Text: "body"},
	},
	{
		name: "html without title uses the first h1", path: "p.html",
		data:         "<h2>Sub</h2><h1>Main <i>one</i></h1><h1>Second</h1>",
		want:         Document{Title: "Main one", Format: "html", Text: "Sub\n\nMain one\n\nSecond"},
		wantHeadings: []string{"Sub", "Main one", "Second"},
	},
	{
		name: "html hides script, style, noscript, template and head", path: "p.html",
		data: "<html><head><meta name=x content=y><style>p{}</style><script>x()</script>head text?</head>" +
			"<body><script>alert(1)</script><noscript>enable js</noscript><template><p>tpl</p></template>" +
			"<p>visible</p><style>.a{}</style></body></html>",
		want: Document{Title: "p", Format: "html", Text: "visible"},
	},
	{
		name: "html body begins without </head> or <body>", path: "p.html",
		data: "<head><title>T</title><p>First paragraph.",
		want: Document{Title: "T", Format: "html", Text: "First paragraph."},
	},
	{
		name: "html entities, br, inline tags and pre; nbsp becomes a plain space", path: "p.html",
		data: "<p>Fish &amp; chips<br>two&nbsp;lines <b>bold</b>er</p><pre>  a\n\n    b</pre><table><tr><td>x</td><td>y</td></tr></table>",
		want: Document{Title: "p", Format: "html", Text: "Fish & chips\ntwo lines bolder\n\n  a\n\n    b\n\nx y"},
	},
	{
		name: "svg title after the page title is body text", path: "p.html",
		data: "<title>Page</title><body><svg><title>Chart</title></svg></body>",
		want: Document{Title: "Page", Format: "html", Text: "Chart"},
	},
	{
		name: "unclosed heading ends at the next block", path: "p.html",
		data:         "<h1>Title<p>Body text.</p><h2><div>Sub</div></h2><p>More</p>",
		want:         Document{Title: "Title", Format: "html", Text: "Title\n\nBody text.\n\nSub\n\nMore"},
		wantHeadings: []string{"Title", "Title > Sub"},
	},
	{
		name: "html nul entity removed", path: "p.html", data: "<p>a&#0;b\x0c</p>",
		want: Document{Title: "p", Format: "html", Text: "a\ufffdb"},
	},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse(tc.path, []byte(tc.data), Limits{})
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tc.path, err)
			}
			checkChunks(t, doc.Text, doc.Chunks, Limits{})
			var headings []string
			for _, c := range doc.Chunks {
				if c.Heading != "" {
					headings = append(headings, c.Heading)
				}
			}
			if diff := cmp.Diff(tc.wantHeadings, headings); diff != "" {
				t.Errorf("Parse(%q) headings mismatch (-want +got):\n%s", tc.path, diff)
			}
			tc.want.Path, tc.want.Hash, tc.want.Chunks = tc.path, doc.Hash, doc.Chunks
			if tc.want.Encoding == "" && tc.want.Format != "pdf" {
				tc.want.Encoding = UTF8
			}
			if diff := cmp.Diff(tc.want, doc); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}

// TestParseShortGBK checks a one-line GBK file from bytes to chunk: the detector alone
// read it as KOI8-R ("до╬╘╣д╢Спэц╗╨э©и╟╝").
func TestParseShortGBK(t *testing.T) {
	data, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte("南京的大熊猫很可爱\n"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse("panda.txt", data, Limits{})
	if err != nil {
		t.Fatalf("Parse(panda.txt): %v", err)
	}
	var chunks []string
	for _, c := range doc.Chunks {
		chunks = append(chunks, c.Text)
	}
	if diff := cmp.Diff([]string{"南京的大熊猫很可爱"}, chunks); diff != "" {
		t.Errorf("Parse(panda.txt) chunks mismatch (-want +got):\n%s", diff)
	}
	if doc.Encoding != "GB18030" {
		t.Errorf("Parse(panda.txt) Encoding = %q, want GB18030", doc.Encoding)
	}
}

func TestParseErrors(t *testing.T) {
	fixture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	cases := []struct {
		name, path, data string
		lim              Limits
		want             error
		wantMsg          string // a part of the message that tells the user what to do
	}{
		{"binary renamed .md", "binary.md", fixture("binary.md"), Limits{}, ErrBinary, "image (png): not imported"},
		{"control characters without NUL", "x.txt", strings.Repeat("\x01\x02\x03 ok", 100), Limits{}, ErrBinary, "binary file: not imported"},
		{"NUL after the first 8 KB", "x.txt", strings.Repeat("text\n", 2000) + "\x00", Limits{}, ErrBinary, "NUL"},
		{"zip named .txt", "notes.txt", "PK\x03\x04\x14\x00\x00\x00\x08\x00rest", Limits{}, ErrBinary, "compressed archive (zip): not imported"},
		{"empty markdown", "x.md", "", Limits{}, ErrNoText, "empty"},
		{"only a byte order mark and spaces", "x.txt", "\uFEFF \n\t\n", Limits{}, ErrNoText, "empty"},
		{"html with only hidden text", "x.html", "<script>var a</script><style>b{}</style>", Limits{}, ErrNoText, "empty"},
		{"over the size limit", "x.md", "0123456789ab", Limits{MaxFileBytes: 10}, ErrTooLarge, "raise the limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse(tc.path, []byte(tc.data), tc.lim)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Parse(%q) = %+v, %v; want error %v", tc.path, doc, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Parse(%q) error %q, want it to mention %q", tc.path, err, tc.wantMsg)
			}
		})
	}
}

// FuzzParse checks what Parse promises for every format: no panic, and on success text
// that is valid UTF-8, NFC and free of NUL, with chunks that hold their invariants.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.path, []byte(tc.data))
	}
	for _, name := range []string{"notes.md", "page.html", "report.pdf", "scan.pdf", "harbour.docx", "harbour.odt", "harbour.epub"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, data)
	}
	// Long lines, which generatedReason measures: generated, prose, and only white space.
	f.Add("searchindex.js", []byte(searchIndex()))
	f.Add("老王.txt", []byte(string(chineseProse)+"\n"))
	f.Add("blank.txt", []byte(strings.Repeat(" ", 600)+"\n"))
	p := new(Parser) // one PDFium for every input, as in an import
	f.Cleanup(func() { p.Close() })
	f.Fuzz(func(t *testing.T, path string, data []byte) {
		doc, err := p.Parse(context.Background(), path, data, Limits{ChunkMaxRunes: 64})
		if err != nil {
			return
		}
		if !utf8.ValidString(doc.Text) || strings.ContainsRune(doc.Text, 0) || !norm.NFC.IsNormalString(doc.Text) {
			t.Errorf("Parse(%q) text %q is not valid NFC UTF-8 without NUL", path, doc.Text)
		}
		checkChunks(t, doc.Text, doc.Chunks, Limits{ChunkMaxRunes: 64})
	})
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KB", 20 << 20: "20 MB", 26_529_000: "25.3 MB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestParseHTMLBomb checks that deep nesting costs neither stack nor quadratic time.
func TestParseHTMLBomb(t *testing.T) {
	const depth = 100_000
	for _, tag := range []string{"div", "b", "table"} {
		t.Run(tag, func(t *testing.T) {
			page := strings.Repeat("<"+tag+">", depth) + "deep text" + strings.Repeat("</"+tag+">", depth)
			start := time.Now()
			doc, err := Parse("bomb.html", []byte(page), Limits{})
			if err != nil {
				t.Fatalf("Parse(bomb) error: %v", err)
			}
			if doc.Text != "deep text" {
				t.Errorf("Parse(bomb) text = %q, want %q", doc.Text, "deep text")
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("Parse(bomb) took %v", elapsed)
			}
		})
	}
}

// TestReadFileSparse checks that the size limit is applied before reading: reading this
// sparse 64 GiB file would exhaust memory.
func TestReadFileSparse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.md")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Skipf("file system cannot hold a sparse file: %v", err)
	}
	f.Close()
	if _, err := ReadFile(path, Limits{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(sparse 64 GiB) error = %v, want %v", err, ErrTooLarge)
	}
}

// TestReadFileSniffsBeforeReading checks that a file whose start is not text is refused
// from its first kilobytes, even when the size limit would let the whole file in: a 1 GiB
// sparse file (all NUL bytes) under a 2 GiB limit used to be read whole, 2 GB of memory and
// most of a minute, to learn that it is binary.
func TestReadFileSniffsBeforeReading(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse.md")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Skipf("file system cannot hold a sparse file: %v", err)
	}
	f.Close()
	textThenNUL := filepath.Join(dir, "late-nul.txt")
	if err := os.WriteFile(textThenNUL, append(bytes.Repeat([]byte("plain text line\n"), 2000), 0), 0o600); err != nil {
		t.Fatal(err)
	}
	utf16 := filepath.Join(dir, "utf16.txt")
	if err := os.WriteFile(utf16, []byte{0xFF, 0xFE, 'h', 0, 'i', 0}, 0o600); err != nil {
		t.Fatal(err)
	}
	bomText := filepath.Join(dir, "bom.md")
	if err := os.WriteFile(bomText, append([]byte("\uFEFF"), bytes.Repeat([]byte("words and more words\n"), 1000)...), 0o600); err != nil {
		t.Fatal(err)
	}
	lim := Limits{MaxFileBytes: 2 << 30}
	for _, tc := range []struct {
		name, path string
		want       error
		maxAlloc   uint64
	}{
		{"1 GiB sparse", sparse, ErrBinary, 1 << 20},
		{"NUL after 32 KB of text", textThenNUL, ErrBinary, 1 << 20},
		{"UTF-16", utf16, nil, 1 << 20},
		{"BOM and text", bomText, nil, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := ReadFile(tc.path, lim)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("ReadFile(%s) error = %v, want %v", tc.name, err, tc.want)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > tc.maxAlloc {
				t.Errorf("ReadFile(%s) allocated %d bytes, want at most %d", tc.name, got, tc.maxAlloc)
			}
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "folder.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		want       error
	}{
		{"missing file", filepath.Join(dir, "missing.md"), os.ErrNotExist},
		{"folder named like a document", filepath.Join(dir, "folder.md"), ErrUnsupported},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadFile(tc.path, Limits{}); !errors.Is(err, tc.want) {
				t.Errorf("ReadFile(%q) error = %v, want %v", tc.path, err, tc.want)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	// PDFium starts once, before the clock, as in an import; BenchmarkPDFiumStart has that cost.
	p := testParser(b)
	if _, err := p.Parse(context.Background(), "report.pdf", reportPDF(), Limits{}); err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"testdata/notes.md", "testdata/page.html", "testdata/report.pdf",
		"/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"} {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) && !strings.HasPrefix(path, "testdata") {
			continue // a Debian package's file; scripts/deps.sh installs it
		} else if err != nil {
			b.Fatal(err)
		}
		name := filepath.Base(path)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Parse(context.Background(), name, data, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00", 56)
	cases := []struct {
		path, head, want, wantReason string
	}{
		{"README", "Memdesk keeps notes.\n", "text", ""},
		{"notes/NEWS", "v2: faster\n", "text", ""},
		{"Makefile", "all:\n\tgo build ./...\n", "text", ""},
		{"README", "memdesk\n=======\n\nKeeps notes.\n", "markdown", ""},
		{"docs/CHANGELOG", "# Changes\n\n## v2\n\n- `kb watch` follows folders\n", "markdown", ""},
		{"NOTES", "# To do\n\nSee [the guide](guide.md).\n", "markdown", ""},
		{"Makefile", "# Build everything\n# with `go`\nall:\n\tgo build ./...\n", "text", ""},
		{"GNUmakefile", "# Build everything\n\nVERSION = `git describe`\nall: ## build it\n\tgo build **/*.go\n", "text", ""},
		{"config", "# Settings\n\nname = x\n\n# More settings\n\nsize = 2\n", "text", ""},
		{"Dockerfile", "# syntax=docker/dockerfile:1\nFROM debian\nRUN apt-get update\n", "text", ""},
		{"install", "#!/bin/sh\n# Install memdesk\necho `uname`\n", "text", ""},
		{"TODO", "# one\n# two\nplain lines\n", "text", ""},
		{"guide.rst", "Guide\n=====\n", "text", ""},
		{"todo.org", "* TODO write\n", "text", ""},
		{"main.go", "package main\n", "text", ""},
		{"data.csv", "a,b\n1,2\n", "text", ""},
		{"a.md", "# Title\n", "markdown", ""},
		{"A.MARKDOWN", "text", "markdown", ""},
		{"page.htm", "<p>x</p>", "html", ""},
		{"saved-page", "<!DOCTYPE html><html><body>x</body></html>", "html", ""},
		{"App.vue", "<script>export default {}</script>\n<template><p>x</p></template>", "text", ""},
		{"utf16.txt", "\xff\xfeh\x00i\x00", "text", ""},
		{"report", "%PDF-1.4\n", "pdf", ""},
		{"broken.pdf", "not a pdf", "pdf", ""},
		{"pdf_test.go", "package ingest\n\n// A PDF starts with %PDF-1.4 and a line of high bytes.\n", "text", ""},
		{"mail-attachment", "\x00\x01\x02junk %PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "pdf", ""},
		{"escapes.txt", "\x1b[31mred\x1b[0m and a form feed \f here\n", "text", ""},
		{"backup.txt", "PK\x03\x04\x14\x00\x00\x00\x08\x00", "", "compressed archive (zip): not imported"},
		{"logs.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00", "gzip", ""}, // Parse reads the file inside
		{"notes.bz2", "BZh91AY&SY", "bzip2", ""},
		{"data.xz", "\xfd7zXZ\x00\x00", "", "compressed archive (xz): not imported"},
		{"photo.md", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "", "image (png): not imported"},
		{"tool", elf, "", "binary file (elf): not imported"},
		{"report.docx", "PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00[Content_Types].xml" + strings.Repeat("\x00", 30) + "word/", "docx", ""},
		{"blob", "\x00\x01\x02\x03data", "", "binary file: not imported"},
	}
	for _, tc := range cases {
		got, err := DetectFormat(tc.path, []byte(tc.head))
		var reason string
		if err != nil {
			reason = err.Error()
			if !errors.Is(err, ErrBinary) {
				t.Errorf("DetectFormat(%q) error %v does not match ErrBinary", tc.path, err)
			}
		}
		if got != tc.want || reason != tc.wantReason {
			t.Errorf("DetectFormat(%q) = %q, %q; want %q, %q", tc.path, got, reason, tc.want, tc.wantReason)
		}
	}
}
