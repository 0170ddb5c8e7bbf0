package entity

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Reading a query by the store's vocabulary. A stored text's entities come from the
// Extractor, whose models take a second or more to load; a query's come from the names the
// store already holds, found where the query spells them. That needs nothing loaded, so a
// one-shot CLI, an agent's first call and the window give a question the same entities, and
// a query can only name what some text was found to be about.

// maxQueryNameRunes bounds the CJK names looked for in a query: the extractor keeps the
// segmenter's dictionary words and loanwords, nearly all shorter than this.
const maxQueryNameRunes = 8

// Span is a piece of a query that could be a stored entity name: the name as Normalize
// writes it, and where the piece lies, in bytes of the query as Spans read it.
type Span struct {
	Name     string
	From, To int
}

// Spans lists the pieces of a query that could be stored entity names: each word-like token
// of Latin and other scripts (as it is, without a possessive 's, an acronym's plural s
// without it), and each run of 2 to maxQueryNameRunes characters inside a Chinese, Japanese or
// Korean run. A name is looked up once however often the query spells it (at its first place).
// Spans is pure and never fails; what it reads is bounded as Extract's input is.
func Spans(query string) []Span {
	text := prepare(query)
	var out []Span
	seen := map[string]bool{}
	add := func(name string, from, to int) {
		name = Normalize(name)
		if name == "" || utf8.RuneCountInString(name) > maxEntityRunes || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, Span{Name: name, From: from, To: to})
	}
	at := 0
	for run := range scriptRuns(text) {
		switch run.script {
		case scriptOther:
			latinSpans(run.text, at, add)
		default:
			cjkSpans(run.text, at, add)
		}
		at += len(run.text)
	}
	return out
}

// latinSpans offers each token of a non-CJK run, and the forms the extractor would have
// stored it under (Alice's -> Alice, APIs -> API).
func latinSpans(run string, at int, add func(string, int, int)) {
	for start, end := range tokens(run) {
		tok := strings.ReplaceAll(run[start:end], "’", "'")
		if utf8.RuneCountInString(tok) < 2 {
			continue
		}
		add(tok, at+start, at+end)
		if base, ok := strings.CutSuffix(tok, "'s"); ok {
			add(base, at+start, at+end)
		} else if base, ok := strings.CutSuffix(tok, "'S"); ok {
			add(base, at+start, at+end)
		}
		if shapeOf(tok).acronymPlural {
			add(tok[:len(tok)-1], at+start, at+end)
		}
	}
}

// cjkSpans offers every piece of 2 to maxQueryNameRunes characters of a CJK run.
func cjkSpans(run string, at int, add func(string, int, int)) {
	var starts []int
	for i := range run {
		starts = append(starts, i)
	}
	starts = append(starts, len(run))
	chars := len(starts) - 1
	for i := 0; i < chars; i++ {
		for n := 2; n <= maxQueryNameRunes && i+n <= chars; n++ {
			add(run[starts[i]:starts[i+n]], at+starts[i], at+starts[i+n])
		}
	}
}

// Known returns the names of the spans that known holds, in query order, leaving out a name
// whose every place lies inside a longer known name's (花生 inside 花生油, go inside go-sqlite3
// is no piece Spans offers): the query names the longer one.
func Known(spans []Span, known func(name string) bool) []string {
	var hits []Span
	for _, s := range spans {
		if known(s.Name) {
			hits = append(hits, s)
		}
	}
	var out []string
	for _, s := range hits {
		inside := slices.ContainsFunc(hits, func(o Span) bool {
			return o.From <= s.From && s.To <= o.To && o.To-o.From > s.To-s.From
		})
		if !inside {
			out = append(out, s.Name)
		}
	}
	return out
}
