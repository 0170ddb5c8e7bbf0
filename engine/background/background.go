// Package background says which words of a query carry its topic, apart from any store. A
// store's own statistics say what is rare in the store; they cannot say which words of a
// question carry its topic when the store has never seen them. In "how many hours did I
// spend on documentaries", "documentaries" is the topic whether or not a store of science
// abstracts holds it; "hours" and "spend" are what any question says.
//
// How specific a word is in general language: English from the SUBTLEX-US word counts (51
// million words of film subtitles: the language people speak, which is what memories are
// written in); Chinese from the segmenter's dictionary, which also says where the words of a
// run are and which are content words (the caller's, see Units).
//
// Both tables are made ahead by generators under internal/ and embedded ready to use: the
// English one is parsed once per process on first use (see BenchmarkEnglishTable), the
// Chinese one is searched where it lies.
package background

import (
	"bufio"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/analysis"
)

// enStems is the English table: a line per stem of the SUBTLEX-US words,
// "stem<TAB>count" with the counts of every word that shares the stem summed, sorted by
// the stems' bytes, after a first line holding the counts' total under the empty stem
// (internal/genen writes it with WriteEnglishStems; see NOTICE). Stemming the 60k words
// at start-up took 130-300 ms, most of a one-shot CLI recall; reading this takes a tenth.
//
//go:embed en-stems.tsv
var enStems string

// englishTable is built once per process, on first use, and never written after: it is
// constant data, like the table it is built from.
var englishTable = sync.OnceValues(func() (english, error) { return parseEnglish(enStems) })

// english is the English table: each stem's -ln(share of words), and the words counted.
type english struct {
	specificity map[string]float64
	total       float64
}

// Load reads the English table now rather than on the first query, for processes that
// warm up before anyone types. Safe to call more than once and from any goroutine.
func Load() error {
	_, err := englishTable()
	return err
}

// Specificity is how much a Latin word term says about a text's topic in general language,
// in nats (higher is more specific), or 0 when it cannot carry a topic: a stopword, a number,
// a single letter (the H of H. pylori, the T of T cells), a CJK term (see Units). A word the
// table has never seen (a name, a technical term, a typo) is as specific as a word seen once.
func Specificity(t analysis.Term) float64 {
	switch t.Kind {
	case analysis.Bigram, analysis.Unigram:
		return 0
	}
	if !hasLetter(t.Text) || utf8.RuneCountInString(t.Text) < 2 || analysis.IsStopword(t.Surface) || analysis.IsStopword(t.Text) {
		return 0
	}
	en, err := englishTable()
	if err != nil {
		return 0 // the table is embedded: only a broken build gets here
	}
	if s, ok := en.specificity[t.Text]; ok {
		return s
	}
	return math.Log(en.total)
}

// commonWordCount is how often a word must occur in the table's 51M words of subtitles to
// be a word of general English for CommonWord: names, jargon and typos mostly fall below.
const commonWordCount = 20

// CommonWord reports whether word, a single Latin word as typed, is a word of general
// English (its stem seen commonWordCount times or more): a person who types it means the
// word, not a part of a longer one. The trigram index is written with it
// (leg.IndexSubstrings): a change to the table or to commonWordCount must bump
// leg.SubstringsVersion, so that index is rebuilt.
func CommonWord(word string) bool {
	var stem string
	for t := range analysis.Terms(word) {
		if t.Kind != analysis.Word || stem != "" {
			return false // not one word: an identifier, a number, a CJK run, a phrase
		}
		stem = t.Text
	}
	if stem == "" || !allLetters(word) {
		return false
	}
	en, err := englishTable()
	if err != nil {
		return false
	}
	s, ok := en.specificity[stem]
	return ok && s <= math.Log(en.total/commonWordCount)
}

func allLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// Unit is one place in a query that can carry its topic: a Latin word run (a compound and
// its parts) or a CJK content word, with the index terms that spell it.
type Unit struct {
	Terms []string
	// All says a text holds the unit only when it holds every term (the bigrams of a
	// Chinese word); otherwise any one will do (a compound or one of its parts), and
	// TermSpecificity says how specific each term is on its own ("activated" is less so
	// than "AMP-activated").
	All             bool
	TermSpecificity []float64
	Surface         string
	Specificity     float64
	// Name: a Chinese pair the table does not know as a word (CJKWord.Unknown), most often
	// a name. English words the table lacks are not marked: jargon as often as names.
	Name bool
	// Guessed: a Name read from one character the table cannot place (CJKWord.Guessed).
	Guessed bool
	// Noun: a Chinese word the table tags a noun (CJKWord.Noun).
	Noun bool
}

// partWorth is what holding one piece of a compound is worth, as a share of the piece's own
// specificity.
const partWorth = 0.5

// Units are the units of a query's text that can carry a topic, in query order, one per
// distinct spelling. cjkWords cuts a CJK run into its content words; nil (no dictionary
// loaded yet) leaves CJK text without units.
func Units(text string, cjkWords func(run string) []CJKWord) []Unit {
	var units []Unit
	latin := map[int]int{} // run -> unit
	cjk := map[int][]analysis.Term{}
	var cjkRuns []int
	for t := range analysis.Terms(text) {
		switch t.Kind {
		case analysis.Bigram, analysis.Unigram:
			if _, ok := cjk[t.Run]; !ok {
				cjkRuns = append(cjkRuns, t.Run)
			}
			cjk[t.Run] = append(cjk[t.Run], t)
			continue
		}
		s := Specificity(t)
		if s <= 0 {
			continue
		}
		i, ok := latin[t.Run]
		if !ok {
			i = len(units)
			latin[t.Run] = i
			units = append(units, Unit{Surface: t.Surface})
		}
		if !slices.Contains(units[i].Terms, t.Text) {
			// A piece of a compound says less than it would alone: the go of go-sqlite3
			// is not the verb, and the activated of AMP-activated not every activation.
			worth := s
			if t.Kind == analysis.Part {
				worth = s * partWorth
			}
			units[i].Terms = append(units[i].Terms, t.Text)
			units[i].TermSpecificity = append(units[i].TermSpecificity, worth)
		}
		if s > units[i].Specificity {
			units[i].Specificity, units[i].Surface = s, t.Surface
		}
	}
	if cjkWords != nil {
		for _, r := range cjkRuns {
			units = append(units, cjkUnits(cjk[r], cjkWords)...)
		}
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(units, func(u Unit) bool {
		key := strings.Join(u.Terms, " ")
		dup := seen[key]
		seen[key] = true
		return dup
	})
}

// cjkUnits spells each content word of two or more characters of one CJK run (its terms, in
// order) in index terms: its bigrams. A query searches a character on its own only when it is
// all the query has (query.LexicalTerms), so a one-character word is no unit.
func cjkUnits(terms []analysis.Term, cjkWords func(run string) []CJKWord) []Unit {
	var chars, bigrams []string
	for _, t := range terms {
		switch t.Kind {
		case analysis.Unigram:
			chars = append(chars, t.Text)
		case analysis.Bigram:
			bigrams = append(bigrams, t.Text)
		}
	}
	if len(bigrams) != max(len(chars)-1, 0) {
		return nil // not a plain run: no safe way to place its words
	}
	if len(chars) < 2 {
		return nil
	}
	var out []Unit
	for _, w := range cjkWords(strings.Join(chars, "")) {
		if w.Len < 2 || w.Start+w.Len > len(chars) {
			continue
		}
		out = append(out, Unit{
			Terms:       slices.Clone(bigrams[w.Start : w.Start+w.Len-1]),
			All:         true,
			Surface:     strings.Join(chars[w.Start:w.Start+w.Len], ""),
			Specificity: w.Specificity,
			Name:        w.Unknown,
			Guessed:     w.Guessed,
			Noun:        w.Noun,
		})
	}
	return out
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// parseEnglish reads a table WriteEnglishStems wrote.
func parseEnglish(table string) (english, error) {
	first, rest, _ := strings.Cut(table, "\n")
	empty, totalText, ok := strings.Cut(first, "\t")
	total, err := strconv.ParseFloat(totalText, 64)
	if !ok || empty != "" || err != nil || total <= 0 {
		return english{}, fmt.Errorf("english stem table: first line %q is not the total", first)
	}
	en := english{specificity: make(map[string]float64, strings.Count(rest, "\n")), total: total}
	for line := range strings.Lines(rest) {
		stem, countText, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		c, err := strconv.ParseFloat(countText, 64)
		if !ok || err != nil || c <= 0 {
			return english{}, fmt.Errorf("english stem table: bad line %q", line)
		}
		en.specificity[stem] = math.Log(total / c)
	}
	return en, nil
}

// WriteEnglishStems writes the English table from word counts ("word<TAB>count" lines,
// gzip-compressed: subtlex-us.tsv.gz): the counts of the words that share a stem summed, as
// the index matches stems. internal/genen runs it to make en-stems.tsv, and a test checks
// that the embedded table is what it writes with today's analyzer.
func WriteEnglishStems(w io.Writer, wordCounts io.Reader) error {
	zr, err := gzip.NewReader(wordCounts)
	if err != nil {
		return fmt.Errorf("read word counts: %w", err)
	}
	counts := map[string]float64{}
	var total float64
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		word, n, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		c, err := strconv.ParseFloat(n, 64)
		if err != nil {
			continue
		}
		total += c
		for t := range analysis.Terms(word) {
			if t.Kind == analysis.Word {
				counts[t.Text] += c
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read word counts: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\t%.0f\n", total)
	for _, stem := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(bw, "%s\t%.0f\n", stem, counts[stem])
	}
	return bw.Flush()
}
