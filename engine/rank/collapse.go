package rank

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// One passage once. The same passage is often stored more than once: a manual as HTML and
// as Markdown, a combined manual beside its split pages, a README copied into two packages.
// Identical files are stored once already (store.CopiesOf); these are different files that
// say the same thing, so their chunks differ in markup, in what surrounds them and in where
// they were cut. Ten hits that hold four passages waste six places on the screen: Collapse
// folds each lower copy into the highest hit of its passage, which lists where else it is.
//
// The measure is word shingles over the text as a reader sees it: letters and digits in
// lower case, each CJK character a word of its own, punctuation and markup gone (so ```mjs
// fences, "copy" buttons and <code> leave no trace worth counting). A lower hit holds the
// passage of a higher one when nearly all its shingles are in the higher one's text
// (containment, not Jaccard: a split manual's chunk is often a part of the combined
// manual's, cut elsewhere). Measured on
// /usr/share/doc (277,517 chunks) with the queries in collapse_test.go and by hand: see the
// commit that set sameShare.

// shingleWords is how many consecutive words make a shingle: four words in the same order
// are rarely shared by chance, and a changed word spoils only four shingles.
const shingleWords = 4

// sameShare is the share of a lower hit's shingles a higher one must hold to stand for it.
const sameShare = 0.8

// minShingles is the fewest shingles a text needs to be compared at all: "Returns:
// undefined" is in a hundred places that are not the same passage.
const minShingles = 8

// Passage is a text reduced to what collapsing compares: its shingles' hashes, sorted and
// distinct.
type Passage struct {
	shingles []uint64
}

// PassageOf reads text as collapsing compares it.
func PassageOf(text string) Passage {
	words := make([]uint64, 0, len(text)/5)
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h, inWord := uint64(offset), false
	end := func() {
		if inWord {
			words = append(words, h)
			h, inWord = offset, false
		}
	}
	for i := 0; i < len(text); {
		if n := markup(text[i:]); n > 0 {
			end()
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case isIdeograph(r):
			end()
			words = append(words, (offset^uint64(r))*prime)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			r = unicode.ToLower(r)
			h = (h ^ uint64(r)) * prime
			inWord = true
		default:
			end()
		}
	}
	end()
	if len(words) < shingleWords {
		return Passage{}
	}
	sh := make([]uint64, 0, len(words)-shingleWords+1)
	for i := 0; i+shingleWords <= len(words); i++ {
		var s uint64 = offset
		for _, w := range words[i : i+shingleWords] {
			s = (s ^ w) * prime
			s ^= s >> 29
		}
		sh = append(sh, s)
	}
	slices.Sort(sh)
	return Passage{shingles: slices.Compact(sh)}
}

// markup is the length of the tag, entity or string escape text starts with, 0 when it
// starts with none: they are how a format writes the text, not words of it. A generated
// page's data holds the passage as a JSON string of HTML ("<code>readFile</code> is\\n"),
// the page itself as plain text.
func markup(text string) int {
	if len(text) < 2 {
		return 0
	}
	switch text[0] {
	case '\\':
		switch c := text[1]; {
		case c == 'u' && len(text) >= 6 && isHex(text[2:6]):
			return 6
		case strings.IndexByte(`ntr"/\\`, c) >= 0:
			return 2
		}
	case '<':
		// A tag is a name (or / and a name) and at most a line of attributes.
		j := 1
		if text[j] == '/' {
			j++
		}
		if j >= len(text) || !isASCIILetter(text[j]) {
			return 0
		}
		if k := strings.IndexAny(text[j:min(len(text), j+120)], "<>\n"); k > 0 && text[j+k] == '>' {
			return j + k + 1
		}
	case '&':
		if k := strings.IndexByte(text[1:min(len(text), 10)], ';'); k > 0 && isEntityName(text[1:1+k]) {
			return k + 2
		}
	}
	return 0
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isEntityName reports an HTML character reference's name: "lt", "amp", "#39", "#x27".
func isEntityName(s string) bool {
	if s[0] == '#' {
		return len(s) > 1 && (isHex(s[1:]) || (s[1]|0x20) == 'x' && len(s) > 2 && isHex(s[2:]))
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

// isIdeograph reports a character that is a word of its own in the languages that write no
// spaces: Han, kana, Hangul syllables.
func isIdeograph(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul))
}

// In is the share of p's shingles that o holds too; 0 when p is too short to compare.
func (p Passage) In(o Passage) float64 {
	a, b := p.shingles, o.shingles
	if len(a) < minShingles {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(common) / float64(len(a))
}

// Same is a lower hit folded into a higher one that holds its passage, and the share of the
// lower hit's shingles the higher one holds.
type Same struct {
	Key    Key
	Shared float64
}

// Collapse folds every chunk hit whose passage a higher hit holds into that hit (Hit.Same),
// keeping the order of the rest. A hit is folded only when nothing it says is lost: the
// higher hit holds nearly all its wording (not the other way round: a short hit inside a
// longer one's overlap would hide what the longer says beyond it) and every query word it
// matched. Only chunks are folded: two memories that say nearly the same are each a memory
// a question may need, and merging them is the person's call (the Memories screen's
// hygiene). Hits without a passage are kept as they are, so the caller reads texts only for
// the hits that can be shown.
func Collapse(hits []Hit, passages map[Key]Passage) []Hit {
	out := make([]Hit, 0, len(hits))
	var heads []int // indexes in out of the chunk hits kept, with a passage to compare
	for _, h := range hits {
		p, ok := passages[h.Key]
		if !ok || h.Key.Kind != KindChunk {
			out = append(out, h)
			continue
		}
		folded := false
		for _, at := range heads {
			head := &out[at]
			if share := p.In(passages[head.Key]); share >= sameShare && holdsAll(head.Matched, h.Matched) {
				head.Same = append(head.Same, Same{Key: h.Key, Shared: share})
				folded = true
				break
			}
		}
		if !folded {
			heads = append(heads, len(out))
			out = append(out, h)
		}
	}
	return out
}

// holdsAll reports whether every word of sub is in words.
func holdsAll(words, sub []string) bool {
	for _, w := range sub {
		if !slices.Contains(words, w) {
			return false
		}
	}
	return true
}
