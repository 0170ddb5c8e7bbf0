package ingest

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/text/unicode/norm"
)

// htmlBlock is one paragraph of visible HTML text; level is 1-6 for headings, else 0.
type htmlBlock struct {
	text  string
	level int
}

// isHidden reports elements whose text is never shown to a reader.
func isHidden(tag string) bool {
	switch tag {
	case "script", "style", "noscript", "template":
		return true
	}
	return false
}

// inHeadOnly reports elements allowed in <head>; any other start tag means the body has
// begun, even on a page that never says </head> or <body>.
func inHeadOnly(tag string) bool {
	return tag == "title" || tag == "meta" || tag == "link" || tag == "base" || isHidden(tag)
}

// isBlock reports elements that start and end a paragraph of their own.
func isBlock(tag string) bool {
	switch tag {
	case "address", "article", "aside", "blockquote", "body", "caption", "dd", "details",
		"dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
		"header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary",
		"table", "tr", "ul":
		return true
	}
	return headingTag(tag) > 0
}

// headingTag returns n for <hn>, else 0.
func headingTag(tag string) int {
	if len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6' {
		return int(tag[1] - '0')
	}
	return 0
}

// htmlText extracts the visible text of an HTML page as paragraphs separated by blank lines,
// with a section per heading. It walks the token stream instead of a parsed tree, so a page
// of 100,000 nested <div>s costs no stack and linear time.
func htmlText(src string) (text, title string, lay layout) {
	blocks, title := htmlBlocks(src)
	text, lay = blocksLayout(blocks)
	if title == "" {
		title = firstHeading(blocks)
	}
	return text, title, lay
}

// firstHeading is the first H1's text on one line, the title of a page without a <title>.
func firstHeading(blocks []htmlBlock) string {
	for _, b := range blocks {
		if b.level == 1 {
			return strings.Join(strings.Fields(b.text), " ")
		}
	}
	return ""
}

// htmlBlocks is the token walk behind htmlText: the page's visible paragraphs and its
// <title>.
func htmlBlocks(src string) (blocks []htmlBlock, title string) {
	var (
		cur, titleSB strings.Builder
		level        int // heading level of the block being read
		hidden, pre  int // depth inside hidden elements and <pre>
		inHead       bool
		inTitle      bool
	)
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		t := cur.String()
		if pre == 0 {
			// Outside <pre> a line break in the source is only white space; <br> wrote U+2028,
			// the Unicode line separator, to mark a real one.
			t = strings.NewReplacer("\r", " ", "\n", " ", "\u2028", "\n").Replace(t)
		}
		if t = plainLines(t, pre == 0); t != "" {
			blocks = append(blocks, htmlBlock{text: t, level: level})
			level = 0 // an unclosed <h1> must not make headings of the paragraphs after it
		}
		cur.Reset()
	}
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: the tokenizer reads from memory and has no other failure
		}
		name, _ := z.TagName()
		tag := string(name)
		switch tt {
		case html.TextToken:
			switch {
			case inTitle:
				titleSB.Write(z.Text())
			case hidden == 0 && !inHead:
				cur.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			if inHead && !inHeadOnly(tag) {
				inHead = false
			}
			opens := tt == html.StartTagToken
			switch {
			case tag == "head" && opens:
				inHead = true
			case tag == "title" && opens:
				// Only the first title names the page; an SVG <title> later on is body text.
				inTitle = titleSB.Len() == 0
			case isHidden(tag) && opens:
				hidden++
			case tag == "br":
				cur.WriteRune('\u2028')
			case tag == "td" || tag == "th":
				cur.WriteByte(' ')
			case isBlock(tag):
				flush()
				if n := headingTag(tag); n > 0 {
					level = n
				}
				if tag == "pre" && opens {
					pre++
				}
			}
		case html.EndTagToken:
			switch {
			case tag == "head":
				inHead = false
			case tag == "title":
				inTitle = false
			case isHidden(tag):
				hidden = max(hidden-1, 0)
			case isBlock(tag):
				flush()
				level = 0
				if tag == "pre" {
					pre = max(pre-1, 0)
				}
			}
		}
	}
	flush()
	return blocks, strings.Join(strings.Fields(norm.NFC.String(titleSB.String())), " ")
}

// plainLines cleans extracted text for the chunker: valid UTF-8 without control characters
// other than newline and tab, LF line ends, no trailing spaces or blank lines at either end,
// NFC. With collapse, each run of white space in a line becomes one space and empty lines go,
// which is how a browser renders text outside <pre>.
func plainLines(s string, collapse bool) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			return -1
		}
		return r
	}, s)
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if collapse {
			if l = strings.Join(strings.Fields(l), " "); l == "" {
				continue
			}
		}
		kept = append(kept, strings.TrimRightFunc(l, unicode.IsSpace))
	}
	return norm.NFC.String(strings.Trim(strings.Join(kept, "\n"), "\n"))
}

// blocksLayout joins blocks with blank lines, which the chunker treats as paragraph breaks,
// and starts a section at every heading. Like in Markdown, the break right after a heading
// is dropped so that a heading stays with the paragraph under it.
func blocksLayout(blocks []htmlBlock) (string, layout) {
	var (
		b     strings.Builder
		lay   layout
		path  [6]string
		cur   section
		glued = map[int]bool{}
	)
	for i, bl := range blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if bl.level > 0 {
			path[bl.level-1] = strings.Join(strings.Fields(bl.text), " ")
			clear(path[bl.level:])
			cur.end = b.Len()
			lay.sections = append(lay.sections, cur)
			cur = section{start: b.Len(), heading: joinHeadings(path[:bl.level])}
			glued[b.Len()+len(bl.text)+1] = true
		}
		b.WriteString(bl.text)
	}
	text := b.String()
	for _, br := range scanLayout(text, false).breaks {
		if !glued[br] {
			lay.breaks = append(lay.breaks, br)
		}
	}
	cur.end = len(text)
	lay.sections = append(lay.sections, cur)
	return text, lay
}
