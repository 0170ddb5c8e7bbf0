package engine

import (
	"context"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/store"
)

// A query that finds nothing may be a typo ("pyhton"). The store's own word index says which
// words exist, so a close spelling is one that (a) differs from the typed word by one edit
// (a letter deleted, inserted, replaced, or two swapped: most typos) and (b) stems to a term
// the index holds; the word held by the most texts wins. The index keeps stems, which a person
// should not be shown ("configur"), so the suggestion is the edited word itself
// ("configuraton" -> "configuration"): the edit is made on what was typed, and only its stem
// is looked up. A suggestion is offered only when recall finds something with it.

// spellingMinLen is the shortest word a suggestion is looked for: one edit of a three-letter
// word reaches too many other words to be a guess worth showing. spellingMaxLen is the
// longest: a word's edits number 54 per letter and each is a copy of the word, so a
// 100,000-letter "word" would make gigabytes of them; no typed word is longer than 30.
const (
	spellingMinLen = 4
	spellingMaxLen = 30
	// spellingMaxQuery bounds the query a suggestion is looked for at all: a pasted
	// paragraph that finds nothing is not a typo.
	spellingMaxQuery = 200
)

// maxMisspelled is the most unknown words a query may have for a spelling to be suggested. A
// query of several words the store has never seen asks about something it does not hold;
// respelling each would cost 25 ms and find an unrelated near-word.
const maxMisspelled = 2

// spellingEdits returns the words one edit away from word (lower-case ASCII letters), each
// once, in a fixed order. For a word of n letters there are at most 54n+25.
func spellingEdits(word string) []string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	seen := map[string]bool{word: true}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i := 0; i <= len(word); i++ {
		left, right := word[:i], word[i:]
		if right != "" {
			add(left + right[1:]) // delete
		}
		if len(right) > 1 {
			add(left + right[1:2] + right[:1] + right[2:]) // swap two neighbours
		}
		for _, c := range []byte(letters) {
			if right != "" && c != right[0] {
				add(left + string(c) + right[1:]) // replace
			}
			add(left + string(c) + right) // insert
		}
	}
	return out
}

// plainLetters reports a non-empty string of lower-case ASCII letters only.
func plainLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// misspellable reports a typed word a suggestion is looked for: plain lower-case ASCII
// letters, long enough. Numbers, identifiers and CJK are searched as written.
func misspellable(surface string) bool {
	return len(surface) >= spellingMinLen && len(surface) <= spellingMaxLen && plainLetters(surface)
}

// termCounter says how many owners of a kind hold each term of the word index.
type termCounter interface {
	TermCounts(ctx context.Context, kind string, terms []string) (map[string]int, error)
}

// vocabReader reads the word index's vocabulary and how far the change log has gone.
type vocabReader interface {
	termCounter
	EachTerm(ctx context.Context, kind string, marker func(string) bool, fn func(term string)) (int64, error)
	LastChange(ctx context.Context) (int64, error)
}

// vocabulary answers "may the word index hold this term?" from a Bloom filter of its terms
// (10 bits a term, 1% false positives: 270 KB for 216k terms), so a word's 300-700 one-edit
// spellings cost microseconds and only the few that pass are counted in the store. It is
// rebuilt from the store when texts were written since, at most once per vocabRebuildEvery;
// a term missing meanwhile only means a suggestion not made.
type vocabulary struct {
	mu     sync.Mutex
	bits   []uint64
	seq    int64
	built  time.Time
	filled bool
}

const vocabRebuildEvery = time.Minute

// vocabHashes is the number of bit positions a term sets: k = 7 minimises false positives at
// 10 bits a term.
const vocabHashes = 7

func vocabPositions(term string, m uint64, fn func(bit uint64)) {
	h := fnv.New64a()
	h.Write([]byte(term))
	a := h.Sum64()
	b := a>>33 | a<<31 | 1 // double hashing (Kirsch-Mitzenmacher)
	for i := range uint64(vocabHashes) {
		fn((a + i*b) % m)
	}
}

// filter returns a test for terms of the vocabulary as of now, rebuilding it when due.
func (v *vocabulary) filter(ctx context.Context, rd vocabReader, now time.Time) (func(string) bool, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.filled || now.Sub(v.built) >= vocabRebuildEvery {
		seq, err := rd.LastChange(ctx)
		if err != nil {
			return nil, err
		}
		if !v.filled || seq != v.seq {
			if err := v.rebuild(ctx, rd); err != nil {
				return nil, err
			}
		}
		v.built = now
	}
	bits := v.bits
	m := uint64(len(bits)) * 64
	return func(term string) bool {
		in := true
		vocabPositions(term, m, func(bit uint64) { in = in && bits[bit/64]&(1<<(bit%64)) != 0 })
		return in
	}, nil
}

// rebuild reads every term of both kinds (the filter serves either).
func (v *vocabulary) rebuild(ctx context.Context, rd vocabReader) error {
	// Only stems of plain letters can be the stem of a respelled word; occurrence markers,
	// numbers, compounds and CJK terms stay out of the filter.
	marker := func(term string) bool { return !plainLetters(term) }
	var terms []string
	var seq int64
	for _, kind := range []string{store.KindFact, store.KindChunk} {
		s, err := rd.EachTerm(ctx, kind, marker, func(term string) { terms = append(terms, term) })
		if err != nil {
			return err
		}
		seq = max(seq, s)
	}
	m := uint64(max(len(terms)*10, 1024))
	bits := make([]uint64, (m+63)/64)
	m = uint64(len(bits)) * 64
	for _, t := range terms {
		vocabPositions(t, m, func(bit uint64) { bits[bit/64] |= 1 << (bit % 64) })
	}
	v.bits, v.seq, v.filled = bits, seq, true
	return nil
}

// suggestSpelling returns the query with its unknown words replaced by their closest known
// spelling, or "" when no word is unknown or none has a close spelling. kinds are the owners
// the query searched. filter gives the vocabulary's may-hold test; it reads the whole
// vocabulary the first time (2.2 s over 277k chunks), so it is asked for only once some word
// is unknown: a Chinese query, or one whose words are all in the store, never builds it.
func suggestSpelling(ctx context.Context, tc termCounter, filter func() (func(string) bool, error), query string, kinds []string) (string, error) {
	if len(query) > spellingMaxQuery {
		return "", nil
	}
	type typed struct{ surface, stem string }
	var words []typed
	for t := range analysis.Terms(query) {
		if t.Kind == analysis.Word && misspellable(t.Surface) && !analysis.IsStopword(t.Surface) {
			words = append(words, typed{t.Surface, t.Text})
		}
	}
	if len(words) == 0 {
		return "", nil
	}
	count := func(stems []string) (map[string]int, error) {
		total := map[string]int{}
		for _, kind := range kinds {
			n, err := tc.TermCounts(ctx, kind, stems)
			if err != nil {
				return nil, err
			}
			for term, c := range n {
				total[term] += c
			}
		}
		return total, nil
	}
	stems := make([]string, len(words))
	for i, w := range words {
		stems[i] = w.stem
	}
	known, err := count(stems)
	if err != nil {
		return "", err
	}
	var unknown []typed
	for _, w := range words {
		if known[w.stem] == 0 && !slices.ContainsFunc(unknown, func(u typed) bool { return u.surface == w.surface }) {
			unknown = append(unknown, w)
		}
	}
	if len(unknown) == 0 || len(unknown) > maxMisspelled {
		return "", nil
	}
	mayHold, err := filter()
	if err != nil {
		return "", err
	}
	replaced := map[string]string{}
	for _, w := range unknown {
		var edits, editStems []string
		for _, ed := range spellingEdits(w.surface) {
			if stem := analysis.Stem(ed); mayHold(stem) {
				edits, editStems = append(edits, ed), append(editStems, stem)
			}
		}
		if len(edits) == 0 {
			continue
		}
		n, err := count(uniqueStrings(editStems))
		if err != nil {
			return "", err
		}
		best, bestN := "", 0
		for i, ed := range edits {
			if c := n[editStems[i]]; c > bestN {
				best, bestN = ed, c
			}
		}
		if best != "" {
			replaced[w.surface] = best
		}
	}
	if len(replaced) == 0 {
		return "", nil
	}
	return replaceWords(query, replaced), nil
}

func uniqueStrings(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// replaceWords rewrites each whole word of query whose folded form is a key of with, keeping
// the rest of the query as typed; a word typed with a capital keeps it ("Pyhton" -> "Python").
func replaceWords(query string, with map[string]string) string {
	var b strings.Builder
	word := func(w string) {
		repl, ok := with[analysis.Fold(w)]
		if !ok {
			b.WriteString(w)
			return
		}
		if r := []rune(w); len(r) > 0 && unicode.IsUpper(r[0]) {
			repl = strings.ToUpper(repl[:1]) + repl[1:]
		}
		b.WriteString(repl)
	}
	start := -1
	for i := 0; i < len(query); {
		r, size := utf8.DecodeRuneInString(query[i:])
		isLetter := r < unicode.MaxASCII && unicode.IsLetter(r)
		switch {
		case isLetter && start < 0:
			start = i
		case !isLetter && start >= 0:
			word(query[start:i])
			start = -1
			b.WriteString(query[i : i+size]) // the bytes as typed, invalid ones included
		case !isLetter:
			b.WriteString(query[i : i+size])
		}
		i += size
	}
	if start >= 0 {
		word(query[start:])
	}
	return b.String()
}

// didYouMean is recall's suggestion for a query that found nothing: a close spelling that
// finds something, or "".
func (e *Engine) didYouMean(ctx context.Context, req RecallRequest, kinds []string) string {
	filter := func() (func(string) bool, error) { return e.vocab.filter(ctx, e.st, e.opts.Now()) }
	suggestion, err := suggestSpelling(ctx, e.st, filter, req.Query, kinds)
	if err != nil || suggestion == "" || suggestion == req.Query {
		if err != nil && ctx.Err() == nil {
			e.log.Debug("no spelling suggestion", "err", err)
		}
		return ""
	}
	again := req
	again.Query = suggestion
	again.noSuggestion = true
	res, err := e.Recall(ctx, again)
	if err != nil || len(res.Hits) == 0 {
		return ""
	}
	return suggestion
}

var _ vocabReader = (*store.Store)(nil)
