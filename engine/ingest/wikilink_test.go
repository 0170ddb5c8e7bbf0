package ingest

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var frontMatterCases = []struct {
	name, data string
	want       Document // Title, Dated, Tags and Aliases are compared
	// wantHeadings are the chunks' headings, "" for none.
	wantHeadings []string
}{
	{
		name: "title, list tags, aliases and a created time",
		data: "---\ntitle: Memdesk 项目\ntags: [project, memdesk]\naliases:\n  - MD\n  - 记忆桌面\ncreated: 2024-05-01T09:30\n---\n# Heading One\n\nBody #inline-tag text.\n",
		want: Document{Title: "Memdesk 项目", Dated: time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC),
			Tags: []string{"project", "memdesk", "inline-tag"}, Aliases: []string{"MD", "记忆桌面"}},
		wantHeadings: []string{"Properties", "Heading One"},
	},
	{
		name:         "no title property: the first H1 stays the title",
		data:         "---\ntags: a, b c\ndate: 2023-12-31\n---\n\n# 读书笔记\n\n正文。",
		want:         Document{Title: "读书笔记", Dated: time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC), Tags: []string{"a", "b", "c"}},
		wantHeadings: []string{"Properties", "读书笔记"},
	},
	{
		name: "created wins over updated; a zone is kept; #tags and duplicates fold",
		data: "---\nupdated: 2024-06-01\ncreated: 2024-05-01 10:00:00 +08:00\ntags:\n  - \"#Alpha\"\n  - alpha\n---\ntext #Alpha",
		want: Document{Title: "note", Dated: time.Date(2024, 5, 1, 10, 0, 0, 0, time.FixedZone("", 8*3600)),
			Tags: []string{"Alpha"}},
		wantHeadings: []string{"Properties", ""},
	},
	{
		name:         "rule over a setext heading is not front matter",
		data:         "---\nIntro\n---\ntext",
		want:         Document{Title: "note"},
		wantHeadings: []string{"", "Intro"},
	},
	{
		name:         "broken YAML is still properties, without fields",
		data:         "---\ntitle: a: b\n---\n# Real\n\ntext",
		want:         Document{Title: "Real"},
		wantHeadings: []string{"Properties", "Real"},
	},
	{
		name:         "unclosed front matter is text",
		data:         "---\ntitle: x\n\nbody",
		want:         Document{Title: "note"},
		wantHeadings: []string{""},
	},
	{
		name:         "empty properties",
		data:         "---\n---\nbody",
		want:         Document{Title: "note"},
		wantHeadings: []string{"Properties", ""},
	},
	{
		name:         "a mapping where a list belongs is left out; an unreadable date too",
		data:         "---\ntags:\n  a: 1\naliases: One, Two\ndate: yesterday\n---\nbody",
		want:         Document{Title: "note", Aliases: []string{"One", "Two"}},
		wantHeadings: []string{"Properties", ""},
	},
	{
		name:         "a tag's # and the space after it go; # alone is no tag",
		data:         "---\ntags: [\"# a\", \"#\", \" \"]\n---\nbody",
		want:         Document{Title: "note", Tags: []string{"a"}},
		wantHeadings: []string{"Properties", ""},
	},
	{
		name:         "tags in code, headings, issue numbers and C# are not tags",
		data:         "# Title\n\nC# and #12 and `#code`\n\n    #indented\n\n```\n#fenced\n```\n\n#中文标签 and #a/b",
		want:         Document{Title: "Title", Tags: []string{"中文标签", "a/b"}},
		wantHeadings: []string{"Title"},
	},
}

func TestMarkdownFrontMatter(t *testing.T) {
	for _, tc := range frontMatterCases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse("vault/note.md", []byte(tc.data), Limits{})
			if err != nil {
				t.Fatalf("Parse error: %v", err)
			}
			checkChunks(t, doc.Text, doc.Chunks, Limits{})
			got := Document{Title: doc.Title, Dated: doc.Dated, Tags: doc.Tags, Aliases: doc.Aliases}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fields mismatch (-want +got):\n%s", diff)
			}
			var headings []string
			for _, c := range doc.Chunks {
				headings = append(headings, c.Heading)
			}
			if diff := cmp.Diff(tc.wantHeadings, headings); diff != "" {
				t.Errorf("headings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

var wikiLinkCases = []struct {
	name, text string
	want       []Link // ByteStart and ByteEnd are checked against wantText
	wantText   []string
}{
	{
		name: "plain, path, heading, label and embed",
		text: "See [[Memdesk]], [[Projects/Memdesk#Roadmap|路线图]]\nand ![[diagram.png]].",
		want: []Link{
			{Target: "Memdesk", Line: 1},
			{Target: "Projects/Memdesk", Heading: "Roadmap", Label: "路线图", Line: 1},
			{Target: "diagram.png", Embed: true, Line: 2},
		},
		wantText: []string{"[[Memdesk]]", "[[Projects/Memdesk#Roadmap|路线图]]", "![[diagram.png]]"},
	},
	{
		name: "block references, nested headings, .md and the note itself",
		text: "[[Note#^abc123]] [[Note^def]] [[Note#Part#Section]] [[Note.md]] [[#本节]]",
		want: []Link{
			{Target: "Note", Block: "abc123", Line: 1},
			{Target: "Note", Block: "def", Line: 1},
			{Target: "Note", Heading: "Section", Line: 1},
			{Target: "Note", Line: 1},
			{Heading: "本节", Line: 1},
		},
		wantText: []string{"[[Note#^abc123]]", "[[Note^def]]", "[[Note#Part#Section]]", "[[Note.md]]", "[[#本节]]"},
	},
	{
		name:     "escaped pipe in a table cell",
		text:     "| a | [[读书笔记\\|笔记]] |",
		want:     []Link{{Target: "读书笔记", Label: "笔记", Line: 1}},
		wantText: []string{"[[读书笔记\\|笔记]]"},
	},
	{
		name:     "not links: code, broken lines, empty, brackets inside",
		text:     "`[[code]]`\n\n```\n[[fenced]]\n```\n\n    [[indented]]\n\n[[a\nb]] [[]] [[ ]] [[a]b]] [[x",
		want:     nil,
		wantText: nil,
	},
	{
		name:     "third bracket",
		text:     "x [[[Note]]] y\n\n中文[[笔记]]",
		want:     []Link{{Target: "Note", Line: 1}, {Target: "笔记", Line: 3}},
		wantText: []string{"[[Note]]", "[[笔记]]"},
	},
}

func TestWikiLinks(t *testing.T) {
	for _, tc := range wikiLinkCases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse("vault/note.md", []byte(tc.text), Limits{})
			if err != nil {
				t.Fatalf("Parse error: %v", err)
			}
			var texts []string
			got := make([]Link, 0, len(doc.Links))
			for _, l := range doc.Links {
				texts = append(texts, doc.Text[l.ByteStart:l.ByteEnd])
				l.ByteStart, l.ByteEnd = 0, 0
				got = append(got, l)
			}
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("links mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantText, texts); diff != "" {
				t.Errorf("link spans mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzMarkdownFields checks front matter, links and tags never panic and that every link's
// span and line point at a link in the text.
func FuzzMarkdownFields(f *testing.F) {
	for _, tc := range frontMatterCases {
		f.Add(tc.data)
	}
	for _, tc := range wikiLinkCases {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, data string) {
		doc, err := Parse("vault/fuzz.md", []byte(data), Limits{ChunkMaxRunes: 64})
		if err != nil {
			return
		}
		checkChunks(t, doc.Text, doc.Chunks, Limits{ChunkMaxRunes: 64})
		prevEnd := 0
		for _, l := range doc.Links {
			if l.ByteStart < prevEnd || l.ByteEnd > len(doc.Text) || l.ByteStart >= l.ByteEnd {
				t.Fatalf("link %+v out of order or outside the text (%d bytes)", l, len(doc.Text))
			}
			prevEnd = l.ByteEnd
			s := doc.Text[l.ByteStart:l.ByteEnd]
			if !strings.HasPrefix(strings.TrimPrefix(s, "!"), "[[") || !strings.HasSuffix(s, "]]") || !utf8.ValidString(s) {
				t.Fatalf("link span %q is not a link", s)
			}
			if want := 1 + strings.Count(doc.Text[:l.ByteStart], "\n"); l.Line != want {
				t.Fatalf("link %q on line %d, want %d", s, l.Line, want)
			}
		}
		for _, tag := range doc.Tags {
			if tag == "" || !utf8.ValidString(tag) {
				t.Fatalf("tag %q", tag)
			}
		}
	})
}

// FuzzFrontMatter feeds any text to the front matter reader directly (Parse refuses much
// of what a fuzzer makes as binary): no panic, a span inside the text, fields without
// stray space.
func FuzzFrontMatter(f *testing.F) {
	for _, tc := range frontMatterCases {
		f.Add(tc.data)
	}
	f.Add("---\na: &x [*x, *x]\nb: *x\n---\n")
	f.Add("---\ntags: !!binary aGVsbG8=\ndate: 2024-02-30\n---\n")
	f.Add("---\ntags: [\"# a\", \"#\"]\naliases: [\" \"]\n---\n")
	f.Fuzz(func(t *testing.T, text string) {
		inner, block, ok := frontMatterSpan(text)
		if !ok {
			return
		}
		if inner[0] < 4 || inner[0] > inner[1] || inner[1] > block || block > len(text) {
			t.Fatalf("span %v, block end %d, in %d bytes", inner, block, len(text))
		}
		fm := parseFrontMatter(text[inner[0]:inner[1]])
		if fm.title != strings.TrimSpace(fm.title) {
			t.Fatalf("title %q has space around it", fm.title)
		}
		for _, s := range append(fm.tags, fm.aliases...) {
			if s == "" || s != strings.TrimSpace(s) {
				t.Fatalf("tag or alias %q is empty or has space around it", s)
			}
		}
	})
}
