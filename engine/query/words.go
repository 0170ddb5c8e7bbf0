package query

import (
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// WordsVersion identifies the IndexWords analysis. The word index is rebuilt when it changes.
const WordsVersion = 1

// IndexWords rewrites text for the word-level index, which FTS5 tokenizes with
// "porter unicode61": every CJK run becomes its overlapping character bigrams (a run of one
// character stays as it is), and everything else passes through for unicode61 to split and
// porter to stem. Character bigrams are what plain BM25 uses for Chinese; they need no
// dictionary, so the index is exact from the first write.
func IndexWords(text string) string {
	text = norm.NFC.String(strings.ToValidUTF8(text, " "))
	var b strings.Builder
	b.Grow(len(text) * 2)
	cjkStart := -1
	flush := func(end int) {
		if cjkStart < 0 {
			return
		}
		writeBigrams(&b, text[cjkStart:end])
		cjkStart = -1
	}
	for i, r := range text {
		if IsCJK(r) {
			if cjkStart < 0 {
				cjkStart = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(text))
	return b.String()
}

func writeBigrams(b *strings.Builder, run string) {
	b.WriteByte(' ')
	if utf8.RuneCountInString(run) == 1 {
		b.WriteString(run)
		b.WriteByte(' ')
		return
	}
	prevStart := 0
	_, prevSize := utf8.DecodeRuneInString(run)
	for i := prevSize; i < len(run); {
		_, size := utf8.DecodeRuneInString(run[i:])
		b.WriteString(run[prevStart : i+size])
		b.WriteByte(' ')
		prevStart, i = i, i+size
	}
}

// WordTerms are the query's terms for the word-level index: CJK bigrams (a lone CJK
// character as itself) and Latin words, lowercased, without English stopwords (they would
// make an OR query walk most of the index for nothing). Distinct, in order, capped at MaxTerms.
func WordTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] && len(out) < MaxTerms {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, run := range splitRuns(norm.NFC.String(strings.ToValidUTF8(q, " "))) {
		if run.cjk {
			rs := []rune(run.text)
			if len(rs) == 1 {
				add(run.text)
			}
			for i := 0; i+2 <= len(rs); i++ {
				add(string(rs[i : i+2]))
			}
			continue
		}
		w := strings.ToLower(run.text)
		if !stopwords[w] {
			add(w)
		}
	}
	return out
}

// Stem is the Porter2 stem of a lowercase English word; other words come back unchanged.
func Stem(word string) string {
	if len(word) < 4 || !isASCIIWord(word) {
		return word
	}
	return english.Stem(word, false)
}

func isASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// stopwords are English function words: frequent enough that matching them says nothing.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down
		during each few for from further had has have having he her here hers herself him himself
		his how i if in into is it its itself just me more most my myself no nor not now of off
		on once only or other our ours ourselves out over own same she should so some such than
		that the their theirs them themselves then there these they this those through to too
		under until up very was we were what when where which while who whom why will with would
		you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()
