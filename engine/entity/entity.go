// Package entity owns entity extraction: turning a memory or a document chunk into the short,
// normalized names it is about (people, places, organisations, products, identifiers,
// versions) for the engine's entity leg. It is pure: no storage, no engine types, no
// package-level state. The same Extractor serves stored text and queries, so both sides of a
// match go through the same rules.
//
// Text is cut into script runs first, because script decides most of the work for free:
// Han runs go to the gse segmenter (simplified and traditional dictionaries, part-of-speech
// tags), katakana and Hangul runs get small shape rules, and everything else goes to the
// Latin rules, whose strictness depends on the language of the text (see latinRules).
package entity

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"github.com/pemistahl/lingua-go"
	"golang.org/x/text/unicode/norm"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/background"
)

// RulesVersion is stamped on every entity row; bump it whenever extraction output can change
// for the same input (rules, stopwords, dictionary, normalization, dependency upgrades of gse
// or lingua). The engine sweeps stale rows.
const RulesVersion = 2

// MaxTextBytes is how much of a text Extract reads. A memory is at most 64 KB and document
// chunks are smaller, so this only bounds the work on pathological input; entities after the
// cut are not extracted.
const MaxTextBytes = 64 << 10

// maxEntityRunes drops longer tokens: at that length they are blobs (base64, minified code,
// URLs with query strings), not names a person would search for. A git SHA-1 (40) fits.
const maxEntityRunes = 64

// Extractor extracts entities. It is safe for concurrent use after New returns: the
// segmenter dictionary, the language models and the word lists are only read.
//
// Cost, measured on linux/amd64 with go1.26 (memdesk bench and BenchmarkNew): New takes about
// 1.1 s the first time in a process (gse 0.3 s, lingua's models 0.8 s) and 0.35 s after.
// Afterwards the live heap is ~125 MB: gse's simplified dictionary without its rare entries
// 44 MB, lingua's models 79 MB (it was 320 MB with both of gse's dictionaries, every entry).
// Lingua keeps its models in its own package-level maps, so they stay
// for the rest of the process even if the Extractor is dropped (and a second New does not
// load them again). Upstream, importing the package added 166 MB to the binary: lingua embeds
// the models of all 75 languages whichever are selected, gse its Chinese and Japanese
// dictionaries. memdesk takes lingua from third_party/lingua-go, which keeps the four models
// used here (9.4 MB), and builds with gse's tag ne, which embeds no dictionary.
type Extractor struct {
	seg      gse.Segmenter
	detector lingua.LanguageDetector

	englishStop   map[string]bool // lowercase English words that are never entities alone
	chineseStop   map[string]bool // nouns so generic that they only dilute a query's entities
	koreanSuffix  []string        // particles stripped from Hangul words, longest first
	koreanEndings map[rune]bool   // final syllables of predicates (verbs and adjectives)
}

// New loads the segmenter dictionary and the language models. It is slow (seconds, hundreds
// of MB) and meant to run in a background goroutine owned by the caller. It checks ctx
// between its loading steps; the longest step, the gse dictionary (~2.3 s), cannot be
// interrupted, so a cancelled New returns within about that long. It takes no locks that
// other code could wait on.
func New(ctx context.Context) (*Extractor, error) {
	x := &Extractor{
		englishStop:   wordSet(englishStopwords),
		chineseStop:   wordSet(chineseGenericNouns),
		koreanSuffix:  strings.Fields(koreanParticles),
		koreanEndings: runeSet(koreanPredicateEndings),
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load entity extractor: %w", err)
	}
	// gse logs through the standard logger unless told not to; only cmd configures logging.
	x.seg.SkipLog = true
	// Pos never uses the HMM model (it only helps Cut find unknown words), so skip loading it.
	x.seg.NotLoadHMM = true
	// Only the simplified dictionary: text is read with its traditional characters written
	// simplified (prepare), so one dictionary serves both scripts, and an entity of 臺北 and
	// one of 台北 are the same. The traditional dictionary cost 67 MB of the 194 MB heap.
	//
	//
	// The rare entries (frequency 2-4, 60% of the dictionary) are skipped: heap 127 -> 44 MB,
	// load 0.66 -> 0.27 s. They are largely proper nouns, and the entity leg alone misses some
	// (on CMRC-2018 sentences its recall@10 falls from 0.664 to 0.648), but with the lexical
	// leg beside it, which matches those names by their characters, the fused figures do not
	// move: CMRC recall@10 0.862 -> 0.861, nDCG@10 0.729 both; SciFact, LongMemEval-S and
	// MADial unchanged.
	x.seg.MinTokenFreq = 5
	// The entries are package background's Chinese word table, which is gse's simplified
	// dictionary counted 5 times or more, so the binary holds the dictionary once (built with
	// the tag ne, as scripts/build.sh does, gse embeds none of its own).
	if err := x.seg.LoadDictStr(background.ChineseDictionary()); err != nil {
		return nil, fmt.Errorf("load entity extractor: segmenter dictionary: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load entity extractor: %w", err)
	}
	// High-accuracy mode: the low-accuracy (trigram-only) mode loads in 33 ms instead of 1 s
	// and needs 4 MB of heap instead of 79 MB, but on short notes it is confidently wrong
	// ("Use go-sqlite3 not mattn" -> German 0.95, "Le chat est sur la table" -> English
	// 0.72). Memories are short, so we pay for the full models.
	//
	// Lingua chooses only between Latin-script languages. English is the one whose rules we
	// have; the others are there so that "not English" can be said at all. Chinese, Japanese
	// and Korean are left out: script already decides them, and every extra language costs
	// models and another way to misread a short English note.
	x.detector = lingua.NewLanguageDetectorBuilder().
		FromLanguages(detectorLanguages()...).
		WithPreloadedLanguageModels().
		Build()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load entity extractor: %w", err)
	}
	return x, nil
}

// detectorLanguages are the languages lingua chooses between. Each needs its models in
// third_party/lingua-go/language-models: lingua treats a missing model as an empty one, so a
// language added here without them is never detected (TestDetectorLanguagesAreShipped).
func detectorLanguages() []lingua.Language {
	return []lingua.Language{lingua.English, lingua.German, lingua.French, lingua.Spanish}
}

// Extract returns the distinct normalized entities of text, in first-appearance order. Only
// the first MaxTextBytes of text are read. Invalid UTF-8 is treated as a separator. Extract
// is deterministic and never panics.
func (x *Extractor) Extract(text string) []string {
	text = prepare(text)
	var c collector
	rules := latinRulesFor(x.lang(text))
	for run := range scriptRuns(text) {
		switch run.script {
		case scriptHan:
			x.extractHan(run.text, &c)
		case scriptKatakana:
			extractKatakana(run.text, &c)
		case scriptHangul:
			x.extractHangul(run.text, &c)
		case scriptHiragana:
			// Particles and inflections; Japanese content words are kanji or katakana.
		default:
			x.extractLatin(run.text, rules, &c)
		}
	}
	return c.entities
}

// Lang reports the language Extract uses for text: "zh", "en", "ja", "ko" or "other".
func (x *Extractor) Lang(text string) string {
	return x.lang(prepare(text))
}

// prepare bounds and cleans text once, before any rule looks at it: invalid bytes become
// U+FFFD (a separator to every rule), NFKC folds full-width letters and digits to ASCII so
// that "ＡＰＩ" is seen as an acronym and "３.１２" as a version, and traditional Chinese
// characters are written simplified (the segmenter's dictionary is the simplified one). NFKC
// can grow text (a few characters expand up to 18 times), so the cap is applied before and
// after it.
func prepare(text string) string {
	text = truncate(text, MaxTextBytes)
	text = strings.ToValidUTF8(text, "\uFFFD")
	return truncate(analysis.Simplify(norm.NFKC.String(text)), MaxTextBytes)
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// collector gathers normalized entities, dropping empties, blobs and repeats.
type collector struct {
	entities []string
	seen     map[string]bool
}

// add normalizes e and keeps it if new. It reports whether e is an entity at all (new or
// repeated), which the Latin rules use to attach a following number ("PostgreSQL 16").
func (c *collector) add(e string) bool {
	e = Normalize(e)
	if e == "" || utf8.RuneCountInString(e) > maxEntityRunes {
		return false
	}
	if c.seen[e] {
		return true
	}
	if c.seen == nil {
		c.seen = make(map[string]bool)
	}
	c.seen[e] = true
	c.entities = append(c.entities, e)
	return true
}

func wordSet(list string) map[string]bool {
	set := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}

func runeSet(list string) map[rune]bool {
	set := make(map[rune]bool)
	for _, r := range list {
		set[r] = true
	}
	return set
}
