package background

import (
	_ "embed"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/memdesk/memdesk/engine/analysis"
)

// zhWords is the Chinese word table: a line per word of the gse module's simplified-Chinese
// dictionary counted at least 5 times, "word<TAB>count<TAB>part of speech", sorted by the
// words' bytes, after a first line holding the counts' total under the empty word
// (internal/genzh writes it; see NOTICE). It is searched where it lies, in the binary's
// read-only data: a process asks it for the few words of a query and never loads it, so a
// one-shot CLI recall reads Chinese exactly as the window does, from its first query.
//
//go:embed zh-words.tsv
var zhWords string

// maxWordRunes bounds the words the segmenter tries at each character: the table's longest
// are idioms and names of 15 characters, and a longer run than this is never one word.
const maxWordRunes = 16

// zhEntry is one word of the table.
type zhEntry struct {
	count float64
	tag   string
}

// lookupZH finds word in the table. prefix reports whether some word of the table starts with
// word (itself included): a segmenter stops extending a candidate when none does.
func lookupZH(word string) (e zhEntry, found, prefix bool) {
	if word == "" {
		return zhEntry{}, false, true // the empty word is the first line's: the total
	}
	lo, hi := 0, len(zhWords)
	// Binary search over byte offsets: each probe backs up to the start of its line.
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		start := strings.LastIndexByte(zhWords[:mid], '\n') + 1
		w, _ := lineWord(start)
		if w < word {
			end := strings.IndexByte(zhWords[mid:], '\n')
			if end < 0 {
				lo = len(zhWords)
				break
			}
			lo = mid + end + 1
		} else {
			hi = start
		}
	}
	if lo >= len(zhWords) {
		return zhEntry{}, false, false
	}
	w, rest := lineWord(lo)
	if w != word {
		return zhEntry{}, false, strings.HasPrefix(w, word)
	}
	countText, tag, _ := strings.Cut(rest, "\t")
	count, err := strconv.ParseFloat(countText, 64)
	if err != nil || count <= 0 {
		return zhEntry{}, false, true
	}
	return zhEntry{count: count, tag: tag}, true, true
}

// lineWord returns the word of the line starting at start and the rest of that line.
func lineWord(start int) (word, rest string) {
	line := zhWords[start:]
	if end := strings.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	word, rest, _ = strings.Cut(line, "\t")
	return word, rest
}

// ChineseDictionary returns the word table in the format of gse's dictionaries, a "word count
// part-of-speech" line per word, without the total: the entity extractor's segmenter loads it,
// so the binary carries one copy of the dictionary for both.
func ChineseDictionary() string {
	_, words, _ := strings.Cut(zhWords, "\n")
	return strings.ReplaceAll(words, "\t", " ")
}

// zhTotal is the sum of the table's counts (its first line).
func zhTotal() float64 {
	_, rest := lineWord(0)
	n, _, _ := strings.Cut(rest, "\t")
	total, err := strconv.ParseFloat(n, 64)
	if err != nil || total <= 0 {
		return 1 // the table is embedded: only a broken build gets here
	}
	return total
}

// zhWord is one word of a segmented run: its first character and its length, in characters.
type zhWord struct {
	start, n int
	entry    zhEntry
	known    bool
}

// segmentZH cuts a run of Chinese characters into the likeliest sequence of the table's
// words: each word's probability is its count over the total, a character the table does not
// hold counts once, and the cut maximizes the product (the maximum-probability route of
// jieba and gse, whose dictionary this is).
func segmentZH(run []rune, total float64) []zhWord {
	n := len(run)
	if n == 0 {
		return nil
	}
	logTotal := math.Log(total)
	type step struct {
		score float64
		next  int
		entry zhEntry
		known bool
	}
	route := make([]step, n+1)
	var b strings.Builder
	for i := n - 1; i >= 0; i-- {
		route[i] = step{score: math.Inf(-1)}
		b.Reset()
		for j := i + 1; j <= n && j-i <= maxWordRunes; j++ {
			b.WriteRune(run[j-1])
			e, found, prefix := lookupZH(b.String())
			if found || j == i+1 {
				count := e.count
				if !found {
					count = 1
				}
				if s := math.Log(count) - logTotal + route[j].score; s > route[i].score {
					route[i] = step{score: s, next: j, entry: e, known: found}
				}
			}
			if !prefix {
				break
			}
		}
	}
	var out []zhWord
	for i := 0; i < n; i = route[i].next {
		out = append(out, zhWord{start: i, n: route[i].next - i, entry: route[i].entry, known: route[i].known})
	}
	return out
}

// CJKWord is a content word of a CJK run: where it starts (in characters), how long it is,
// how specific it is (as Specificity).
type CJKWord struct {
	Start, Len  int
	Specificity float64
	// Unknown: two single characters the table does not know as a word, most often a name.
	Unknown bool
	// Guessed: an Unknown pair read from one character alone (guessedNames), as often two
	// everyday characters side by side as a name.
	Guessed bool
	// Noun: the table tags the word a noun of some kind (a thing, a place, a person, a
	// title), not a verb, adjective or time word: what a question is about rather than what
	// it asks of it (护照 of 护照什么时候过期, not 过期).
	Noun bool
}

// ChineseWords cuts a Han run into words by the table and keeps those that can carry a
// topic: words of two or more characters whose part of speech is a content one, each as
// specific as -ln of its share of the table's counts. 听起来真不错 is 听 / 起来 / 真 / 不错,
// so a query's bigram 听起, which spans no word, is never taken for its topic.
//
// What the table does not know it cuts into single characters: most often a name (张晓燕 is
// 张 / 晓 / 燕). Two neighbouring single characters that are no grammatical word on their own
// (see isGrammaticalChar)
// are a word of their own, two characters long, as specific as a word seen unknownPairCount
// times: a name is what a question about a person turns on, and a pair of short words side by
// side (狗 / 叫) is rarely less telling.
//
// It reads the embedded table and nothing else: the same words in every process, at once.
func ChineseWords(run string) []CJKWord {
	runes := []rune(run)
	total := zhTotal()
	var out []CJKWord
	prevSingle := false // the word before is a single content character
	words := segmentZH(runes, total)
	for _, w := range words {
		if w.n >= 2 && w.known && isContentTag(w.entry.tag) && total > w.entry.count {
			out = append(out, CJKWord{Start: w.start, Len: w.n, Specificity: math.Log(total / w.entry.count),
				Noun: w.entry.tag[0] == 'n'})
		}
		single := singleContentChar(runes, w)
		if single && prevSingle && total > unknownPairCount {
			out = append(out, CJKWord{Start: w.start - 1, Len: 2, Specificity: nameSpecificity(total), Unknown: true})
		}
		prevSingle = single
	}
	if guessed := guessedNames(runes, words, total); len(guessed) > 0 {
		out = append(out, guessed...)
		slices.SortStableFunc(out, func(a, b CJKWord) int { return a.Start - b.Start })
	}
	return out
}

// guessedNames are the pairs of a run that stand for a name ChineseWords' own rule (two single
// content characters side by side) misses, because the name's other character is grammar on
// its own (于 of 于乐, 均 of 潘均顺) or the table has cut it into a word (晏 of 司马晏, 徐 of
// 徐夫人). A character alone in the cut and in no pair already is taken for a name's when the
// table tags it a name's (nr, ns: 晏, 徐, 潘) or has no count for it alone (乐, 楼). It pairs
// with the character beside it: a single one first, then the edge of a word. A single
// neighbour that is a particle, pronoun or conjunction (的, 我, 和) is no part of a name; nor,
// for a character the table does count alone, is the commonest grammar (被 of 后被扎伊尔代替:
// 后 is "after" there, though the table tags it a surname).
//
// The guess is as often two everyday characters (都没, 视频里: the table has no count for
// 没 or 里 alone) as a name; rank weighs it only where that cannot mislead (Unit.Guessed).
func guessedNames(runes []rune, words []zhWord, total float64) []CJKWord {
	var out []CJKWord
	for k, w := range words {
		uncounted := !w.known
		if w.n != 1 || !isHan(runes, w) || !(uncounted || isNameTag(w.entry.tag)) {
			continue
		}
		var left, right zhWord // the zero word (n 0) where the run ends
		if k > 0 {
			left = words[k-1]
		}
		if k+1 < len(words) {
			right = words[k+1]
		}
		if singleContentChar(runes, w) && (singleContentChar(runes, left) || singleContentChar(runes, right)) {
			continue // in a pair already
		}
		start := -1
		switch {
		case joinsName(runes, left, uncounted):
			start = w.start - 1
		case joinsName(runes, right, uncounted):
			start = w.start
		case left.n >= 2 && isHan(runes, left):
			start = w.start - 1
		case right.n >= 2 && isHan(runes, right):
			start = w.start
		}
		if start >= 0 {
			out = append(out, CJKWord{Start: start, Len: 2, Specificity: nameSpecificity(total),
				Unknown: true, Guessed: true})
		}
	}
	return out
}

// joinsName reports whether x, a neighbour of a name's character (guessedNames), can be the
// name's other character: a single Han character that is no particle, pronoun or conjunction,
// and, beside a character the table counts alone (uncounted false), not the commonest grammar.
func joinsName(runes []rune, x zhWord, uncounted bool) bool {
	if x.n != 1 || !isHan(runes, x) || isClosedTag(x.entry.tag) {
		return false
	}
	return uncounted || x.entry.count < commonCharCount
}

// singleContentChar reports whether w is one Han character that is no grammatical word on its
// own: two of them side by side are a name's pair (ChineseWords).
func singleContentChar(runes []rune, w zhWord) bool {
	return w.n == 1 && isHan(runes, w) && !(w.known && isGrammaticalChar(w.entry))
}

// isHan reports whether w starts with a Han character.
func isHan(runes []rune, w zhWord) bool {
	return unicode.Is(unicode.Han, runes[w.start])
}

// isNameTag reports the parts of speech of a name's characters: a person's (nr, nrt, nrfg)
// or a place's (ns).
func isNameTag(tag string) bool {
	return strings.HasPrefix(tag, "nr") || strings.HasPrefix(tag, "ns")
}

// isClosedTag reports particles (u), modal particles and interjections (y, e, o), pronouns
// (r) and conjunctions (c): words that frame a name, never part of one.
func isClosedTag(tag string) bool {
	if tag == "" {
		return false
	}
	switch tag[0] {
	case 'u', 'y', 'e', 'o', 'r', 'c':
		return true
	}
	return false
}

// NameSpecificity is how specific a pair of characters the table does not know is taken to be
// (unknownPairCount): what a name is worth, the line between everyday words and telling ones.
func NameSpecificity() float64 {
	return nameSpecificity(zhTotal())
}

// nameSpecificity is NameSpecificity for a table of total counts: one formula, so the pairs
// ChineseWords marks as names and the line rank draws at a name's worth cannot drift apart.
func nameSpecificity(total float64) float64 {
	return math.Log(total / unknownPairCount)
}

// unknownPairCount is how often, in the table's counts, a pair of characters it does not know
// as a word is taken to occur: 1,000 of its 57 million, a specificity of 11.0, between an
// everyday noun (城市 7.8, 名字 9.3) and a known name (李娜 11.8, 王伟 13.7).
const unknownPairCount = 1000

// isContentTag reports the parts of speech of words that can carry a topic: nouns of every
// kind (n...), verbs (v...), adjectives (a...), idioms (i), set phrases (l), abbreviations
// (j) and time words (t: 生日, 平时, 周末; the relative ones, 昨天 or 上周, are read as a
// created-time filter before a query's words are cut). Not pronouns, particles,
// prepositions, conjunctions, adverbs, numerals, measure words, modal particles or
// directions.
func isContentTag(tag string) bool {
	if tag == "" {
		return false
	}
	switch tag[0] {
	case 'n', 'v', 'a', 'i', 'l', 'j', 't':
		return true
	}
	return false
}

// isGrammaticalChar reports whether a character of the table is a grammatical word on its own:
// one of the closed classes, whatever its count (prepositions p: 在, 对; conjunctions c: 和;
// particles u: 的, 了; pronouns r: 我, 哪, 啥; modal particles and interjections y, e, o: 吗,
// 啊; measure words q: 个, 张; directions f: 里, 上), an adverb or a bound morpheme counted
// often (d, zg: 也, 不, 很; grammaticalCount), or any character counted as a word on its own
// as often as the commonest grammar (commonCharCount: 是, 有, 到). The counts decide where the
// tags are a guess: 体 is a bound morpheme counted 41 times, and in 三体 it is part of a
// title; numerals are no grammar (三 of 三体, 五 of 五号 say which).
func isGrammaticalChar(e zhEntry) bool {
	if e.count >= commonCharCount {
		return true
	}
	if e.tag == "" {
		return false
	}
	if e.tag == "zg" || e.tag[0] == 'd' {
		return e.count >= grammaticalCount
	}
	switch e.tag[0] {
	case 'p', 'c', 'u', 'r', 'y', 'e', 'o', 'q', 'f':
		return true
	}
	return false
}

// commonCharCount is the count, in the table's 57 million, from which a character on its own
// is grammar whatever its tag: 是 (797,000), 有 (424,000) and 到 (205,000) are verbs by tag
// and frame every sentence; the commonest content characters on their own (人, 说) are near
// it too, and a question's topic is never one character alone.
const commonCharCount = 100000

// PairKind is what a pair of neighbouring Chinese characters is, as a query's reading finds it.
type PairKind uint8

// Pair kinds, from what says most about a text to what says least.
const (
	// ContentPair: inside a word that is not frequent grammar (过敏 of 我对花生过敏), two
	// single characters that are no grammar (a name's: 晓燕), a single character against a
	// word (晏 of 司马晏 is cut off by the table), or kana or Hangul.
	ContentPair PairKind = iota
	// LoosePair: two single characters, one of them grammar on its own (我对, 的车), which
	// may also be a name's (于乐: 于 is a surname as well as a preposition); or the end of
	// one word and the start of the next (生过 of 花生过敏, 术研 of 技术研究院), which
	// mostly stands for two other words in a text that holds it (发生过, 技术研发).
	LoosePair
	// GrammarPair: inside a frequent grammatical word (我们, 就是; isGrammaticalWord), or a
	// grammatical character against a word (对花 of 我对花生).
	GrammarPair
)

// PairKinds says, for each pair of neighbouring characters of a Han run (pair i: characters
// i and i+1), what the pair is (PairKind). The table decides, by its counts and its parts of
// speech, not a list of characters: 过 is grammar in 去过 and the head of 过敏.
func PairKinds(run string) []PairKind {
	runes := []rune(run)
	if len(runes) < 2 {
		return nil
	}
	out := make([]PairKind, len(runes)-1)
	words := segmentZH(runes, zhTotal())
	for k, w := range words {
		if w.known && isGrammaticalWord(w.entry) {
			for i := w.start; i < w.start+w.n-1; i++ {
				out[i] = GrammarPair
			}
		}
		if k == 0 {
			continue
		}
		// The pair across the boundary between the word before and this one.
		prev := words[k-1]
		if prev.n >= 2 && w.n >= 2 {
			// The end of one word and the start of the next: 术研 of 技术研究院, 缘关 of
			// 血缘关系. A text holding the pair mostly holds two other words (技术研发,
			// 机缘关键); the words either side carry the question's evidence.
			out[w.start-1] = LoosePair
		}
		for _, x := range []zhWord{prev, w} {
			if x.n == 1 && x.known && isGrammaticalChar(x.entry) {
				if prev.n == 1 && w.n == 1 {
					out[w.start-1] = LoosePair
				} else {
					out[w.start-1] = GrammarPair
				}
			}
		}
	}
	// Kana and Hangul have no table here: their pairs stay content, as every pair was.
	for i := range out {
		if !unicode.Is(unicode.Han, runes[i]) || !unicode.Is(unicode.Han, runes[i+1]) {
			out[i] = ContentPair
		}
	}
	return out
}

// grammaticalCount is how often a word of a grammatical part of speech must be counted to be
// grammar: 我们, 什么, 就是, 通过 are (tens of thousands of times in 57 million), while the
// dictionary's tags for its rarer words are often a guess (简约 is tagged an adverb, 到期 too)
// and such a word says what a text is about.
const grammaticalCount = 20000

// isGrammaticalWord reports whether a word of the table of two or more characters is grammar,
// not content: a frequent word of no content part of speech.
func isGrammaticalWord(e zhEntry) bool {
	return !isContentTag(e.tag) && e.count >= grammaticalCount
}

// BigramKinds are the CJK bigram terms of text (package analysis) that are not content, with
// their kind (PairKinds); where text has a pair more than once, the reading that says most
// about a text counts. A bigram not in the map is content.
func BigramKinds(text string) map[string]PairKind {
	runs := map[int][]string{}
	var order []int
	for t := range analysis.Terms(text) {
		if t.Kind != analysis.Unigram {
			continue
		}
		if _, ok := runs[t.Run]; !ok {
			order = append(order, t.Run)
		}
		runs[t.Run] = append(runs[t.Run], t.Text)
	}
	kinds := map[string]PairKind{}
	for _, r := range order {
		chars := runs[r]
		for i, k := range PairKinds(strings.Join(chars, "")) {
			pair := chars[i] + chars[i+1]
			if old, seen := kinds[pair]; !seen || k < old {
				kinds[pair] = k
			}
		}
	}
	for pair, k := range kinds {
		if k == ContentPair {
			delete(kinds, pair)
		}
	}
	return kinds
}
