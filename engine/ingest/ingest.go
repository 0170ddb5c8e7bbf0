// Package ingest owns the step from a file on disk to titled text and search-sized chunks:
// which files an import reads (Discover), how each format becomes plain text (Parse), and
// where that text is cut (SplitChunks). It is pure apart from reading the files it is given:
// it knows nothing of the store or of ranking.
//
// Every chunk points back into Document.Text by byte span and line numbers, so a search hit
// can show exactly where it came from. For Markdown, plain text and source code,
// Document.Text is the file itself after decoding it to UTF-8 (from whatever encoding it was
// saved in), removing a byte order mark, turning CRLF into LF and NFC normalization, so the
// line numbers are the file's own.
package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Sentinel errors, usable with errors.Is. The errors that wrap them say what the user can do.
var (
	ErrUnsupported = errors.New("unsupported file type")
	ErrTooLarge    = errors.New("file too large")
	ErrBinary      = errors.New("binary file")
	ErrNoText      = errors.New("no extractable text")
	// ErrGenerated is a text file made by a program for programs, not for reading: a
	// minified script or stylesheet, a search index, a source map.
	ErrGenerated = errors.New("generated or minified file")
)

// Limits bound what one import may read. Zero values mean the defaults.
type Limits struct {
	MaxFileBytes int64 // default 20 MiB; larger files are skipped with ErrTooLarge
	// ChunkMaxRunes caps the runes in one chunk's Text; default 800.
	ChunkMaxRunes int
	// ChunkOverlapRunes is how much of a chunk the next one repeats when a paragraph had to
	// be cut; default 80, negative for none, and never more than half of ChunkMaxRunes.
	ChunkOverlapRunes int
	// MaxPDFTime bounds how long PDFium may take over one PDF; default 2 minutes. A healthy
	// 20 MB PDF takes seconds; one that is damaged or made to hang a reader never ends.
	MaxPDFTime time.Duration
}

const (
	defaultMaxFileBytes = 20 << 20
	defaultChunkRunes   = 800
	defaultOverlapRunes = 80
	defaultPDFTime      = 2 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = defaultMaxFileBytes
	}
	if l.ChunkMaxRunes <= 0 {
		l.ChunkMaxRunes = defaultChunkRunes
	}
	if l.ChunkOverlapRunes == 0 {
		l.ChunkOverlapRunes = defaultOverlapRunes
	}
	if l.MaxPDFTime <= 0 {
		l.MaxPDFTime = defaultPDFTime
	}
	return l
}

// Chunk is one searchable piece of a document.
type Chunk struct {
	Ordinal   int    // 0-based position in the document
	Text      string // trimmed; equals Document.Text[ByteStart:ByteEnd]
	Heading   string // heading path for Markdown and HTML ("Install > Debian"), "" if none
	ByteStart int    // byte offsets into Document.Text
	ByteEnd   int
	// LineStart and LineEnd are 1-based lines, both inclusive: of Document.Text, or for a
	// PDF of the chunk's page, since a reader finds a place in a PDF by page and line.
	LineStart int
	LineEnd   int
	Page      int // 1-based page of a PDF chunk, which never spans pages; 0 for other formats
}

// Document is one parsed file.
type Document struct {
	Path string
	// Title is a Markdown file's title property, else its first H1, HTML <title>, PDF or
	// document Title metadata, else the file name.
	Title  string
	Dated  time.Time // when the text was written, from the file's own content; zero when unknown
	Format string    // "markdown", "text", "code", "html", "pdf", "docx", "odt" or "epub"
	// Encoding is what the file's bytes were decoded from: UTF8, or a legacy encoding such
	// as "GB18030" or "windows-1252" that an import report should mention. "" for PDF.
	Encoding string
	Text     string // valid UTF-8, NFC, no NUL; the text the chunks point into
	Hash     string // hex SHA-256 of the raw file bytes
	Chunks   []Chunk
	// Tags, Aliases and Links are read from Markdown (see markdownFields); nil for other
	// formats. Tags come from the properties and from #tags in the text, without the "#".
	// Aliases are the other names the properties give the note, by which links may name it.
	Tags    []string `json:",omitempty"`
	Aliases []string `json:",omitempty"`
	Links   []Link   `json:",omitempty"`
	// Conversations are the documents of a chat export (Format FormatChatGPT or FormatClaude),
	// one per conversation, each with a Path of its own under the file's (see chat.go); the
	// export itself then has no Text or Chunks. Left out of JSON when empty, so the golden
	// files of every other format stay as they were.
	Conversations []Document `json:",omitempty"`
}

// Parser reads files into Documents. It owns the PDFium runtime that PDFs need, started on
// the first PDF and kept for the ones after it; Close releases it. The zero value is ready to
// use, and a Parser is safe for concurrent use.
type Parser struct {
	pdf PDFium
}

// NewParser returns a Parser that keeps compiled PDFium in pdfCacheDir between processes
// ("" for none; see PDFium.CacheDir).
func NewParser(pdfCacheDir string) *Parser {
	return &Parser{pdf: PDFium{CacheDir: pdfCacheDir}}
}

// Close releases what the Parser started. Parsing a PDF after Close fails.
func (p *Parser) Close() error { return p.pdf.Close() }

// Parse extracts and chunks one file's bytes with a Parser of its own, so a PDF starts and
// stops PDFium just for this call; an import that reads many files uses Parser.Parse.
func Parse(path string, data []byte, lim Limits) (Document, error) {
	var p Parser
	defer p.Close()
	return p.Parse(context.Background(), path, data, lim)
}

// ReadFile is Parser.ReadFile with a Parser of its own (see Parse).
func ReadFile(path string, lim Limits) (Document, error) {
	var p Parser
	defer p.Close()
	return p.ReadFile(context.Background(), path, lim)
}

// Parse extracts and chunks one file's bytes. The content decides how it is read (see
// DetectFormat); path gives the extension that picks Markdown or HTML among text files, and
// the fallback title. Nothing is read from disk. ctx bounds the time a PDF may take. A plain
// text file that a program generated for programs (a minified script, a search index) is
// refused with ErrGenerated and the shape that gave it away.
func (p *Parser) Parse(ctx context.Context, path string, data []byte, lim Limits) (Document, error) {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxFileBytes {
		return Document{}, tooLarge(path, int64(len(data)), lim.MaxFileBytes)
	}
	format, err := DetectFormat(path, data[:min(len(data), sniffBytes)])
	if err != nil {
		return Document{}, fmt.Errorf("%q: %w", filepath.Base(path), err)
	}
	sum := sha256.Sum256(data)
	// name is the file's name as its format sees it: README.md of README.md.gz.
	name := path
	if isCompressed(format) {
		if data, name, err = uncompress(path, format, data, lim.MaxFileBytes); err != nil {
			return Document{}, fmt.Errorf("%q %w", filepath.Base(path), err)
		}
		format, err = DetectFormat(name, data[:min(len(data), sniffBytes)])
		if isCompressed(format) {
			err = notText(fmt.Sprintf("%s file inside a compressed file: not imported", format))
		}
		if err != nil {
			return Document{}, fmt.Errorf("%q holds a file that is not text: %w", filepath.Base(path), err)
		}
	}
	lang := codeLanguage(name)
	if format == "text" && lang != "" {
		format = formatCode // text in a language whose declarations cut it (code.go)
	}
	doc := Document{Path: path, Format: format, Hash: hex.EncodeToString(sum[:])}

	// Extraction errors start with a verb phrase, so the file name can go first.
	var (
		lay        layout
		pageStarts []int
	)
	switch format {
	case "pdf":
		var pages []string
		if pages, doc.Title, err = p.pdf.pdfText(ctx, data, lim.MaxPDFTime); err == nil {
			doc.Text, lay, pageStarts = pdfLayout(pages)
		}
	case formatDOCX, formatODT, formatEPUB:
		budget := containerBudget * lim.MaxFileBytes
		if doc.Text, doc.Title, lay, err = officeText(format, data, budget); err != nil {
			err = unreadableContainer(format, err, budget)
		}
	case formatZip:
		return chatExportZip(doc, data, lim)
	case "html":
		if doc.Text, doc.Encoding, err = DecodeText(data, true); err == nil {
			doc.Text, doc.Title, lay = htmlText(doc.Text)
		}
	default:
		doc.Text, doc.Encoding, err = DecodeText(data, false)
		if err != nil {
			break
		}
		// A chat export before the generated check: its JSON is often one long line.
		if kind := chatExportKind(doc.Text); kind != "" && format == "text" {
			return chatExport(doc, name, kind, lim)
		}
		// Plain text and code (a minified .js is code by its name); a file named .md was
		// written by a person for reading.
		if format != "markdown" {
			if why := generatedReason(doc.Text); why != "" {
				err = fmt.Errorf("is generated or minified, not prose (%s); not imported: %w", why, ErrGenerated)
				break
			}
		}
		if format == formatCode {
			lay = codeLayout(doc.Text, lang, lim.ChunkMaxRunes)
			break
		}
		lay = scanLayout(doc.Text, format == "markdown")
		doc.Title = lay.title
		if format == "markdown" {
			markdownFields(&doc, lay)
		}
	}
	if err != nil {
		return Document{}, fmt.Errorf("%q %w", filepath.Base(path), err)
	}
	doc.Chunks = chunkLayout(doc.Text, lay, lim)
	if format == "pdf" {
		placeOnPages(doc.Text, doc.Chunks, pageStarts)
	}
	if len(doc.Chunks) == 0 {
		return Document{}, fmt.Errorf("%q is empty or only whitespace; add some text or leave it out: %w", filepath.Base(path), ErrNoText)
	}
	if doc.Title == "" {
		doc.Title = fallbackTitle(name, format)
	}
	return doc, nil
}

// fallbackTitle names a document without a title of its own by its file name: without the
// extension where that only repeats the format ("notes" for notes.md), with it where it says
// what the text is ("main.go", "guide.rst").
func fallbackTitle(path, format string) string {
	base, ext := filepath.Base(path), strings.ToLower(filepath.Ext(path))
	if format == formatCode || format == "text" && ext != ".txt" && ext != ".text" {
		return base
	}
	return strings.TrimSuffix(base, filepath.Ext(path))
}

// ReadFile reads and parses the file at path. It checks the size before reading, so a huge
// or sparse file is refused without being loaded.
func (p *Parser) ReadFile(ctx context.Context, path string, lim Limits) (Document, error) {
	f, err := os.OpenFile(path, readFlags, 0)
	if err != nil {
		return Document{}, fmt.Errorf("open %q: %w", path, err)
	}
	defer f.Close()
	return p.readOpened(ctx, path, f, lim)
}

// ReadFileWithin is ReadFile for a file an import found under root: it opens path with
// OpenWithin, so a symbolic link swapped in since Discover looked cannot make it read a file
// outside root. Both must be resolved, as Discover's candidates are.
func (p *Parser) ReadFileWithin(ctx context.Context, root, path string, lim Limits) (Document, error) {
	f, err := OpenWithin(root, path)
	if err != nil {
		return Document{}, fmt.Errorf("open %q: %w", path, err)
	}
	defer f.Close()
	return p.readOpened(ctx, path, f, lim)
}

// readOpened reads and parses the open file f, found at path.
func (p *Parser) readOpened(ctx context.Context, path string, f *os.File, lim Limits) (Document, error) {
	lim = lim.withDefaults()
	info, err := f.Stat()
	if err != nil {
		return Document{}, fmt.Errorf("stat %q: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return Document{}, fmt.Errorf("%q is not a regular file: %w", path, ErrUnsupported)
	}
	if info.Size() > lim.MaxFileBytes {
		return Document{}, tooLarge(path, info.Size(), lim.MaxFileBytes)
	}
	// A file that is not text says so in its first few kilobytes; reading a 1 GB binary
	// (or sparse) file in whole to learn that would cost seconds and a gigabyte of memory.
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Document{}, fmt.Errorf("read %q: %w", path, err)
	}
	head = head[:n]
	if _, err := DetectFormat(path, head); err != nil {
		return Document{}, fmt.Errorf("%q: %w", filepath.Base(path), err)
	}
	// One buffer of the size Stat gave, so a large file is not copied while it grows; the
	// limit also guards against a file that grows between Stat and the read.
	buf := bytes.NewBuffer(make([]byte, 0, min(info.Size(), lim.MaxFileBytes)+1))
	buf.Write(head)
	if _, err := buf.ReadFrom(io.LimitReader(f, lim.MaxFileBytes+1-int64(n))); err != nil {
		return Document{}, fmt.Errorf("read %q: %w", path, err)
	}
	return p.Parse(ctx, path, buf.Bytes(), lim)
}

// containerBudget is how many times the file size a DOCX, ODT or EPUB may inflate to while
// its text is read: XML compresses about tenfold, a ZIP bomb a millionfold.
const containerBudget = 16

// sniffBytes is how much of a file DetectFormat looks at: looksBinary's window plus a byte
// order mark.
const sniffBytes = 8<<10 + 3

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%q is %s, over the %s limit; split it or raise the limit: %w",
		filepath.Base(path), byteSize(size), byteSize(limit), ErrTooLarge)
}

// byteSize formats a file size the way a file manager would.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KB"
	}
	return fmt.Sprintf("%d bytes", n)
}

var errBinary = fmt.Errorf("is not text (it holds NUL bytes, as binary files do); leave it out: %w", ErrBinary)
