package ingest

import (
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Link is one [[wikilink]] or ![[embed]] in a Markdown document, as Obsidian writes them:
// [[Note]], [[Folder/Note]], [[Note#Heading]], [[Note#^block]], [[Note|shown text]].
type Link struct {
	// Target names the linked file as written, without a ".md" extension: "Projects/Memdesk",
	// "读书笔记", "diagram.png". "" links into the document itself ([[#Heading]]).
	Target string
	// Heading is the heading linked to, the last one of a nested [[Note#Part#Section]].
	Heading string
	// Block is the id of a block reference, "abc123" of [[Note#^abc123]].
	Block string
	// Label is the text the link shows in place of its target; "" when it has none.
	Label string
	// Embed is true for ![[...]], which shows the target in place rather than linking to it.
	Embed bool
	// ByteStart and ByteEnd span the whole link in Document.Text, "![[" or "[[" to "]]".
	ByteStart, ByteEnd int
	Line               int // 1-based line of ByteStart
}

// wikiLinks finds the wikilinks of Markdown text outside code (see verbatim) in order.
// A link never spans lines and holds no "[" or "]": Obsidian reads "[[a\nb]]" and "[[a]b]]"
// as plain text too.
func wikiLinks(text string, verbatim [][2]int) []Link {
	var links []Link
	line, lineFrom := 1, 0
	for pos := 0; ; {
		i := strings.Index(text[pos:], "[[")
		if i < 0 {
			break
		}
		open := pos + i
		// A failed try moves one byte on, so "[[[Note]]]" still finds the link at its second "[".
		pos = open + 1
		if insideAny(verbatim, open) {
			continue
		}
		end := strings.IndexAny(text[open+2:], "[]\n")
		if end < 0 || !strings.HasPrefix(text[open+2+end:], "]]") {
			continue
		}
		l, ok := parseWikiLink(text[open+2 : open+2+end])
		if !ok {
			continue
		}
		l.ByteStart, l.ByteEnd = open, open+2+end+2
		if open > 0 && text[open-1] == '!' && !insideAny(verbatim, open-1) {
			l.Embed, l.ByteStart = true, open-1
		}
		line += strings.Count(text[lineFrom:l.ByteStart], "\n")
		lineFrom = l.ByteStart
		l.Line = line
		links = append(links, l)
		pos = l.ByteEnd
	}
	return links
}

// parseWikiLink splits the inside of [[...]]: the target up to "#" or "|", then the
// heading or ^block, then the label after "|". A "\|" (how a link inside a table cell
// escapes its pipe) separates the label too.
func parseWikiLink(inner string) (Link, bool) {
	var l Link
	dest, label, hasLabel := strings.Cut(inner, "|")
	if hasLabel {
		dest = strings.TrimSuffix(dest, `\`)
		l.Label = strings.TrimSpace(label)
	}
	target, anchor, _ := strings.Cut(dest, "#")
	// [[Note^block]] without "#" is how some notes write a block reference too.
	if t, block, found := strings.Cut(target, "^"); found && anchor == "" {
		target, anchor = t, "^"+block
	}
	l.Target = strings.TrimSpace(target)
	if ext := path.Ext(l.Target); strings.EqualFold(ext, ".md") {
		l.Target = strings.TrimSpace(strings.TrimSuffix(l.Target, ext))
	}
	if parts := strings.Split(anchor, "#"); anchor != "" {
		last := strings.TrimSpace(parts[len(parts)-1])
		if b, ok := strings.CutPrefix(last, "^"); ok {
			l.Block = strings.TrimSpace(b)
		} else {
			l.Heading = last
		}
	}
	// "[[]]", "[[ ]]" and "[[#]]" link nowhere.
	return l, l.Target != "" || l.Heading != "" || l.Block != ""
}

// insideAny reports whether pos lies in one of spans, which are sorted by start and do not
// overlap.
func insideAny(spans [][2]int, pos int) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i][0] > pos }) - 1
	return i >= 0 && pos < spans[i][1]
}

// inlineTags finds the #tags of Markdown text outside code: "#" after a space or the start
// of a line, then letters, digits, "_", "-" and "/" with at least one that is not a digit, as
// Obsidian reads them ("#1" is an issue number, "# Title" a heading, "C#" a language).
func inlineTags(text string, verbatim [][2]int) []string {
	var tags []string
	for pos := 0; ; {
		i := strings.IndexByte(text[pos:], '#')
		if i < 0 {
			return tags
		}
		at := pos + i
		pos = at + 1
		if at > 0 {
			if prev, _ := utf8.DecodeLastRuneInString(text[:at]); !unicode.IsSpace(prev) {
				continue
			}
		}
		end, letter := pos, false
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-/", r) {
				break
			}
			letter = letter || !unicode.IsDigit(r)
			end += size
		}
		if letter && !insideAny(verbatim, at) {
			tags = appendUnique(tags, text[pos:end])
		}
		pos = end
	}
}

// markdownFields reads what a Markdown file says about itself beyond its text: the
// properties of its front matter (title, tags, aliases, date), its #tags and its wikilinks.
// A title property names the note over its first H1, as Obsidian shows it.
func markdownFields(doc *Document, lay layout) {
	// Front matter is blanked for CommonMark, so its "[[links]]" (Obsidian's link
	// properties) are found and its "#" comments are not tags.
	doc.Links = wikiLinks(doc.Text, lay.verbatim)
	body := lay.front[1]
	if lay.hasFront {
		fm := parseFrontMatter(doc.Text[lay.front[0]:lay.front[1]])
		if fm.title != "" {
			doc.Title = fm.title
		}
		doc.Tags, doc.Aliases, doc.Dated = fm.tags, fm.aliases, fm.dated
	}
	verbatim := append([][2]int{{0, body}}, lay.verbatim...)
	doc.Tags = appendUnique(doc.Tags, inlineTags(doc.Text, verbatim)...)
}
