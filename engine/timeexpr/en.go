package timeexpr

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is a maximal run of word runes. word is its ASCII-lowercased text, or "" when it holds
// anything but ASCII letters and digits: such a token never matches, so case folding cannot
// change byte offsets (strings.EqualFold would let the Kelvin sign match "k").
type token struct {
	word       string
	start, end int
}

func tokenize(q string) []token {
	var toks []token
	start := -1
	for i, r := range q {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			toks = append(toks, newToken(q, start, i))
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, newToken(q, start, len(q)))
	}
	return toks
}

func newToken(q string, start, end int) token {
	w := q[start:end]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return token{start: start, end: end}
		}
	}
	return token{word: strings.ToLower(w), start: start, end: end}
}

// phraseReader reads the words of one phrase: consecutive tokens separated only by
// whitespace, so "last-week" and "last, week" are not "last week".
type phraseReader struct {
	q    string
	toks []token
	k    int // first token of the phrase
}

// word returns the j-th word of the phrase, or "" past its end. Callers read words in order,
// so checking the gap before j is enough.
func (r phraseReader) word(j int) string {
	i := r.k + j
	if i >= len(r.toks) || j > 0 && !r.joined(i-1) {
		return ""
	}
	return r.toks[i].word
}

func (r phraseReader) joined(i int) bool {
	if i < 0 || i+1 >= len(r.toks) {
		return false
	}
	gap := r.q[r.toks[i].end:r.toks[i+1].start]
	return gap != "" && strings.TrimFunc(gap, unicode.IsSpace) == ""
}

// matchEnglish matches an English expression starting at token k. A refused match is one the
// scanner must step over whole, so that "before the last week" does not leave "last week" to
// match on its own.
func matchEnglish(q string, toks []token, k int) (m match, ok bool) {
	r := phraseReader{q: q, toks: toks, k: k}
	n, p, ok := r.phrase()
	if !ok {
		return match{}, false
	}
	m = match{start: toks[k].start, end: toks[k+n-1].end, p: p}
	// "the last week of June" is a week of June; "before yesterday" is not yesterday.
	m.refused = r.word(n) == "of" || r.joined(k-1) && refusedAfter(toks[k-1].word) ||
		!cleanStart(q, m.start) || !cleanEnd(q, m.end)
	return m, true
}

func refusedAfter(w string) bool {
	switch w {
	case "before", "after", "until", "till", "than", "prior":
		return true
	}
	return false
}

// phrase returns how many words the expression at the reader's start takes and what it means.
func (r phraseReader) phrase() (n int, p period, ok bool) {
	switch r.word(0) {
	case "today", "tonight":
		return 1, period{unit: day}, true
	case "yesterday":
		return 1, period{unit: day, back: 1}, true
	case "recently", "lately":
		return 1, period{unit: day, back: recentDays, span: true}, true
	case "earlier":
		if r.word(1) == "today" {
			return 2, period{unit: day}, true
		}
	case "just":
		if r.word(1) == "now" {
			return 2, period{unit: hour, back: justNowHours, span: true}, true
		}
	case "this":
		switch r.word(1) {
		case "morning", "afternoon", "evening":
			return 2, period{unit: day}, true
		case "week":
			return 2, period{unit: week}, true
		case "month":
			return 2, period{unit: month}, true
		case "year":
			return 2, period{unit: year}, true
		}
	case "last":
		switch r.word(1) {
		case "night":
			// Late-night notes are written after midnight as often as before.
			return 2, period{unit: day, back: 1, span: true}, true
		case "week":
			return 2, period{unit: week, back: 1}, true
		case "month":
			return 2, period{unit: month, back: 1}, true
		case "year":
			return 2, period{unit: year, back: 1}, true
		}
		return r.span(1)
	case "past":
		return r.span(1)
	case "the":
		if r.word(1) == "last" || r.word(1) == "past" {
			return r.span(2)
		}
		if n, ok := r.dayBeforeYesterday(1); ok {
			return 1 + n, period{unit: day, back: 2}, true
		}
	case "day":
		if n, ok := r.dayBeforeYesterday(0); ok {
			return n, period{unit: day, back: 2}, true
		}
	case "since":
		inner := phraseReader{q: r.q, toks: r.toks, k: r.k + 1}
		if r.joined(r.k) {
			if n, p, ok := inner.phrase(); ok && !p.span {
				p.since = true
				return 1 + n, p, true
			}
		}
	case "in", "over", "during", "within", "for":
		inner := phraseReader{q: r.q, toks: r.toks, k: r.k + 1}
		switch r.word(1) {
		case "the", "last", "past":
			if n, p, ok := inner.phrase(); ok && p.span {
				return 1 + n, p, true
			}
		}
	}
	// N days/weeks/months/years ago
	if n, ok := englishNumber(r.word(0), true); ok {
		if u, ok := englishUnit(r.word(1)); ok && r.word(2) == "ago" && n <= maxBack(u) {
			return 3, period{unit: u, back: n}, true
		}
	}
	return 0, period{}, false
}

// span reads "[N] unit" at word j of "last/past/the last/the past": a window reaching back
// from today. Without N it is one unit: "the past week" is the last seven days.
func (r phraseReader) span(j int) (n int, p period, ok bool) {
	if u, ok := englishUnit(r.word(j)); ok {
		return j + 1, period{unit: u, back: 1, span: true}, true
	}
	count, ok := englishNumber(r.word(j), false)
	if !ok {
		return 0, period{}, false
	}
	u, ok := englishUnit(r.word(j + 1))
	if !ok || count > maxBack(u) {
		return 0, period{}, false
	}
	return j + 2, period{unit: u, back: count, span: true}, true
}

func (r phraseReader) dayBeforeYesterday(j int) (n int, ok bool) {
	if r.word(j) == "day" && r.word(j+1) == "before" && r.word(j+2) == "yesterday" {
		return 3, true
	}
	return 0, false
}

func englishUnit(w string) (unit, bool) {
	switch w {
	case "day", "days":
		return day, true
	case "week", "weeks":
		return week, true
	case "month", "months":
		return month, true
	case "year", "years":
		return year, true
	}
	return 0, false
}

// englishNumber reads a count of 1 or more: digits, or a word up to twelve; "a"/"an" only when
// article is true ("a week ago", but not "the last a week"). Vague counts ("a few", "several")
// are not numbers: their span is anyone's guess.
func englishNumber(w string, article bool) (int, bool) {
	words := [...]string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	for i, nw := range words {
		if w == nw {
			return i + 1, true
		}
	}
	if article && (w == "a" || w == "an") {
		return 1, true
	}
	if w == "" || len(w) > 4 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0, false
		}
		n = n*10 + int(w[i]-'0')
	}
	return n, n > 0
}

// cleanStart rejects a phrase glued to what comes before it: "re-today", "#today",
// "notes.today", "1.5 days", "1,5 days". "notes,yesterday" is only missing a space.
func cleanStart(q string, i int) bool {
	r, size := utf8.DecodeLastRuneInString(q[:i])
	if r == ',' {
		before, _ := utf8.DecodeLastRuneInString(q[:i-size])
		return digitValue(before) < 0 || digitValue(rune(q[i])) < 0
	}
	return size == 0 || !strings.ContainsRune(".-/'’@#$\\", r)
}

// cleanEnd rejects a phrase glued to what comes after it: "today-ish", "today.txt",
// "yesterday's" is fine.
func cleanEnd(q string, i int) bool {
	r, size := utf8.DecodeRuneInString(q[i:])
	switch {
	case size == 0:
		return true
	case strings.ContainsRune("-/@\\", r):
		return false
	case r == '.' || r == '\'' || r == '’':
		rest := q[i+size:]
		if !wordRuneAt(rest, 0) {
			return true
		}
		return r != '.' && (rest == "s" || strings.HasPrefix(rest, "s") && !wordRuneAt(rest, 1))
	}
	return true
}
