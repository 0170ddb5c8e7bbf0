// Package query turns a person's query text into search terms and FTS5 MATCH expressions.
// It is pure: it never touches an index, so every rule here is a table test away.
//
// Terms follow what a trigram index can answer: every 3-character window of a CJK run, and
// Latin words (letters and digits, with inner '.', '-' or '_' kept for identifiers such as
// go-sqlite3 or 3.12) of 3 or more characters, lowercased. Anything shorter becomes a
// substring term, used only when the query has no trigram term at all.
package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/memdesk/memdesk/engine/analysis"
)

// MaxTerms caps the distinct terms taken from one query. A pasted page would otherwise make
// an OR of thousands of phrases; the first terms of a query carry its subject anyway.
const MaxTerms = 64

// Terms is what a query asks the lexical leg for.
type Terms struct {
	// Trigram holds the distinct FTS terms, in order of first appearance.
	Trigram []string
	// Short holds distinct CJK runs of 1-2 characters and Latin words of 2 characters: they
	// cannot be expressed in a trigram index and are matched as substrings.
	Short []string
}

// Empty reports whether the query had nothing searchable in it.
func (t Terms) Empty() bool { return len(t.Trigram) == 0 && len(t.Short) == 0 }

// Parse extracts the terms of a query. It never fails: text that is not valid UTF-8 has its
// bad bytes ignored, and text with nothing searchable yields empty Terms.
func Parse(text string) Terms {
	text = norm.NFC.String(strings.ToValidUTF8(text, " "))
	var t Terms
	seen := make(map[string]bool)
	add := func(list *[]string, term string) {
		if seen[term] || len(t.Trigram)+len(t.Short) >= MaxTerms {
			return
		}
		seen[term] = true
		*list = append(*list, term)
	}
	for _, run := range splitRuns(text) {
		n := utf8.RuneCountInString(run.text)
		switch {
		case run.cjk && n >= 3:
			rs := []rune(run.text)
			for i := 0; i+3 <= len(rs); i++ {
				add(&t.Trigram, string(rs[i:i+3]))
			}
		case run.cjk:
			add(&t.Short, run.text)
		case n >= 3:
			add(&t.Trigram, strings.ToLower(run.text))
		case n == 2:
			add(&t.Short, strings.ToLower(run.text))
		}
	}
	return t
}

type run struct {
	text       string
	cjk        bool
	start, end int // text's place in the string split, in bytes
}

// splitRuns cuts text into maximal CJK runs and Latin word runs; everything else separates.
func splitRuns(text string) []run {
	var runs []run
	start, kind := -1, 0 // kind: 1 = CJK, 2 = word
	flush := func(end int) {
		if start >= 0 {
			w := text[start:end]
			if kind == 2 {
				w = strings.TrimRight(w, "._-")
			}
			if w != "" {
				runs = append(runs, run{text: w, cjk: kind == 1, start: start, end: start + len(w)})
			}
		}
		start, kind = -1, 0
	}
	for i, r := range text {
		k := 0
		switch {
		case IsCJK(r):
			k = 1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			k = 2
		case (r == '.' || r == '-' || r == '_') && kind == 2:
			// Inside a word these join identifiers and versions; trailing ones are trimmed.
			continue
		}
		if k != kind {
			flush(i)
			if k != 0 {
				start, kind = i, k
			}
		}
	}
	flush(len(text))
	return runs
}

// IsCJK reports whether r is written without spaces between words: Han, kana or Hangul.
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// MatchExpr builds an FTS5 MATCH expression that ORs the terms as quoted strings. Quoting
// makes every character literal, so FTS5 operators in user text (AND, NEAR, *, -, ^, :,
// parentheses) are never parsed. It returns "" when there are no terms.
func MatchExpr(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// Matched returns the terms that occur in text, compared the way the trigram index compares
// (case-insensitively). Short Latin terms must stand as whole words, so "go" does not match
// "good"; short CJK terms match anywhere, since CJK has no word boundaries.
func Matched(text string, terms []string) []string {
	lower := strings.ToLower(text)
	var out []string
	for _, t := range terms {
		if t != "" && contains(lower, t) {
			out = append(out, t)
		}
	}
	return out
}

// AtWordStart reports whether term occurs in text where a word starts: as the word or as
// the start of a longer one ("shed" in "shedding", not in "established"). Compared as
// Matched compares.
func AtWordStart(text, term string) bool {
	lower := strings.ToLower(text)
	for from := 0; term != ""; {
		i := strings.Index(lower[from:], term)
		if i < 0 {
			return false
		}
		i += from
		if !wordRuneBefore(lower, i) {
			return true
		}
		from = i + 1
	}
	return false
}

func contains(lowerText, term string) bool {
	if utf8.RuneCountInString(term) >= 3 || isCJKString(term) {
		return strings.Contains(lowerText, term)
	}
	for from := 0; ; {
		i := strings.Index(lowerText[from:], term)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(term)
		if !wordRuneBefore(lowerText, i) && !wordRuneAfter(lowerText, end) {
			return true
		}
		from = i + 1
	}
}

func isCJKString(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return IsCJK(r)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func wordRuneBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r) && !IsCJK(r)
}

func wordRuneAfter(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r) && !IsCJK(r)
}

// TrigramExpr builds an FTS5 MATCH expression for a trigram index that keeps no positions:
// each term becomes the AND of its quoted 3-character windows (lowercased, as the index folds
// them), and the terms are ORed. What it matches holds every trigram of a term, not
// necessarily the term itself: check the text (Matched). Terms under 3 characters cannot be
// asked for and are left out; "" when none is left.
func TrigramExpr(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		rs := []rune(strings.ToLower(t))
		if len(rs) < 3 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('(')
		seen := map[string]bool{}
		first := true
		for i := 0; i+3 <= len(rs); i++ {
			g := string(rs[i : i+3])
			if seen[g] {
				continue
			}
			seen[g] = true
			if !first {
				b.WriteString(" AND ")
			}
			first = false
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(g, `"`, `""`))
			b.WriteByte('"')
		}
		b.WriteByte(')')
	}
	return b.String()
}

// IsCJKTerm reports whether a term is written in a CJK script.
func IsCJKTerm(t string) bool { return isCJKString(t) }

// SubstringText is text as the trigram index keeps it: what only a search for substrings
// can find. CJK runs go, since every CJK substring a query asks for is reached through the
// word index's bigrams first (the trigram fallback runs only when no text holds any of
// them, and then no text holds the substring either). Plain words that common says are
// ordinary language go too: the word index finds them whole and by their start, and a
// common word is never looked for inside a longer one. Identifiers, numbers and rarer
// words stay, so part of go-sqlite3, PostgreSQL or OPS-4242 is still found. A run that
// goes leaves one space, so no trigram spans the gap as if the words around it touched.
func SubstringText(text string, common func(word string) bool) string {
	var b strings.Builder
	b.Grow(len(text))
	copied := 0 // text before this is written (or dropped)
	// The runs are the ones a query is cut into (splitRuns), so a word here is a word there.
	for _, r := range splitRuns(text) {
		if !r.cjk && !(plainWord(r.text) && common(r.text)) {
			continue
		}
		b.WriteString(text[copied:r.start])
		if s := b.String(); s == "" || s[len(s)-1] != ' ' {
			b.WriteByte(' ')
		}
		end := r.end
		for end < len(text) && text[end] == ' ' {
			end++
		}
		copied = end
	}
	b.WriteString(text[copied:])
	return b.String()
}

// plainWord reports a word run without digits or joiners: not an identifier or a number.
func plainWord(w string) bool {
	return !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsDigit(r) || r == '.' || r == '-' || r == '_' })
}

// PrefixExpr builds an FTS5 MATCH expression for the word index that finds the words
// starting with one of terms: each Latin term folded as the index folds words, quoted, as a
// prefix ("backgr" *), ORed. CJK terms are left out (the index holds their characters and
// bigrams, asked for whole); "" when none is left.
func PrefixExpr(terms []string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, t := range terms {
		if isCJKString(t) {
			continue
		}
		f := analysis.Fold(t)
		if f == "" || seen[f] || strings.ContainsFunc(f, unicode.IsSpace) {
			continue
		}
		seen[f] = true
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(f, `"`, `""`))
		b.WriteString(`" *`)
	}
	return b.String()
}
