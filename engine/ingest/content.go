package ingest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
)

// archiveTypes are the MIME types of compressed archives and disk images: files that hold
// other files, which an import does not unpack.
var archiveTypes = []string{
	"application/zip", "application/gzip", "application/x-7z-compressed", "application/x-rar-compressed",
	"application/x-tar", "application/x-bzip2", "application/x-xz", "application/zstd",
	"application/lzip", "application/x-compress", "application/x-cpio", "application/x-iso9660-image",
	"application/vnd.ms-cab-compressed", "application/x-archive", "application/x-rpm",
	"application/vnd.debian.binary-package",
}

// formatByName is the format a file's extension settles: Markdown, HTML and PDF need their
// own parsers. Any other name (README, notes.org, main.go) leaves it to the content.
func formatByName(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return "markdown"
	case ".html", ".htm", ".xhtml":
		return "html"
	case ".pdf":
		return "pdf"
	}
	return ""
}

// DetectFormat decides how to read a file from its name and its first bytes (a few KB
// suffice): "markdown", "html", "pdf", "docx", "odt", "epub" or "text", or "gzip" or "bzip2"
// for a compressed file, which Parse reads through. The content decides, so an extension-less
// README, a .rst or a .go file is text, while a .txt that is really a ZIP is refused with
// ErrBinary and a reason that names what it is ("compressed archive (zip): not imported").
// An extension only chooses among parsers for text: a .md file is Markdown, not plain text.
func DetectFormat(path string, head []byte) (string, error) {
	byName := formatByName(path)
	if byName == "pdf" {
		return "pdf", nil // the PDF parser says best what is wrong with a broken one
	}
	orText := func(byName string) string {
		if byName == "" {
			return "text"
		}
		return byName
	}
	for _, bom := range byteOrderMarks {
		if bytes.HasPrefix(head, bom.mark) {
			return orText(byName), nil // UTF-16 and UTF-32 text is full of NUL bytes
		}
	}
	if _, _, ok := utf16WithoutBOM(head); ok {
		return orText(byName), nil
	}
	m := mimetype.Detect(head)
	if m.Is("application/zip") || hasArchiveParent(m) && m.Parent().Is("application/zip") {
		// A ZIP is a Word, OpenDocument or EPUB file by its own MIME type, or by its name when
		// the members that tell are past the bytes looked at; that reader says best what is
		// wrong with a damaged one.
		if f := containerFormat(m.String(), path); f != "" {
			return f, nil
		}
	}
	if f := compressedFormat(m.String()); f != "" {
		return f, nil // Parse reads the file it holds (compressed.go)
	}
	switch {
	case m.Is("application/pdf") && (pdfAtStart(head) || looksBinary(head) || !utf8.Valid(head)):
		// mimetype calls anything with "%PDF-" in its first KB a PDF: a Go test or a note
		// about PDFs too. A real PDF starts with it, or has binary bytes around it.
		return "pdf", nil
	case isText(m):
		// Only a file without an extension is taken for a web page by its content: a .vue
		// or .txt that opens with <script> or <p> is kept as the text it is.
		if byName == "" && filepath.Ext(path) == "" && m.Is("text/html") {
			return "html", nil
		}
		if byName == "" && filepath.Ext(path) == "" && looksMarkdown(head) {
			return "markdown", nil
		}
		return orText(byName), nil
	case isContainer(m) || (!m.Is("application/octet-stream") && looksBinary(head)):
		// Archives and media are trusted on their signature alone: a small gzip file may
		// hold no NUL byte. Other signatures are a few letters a text could start with
		// ("%!" PostScript, "MZ"), so they count only if the bytes look binary too.
		return "", notText(describeBinary(m))
	case looksBinary(head):
		return "", notText("binary file: not imported")
	}
	// mimetype calls text with a few stray control bytes binary; looksBinary tolerates one
	// in ten, as old text files with form feeds or escape sequences need.
	return orText(byName), nil
}

// notTextError is a file DetectFormat refuses; its message is the reason alone, worded for
// the skipped list, and it matches ErrBinary.
type notTextError struct{ reason string }

func notText(reason string) error            { return &notTextError{reason} }
func (e *notTextError) Error() string        { return e.reason }
func (e *notTextError) Is(target error) bool { return target == ErrBinary }

// isContainer reports archives and media, whose signatures are long and unambiguous.
func isContainer(m *mimetype.MIME) bool {
	s := m.String()
	return isArchive(m) || hasArchiveParent(m) || strings.HasPrefix(s, "image/") ||
		strings.HasPrefix(s, "audio/") || strings.HasPrefix(s, "video/")
}

// isText reports a MIME type that is text or a kind of text (HTML, CSV, JSON, source code).
func isText(m *mimetype.MIME) bool {
	for ; m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return true
		}
	}
	return false
}

// describeBinary names a binary file's kind the way a person would, for the skipped list:
// "compressed archive (zip): not imported", "image (png): not imported".
func describeBinary(m *mimetype.MIME) string {
	kind := strings.TrimPrefix(m.Extension(), ".")
	if kind == "" {
		_, sub, _ := strings.Cut(m.String(), "/")
		kind = strings.TrimPrefix(sub, "x-")
	}
	what := "binary file"
	switch {
	case isArchive(m):
		what = "compressed archive"
	case strings.HasPrefix(m.String(), "image/"):
		what = "image"
	case strings.HasPrefix(m.String(), "audio/"):
		what = "audio"
	case strings.HasPrefix(m.String(), "video/"):
		what = "video"
	}
	if hasArchiveParent(m) {
		// xlsx, pptx, jar: ZIP files with a format of their own that memdesk does not read.
		return fmt.Sprintf("%s (%s): not imported; save it as PDF or text to import it", what, kind)
	}
	return fmt.Sprintf("%s (%s): not imported", what, kind)
}

func isArchive(m *mimetype.MIME) bool {
	for _, a := range archiveTypes {
		if m.Is(a) {
			return true
		}
	}
	return false
}

func hasArchiveParent(m *mimetype.MIME) bool {
	return !isArchive(m) && m.Parent() != nil && isArchive(m.Parent())
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

// looksMarkdown reports a text without an extension (README, CHANGELOG, NOTES) written in
// Markdown, so its headings become sections. A setext heading (a line of = or - under a
// line of text) says so alone: that is how plain-text READMEs have always underlined their
// titles, and reading them as Markdown is right. "# " also starts every comment in a shell
// script, Makefile or config file, so an ATX heading counts only with a blank line after it,
// as Markdown writers leave and comment blocks do not, and only with another sign of
// Markdown: a fenced code block, a [link](url), **bold**, or headings of two levels. A file
// that starts with "#!" is a script.
func looksMarkdown(head []byte) bool {
	text := string(head)
	if strings.HasPrefix(text, "#!") {
		return false
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var setext, atx, other int
	levels := map[int]bool{}
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		prev := ""
		if i > 0 {
			prev = lines[i-1]
		}
		underlines := strings.TrimSpace(prev) != "" && !strings.HasPrefix(prev, " ") && !strings.HasPrefix(prev, "#")
		switch {
		case len(trimmed) >= 3 && strings.Trim(trimmed, "=") == "" && underlines:
			setext++
		case len(trimmed) >= 3 && strings.Trim(trimmed, "-") == "" && underlines && !strings.ContainsAny(prev, "|+"):
			setext++
		case isATXLine(line) && len(strings.TrimLeft(trimmed, "#")) > 1:
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "" {
				atx++
				levels[len(trimmed)-len(strings.TrimLeft(trimmed, "#"))] = true
			}
		case strings.HasPrefix(trimmed, "```"):
			other++
		}
		if strings.Contains(line, "](") || strings.Count(line, "**") >= 2 {
			other++
		}
	}
	if len(levels) >= 2 {
		other++
	}
	return setext > 0 || atx > 0 && other > 0
}

// pdfAtStart reports the PDF signature at the start, after at most a byte order mark and
// white space.
func pdfAtStart(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n"), []byte("%PDF-"))
}
