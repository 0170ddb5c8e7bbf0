// Package ingest owns the step from a file on disk to titled text and search-sized chunks:
// which files an import reads (Discover), how each format becomes plain text (Parse), and
// where that text is cut (SplitChunks). It is pure apart from reading the files it is given:
// it knows nothing of the store or of ranking.
//
// Every chunk points back into Document.Text by byte span and line numbers, so a search hit
// can show exactly where it came from. For Markdown and plain text, Document.Text is the file
// itself after removing a byte order mark, turning CRLF into LF and NFC normalization, so
// the line numbers are the file's own.
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
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Sentinel errors, usable with errors.Is. The errors that wrap them say what the user can do.
var (
	ErrUnsupported = errors.New("unsupported file type")
	ErrTooLarge    = errors.New("file too large")
	ErrBinary      = errors.New("binary file")
	ErrNotUTF8     = errors.New("not UTF-8 text")
	ErrNoText      = errors.New("no extractable text")
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
	Path   string
	Title  string // first H1, HTML <title>, PDF Title metadata, else the file name
	Format string // "markdown", "text", "html" or "pdf"
	Text   string // valid UTF-8, NFC, no NUL; the text the chunks point into
	Hash   string // hex SHA-256 of the raw file bytes
	Chunks []Chunk
}

// FormatOf maps a path's extension to a format, or returns ErrUnsupported.
func FormatOf(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".md", ".markdown":
		return "markdown", nil
	case ".txt", ".text":
		return "text", nil
	case ".html", ".htm":
		return "html", nil
	case ".pdf":
		return "pdf", nil
	case "":
		return "", fmt.Errorf("%q has no extension; memdesk reads .md, .txt, .html and .pdf files: %w", filepath.Base(path), ErrUnsupported)
	default:
		return "", fmt.Errorf("memdesk cannot read %s files; it reads .md, .txt, .html and .pdf: %w", ext, ErrUnsupported)
	}
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

// Parse extracts and chunks one file's bytes. path only decides the format and the fallback
// title; nothing is read from disk. ctx bounds the time a PDF may take.
func (p *Parser) Parse(ctx context.Context, path string, data []byte, lim Limits) (Document, error) {
	lim = lim.withDefaults()
	format, err := FormatOf(path)
	if err != nil {
		return Document{}, err
	}
	if int64(len(data)) > lim.MaxFileBytes {
		return Document{}, tooLarge(path, int64(len(data)), lim.MaxFileBytes)
	}
	sum := sha256.Sum256(data)
	doc := Document{Path: path, Format: format, Hash: hex.EncodeToString(sum[:])}

	// Extraction errors start with a verb phrase, so the file name can go first.
	var (
		lay        layout
		pageStarts []int
	)
	if format == "pdf" {
		var pages []string
		if pages, doc.Title, err = p.pdf.pdfText(ctx, data, lim.MaxPDFTime); err == nil {
			doc.Text, lay, pageStarts = pdfLayout(pages)
		}
	} else if doc.Text, err = decodeText(data); format == "html" {
		doc.Text, doc.Title, lay = htmlText(doc.Text)
	} else {
		lay = scanLayout(doc.Text, format == "markdown")
		doc.Title = lay.title
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
		doc.Title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return doc, nil
}

// ReadFile reads and parses the file at path. It checks the size before reading, so a huge
// or sparse file is refused without being loaded.
func (p *Parser) ReadFile(ctx context.Context, path string, lim Limits) (Document, error) {
	if _, err := FormatOf(path); err != nil {
		return Document{}, err
	}
	f, err := os.Open(path)
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
	if _, err := FormatOf(path); err != nil {
		return Document{}, err
	}
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
	if format, _ := FormatOf(path); format != "pdf" {
		if err := sniffText(head); err != nil {
			return Document{}, fmt.Errorf("%q %w", filepath.Base(path), err)
		}
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

// sniffBytes is how much of a file sniffText looks at: looksBinary's window plus a byte
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

// decodeText checks that data is UTF-8 text and returns it normalized: no byte order mark,
// LF line ends, NFC.
func decodeText(data []byte) (string, error) {
	if err := sniffText(data[:min(len(data), sniffBytes)]); err != nil {
		return "", err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if bytes.IndexByte(data, 0) >= 0 {
		return "", errBinary
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:firstInvalid(data)], []byte("\n"))
		return "", fmt.Errorf("has bytes that are not UTF-8 (first on line %d); save it as UTF-8 and import it again: %w", line, ErrNotUTF8)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	return norm.NFC.String(text), nil
}

var errBinary = fmt.Errorf("is not text (it holds binary data); leave it out or rename it to its real type: %w", ErrBinary)

// sniffText rejects, from the start of a file alone, what decodeText would reject as UTF-16
// or binary; decodeText still looks for a NUL byte in the rest.
func sniffText(head []byte) error {
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return fmt.Errorf("is saved as UTF-16; save it as UTF-8 and import it again: %w", ErrNotUTF8)
	}
	if looksBinary(bytes.TrimPrefix(head, []byte("\uFEFF"))) {
		return errBinary
	}
	return nil
}

// looksBinary reports a NUL byte anywhere, or a start where more than one byte in ten is a
// control character that text files do not use.
func looksBinary(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	head := data[:min(len(data), 8<<10)]
	controls := 0
	for _, b := range head {
		if (b < 0x20 && !strings.ContainsRune("\t\n\v\f\r\x1b", rune(b))) || b == 0x7f {
			controls++
		}
	}
	return controls*10 > len(head)
}

func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}
