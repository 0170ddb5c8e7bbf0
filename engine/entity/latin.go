package entity

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/textnorm"
)

// latinRules says how much of a Latin-script run can be trusted to be a name.
type latinRules uint8

const (
	// englishRules: capitalized words, acronyms, identifiers, versions, and lowercase words
	// of 4+ letters that are not stopwords or past-tense verbs. The lowercase rule carries
	// most of the weight: without it the entity leg's recall@10 on SciFact falls from 0.663
	// to 0.377 (3+ letters: 0.670, 5+: 0.663).
	//
	// Plurals are not folded. A suffix rule without a lexicon either folds names (James,
	// Postgres, Kubernetes) or folds only lowercase words and splits "Tests" from "tests";
	// measured on SciFact, folding regular plurals lowered recall@10 from 0.663 to 0.647. Only
	// acronym plurals, whose shape is unambiguous, are folded (APIs -> API).
	englishRules latinRules = iota
	// embeddedRules: Latin inside Chinese, Japanese or Korean text, where nearly every Latin
	// word is a name (用Go写API服务), so lowercase words of 2+ letters count too.
	embeddedRules
	// foreignRules: another Latin-script language. We have no stopwords for it, so only the
	// shapes that are names in any language count: acronyms, camelCase, identifiers,
	// versions, and capitalized words that do not start a sentence.
	foreignRules
)

func latinRulesFor(lang string) latinRules {
	switch lang {
	case "en":
		return englishRules
	case "zh", "ja", "ko":
		return embeddedRules
	}
	return foreignRules
}

// extractLatin tokenizes a run of non-CJK text and keeps the tokens the rules accept.
func (x *Extractor) extractLatin(run string, rules latinRules, c *collector) {
	wordEnd := -1 // end of the last kept word, to attach a following number to it
	for start, end := range tokens(run) {
		tok := run[start:end]
		if isNumberToken(tok) {
			afterWord := wordEnd >= 0 && strings.Trim(run[wordEnd:start], " \t") == ""
			if keepNumber(tok, afterWord) {
				c.add(tok)
			}
			wordEnd = -1
			continue
		}
		wordEnd = -1
		if e := x.latinEntity(tok, rules, startsSentence(run[:start])); e != "" && c.add(e) {
			wordEnd = end
		}
	}
}

// tokens yields where each token of a non-CJK run starts and ends (tokenEnd), in order: what
// extraction keeps names from, and what a query's names are looked up by (latinSpans).
func tokens(run string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(run); {
			r, size := utf8.DecodeRuneInString(run[i:])
			if !isWordRune(r) {
				i += size
				continue
			}
			end := tokenEnd(run, i)
			if !yield(i, end) {
				return
			}
			i = end
		}
	}
}

func isWordRune(r rune) bool { return textnorm.IsWordRune(r) }

// tokenEnd returns where the token starting at i ends. A token is letters, digits and
// combining marks, joined by an inner connector (- _ . @ ') when a letter or digit follows
// it, so "go-sqlite3", "node.js", "3.12", "a@b.com" and "O'Brien" are one token and a
// sentence-final dot is not part of it. One or two trailing + or # after a letter are kept
// for C++, C# and F#.
func tokenEnd(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) || unicode.IsMark(r) {
			i += size
			continue
		}
		if isInnerConnector(r) {
			next, nextSize := utf8.DecodeRuneInString(s[i+size:])
			if nextSize > 0 && isWordRune(next) {
				i += size + nextSize
				continue
			}
		}
		break
	}
	last, _ := utf8.DecodeLastRuneInString(s[:i])
	if !unicode.IsLetter(last) {
		return i
	}
	j := i
	for j < len(s) && j-i < 2 && (s[j] == '+' || s[j] == '#') {
		j++
	}
	if next, _ := utf8.DecodeRuneInString(s[j:]); j > i && !isWordRune(next) {
		return j
	}
	return i
}

func isInnerConnector(r rune) bool {
	switch r {
	case '-', '_', '.', '@', '\'', '’':
		return true
	}
	return false
}

// startsSentence reports whether a token preceded by before begins a sentence, a line or a
// list item. Only the past-tense rule and the foreign rules care.
func startsSentence(before string) bool {
	for len(before) > 0 {
		r, size := utf8.DecodeLastRuneInString(before)
		switch {
		case r == '\n':
			return true
		case unicode.IsSpace(r):
			before = before[:len(before)-size]
			continue
		}
		return strings.ContainsRune(".!?:;-*•。！？", r)
	}
	return true
}

func isNumberToken(tok string) bool {
	for _, r := range tok {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// keepNumber keeps numbers that name something: versions and dates with an inner separator
// (3.12, 1.2.3, 2023-05-07), numbers right after a word we kept (PostgreSQL 16, Windows 11,
// iPhone 15), and numbers of four or more digits (years, ports, error codes: 2023, 8080).
// Bare small numbers (3 cats, 10 minutes) are quantities, not names.
func keepNumber(tok string, afterWord bool) bool {
	return afterWord || len(tok) >= 4 || strings.ContainsAny(tok, "-_.")
}

// latinEntity returns the entity a word-like token stands for, or "" if it is none.
func (x *Extractor) latinEntity(tok string, rules latinRules, sentenceStart bool) string {
	if utf8.RuneCountInString(tok) > maxEntityRunes {
		return "" // a blob; no need to look at its shape
	}
	tok = strings.ReplaceAll(tok, "’", "'")
	if i := strings.IndexByte(tok, '\''); i >= 0 {
		switch tok[i+1:] {
		case "s", "S": // possessive: Alice's -> Alice
			tok = tok[:i]
		case "t", "re", "ve", "ll", "d", "m": // contraction: don't, we're, I've
			return ""
		}
	}
	if utf8.RuneCountInString(tok) < 2 {
		return ""
	}
	lower := strings.ToLower(tok)
	shape := shapeOf(tok)
	switch {
	case shape.digits > 0 && isOrdinalOrUnit(tok):
		return ""
	case shape.digits > 0, strings.ContainsAny(tok, "_@+#"):
		return tok // identifier: go-sqlite3, utf-8, h264, snake_case, a@b.com, C++
	case strings.Contains(tok, ".") && allPartsShort(tok, "."):
		return "" // abbreviation: e.g, i.e, U.S
	case strings.Contains(tok, "."):
		return tok // node.js, example.com, os.path
	case x.isStop(lower):
		return ""
	case shape.acronymPlural:
		return tok[:len(tok)-1] // APIs -> API, PRs -> PR
	case shape.allUpper, shape.innerUpper:
		return tok // CI, GPU, PostgreSQL, iPhone, GitHub
	case shape.capitalized:
		switch {
		case rules == foreignRules && sentenceStart:
			return ""
		case rules == englishRules && sentenceStart && isPastTense(lower):
			return "" // "Migrated billing to Postgres"; mid-sentence it may be a name (Ahmed)
		}
		return tok
	}
	switch rules {
	case englishRules:
		if utf8.RuneCountInString(tok) >= 4 && !isPastTense(lower) {
			return tok
		}
	case embeddedRules:
		return tok
	}
	return ""
}

// isStop reports whether a lowercased token is a stopword; a hyphenated compound is one when
// every part is (follow-up, built-in) or a single letter.
func (x *Extractor) isStop(lower string) bool {
	if !strings.Contains(lower, "-") {
		return x.englishStop[lower]
	}
	for part := range strings.SplitSeq(lower, "-") {
		if utf8.RuneCountInString(part) > 1 && !x.englishStop[part] {
			return false
		}
	}
	return true
}

// isPastTense catches regular past tenses and participles (migrated, shared, deployed), the
// commonest non-noun among lowercase words that the stopword list cannot enumerate. Words
// in -eed (speed, seed) and short ones (bed, red) are not past tenses. On SciFact the rule
// costs the entity leg a little recall@10 (0.667 without it, 0.663 with) and saves 10% of
// entity rows; in notes the dropped words are verbs ("migrated the service").
func isPastTense(lower string) bool {
	return utf8.RuneCountInString(lower) >= 5 && strings.HasSuffix(lower, "ed") && !strings.HasSuffix(lower, "eed")
}

// isOrdinalOrUnit matches digits followed by one or two lowercase letters: ordinals (1st,
// 22nd, 4th) and quantities (10am, 5pm, 10k, 100ms). 3d, 5G, 4K and 2fa stay identifiers.
func isOrdinalOrUnit(tok string) bool {
	letters := strings.TrimLeft(tok, "0123456789")
	if len(letters) == len(tok) || len(letters) > 2 {
		return false
	}
	for _, r := range letters {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func allPartsShort(tok, sep string) bool {
	for part := range strings.SplitSeq(tok, sep) {
		if utf8.RuneCountInString(part) > 1 {
			return false
		}
	}
	return true
}

type tokenShape struct {
	digits        int
	allUpper      bool // CI, GPU, NASA
	acronymPlural bool // APIs, GPUs: upper case with a final lowercase s
	innerUpper    bool // an upper-case letter that does not start a part: iPhone, PostgreSQL
	capitalized   bool // Alice, Wi-Fi, O'Brien
}

func shapeOf(tok string) tokenShape {
	var s tokenShape
	letters, upper, partStart := 0, 0, true
	for _, r := range tok {
		switch {
		case unicode.IsDigit(r):
			s.digits++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
				if letters == 1 {
					s.capitalized = true
				} else if !partStart {
					s.innerUpper = true
				}
			}
		}
		partStart = r == '-' || r == '\''
	}
	s.allUpper = letters >= 2 && upper == letters
	s.acronymPlural = letters >= 3 && strings.HasSuffix(tok, "s") && isAllUpper(tok[:len(tok)-1])
	if s.acronymPlural || s.allUpper {
		s.innerUpper = false
	}
	return s
}

func isAllUpper(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}
