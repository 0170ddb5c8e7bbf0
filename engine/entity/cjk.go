package entity

import (
	"strings"
	"unicode/utf8"
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
