package entity

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/analysis"
)

// isNounTag reports the gse (ICTCLAS-style) part-of-speech tags kept from Han text: person (nr,
// nrfg, nrt for transliterated names), place (ns), organisation (nt), other proper noun
// (nz), common noun (n), verbal noun (vn: 服务, 续费, 训练 are things people search for), and
// abbreviations (j: 北大, 央视). Time words (t: 上周, 下个月) are left out on purpose: the
// query side treats them as a created-time filter, never as content.
func isNounTag(tag string) bool {
	switch tag {
	case "n", "nr", "nrfg", "nrt", "ns", "nt", "nz", "vn", "j":
		return true
	}
	return false
}

// extractHan segments a run of Han characters and keeps noun-like words of two or more
// characters: single characters are too ambiguous to anchor anything (风, 云, 里).
func (x *Extractor) extractHan(run string, c *collector) {
	if utf8.RuneCountInString(run) < 2 {
		return
	}
	// Non-search mode: 阿里巴巴 stays one word instead of also yielding 阿里 and 巴巴.
	for _, w := range x.seg.Pos(run, false) {
		if isNounTag(w.Pos) && utf8.RuneCountInString(w.Text) >= 2 && !x.chineseStop[w.Text] {
			c.add(w.Text)
		}
	}
}

// extractKatakana keeps katakana words: in Japanese they are loanwords and foreign names
// (タワー, コンピューター, トランプ), the closest thing to capitalized words.
func extractKatakana(run string, c *collector) {
	run = strings.Trim(run, string(katakanaMiddleDot))
	if utf8.RuneCountInString(run) >= 2 {
		c.add(run)
	}
}

// extractHangul keeps Korean nouns by shape, without a morphological analyser: a run is one
// word (spaces end it), a trailing particle is stripped (서울에 -> 서울, 회의가 -> 회의) when
// two syllables remain, and words ending like a predicate (갔어요, 좋다) are dropped. This is
// a smoke-level heuristic: it mis-strips nouns that end in a particle's syllable (고양이 ->
// 고양).
func (x *Extractor) extractHangul(run string, c *collector) {
	for _, p := range x.koreanSuffix {
		if stem, ok := strings.CutSuffix(run, p); ok && utf8.RuneCountInString(stem) >= 2 {
			run = stem
			break
		}
	}
	last, _ := utf8.DecodeLastRuneInString(run)
	if utf8.RuneCountInString(run) >= 2 && !x.koreanEndings[last] {
		c.add(run)
	}
}

// ContentWord is a word of a Han run that can carry a topic, as the segmenter cuts it: where
// it starts in the run and how long it is (in characters), and how specific it is in general
// language: -ln of its share of the dictionary's counts.
type ContentWord struct {
	Start, Len  int
	Specificity float64
}

// ContentWords cuts a Han run as extraction does and keeps its dictionary words of two or
// more characters of content parts of speech. 听起来真不错 is 听 / 起来 / 真 / 不错, so a query's bigram 听起, which spans
// no word, is never taken for its topic.
//
// What the dictionary does not know it cuts into single characters: most often a name
// (张晓燕 is 张 / 晓 / 燕, 周子涵 周 / 子 / 涵). Two neighbouring single characters, neither a
// function character (的, 在, 我…), are a word of their own, two characters long, as specific
// as a dictionary word seen unknownPairCount times: a name is what a question about a person
// turns on, and a pair of short words side by side (狗 / 叫) is rarely less telling.
func (x *Extractor) ContentWords(run string) []ContentWord {
	total := x.seg.Dict.TotalFreq()
	var out []ContentWord
	at := 0
	prevSingle := false // the token before is a single character, not a function character
	for _, w := range x.seg.Pos(run, false) {
		n := utf8.RuneCountInString(w.Text)
		// Single characters are left out on their own: the dictionary's counts for them are
		// not how often they occur (gse enters 是 with a count of 2), and a query searches a
		// character on its own only when it is all the query has (query.LexicalTerms).
		if n >= 2 && isContentTag(w.Pos) {
			if freq, _, ok := x.seg.Find(w.Text); ok && freq > 0 && total > freq {
				out = append(out, ContentWord{Start: at, Len: n, Specificity: math.Log(total / freq)})
			}
		}
		single := n == 1 && !analysis.HasFunctionChar(w.Text)
		if single && prevSingle && total > unknownPairCount {
			out = append(out, ContentWord{Start: at - 1, Len: 2, Specificity: math.Log(total / unknownPairCount)})
		}
		prevSingle = single
		at += n
	}
	return out
}

// unknownPairCount is how often, in the dictionary's counts, a pair of characters it does not
// know as a word is taken to occur: 1,000 of its 33 million, a specificity of 10.4, between
// an everyday noun (城市 7.2, 名字 8.7) and a known name (李娜 11.2, 王伟 13.1).
const unknownPairCount = 1000

// isContentTag reports the part-of-speech tags of words that can carry a topic: nouns of
// every kind (n...), verbs (v...), adjectives (a...), idioms (i), set phrases (l),
// abbreviations (j) and time words (t: 生日, 平时, 周末; the relative ones, 昨天 or 上周, are
// read as a created-time filter before a query's words are cut). Not pronouns, particles,
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
