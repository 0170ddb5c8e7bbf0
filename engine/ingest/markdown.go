package ingest

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// mdHeading is one Markdown heading as the chunker needs it: where its first line starts,
// where its last line starts (the underline of a setext heading), its level and plain text.
type mdHeading struct {
	start, lastLine int
	level           int
	text            string
}

// mdStructure is what a CommonMark parse tells the chunker: the headings, and the spans of
// fenced code, whose blank lines are no place to cut.
type mdStructure struct {
	headings []mdHeading // by start
	code     [][2]int    // [first content line's start, last content byte), by start
	// verbatim spans all code, fenced, indented and inline, by start: text where "[[x]]"
	// and "#tag" are shown as typed, not read as links and tags.
	verbatim [][2]int
}

// parseMarkdown finds the headings (ATX "## x" and setext "x\n===") and fenced code of src
// with goldmark, a CommonMark parser, so that "#" lines inside fenced or indented code, in
// HTML blocks or after a backslash are not taken for headings. Only headings at the top of
// the document count: one inside a list item or a block quote is part of that item.
func parseMarkdown(src string) mdStructure {
	source := []byte(src)
	doc := goldmark.DefaultParser().Parse(text.NewReader(source))
	var st mdStructure
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.Heading:
			lines := b.Lines()
			if lines.Len() == 0 {
				continue // "#" alone: an empty heading names no section
			}
			h := mdHeading{
				start:    lineStart(src, lines.At(0).Start),
				lastLine: lineStart(src, lines.At(lines.Len()-1).Start),
				level:    b.Level,
				text:     strings.Join(strings.Fields(inlineText(b, source)), " "),
			}
			if !isATXLine(src[h.start:]) {
				// Setext: the underline is the line after the last line of text.
				if i := strings.IndexByte(src[h.lastLine:], '\n'); i >= 0 {
					h.lastLine += i + 1
				}
			}
			st.headings = append(st.headings, h)
		case *ast.FencedCodeBlock:
			if lines := b.Lines(); lines.Len() > 0 {
				st.code = append(st.code, [2]int{lineStart(src, lines.At(0).Start), lines.At(lines.Len() - 1).Stop})
			}
		}
	}
	st.verbatim = verbatimSpans(doc)
	return st
}

// verbatimSpans lists the spans of every code block and code span under doc, by start.
func verbatimSpans(doc ast.Node) [][2]int {
	var spans [][2]int
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if lines := c.Lines(); lines.Len() > 0 {
				spans = append(spans, [2]int{lines.At(0).Start, lines.At(lines.Len() - 1).Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			span := [2]int{-1, -1}
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if s, ok := t.(*ast.Text); ok {
					if span[0] < 0 {
						span[0] = s.Segment.Start
					}
					span[1] = s.Segment.Stop
				}
			}
			if span[0] >= 0 {
				spans = append(spans, span)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return spans
}

// lineStart returns the offset of the start of the line holding offset i.
func lineStart(src string, i int) int {
	i = min(max(i, 0), len(src))
	return strings.LastIndexByte(src[:i], '\n') + 1
}

// isATXLine reports a line that opens an ATX heading: up to three spaces, one to six #, then
// a space, a tab or the end of the line.
func isATXLine(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := len(t) - len(strings.TrimLeft(t, "#"))
	return n >= 1 && n <= 6 && (n == len(t) || strings.ContainsRune(" \t\r\n", rune(t[n])))
}

// inlineText is the text a reader sees in a heading: emphasis, links and code spans reduced
// to their words, raw HTML left out.
func inlineText(n ast.Node, source []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(source))
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// headingAt returns the heading whose first line starts at pos, if any.
func (st mdStructure) headingAt(pos int) (mdHeading, bool) {
	i := sort.Search(len(st.headings), func(i int) bool { return st.headings[i].start >= pos })
	if i < len(st.headings) && st.headings[i].start == pos {
		return st.headings[i], true
	}
	return mdHeading{}, false
}

// inCode reports whether the line starting at pos lies inside fenced code.
func (st mdStructure) inCode(pos int) bool {
	i := sort.Search(len(st.code), func(i int) bool { return st.code[i][0] > pos }) - 1
	return i >= 0 && pos < st.code[i][1]
}
