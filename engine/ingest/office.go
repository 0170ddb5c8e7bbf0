package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// DOCX, ODT and EPUB are ZIP files of XML. No pure-Go reader of them is both well kept and
// served here (lu4p/cat matches DOCX with regular expressions and reads every member into
// memory; the EPUB readers are not on the module proxy), so memdesk reads the few members
// that hold the text with archive/zip and a streaming encoding/xml decoder, and EPUB's
// chapters with the HTML reader it already has. Each paragraph becomes an htmlBlock, so a
// document's headings become chunk sections exactly as a web page's do.

// Formats read from ZIP containers.
const (
	formatDOCX = "docx"
	formatODT  = "odt"
	formatEPUB = "epub"
)

// containerFormat is the document format a ZIP file's MIME type or, failing that, its
// extension names ("zip" for a .zip, which Parse reads only for the chat export it may
// hold); "" for any other ZIP.
func containerFormat(mime, filePath string) string {
	switch mime {
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
		return formatDOCX
	case "application/vnd.oasis.opendocument.text":
		return formatODT
	case "application/epub+zip":
		return formatEPUB
	}
	switch strings.ToLower(filepath.Ext(filePath)) {
	case ".docx":
		return formatDOCX
	case ".odt":
		return formatODT
	case ".epub":
		return formatEPUB
	case ".zip":
		return formatZip // read only for the chat export it may be (chat.go)
	}
	return ""
}

// formatNames are the formats as the skipped list names them.
var formatNames = map[string]string{formatDOCX: "Word document", formatODT: "OpenDocument text", formatEPUB: "EPUB book"}

// errExpandsTooFar is a container whose members inflate past the budget: a ZIP bomb, or a
// document far larger than any text memdesk keeps.
var errExpandsTooFar = errors.New("expands to more than the import limit")

// zipDoc reads members of one container within a budget of inflated bytes shared by all of
// them, so a member that claims 1 KB and inflates to 10 GB stops at the budget.
type zipDoc struct {
	zr     *zip.Reader
	byName map[string]*zip.File
	budget int64
}

func openZipDoc(data []byte, budget int64) (*zipDoc, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	d := &zipDoc{zr: zr, byName: make(map[string]*zip.File, len(zr.File)), budget: budget}
	for _, f := range zr.File {
		d.byName[f.Name] = f
	}
	return d, nil
}

// budgetReader fails once more than budget bytes have been read through it.
type budgetReader struct {
	r      io.Reader
	budget *int64
}

func (b budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if *b.budget -= int64(n); *b.budget < 0 {
		return n, errExpandsTooFar
	}
	return n, err
}

// open opens member name for reading within the budget. A member whose header says it
// inflates past what is left is refused before a byte is inflated: archive/zip never reads
// past the size a header gives, so the header cannot hide a bomb. Reading up to the budget
// first took 6-28 s and 557-854 MB for the bombs of issue 27.
func (d *zipDoc) open(name string) (io.ReadCloser, error) {
	f := d.byName[name]
	if f == nil {
		return nil, fmt.Errorf("it has no %s", name)
	}
	if f.UncompressedSize64 > uint64(max(d.budget, 0)) {
		return nil, fmt.Errorf("%s: %w", name, errExpandsTooFar)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rc, nil
}

// walk streams member name's XML tokens to fn; a missing member is fs-style "not found".
func (d *zipDoc) walk(name string, fn func(dec *xml.Decoder, tok xml.Token) error) error {
	rc, err := d.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := xml.NewDecoder(budgetReader{rc, &d.budget})
	dec.Strict = false // Word and e-book makers write entities and stray '&' that strict XML refuses
	dec.Entity = xml.HTMLEntity
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := fn(dec, tok); err != nil {
			return err
		}
	}
}

// read returns member name's bytes.
func (d *zipDoc) read(name string) ([]byte, error) {
	rc, err := d.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(budgetReader{rc, &d.budget})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// paragraphs collects blocks of text: writes go into the current paragraph, end closes it.
// Inside a table row, paragraphs only end cells: a row is one block, its cells separated by
// spaces, as the HTML reader gives a <tr>.
type paragraphs struct {
	blocks []htmlBlock
	cur    strings.Builder
	level  int
	rows   int // depth of table rows the current text sits in
}

// endParagraph closes a paragraph, or inside a table row a cell.
func (p *paragraphs) endParagraph() {
	if p.rows == 0 {
		p.end()
	} else if s := p.cur.String(); s != "" && !strings.HasSuffix(s, " ") {
		p.cur.WriteByte(' ')
	}
}

func (p *paragraphs) startRow() { p.end(); p.rows++ }
func (p *paragraphs) endRow()   { p.rows = max(p.rows-1, 0); p.end() }

func (p *paragraphs) end() {
	if t := plainLines(strings.ReplaceAll(p.cur.String(), "\u2028", "\n"), false); strings.TrimSpace(t) != "" {
		p.blocks = append(p.blocks, htmlBlock{text: t, level: p.level})
	}
	p.cur.Reset()
	p.level = 0
}

// officeText reads a DOCX, ODT or EPUB container into text and its layout. budget bounds the
// bytes its members may inflate to.
func officeText(format string, data []byte, budget int64) (text, title string, lay layout, err error) {
	d, err := openZipDoc(data, budget)
	if err != nil {
		return "", "", layout{}, err
	}
	var blocks []htmlBlock
	switch format {
	case formatDOCX:
		blocks, title, err = docxBlocks(d)
	case formatODT:
		blocks, title, err = odtBlocks(d)
	case formatEPUB:
		blocks, title, err = epubBlocks(d)
	}
	if err != nil {
		return "", "", layout{}, err
	}
	if title == "" {
		title = firstHeading(blocks)
	}
	text, lay = blocksLayout(blocks)
	return text, title, lay, nil
}

// The WordprocessingML namespaces: transitional (what Word writes) and strict.
const (
	wordNS       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	wordStrictNS = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	// Markup compatibility: mc:Fallback repeats mc:Choice's content for older readers.
	markupCompatNS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

func isWord(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == wordNS || n.Space == wordStrictNS)
}

func wordAttr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local && (a.Name.Space == wordNS || a.Name.Space == wordStrictNS) {
			return a.Value
		}
	}
	return ""
}

// docxBlocks reads word/document.xml's paragraphs in order. A paragraph is a heading when its
// style is one (styles.xml's outline level or a "heading N"/"Title" name, which holds in every
// language Word is sold in, since the names are stored in English) or it sets an outline level
// itself. Deleted text (w:delText), field codes (w:instrText) and the fallback copy of a text
// box are not text a reader sees.
func docxBlocks(d *zipDoc) ([]htmlBlock, string, error) {
	styleLevel, err := docxStyleLevels(d)
	if err != nil {
		return nil, "", err
	}
	var (
		p        paragraphs
		inText   bool
		fallback int
		title    string
		isTitle  bool
	)
	err = d.walk("word/document.xml", func(dec *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == markupCompatNS && t.Name.Local == "Fallback" {
				fallback++
				return nil
			}
			if fallback > 0 {
				return nil
			}
			switch {
			case isWord(t.Name, "p"):
				// A paragraph inside a text box opens before the one around it has closed:
				// the text so far is a paragraph of its own.
				p.endParagraph()
				isTitle = false
			case isWord(t.Name, "tr"):
				p.startRow()
			case isWord(t.Name, "pStyle"):
				id := wordAttr(t, "val")
				p.level = styleLevel[id]
				isTitle = strings.EqualFold(id, "Title")
			case isWord(t.Name, "outlineLvl"):
				if n, err := strconv.Atoi(wordAttr(t, "val")); err == nil && n >= 0 && n < 6 {
					p.level = n + 1
				}
			case isWord(t.Name, "t"):
				inText = true
			case isWord(t.Name, "tab"):
				p.cur.WriteByte('\t')
			case isWord(t.Name, "br"), isWord(t.Name, "cr"):
				p.cur.WriteRune('\u2028')
			case isWord(t.Name, "noBreakHyphen"):
				p.cur.WriteRune('\u2011')
			}
		case xml.EndElement:
			switch {
			case t.Name.Space == markupCompatNS && t.Name.Local == "Fallback":
				fallback = max(fallback-1, 0)
			case fallback > 0:
			case isWord(t.Name, "t"):
				inText = false
			case isWord(t.Name, "p"):
				if isTitle && title == "" {
					title = strings.Join(strings.Fields(p.cur.String()), " ")
				}
				p.endParagraph()
			case isWord(t.Name, "tr"):
				p.endRow()
			}
		case xml.CharData:
			if inText && fallback == 0 {
				p.cur.Write(t)
			}
		}
		return nil
	})
	p.end()
	if err != nil {
		return nil, "", err
	}
	if coreTitle := xmlElementText(d, "docProps/core.xml", "title"); coreTitle != "" {
		title = coreTitle
	}
	return p.blocks, title, nil
}

// docxStyleLevels maps paragraph style ids to heading levels 1-6 from word/styles.xml; a
// document without styles has none.
func docxStyleLevels(d *zipDoc) (map[string]int, error) {
	levels := map[string]int{}
	if d.byName["word/styles.xml"] == nil {
		return levels, nil
	}
	var id string
	err := d.walk("word/styles.xml", func(dec *xml.Decoder, tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch {
		case isWord(t.Name, "style"):
			id = ""
			if wordAttr(t, "type") == "paragraph" {
				id = wordAttr(t, "styleId")
			}
		case id == "":
		case isWord(t.Name, "name"):
			name := strings.ToLower(wordAttr(t, "val"))
			if name == "title" {
				levels[id] = 1
			} else if n, ok := strings.CutPrefix(name, "heading "); ok {
				if lv, err := strconv.Atoi(n); err == nil && lv >= 1 && lv <= 6 {
					levels[id] = lv
				}
			}
		case isWord(t.Name, "outlineLvl"):
			if n, err := strconv.Atoi(wordAttr(t, "val")); err == nil && n >= 0 && n < 6 {
				levels[id] = n + 1
			}
		}
		return nil
	})
	return levels, err
}

// The OpenDocument namespaces of text, tables and office elements.
const (
	odfTextNS   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	odfTableNS  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	odfOfficeNS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
)

// odfHidden reports the elements whose text a reader of the document does not see as its
// text: comments, tracked changes and the numbers of notes.
func odfHidden(n xml.Name) bool {
	return n.Space == odfOfficeNS && n.Local == "annotation" ||
		n.Space == odfTextNS && (n.Local == "tracked-changes" || n.Local == "note-citation")
}

// odtBlocks reads content.xml: text:p paragraphs and text:h headings with their outline
// level; text:s stands for spaces, annotations and tracked deletions are not shown text.
func odtBlocks(d *zipDoc) ([]htmlBlock, string, error) {
	var (
		p      paragraphs
		hidden int // depth inside annotations, tracked changes and notes' citations
		inPara int // depth inside text:p and text:h; text between them is indentation
		title  string
	)
	err := d.walk("content.xml", func(dec *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if odfHidden(t.Name) {
				hidden++
				return nil
			}
			if hidden == 0 && t.Name.Space == odfTableNS && t.Name.Local == "table-row" {
				p.startRow()
			}
			if hidden > 0 || t.Name.Space != odfTextNS {
				return nil
			}
			switch t.Name.Local {
			case "p":
				p.endParagraph()
				inPara++
			case "h":
				p.end()
				inPara++
				p.level = 1
				for _, a := range t.Attr {
					if a.Name.Local == "outline-level" {
						if n, err := strconv.Atoi(a.Value); err == nil {
							p.level = min(max(n, 1), 6)
						}
					}
				}
			case "s":
				n := 1
				for _, a := range t.Attr {
					if a.Name.Local == "c" {
						if c, err := strconv.Atoi(a.Value); err == nil && c > 0 {
							n = min(c, 1000)
						}
					}
				}
				p.cur.WriteString(strings.Repeat(" ", n))
			case "tab":
				p.cur.WriteByte('\t')
			case "line-break":
				p.cur.WriteRune('\u2028')
			}
		case xml.EndElement:
			if odfHidden(t.Name) {
				hidden = max(hidden-1, 0)
				return nil
			}
			switch {
			case hidden > 0:
			case t.Name.Space == odfTableNS && t.Name.Local == "table-row":
				p.endRow()
			case t.Name.Space == odfTextNS && (t.Name.Local == "p" || t.Name.Local == "h"):
				p.endParagraph()
				inPara = max(inPara-1, 0)
			}
		case xml.CharData:
			if hidden == 0 && inPara > 0 {
				// Inside text:p white space is collapsed as in HTML; text:s wrote the kept ones.
				p.cur.WriteString(collapseSpace(string(t)))
			}
		}
		return nil
	})
	p.end()
	if err != nil {
		return nil, "", err
	}
	title = xmlElementText(d, "meta.xml", "title")
	return p.blocks, title, nil
}

// collapseSpace turns each run of XML white space into one space, as ODF asks of text
// outside text:s.
func collapseSpace(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// xmlElementText is the text of the first element named local in member name, on one line;
// "" when the member or the element is missing.
func xmlElementText(d *zipDoc, name, local string) string {
	var (
		b          strings.Builder
		depth      int
		done, isIn bool
	)
	_ = d.walk(name, func(dec *xml.Decoder, tok xml.Token) error {
		if done {
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == local && !isIn {
				isIn = true
			}
			if isIn {
				depth++
			}
		case xml.EndElement:
			if isIn {
				if depth--; depth == 0 {
					done = true
				}
			}
		case xml.CharData:
			if isIn {
				b.Write(t)
			}
		}
		return nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// epubBlocks reads the chapters in the package's spine order, each through the HTML reader.
// container.xml names the package document; its manifest maps the spine's ids to files.
func epubBlocks(d *zipDoc) ([]htmlBlock, string, error) {
	var opfPath string
	err := d.walk("META-INF/container.xml", func(dec *xml.Decoder, tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "rootfile" && opfPath == "" {
			for _, a := range t.Attr {
				if a.Name.Local == "full-path" {
					opfPath = a.Value
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if opfPath == "" {
		return nil, "", errors.New("its META-INF/container.xml names no package document")
	}
	type item struct{ href, mediaType string }
	var (
		manifest = map[string]item{}
		spine    []string
		title    strings.Builder
		inTitle  bool
	)
	err = d.walk(opfPath, func(dec *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			attr := func(local string) string {
				for _, a := range t.Attr {
					if a.Name.Local == local {
						return a.Value
					}
				}
				return ""
			}
			switch t.Name.Local {
			case "item":
				manifest[attr("id")] = item{attr("href"), attr("media-type")}
			case "itemref":
				if attr("linear") != "no" {
					spine = append(spine, attr("idref"))
				}
			case "title":
				inTitle = title.Len() == 0
			}
		case xml.EndElement:
			if t.Name.Local == "title" {
				inTitle = false
			}
		case xml.CharData:
			if inTitle {
				title.Write(t)
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	var blocks []htmlBlock
	for _, id := range spine {
		it, ok := manifest[id]
		if !ok || (it.mediaType != "application/xhtml+xml" && it.mediaType != "text/html") {
			continue
		}
		member := epubMember(opfPath, it.href)
		data, err := d.read(member)
		if err != nil {
			if errors.Is(err, errExpandsTooFar) {
				return nil, "", err
			}
			continue // a spine entry whose file is missing: the other chapters still read
		}
		src, _, err := DecodeText(data, true)
		if err != nil {
			continue
		}
		chapter, _ := htmlBlocks(src)
		blocks = append(blocks, chapter...)
	}
	return blocks, strings.Join(strings.Fields(title.String()), " "), nil
}

// epubMember resolves a manifest href, relative to the package document and URL-escaped,
// to a member name.
func epubMember(opfPath, href string) string {
	href, _, _ = strings.Cut(href, "#")
	if unescaped, err := url.PathUnescape(href); err == nil {
		href = unescaped
	}
	return path.Join(path.Dir(opfPath), href)
}

// unreadableContainer words a failed DOCX, ODT or EPUB read for the skipped list.
func unreadableContainer(format string, cause error, budget int64) error {
	if errors.Is(cause, errExpandsTooFar) {
		return fmt.Errorf("is a %s whose text expands to more than %s; not imported: %w", formatNames[format], byteSize(budget), ErrTooLarge)
	}
	return fmt.Errorf("is not a readable %s (%v); open and save it again, or export it as PDF: %w", formatNames[format], cause, ErrUnsupported)
}
