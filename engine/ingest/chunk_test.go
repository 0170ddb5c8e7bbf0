package ingest

import (
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// noOverlap keeps the cut points of a case easy to read.
const noOverlap = -1

var splitCases = []struct {
	name   string
	text   string
	format string
	lim    Limits
	want   []Chunk // ByteStart, ByteEnd and Ordinal are checked by checkChunks instead
}{
	{name: "empty", text: "", format: "text"},
	{name: "whitespace only", text: " \n\t\n  ", format: "markdown"},
	{
		name: "one paragraph", text: "  Hello world.  \n", format: "text",
		want: []Chunk{{Text: "Hello world.", LineStart: 1, LineEnd: 1}},
	},
	{
		name: "paragraphs packed under the cap", text: "One.\n\nTwo.\n\nThree.", format: "text",
		want: []Chunk{{Text: "One.\n\nTwo.\n\nThree.", LineStart: 1, LineEnd: 5}},
	},
	{
		name: "paragraphs packed up to the cap", text: "One.\n\nTwo.\n\nThree.", format: "text",
		lim:  Limits{ChunkMaxRunes: 11},
		want: []Chunk{{Text: "One.\n\nTwo.", LineStart: 1, LineEnd: 3}, {Text: "Three.", LineStart: 5, LineEnd: 5}},
	},
	{
		name: "paragraphs never overlap", text: "One.\n\nTwo.\n\nThree.", format: "text",
		lim: Limits{ChunkMaxRunes: 8, ChunkOverlapRunes: 4},
		want: []Chunk{
			{Text: "One.", LineStart: 1, LineEnd: 1},
			{Text: "Two.", LineStart: 3, LineEnd: 3},
			{Text: "Three.", LineStart: 5, LineEnd: 5},
		},
	},
	{
		name: "markdown headings start sections", format: "markdown",
		text: "# A\n\nintro\n\n## B\n\nbody b\n\n### C\ntext c\n\n## D\n\nd\n",
		want: []Chunk{
			{Text: "# A\n\nintro", Heading: "A", LineStart: 1, LineEnd: 3},
			{Text: "## B\n\nbody b", Heading: "A > B", LineStart: 5, LineEnd: 7},
			{Text: "### C\ntext c", Heading: "A > B > C", LineStart: 9, LineEnd: 10},
			{Text: "## D\n\nd", Heading: "A > D", LineStart: 12, LineEnd: 14},
		},
	},
	{
		name: "text before the first heading has no heading", format: "markdown",
		text: "preface\n# Title #\nbody",
		want: []Chunk{
			{Text: "preface", LineStart: 1, LineEnd: 1},
			{Text: "# Title #\nbody", Heading: "Title", LineStart: 2, LineEnd: 3},
		},
	},
	{
		name: "skipped heading levels", format: "markdown",
		text: "# A\n### C\nx",
		want: []Chunk{
			{Text: "# A", Heading: "A", LineStart: 1, LineEnd: 1},
			{Text: "### C\nx", Heading: "A > C", LineStart: 2, LineEnd: 3},
		},
	},
	{
		name: "hashtags and seven hashes are not headings", format: "markdown",
		text: "#hashtag\n####### seven\nmore",
		want: []Chunk{{Text: "#hashtag\n####### seven\nmore", LineStart: 1, LineEnd: 3}},
	},
	{
		name: "headings only in markdown", format: "text",
		text: "# A\n\nb",
		want: []Chunk{{Text: "# A\n\nb", LineStart: 1, LineEnd: 3}},
	},
	{
		name: "fenced code hides headings and blank lines", format: "markdown",
		text: "# Guide\n\n```sh\n# comment\n\necho hi\n```\n\n## Next\nok",
		lim:  Limits{ChunkMaxRunes: 40},
		want: []Chunk{
			{Text: "# Guide\n\n```sh\n# comment\n\necho hi\n```", Heading: "Guide", LineStart: 1, LineEnd: 7},
			{Text: "## Next\nok", Heading: "Guide > Next", LineStart: 9, LineEnd: 10},
		},
	},
	{
		name: "tilde fence closed only by a long enough fence", format: "markdown",
		text: "~~~~\n# in\n~~~\n# still in\n~~~~\n# out",
		want: []Chunk{
			{Text: "~~~~\n# in\n~~~\n# still in\n~~~~", LineStart: 1, LineEnd: 5},
			{Text: "# out", Heading: "out", LineStart: 6, LineEnd: 6},
		},
	},
	{
		name: "backticks in the info string make no fence", format: "markdown",
		text: "``` not `a` fence\n# Real",
		want: []Chunk{
			{Text: "``` not `a` fence", LineStart: 1, LineEnd: 1},
			{Text: "# Real", Heading: "Real", LineStart: 2, LineEnd: 2},
		},
	},
	{
		name: "setext headings", format: "markdown",
		text: "Install\n=======\n\nintro\n\nDebian\n------\n\napt install memdesk\n",
		want: []Chunk{
			{Text: "Install\n=======\n\nintro", Heading: "Install", LineStart: 1, LineEnd: 4},
			{Text: "Debian\n------\n\napt install memdesk", Heading: "Install > Debian", LineStart: 6, LineEnd: 9},
		},
	},
	{
		name: "indented code hides headings", format: "markdown",
		text: "# Build\n\n    # not a heading\n    make\n\n## Test\nok",
		want: []Chunk{
			{Text: "# Build\n\n    # not a heading\n    make", Heading: "Build", LineStart: 1, LineEnd: 4},
			{Text: "## Test\nok", Heading: "Build > Test", LineStart: 6, LineEnd: 7},
		},
	},
	{
		name: "heading text without its markup", format: "markdown",
		text: "# Install `memdesk` on *Debian* ##\nbody",
		want: []Chunk{{Text: "# Install `memdesk` on *Debian* ##\nbody", Heading: "Install memdesk on Debian", LineStart: 1, LineEnd: 2}},
	},
	{
		name: "quoted and escaped hashes are not headings", format: "markdown",
		text: "> # quoted\n\n\\# escaped\n\n<div>\n# in html\n</div>",
		want: []Chunk{{Text: "> # quoted\n\n\\# escaped\n\n<div>\n# in html\n</div>", LineStart: 1, LineEnd: 7}},
	},
	{
		name: "unclosed fence runs to the end", format: "markdown",
		text: "```\n# not a heading",
		want: []Chunk{{Text: "```\n# not a heading", LineStart: 1, LineEnd: 2}},
	},
	{
		name: "heading stays with a long paragraph", format: "markdown",
		text: "## Big\n\nOne two three. Four five six.",
		lim:  Limits{ChunkMaxRunes: 30, ChunkOverlapRunes: noOverlap},
		want: []Chunk{
			{Text: "## Big\n\nOne two three.", Heading: "Big", LineStart: 1, LineEnd: 3},
			{Text: "Four five six.", Heading: "Big", LineStart: 3, LineEnd: 3},
		},
	},
	{
		name: "long paragraph cut at sentences with overlap", format: "text",
		text: "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu.",
		lim:  Limits{ChunkMaxRunes: 40, ChunkOverlapRunes: 20},
		want: []Chunk{
			{Text: "Alpha beta gamma. Delta epsilon zeta.", LineStart: 1, LineEnd: 1},
			{Text: "epsilon zeta. Eta theta iota.", LineStart: 1, LineEnd: 1},
			{Text: "theta iota. Kappa lambda mu.", LineStart: 1, LineEnd: 1},
		},
	},
	{
		name: "overlap starts at a sentence when one is in reach", format: "text",
		text: "Aa. Bb. Cc. Dd. Ee. Ff.",
		lim:  Limits{ChunkMaxRunes: 12, ChunkOverlapRunes: 5},
		want: []Chunk{
			{Text: "Aa. Bb. Cc.", LineStart: 1, LineEnd: 1},
			{Text: "Cc. Dd. Ee.", LineStart: 1, LineEnd: 1},
			{Text: "Ee. Ff.", LineStart: 1, LineEnd: 1},
		},
	},
	{
		name: "a dot inside a number ends no sentence", format: "text",
		text: "Version 3.14 is out. Update now.",
		lim:  Limits{ChunkMaxRunes: 25, ChunkOverlapRunes: noOverlap},
		want: []Chunk{{Text: "Version 3.14 is out.", LineStart: 1, LineEnd: 1}, {Text: "Update now.", LineStart: 1, LineEnd: 1}},
	},
	{
		name: "long sentence cut at a space", format: "text",
		text: "aaaa bbbb cccc dddd eeee",
		lim:  Limits{ChunkMaxRunes: 10, ChunkOverlapRunes: noOverlap},
		want: []Chunk{
			{Text: "aaaa bbbb", LineStart: 1, LineEnd: 1},
			{Text: "cccc dddd", LineStart: 1, LineEnd: 1},
			{Text: "eeee", LineStart: 1, LineEnd: 1},
		},
	},
	{
		name: "lines preferred to spaces", format: "text",
		text: "- one\n- two\n- three\n- four",
		lim:  Limits{ChunkMaxRunes: 12, ChunkOverlapRunes: noOverlap},
		want: []Chunk{
			{Text: "- one\n- two", LineStart: 1, LineEnd: 2},
			{Text: "- three", LineStart: 3, LineEnd: 3},
			{Text: "- four", LineStart: 4, LineEnd: 4},
		},
	},
	{
		name: "no spaces hard cut on rune boundaries", format: "text",
		text: "αβγδεζηθικλμ",
		lim:  Limits{ChunkMaxRunes: 5, ChunkOverlapRunes: noOverlap},
		want: []Chunk{
			{Text: "αβγδε", LineStart: 1, LineEnd: 1},
			{Text: "ζηθικ", LineStart: 1, LineEnd: 1},
			{Text: "λμ", LineStart: 1, LineEnd: 1},
		},
	},
	{
		name: "hard cut with overlap", format: "text",
		text: "abcdefghijklmnop",
		lim:  Limits{ChunkMaxRunes: 8, ChunkOverlapRunes: 3},
		want: []Chunk{
			{Text: "abcdefgh", LineStart: 1, LineEnd: 1},
			{Text: "fghijklm", LineStart: 1, LineEnd: 1},
			{Text: "klmnop", LineStart: 1, LineEnd: 1},
		},
	},
	{
		name: "cjk cut at full stops without spaces", format: "markdown",
		text: "老王喜欢简约风格。他每天早上六点起床；然后去公园跑步！你知道为什么吗？因为他想保持健康。",
		lim:  Limits{ChunkMaxRunes: 12, ChunkOverlapRunes: noOverlap},
		want: []Chunk{
			{Text: "老王喜欢简约风格。", LineStart: 1, LineEnd: 1},
			{Text: "他每天早上六点起床；", LineStart: 1, LineEnd: 1},
			{Text: "然后去公园跑步！", LineStart: 1, LineEnd: 1},
			{Text: "你知道为什么吗？", LineStart: 1, LineEnd: 1},
			{Text: "因为他想保持健康。", LineStart: 1, LineEnd: 1},
		},
	},
	{
		name: "cjk sentences packed", format: "text",
		text: "周三开会。周四休息。周五出差。",
		lim:  Limits{ChunkMaxRunes: 10, ChunkOverlapRunes: noOverlap},
		want: []Chunk{{Text: "周三开会。周四休息。", LineStart: 1, LineEnd: 1}, {Text: "周五出差。", LineStart: 1, LineEnd: 1}},
	},
	{
		name: "crlf and unicode spaces trimmed", format: "text",
		text: "\u00a0a\r\n\r\nb\u3000",
		lim:  Limits{ChunkMaxRunes: 2},
		want: []Chunk{{Text: "a", LineStart: 1, LineEnd: 1}, {Text: "b", LineStart: 3, LineEnd: 3}},
	},
	{
		name: "cap of one rune", format: "text",
		text: "ab c",
		lim:  Limits{ChunkMaxRunes: 1},
		want: []Chunk{{Text: "a", LineStart: 1, LineEnd: 1}, {Text: "b", LineStart: 1, LineEnd: 1}, {Text: "c", LineStart: 1, LineEnd: 1}},
	},
	{
		// Found by FuzzSplitChunks: the overlap chunk held nothing but text already covered.
		name: "overlap never repeats a chunk", format: "text",
		text: "00 ",
		lim:  Limits{ChunkMaxRunes: 2},
		want: []Chunk{{Text: "00", LineStart: 1, LineEnd: 1}},
	},
	{
		name: "invalid utf-8 kept in place", format: "text",
		text: "ab\xffcd",
		want: []Chunk{{Text: "ab\xffcd", LineStart: 1, LineEnd: 1}},
	},
}

func TestSplitChunks(t *testing.T) {
	for _, tc := range splitCases {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitChunks(tc.text, tc.format, tc.lim)
			checkChunks(t, tc.text, got, tc.lim)
			opt := cmpopts.IgnoreFields(Chunk{}, "Ordinal", "ByteStart", "ByteEnd")
			if diff := cmp.Diff(tc.want, got, opt, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("SplitChunks(%q) mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestSplitChunksDeterministic(t *testing.T) {
	text := strings.Repeat("Sentence one is here. 第二句话。\n", 200)
	lim := Limits{ChunkMaxRunes: 50, ChunkOverlapRunes: 10}
	first := SplitChunks(text, "markdown", lim)
	if diff := cmp.Diff(first, SplitChunks(text, "markdown", lim)); diff != "" {
		t.Errorf("second SplitChunks differs (-first +second):\n%s", diff)
	}
}

// checkChunks asserts what every chunking must hold: ordinals in order, exact and trimmed
// spans, consistent line numbers, the cap, and no text lost between chunks.
func checkChunks(t *testing.T, text string, chunks []Chunk, lim Limits) {
	t.Helper()
	maxRunes := lim.withDefaults().ChunkMaxRunes
	covered := 0
	pageOffsets := map[int]int{}
	for i, c := range chunks {
		if c.Ordinal != i {
			t.Errorf("chunk %d: Ordinal = %d", i, c.Ordinal)
		}
		if c.ByteStart < 0 || c.ByteEnd > len(text) || c.ByteStart >= c.ByteEnd {
			t.Fatalf("chunk %d: span [%d, %d) outside text of %d bytes or empty", i, c.ByteStart, c.ByteEnd, len(text))
		}
		span := text[c.ByteStart:c.ByteEnd]
		if c.Text != span || c.Text != strings.TrimSpace(span) {
			t.Errorf("chunk %d: Text %q, span %q: want equal and trimmed", i, c.Text, span)
		}
		if utf8.ValidString(text) && !utf8.ValidString(c.Text) {
			t.Errorf("chunk %d: Text %q is not valid UTF-8", i, c.Text)
		}
		if n := utf8.RuneCountInString(c.Text); n > maxRunes {
			t.Errorf("chunk %d: %d runes, over the cap of %d", i, n, maxRunes)
		}
		// A PDF chunk counts lines from the top of its page, which starts where the line
		// numbers of the whole text stand at a fixed offset for every chunk of that page.
		offset := 0
		if c.Page > 0 {
			offset = strings.Count(text[:c.ByteStart], "\n") + 1 - c.LineStart
			if prev, ok := pageOffsets[c.Page]; (ok && prev != offset) || offset < 0 {
				t.Errorf("chunk %d: LineStart %d on page %d does not count from the top of the page", i, c.LineStart, c.Page)
			}
			pageOffsets[c.Page] = offset
			if i > 0 && c.Page < chunks[i-1].Page {
				t.Errorf("chunk %d: page %d after page %d", i, c.Page, chunks[i-1].Page)
			}
			if strings.Contains(c.Text, "\n\n") {
				t.Errorf("chunk %d: Text %q crosses a page break", i, c.Text)
			}
		}
		if want := 1 + strings.Count(text[:c.ByteStart], "\n") - offset; c.LineStart != want {
			t.Errorf("chunk %d: LineStart = %d, want %d", i, c.LineStart, want)
		}
		if want := 1 + strings.Count(text[:c.ByteEnd], "\n") - offset; c.LineEnd != want {
			t.Errorf("chunk %d: LineEnd = %d, want %d", i, c.LineEnd, want)
		}
		if i > 0 && (c.ByteStart <= chunks[i-1].ByteStart || c.ByteEnd <= chunks[i-1].ByteEnd) {
			t.Errorf("chunk %d: span [%d, %d) does not move past chunk %d at [%d, %d)",
				i, c.ByteStart, c.ByteEnd, i-1, chunks[i-1].ByteStart, chunks[i-1].ByteEnd)
		}
		if gap := text[min(covered, c.ByteStart):c.ByteStart]; strings.TrimSpace(gap) != "" {
			t.Errorf("chunk %d: text %q before it is in no chunk", i, gap)
		}
		covered = max(covered, c.ByteEnd)
	}
	if rest := text[covered:]; strings.TrimFunc(rest, unicode.IsSpace) != "" {
		t.Errorf("text %q after the last chunk is in no chunk", rest)
	}
}

func FuzzSplitChunks(f *testing.F) {
	for _, tc := range splitCases {
		f.Add(tc.text, tc.format == "markdown", tc.lim.ChunkMaxRunes, tc.lim.ChunkOverlapRunes)
	}
	f.Fuzz(func(t *testing.T, text string, markdown bool, maxRunes, overlap int) {
		// Small caps are where the cutting rules meet; huge ones only slow the fuzzer down.
		lim := Limits{ChunkMaxRunes: maxRunes % 300, ChunkOverlapRunes: overlap % 300}
		format := "text"
		if markdown {
			format = "markdown"
		}
		checkChunks(t, text, SplitChunks(text, format, lim), lim)
	})
}

func BenchmarkSplitChunks(b *testing.B) {
	notes, err := os.ReadFile("testdata/notes.md")
	if err != nil {
		b.Fatal(err)
	}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40) + "\n\n"
	text := strings.Repeat(string(notes)+prose, 100)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		SplitChunks(text, "markdown", Limits{})
	}
}
