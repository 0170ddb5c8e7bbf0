// Package analysis is memdesk's one text analyzer. The word index, the query's word terms and
// the term floors all see text through it, so what the index matches is what the floor
// counts: the same folding (width, case, Latin diacritics), the same stemmer, the same
// splitting of identifiers and of Chinese.
//
// A text becomes a sequence of terms:
//   - a run of CJK characters (Han, kana, Hangul: scripts written without spaces) becomes its
//     overlapping character bigrams and, beside them, each character on its own (a unigram),
//     so a one-character query has an index to ask;
//   - any other run of letters and digits is a word, folded and, when it is plain ASCII
//     letters, stemmed with Porter2 (services -> servic);
//   - a word joined by '.', '-' or '_' (go-sqlite3, 3.12, snake_case) is kept whole as written
//     (a compound) and each of its pieces is a term too, so transgender-specific is found by
//     "transgender" and go-sqlite3 by "sqlite3".
//
// It is pure and never fails: invalid UTF-8 separates, like punctuation.
package analysis

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"

	"github.com/memdesk/memdesk/engine/textnorm"
)

// Version names the analysis. Anything indexed under another version is re-indexed: bump it
// whenever Terms can give other terms for the same text.
const Version = 5

// Kind says what a term is.
type Kind uint8

// Term kinds.
const (
	Word     Kind = iota // a word that is not CJK, folded, stemmed when plain ASCII letters
	Compound             // a word joined by '.', '-' or '_', folded, as written
	Part                 // one piece of a compound, folded and stemmed like a word
	Bigram               // two adjacent CJK characters
	Unigram              // one CJK character
	// Date is a month and a day however written (6月8号, June 8th, 8 June), as 6月8日
	// (date.go); it stands beside the words it comes from, in the run of the first.
	Date
)

// Term is one term of a text.
type Term struct {
	// Text is the term as indexed and matched.
	Text string
	Kind Kind
	// Surface is the folded text the term came from, before stemming ("services" for
	// servic), for explanations.
	Surface string
	// Run is the index of the run of text the term came from (a word with its joiners, or a
	// CJK run), counted from 0; Pos is the term's first character within that run (CJK
	// bigrams and unigrams; 0 for words). Terms of one run are not independent: a compound
	// holds its parts, overlapping bigrams share a character.
	Run, Pos int
	// alone marks the unigram of a one-character CJK run: it is the run's only term.
	alone bool
}

// Counted reports whether the term counts toward a text's length: parts and unigrams stand
// beside the compound or the bigrams they come from and are not counted again, except the
// unigram of a one-character run, which stands alone.
func (t Term) Counted() bool {
	switch t.Kind {
	case Part, Date:
		return false
	case Unigram:
		return t.alone
	}
	return true
}

// Terms yields the terms of text in order of appearance, repeats included.
func Terms(text string) iter.Seq[Term] {
	return func(yield func(Term) bool) {
		var all []run
		for r := range runs(Fold(text)) {
			all = append(all, r)
		}
		for i, run := range all {
			ok := run.emit(func(t Term) bool {
				t.Run = i
				return yield(t)
			})
			if !ok {
				return
			}
			if date, ok := dateAt(all, i); ok && !yield(Term{Text: date, Kind: Date, Surface: date, Run: i}) {
				return
			}
		}
	}
}

// IndexText is text as the word index stores it, and its length in counted terms. The index
// keeps no positions, so it records how often a term occurs as terms of their own: each term
// once, then TFMarker(term, k) for its k-th occurrence, k from 2 to MaxTF. Space-separated,
// for an FTS5 table whose tokenizer splits on spaces and nothing else in them.
func IndexText(text string) (string, int) {
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	seen := map[string]int{}
	n := 0
	for t := range Terms(text) {
		if t.Counted() {
			n++
		}
		k := seen[t.Text] + 1
		seen[t.Text] = k
		if k > MaxTF {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if k == 1 {
			b.WriteString(t.Text)
		} else {
			b.WriteString(TFMarker(t.Text, k))
		}
	}
	return b.String(), n
}

// MaxTF is the highest occurrence count the word index records: bm25 saturates, and
// 5 occurrences score within 10% of 50.
const MaxTF = 5

// TFMarker is the index term recording the k-th occurrence (2 <= k <= MaxTF) of term in a
// text. The marker character folds to ASCII punctuation, so no analyzed term contains it.
func TFMarker(term string, k int) string {
	return term + "⁺" + string(rune('0'+k))
}

// Length is how many counted terms text has: the length the word index's bm25 normalizes by.
func Length(text string) int {
	n := 0
	for t := range Terms(text) {
		if t.Counted() {
			n++
		}
	}
	return n
}

// Fold makes text compare the way a person reads it: NFKC (full- and half-width forms agree),
// case-folded, diacritics removed from Latin, Greek and Cyrillic letters (café -> cafe,
// Ångström -> angstrom), and traditional Chinese characters written simplified (Simplify).
// Marks on other scripts are meaning (Japanese dakuten: ガ is not カ; Devanagari vowel signs)
// and stay. Invalid UTF-8 becomes U+FFFD. Fold is idempotent.
func Fold(s string) string {
	s = textnorm.Fold(s)
	if isASCII(s) {
		return s
	}
	s = Simplify(s)
	if !hasFoldableMark(s) {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	var base rune
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) && foldsMarks(base) {
			continue
		}
		if !unicode.Is(unicode.Mn, r) {
			base = r
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// hasFoldableMark reports whether s has a letter of a script whose marks Fold removes that is
// not plain ASCII (so it may decompose into a base and marks).
func hasFoldableMark(s string) bool {
	for _, r := range s {
		if r >= 0x80 && (foldsMarks(r) || unicode.Is(unicode.Mn, r)) {
			return true
		}
	}
	return false
}

// foldsMarks reports whether the marks after base are diacritics to remove.
func foldsMarks(base rune) bool {
	return base < 0x80 || unicode.In(base, unicode.Latin, unicode.Greek, unicode.Cyrillic)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// IsCJK reports whether r is written without spaces between words: Han, kana or Hangul.
func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isWordRune reports whether r belongs to a word that is not CJK.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// joiner reports whether r joins the pieces of a compound (inside a word only).
func joiner(r rune) bool { return r == '.' || r == '-' || r == '_' }

// run is a maximal CJK run or a word run (with its joiners) of folded text.
type run struct {
	text string
	cjk  bool
}

// runs cuts folded text into CJK runs and word runs; everything else separates. A joiner
// belongs to a word run only between two word characters; an apostrophe followed by s ends
// a word and the s is dropped (Tom's -> tom).
func runs(s string) iter.Seq[run] {
	return func(yield func(run) bool) {
		start, cjk := -1, false
		flush := func(end int) bool {
			if start < 0 {
				return true
			}
			w := s[start:end]
			start = -1
			if !cjk {
				w = strings.TrimRightFunc(w, joiner)
			}
			if w == "" {
				return true
			}
			return yield(run{text: w, cjk: cjk})
		}
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size <= 1:
				if !flush(i) {
					return
				}
			case IsCJK(r):
				if start >= 0 && !cjk {
					if !flush(i) {
						return
					}
				}
				if start < 0 {
					start, cjk = i, true
				}
			case isWordRune(r):
				if start >= 0 && cjk {
					if !flush(i) {
						return
					}
				}
				if start < 0 {
					start, cjk = i, false
				}
			case joiner(r) && start >= 0 && !cjk:
				// Kept for now; trailing joiners are trimmed when the run ends.
			case (r == '\'' || r == '’') && start >= 0 && !cjk && possessive(s[i+size:]):
				if !flush(i) {
					return
				}
				i += size + 1 // the apostrophe and the s
				continue
			default:
				if !flush(i) {
					return
				}
			}
			i += size
		}
		flush(len(s))
	}
}

// possessive reports whether rest (what follows an apostrophe) is a lone s: Tom's, cats'.
func possessive(rest string) bool {
	if rest == "" || rest[0] != 's' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest[1:])
	return len(rest) == 1 || !isWordRune(r) && !IsCJK(r)
}

// emit yields a run's terms.
func (r run) emit(yield func(Term) bool) bool {
	if r.cjk {
		return emitCJK(r.text, yield)
	}
	if strings.IndexFunc(r.text, joiner) < 0 {
		return yield(word(r.text, Word))
	}
	if !yield(Term{Text: r.text, Kind: Compound, Surface: r.text}) {
		return false
	}
	for _, p := range strings.FieldsFunc(r.text, joiner) {
		if !yield(word(p, Part)) {
			return false
		}
	}
	return true
}

func word(w string, kind Kind) Term {
	return Term{Text: Stem(w), Kind: kind, Surface: w}
}

// emitCJK yields, for each character of a CJK run, the bigram it starts (when a character
// follows) and then the character on its own.
func emitCJK(s string, yield func(Term) bool) bool {
	if _, n := utf8.DecodeRuneInString(s); n == len(s) {
		return yield(Term{Text: s, Kind: Unigram, Surface: s, alone: true})
	}
	for i, pos := 0, 0; i < len(s); pos++ {
		_, n := utf8.DecodeRuneInString(s[i:])
		if i+n < len(s) {
			_, m := utf8.DecodeRuneInString(s[i+n:])
			bi := s[i : i+n+m]
			if !yield(Term{Text: bi, Kind: Bigram, Surface: bi, Pos: pos}) {
				return false
			}
		}
		uni := s[i : i+n]
		if !yield(Term{Text: uni, Kind: Unigram, Surface: uni, Pos: pos}) {
			return false
		}
		i += n
	}
	return true
}

// Stem is the Porter2 stem of a folded word made of ASCII letters (4 or more); any other word
// comes back as it is.
func Stem(word string) string {
	if len(word) < 4 {
		return word
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; c < 'a' || c > 'z' {
			return word
		}
	}
	return english.Stem(word, false)
}
