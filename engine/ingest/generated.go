package ingest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A generated file (a Sphinx searchindex.js, a minified stylesheet or script, a source map,
// a JSON dump) is text, but not prose: chunks of it match any word it indexes ("python" hits
// searchindex.js) and read as noise. It is told by its shape, whatever its name: most of it
// is in long lines, which people do not write in code, and those lines are code-shaped. Prose
// with long lines (Markdown written a paragraph per line, Chinese without a space in 2,000
// characters) has the long lines but not the shape.
//
// Code-shaped is either of two things. Code punctuation, the marks prose does without
// ({}[]=<>/;...; not the commas, colons, quotes and brackets that Chinese typed with ASCII
// punctuation is full of): 6% and more in the 28 generated files of /usr/share/doc, at most
// 2.6% in 742 files of English and Chinese prose, ASCII-punctuated Chinese among them. Or
// ASCII run together without spaces, as in a source map's mappings or a base64 blob:
// English has a space every six characters, and Chinese, which has none, is not ASCII.
const (
	// generatedLineBytes is the line length, in bytes, from which a line counts as long: a
	// few lines of hand-written code reach it, a minified file is made of them.
	generatedLineBytes = 500
	// generatedSyntaxShare is the share of code punctuation among the long lines' non-space
	// characters from which they are code.
	generatedSyntaxShare = 0.045
	// generatedSpaceShare is the share of spaces under which long ASCII lines are run
	// together.
	generatedSpaceShare = 0.02
)

// codePunctuation is what code and data put between their tokens and prose does not use.
const codePunctuation = `{}[]=<>/\|&+*#$%^~@;` + "`"

// generatedShape measures the long lines of a text, as generatedReason judges it.
type generatedShape struct {
	bytes, longBytes int // all bytes, and those in long lines
	// In long lines: characters, white space among them, code punctuation, and ASCII
	// characters other than white space.
	chars, spaces, syntax, ascii int
	longLines, maxLine           int
}

func measureShape(text string) generatedShape {
	s := generatedShape{bytes: len(text)}
	for line := range strings.Lines(text) {
		s.maxLine = max(s.maxLine, len(line))
		if len(line) < generatedLineBytes {
			continue
		}
		s.longLines++
		s.longBytes += len(line)
		for _, r := range line {
			s.chars++
			switch {
			case unicode.IsSpace(r):
				s.spaces++
			case r >= utf8.RuneSelf:
			case strings.ContainsRune(codePunctuation, r):
				s.syntax++
				s.ascii++
			default:
				s.ascii++
			}
		}
	}
	return s
}

// generatedReason says why text, read from a plain-text file, is generated or minified
// rather than written to be read, or returns "" for text to import.
func generatedReason(text string) string {
	s := measureShape(text)
	if s.longBytes == 0 || s.longBytes*2 < s.bytes || s.chars == s.spaces {
		return ""
	}
	nonSpace := float64(s.chars - s.spaces)
	var shape string
	switch {
	case float64(s.syntax) >= generatedSyntaxShare*nonSpace:
		shape = fmt.Sprintf("%.0f%% code punctuation", 100*float64(s.syntax)/nonSpace)
	case float64(s.spaces) < generatedSpaceShare*float64(s.chars) && float64(s.ascii) >= 0.9*nonSpace:
		shape = "ASCII without spaces"
	default:
		return ""
	}
	if s.longLines == 1 {
		return fmt.Sprintf("%d%% of it in one line of %d bytes, %s", 100*s.longBytes/s.bytes, s.maxLine, shape)
	}
	return fmt.Sprintf("%d%% of it in %d lines of %d bytes or more, %s", 100*s.longBytes/s.bytes, s.longLines, generatedLineBytes, shape)
}
