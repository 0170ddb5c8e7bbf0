package ingest

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// section is a stretch of text that no chunk may cross, with the heading path it sits under.
type section struct {
	start, end int
	heading    string
}

// layout is what the chunker needs to know about a text's structure: its sections, the blank
// lines where paragraphs may be cut apart, and (for Markdown) the first H1 as a title.
type layout struct {
	sections []section
	breaks   []int // byte offsets of blank lines, ascending
	title    string
	// For Markdown: the YAML between the front matter's fences (hasFront says there is
	// any), and the code spans where links and tags are not read (mdStructure.verbatim).
	front    [2]int
	hasFront bool
	verbatim [][2]int
	// lineCuts cuts a paragraph that is too long at a line end before a sentence end, and
	// starts its overlap at a line: in code, a full stop in a comment is no seam, and a
	// chunk that starts mid-statement reads badly.
	lineCuts bool
}

// SplitChunks cuts text into chunks of at most lim.ChunkMaxRunes runes. format "markdown"
// starts a new section at every heading (ATX or setext, as CommonMark reads them, so never
// inside code); any other format is read as plain paragraphs. Parse gives HTML chunks their
// heading paths too, but the extracted text alone no longer shows where the headings were,
// so SplitChunks cannot.
//
// text is expected to be valid UTF-8 (Parse guarantees it); other bytes are kept as they are
// so that every chunk still satisfies Text == strings.TrimSpace(text[ByteStart:ByteEnd]).
func SplitChunks(text, format string, lim Limits) []Chunk {
	return chunkLayout(text, scanLayout(text, format == "markdown"), lim)
}

// scanLayout finds paragraph breaks and, for Markdown, heading sections and the title.
func scanLayout(text string, markdown bool) layout {
	var (
		lay          layout
		md           mdStructure
		path         [6]string
		cur          section
		headingEnd   = -1 // start of the last line of the heading being read
		afterHeading bool
	)
	start := 0
	if markdown {
		src := text
		if inner, block, ok := frontMatterSpan(text); ok {
			// The properties are a section of their own, fences and all (every byte of the
			// text is in some chunk), and CommonMark must not see them: it reads
			// "---\ntitle: x\n---" as a rule over a setext heading "title: x". Blanking
			// them keeps every offset where it was.
			lay.front, lay.hasFront, start = inner, true, block
			lay.sections = append(lay.sections, section{start: 0, end: block, heading: propertiesHeading})
			src = blankOut(text, block)
		}
		md = parseMarkdown(src)
		lay.verbatim = md.verbatim
	}
	cur.start = start
	for pos := start; pos < len(text); {
		lineEnd := strings.IndexByte(text[pos:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += pos
		}
		blank := strings.TrimSpace(text[pos:lineEnd]) == ""
		h, isHeading := md.headingAt(pos)
		switch {
		case isHeading:
			path[h.level-1] = h.text
			clear(path[h.level:])
			if h.level == 1 && lay.title == "" {
				lay.title = h.text
			}
			cur.end = pos
			lay.sections = append(lay.sections, cur)
			cur = section{start: pos, heading: joinHeadings(path[:h.level])}
			headingEnd = h.lastLine
		case blank && !afterHeading && !md.inCode(pos):
			lay.breaks = append(lay.breaks, pos)
		}
		// The blank lines right after a heading are no break, so a heading never ends up as a
		// chunk of its own when the paragraph under it is too long to join it whole.
		afterHeading = (afterHeading && blank) || pos == headingEnd
		pos = lineEnd + 1
	}
	cur.end = len(text)
	lay.sections = append(lay.sections, cur)
	return lay
}

// blankOut returns text with its first n bytes turned to spaces, line breaks kept.
func blankOut(text string, n int) string {
	b := []byte(text)
	for i := range b[:n] {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func joinHeadings(path []string) string {
	var parts []string
	for _, p := range path {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " > ")
}

// chunkLayout cuts every section into chunks. Inside a section a chunk ends, in order of
// preference, at the last paragraph break, sentence end, line break or space that keeps it
// within the cap, and otherwise at the cap itself. Only a cut inside a paragraph carries
// overlap into the next chunk: a paragraph break is already a natural seam, and repeating
// text across it would only duplicate search hits.
func chunkLayout(text string, lay layout, lim Limits) []Chunk {
	lim = lim.withDefaults()
	maxRunes := lim.ChunkMaxRunes
	// Overlap above half the cap would make each chunk mostly a repeat of the previous one.
	overlap := min(max(lim.ChunkOverlapRunes, 0), maxRunes/2)
	lines := newlineIndex(text)
	var chunks []Chunk
	for _, sec := range lay.sections {
		s, prevEnd := sec.start, sec.start
		for {
			// fresh is the first text no chunk holds yet. Cuts are only looked for beyond
			// it, or the next chunk could be one the last already covered.
			s = skipSpace(text, s, sec.end)
			fresh := skipSpace(text, prevEnd, sec.end)
			if fresh == sec.end {
				break
			}
			limit := advanceRunes(text, s, sec.end, maxRunes)
			if limit <= fresh { // the overlap would leave no room for anything new
				s, limit = fresh, advanceRunes(text, fresh, sec.end, maxRunes)
			}
			e, inParagraph := sec.end, false
			if limit < sec.end {
				if b := lastBreak(lay.breaks, fresh, limit); b > 0 {
					e = b
				} else {
					e, inParagraph = lastCut(text, fresh, limit, sec.end, lay.lineCuts), true
				}
			}
			end := s + len(strings.TrimRightFunc(text[s:e], unicode.IsSpace))
			chunks = append(chunks, Chunk{
				Ordinal:   len(chunks),
				Text:      text[s:end],
				Heading:   sec.heading,
				ByteStart: s,
				ByteEnd:   end,
				LineStart: 1 + sort.SearchInts(lines, s),
				LineEnd:   1 + sort.SearchInts(lines, end),
			})
			prevEnd, s = e, e
			if inParagraph {
				s = overlapStart(text, chunks[len(chunks)-1].ByteStart, e, overlap, lay.lineCuts)
			}
		}
	}
	return chunks
}

func newlineIndex(text string) []int {
	var idx []int
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

func skipSpace(text string, pos, end int) int {
	return end - len(strings.TrimLeftFunc(text[pos:end], unicode.IsSpace))
}

// advanceRunes returns the offset n runes after pos, or end if the text runs out first.
func advanceRunes(text string, pos, end, n int) int {
	for ; n > 0 && pos < end; n-- {
		_, size := utf8.DecodeRuneInString(text[pos:end])
		pos += size
	}
	return pos
}

// lastBreak returns the last paragraph break in (from, limit], or 0 if there is none.
func lastBreak(breaks []int, from, limit int) int {
	i := sort.SearchInts(breaks, limit+1) - 1
	if i >= 0 && breaks[i] > from {
		return breaks[i]
	}
	return 0
}

// lastCut picks where to end a chunk inside a paragraph: the last sentence end, else line
// break, else space in (from, limit], else limit itself, which is always a rune boundary.
// With lines, a line break comes before a sentence end.
func lastCut(text string, from, limit, end int, lines bool) int {
	if i := strings.LastIndexByte(text[from:limit], '\n'); lines && i > 0 {
		return from + i
	}
	sentence := 0
	for pos := from; pos < limit; {
		r, size := utf8.DecodeRuneInString(text[pos:limit])
		pos += size
		if endsSentence(text, r, pos, end) {
			sentence = pos
		}
	}
	if sentence > 0 {
		return sentence
	}
	if i := strings.LastIndexByte(text[from:limit], '\n'); i > 0 {
		return from + i
	}
	if i := strings.LastIndexFunc(text[from:limit], unicode.IsSpace); i > 0 {
		return from + i
	}
	return limit
}

// endsSentence reports whether rune r, which ends at pos, closes a sentence. CJK full stops
// always do, since CJK text puts no space after them; ASCII ones only before a space or the
// end, so "3.14" and "go.mod" stay whole.
func endsSentence(text string, r rune, pos, end int) bool {
	switch r {
	case '。', '！', '？', '；':
		return true
	case '.', '!', '?', ';':
		if pos >= end {
			return true
		}
		next, _ := utf8.DecodeRuneInString(text[pos:end])
		return unicode.IsSpace(next)
	}
	return false
}

// overlapStart returns where the chunk after [s, e) should start so that it repeats up to
// overlap runes of it, preferring to begin at a sentence, then a word. The overlap is at most
// half the chunk so that the next start always moves forward. With lines, it begins at a
// line if one starts in the overlap.
func overlapStart(text string, s, e, overlap int, lines bool) int {
	n := min(overlap, utf8.RuneCountInString(text[s:e])/2)
	if n == 0 {
		return e
	}
	q := e
	for ; n > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(text[s:q])
		q -= size
	}
	if i := strings.IndexByte(text[q:e], '\n'); lines && i >= 0 && q+i+1 < e {
		return q + i + 1
	}
	for pos := q; pos < e; {
		r, size := utf8.DecodeRuneInString(text[pos:e])
		pos += size
		if pos < e && endsSentence(text, r, pos, len(text)) {
			return pos
		}
	}
	if i := strings.IndexFunc(text[q:e], unicode.IsSpace); i >= 0 {
		return q + i
	}
	return q
}
