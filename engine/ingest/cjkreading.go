package ingest

import (
	"bytes"
	"strings"
	stdunicode "unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// The detector's statistics need a few hundred bytes of CJK text; a line or two of it gets a
// score near its floor, and its best guess is then often a single-byte encoding whose reading
// is mojibake (南京的大熊猫很可爱 in GBK scores 21 for KOI8-R). So the CJK decoders are tried
// too, and a reading made of characters people commonly write can replace the guess (see
// preferCJK). "Common" is the small, stable core each national standard set apart for
// frequent use, tested by re-encoding a decoded character, so no frequency table is needed:
// GB 2312 level 1 (3,755 hanzi), Big5's frequently used block (5,401 hanzi) and JIS X 0208
// level 1 (2,965 kanji) plus kana. Mojibake rarely stays inside them: Latin-1 letters read
// as GBK land in GB 2312 level 2 or the private-use rows, Cyrillic read as Shift_JIS in
// halfwidth katakana, and Shift_JIS kana read as GBK in the GBK extension.
//
// Measured on the starts of 3,000 Chinese Wikipedia sentences (CMRC 2018) saved as GBK, the
// share decoded wrong fell from 19-45% to 1-4% for 2 to 9 characters, and from 3-8% to under
// 1% for 15 to 30; none of 9,451 short Western lines (names and sentences from
// /usr/share/doc saved in seven single-byte encodings) was read as CJK. EUC-KR is left out: Hangul in KS X 1001 sits where GB 2312 level 1 does, so a short
// Korean line is also common hanzi, and only the language could tell them apart.
const (
	// sureCJKConfidence is the detector score at or above which its CJK pick stands: the
	// score of a CJK text long enough for the detector's statistics (a paragraph scores 100).
	sureCJKConfidence = 50
	// minCommonCJK is how many common ideographs or kana a reading needs: one could be
	// chance (the German "Ärger" starts with a common Big5 hanzi).
	minCommonCJK = 2
	// minCommonShare is the share of a reading's non-ASCII characters that must be common:
	// room for a rare hanzi in a name, none for the scattered rare ones of mojibake.
	minCommonShare = 0.8
	// scoreSampleBytes is how much of a text the CJK readings are scored on.
	scoreSampleBytes = 4 << 10
)

// cjkDecoding is one CJK multibyte encoding a short text may be in, and how to tell which of
// the characters it decodes to are common.
type cjkDecoding struct {
	name string // as lookupCharset names it
	dec  encoding.Encoding
	// class says whether a decoded character is common from its code in classEnc (a
	// national standard's row and cell).
	class func(code []byte) cjkClass
	// classEnc encodes a decoded character back for class: the national standard under the
	// decoder, which for Shift_JIS is EUC-JP's plainer row and cell form of JIS X 0208.
	classEnc encoding.Encoding
}

type cjkClass int

const (
	cjkRare   cjkClass = iota // outside the common core: level 2, extensions, private use
	cjkSymbol                 // punctuation and fullwidth forms of the standard's symbol rows
	cjkCommon                 // a common ideograph, or kana
)

func cjkDecodings() []cjkDecoding {
	gb, _ := lookupCharset("gb18030")
	big5, _ := lookupCharset("big5")
	sjis, _ := lookupCharset("shift_jis")
	// Ties go to the first: GB before Big5, since GB 2312 text read as Big5 also decodes, and
	// memdesk's Chinese users mostly write simplified Chinese.
	return []cjkDecoding{
		{name: "GB18030", dec: gb, class: gb2312Class, classEnc: simplifiedchinese.GBK},
		{name: "Big5", dec: big5, class: big5Class, classEnc: traditionalchinese.Big5},
		{name: "Shift_JIS", dec: sjis, class: jisClass, classEnc: japanese.EUCJP},
	}
}

// runeEncoder encodes one character at a time into buffers of its own, so scoring a
// reading allocates nothing per character.
type runeEncoder struct {
	enc *encoding.Encoder
	src [utf8.UTFMax]byte
	dst [8]byte
}

// code returns r's bytes in the encoding, or ok false when it has no code for r.
func (e *runeEncoder) code(r rune) (code []byte, ok bool) {
	e.enc.Reset()
	n, _, err := e.enc.Transform(e.dst[:], e.src[:utf8.EncodeRune(e.src[:], r)], true)
	return e.dst[:n], err == nil
}

// gb2312Class: GB 2312 rows 1-3 are punctuation, numerals and fullwidth ASCII, rows 16-55
// level 1 hanzi, in EUC-CN form (row+0xA0, cell+0xA0) as GBK encodes them.
func gb2312Class(code []byte) cjkClass {
	if len(code) != 2 || code[1] < 0xA1 {
		return cjkRare
	}
	switch row := int(code[0]) - 0xA0; {
	case row >= 1 && row <= 3:
		return cjkSymbol
	case row >= 16 && row <= 55:
		return cjkCommon
	}
	return cjkRare
}

// big5Class: Big5 A140-A3BF are symbols, A440-C67E the frequently used hanzi.
func big5Class(code []byte) cjkClass {
	if len(code) != 2 {
		return cjkRare
	}
	switch c := uint16(code[0])<<8 | uint16(code[1]); {
	case c >= 0xA140 && c <= 0xA3BF:
		return cjkSymbol
	case c >= 0xA440 && c <= 0xC67E:
		return cjkCommon
	}
	return cjkRare
}

// jisClass: JIS X 0208 rows 1-3 are symbols and fullwidth alphanumerics, rows 4-5 hiragana
// and katakana, rows 16-47 level 1 kanji, in EUC-JP form. Halfwidth katakana (EUC-JP's 0x8E
// prefix) is rare: it is what Cyrillic and Chinese bytes turn into when read as Shift_JIS.
func jisClass(code []byte) cjkClass {
	if len(code) != 2 || code[0] < 0xA1 || code[1] < 0xA1 {
		return cjkRare
	}
	switch row := int(code[0]) - 0xA0; {
	case row >= 1 && row <= 3:
		return cjkSymbol
	case row == 4 || row == 5, row >= 16 && row <= 47:
		return cjkCommon
	}
	return cjkRare
}

// cjkScore is how a reading's non-ASCII characters divide among cjkClass.
type cjkScore struct {
	common, symbols, rare int
	// longestRun is the most common characters and symbols in a row. Chinese and Japanese
	// are written in runs of them; mojibake of Latin text has them alone between ASCII
	// letters, where curly quotes or an accented letter and the letter after it made one
	// ("the 荘Software鋳" is ‘‘Software’’ read as Shift_JIS).
	longestRun int
}

// share is the part of the non-ASCII characters that are common or symbols.
func (s cjkScore) share() float64 {
	all := s.common + s.symbols + s.rare
	if all == 0 {
		return 0
	}
	return float64(s.common+s.symbols) / float64(all)
}

// scoreCJK decodes sample as d and scores the reading; ok is false when the bytes are not
// valid in d (a replacement character) or decode to control characters, which no text holds.
func scoreCJK(d cjkDecoding, sample []byte) (score cjkScore, ok bool) {
	text := decodeWith(d.dec, sample)
	if strings.ContainsRune(text, utf8.RuneError) || hasControls(text) {
		return cjkScore{}, false
	}
	enc := &runeEncoder{enc: d.classEnc.NewEncoder()}
	runes := []rune(text)
	run := 0
	for i, r := range runes {
		if r < utf8.RuneSelf {
			run = 0
			continue
		}
		class := cjkRare
		if code, ok := enc.code(r); ok {
			class = d.class(code)
		}
		if i > 0 && i+1 < len(runes) && isASCIILetter(runes[i-1]) && isASCIILetter(runes[i+1]) {
			// Inside a Latin word ("Franti鈹k" is František in ISO-8859-2 read as Big5):
			// Big5 and Shift_JIS take ASCII letters as second bytes, so one accented letter
			// and the letter after it make a hanzi. Chinese and Japanese text do not put one
			// between two letters.
			class = cjkRare
		}
		switch class {
		case cjkCommon:
			score.common++
		case cjkSymbol:
			score.symbols++
		default:
			score.rare++
		}
		if class == cjkRare {
			run = 0
		} else {
			run++
			score.longestRun = max(score.longestRun, run)
		}
	}
	return score, true
}

// hasControls reports a control character other than the white space text uses.
func hasControls(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return stdunicode.IsControl(r) && !strings.ContainsRune("\t\n\v\f\r\x1b", r)
	})
}

// preferCJK returns the CJK encoding sample is better read as than the detector's pick
// (reading is sample decoded as the pick, named name, at the detector's confidence), or ok
// false to keep the pick. A CJK reading must be convincing: valid, and nearly all common
// characters. It replaces a single-byte pick whose reading does not look like words, and a
// CJK pick the detector was unsure of whose reading is less common. A single-byte reading
// that looks like words is kept: a lowercase Russian word or two in KOI8-R is also valid,
// common GB 2312 hanzi ("пожалуйста" reads 邢至陶视粤), and only the language could tell.
func preferCJK(sample []byte, reading, name string, confidence int) (encoding.Encoding, string, bool) {
	if confidence >= sureCJKConfidence && isMultibyte(name) {
		return nil, "", false // it saw more than a line or two of CJK
	}
	if i := bytes.LastIndexByte(sample[:min(len(sample), scoreSampleBytes)], '\n'); len(sample) > scoreSampleBytes && i > 0 {
		// Scoring costs an encoder call per character; the texts the detector is unsure of
		// are mostly short, and a few KB of a long one say as much as all of it. Cut at a
		// line end, as the detector's sample is, so no character is cut in two.
		sample = sample[:i+1]
	}
	var (
		best      cjkDecoding
		bestScore cjkScore
		found     bool
		picked    *cjkScore // the detector's pick, when it is one of the CJK decodings
	)
	for _, d := range cjkDecodings() {
		score, ok := scoreCJK(d, sample)
		if !ok {
			continue
		}
		if d.name == name {
			picked = &score
		}
		if score.share() >= minCommonShare && score.common > 0 && (!found || score.share() > bestScore.share()) {
			best, bestScore, found = d, score, true
		}
	}
	switch {
	case !found, best.name == name:
		return nil, "", false
	case picked == nil && confidence > minConfidence && isMultibyte(name):
		// EUC-KR or EUC-JP, which the detector saw evidence of: Korean in EUC-KR is also
		// valid, common GB 2312.
		return nil, "", false
	case picked != nil:
		if bestScore.share() <= picked.share() {
			return nil, "", false
		}
	case bestScore.common < minCommonCJK, bestScore.longestRun < 2, readsAsWords(reading):
		return nil, "", false
	}
	return best.dec, best.name, true
}

// readsAsWords reports whether a single-byte reading looks like text in an alphabet. A CJK
// text read one byte at a time is pairs of high bytes, which come out as runs of symbols, box
// drawing, or letters in changing case ("ÄãºÃ" is 你好 in Windows-1252), or as words of
// accented capitals alone ("ÖÐÎÄ" is 中文). So every run of two or more non-ASCII characters
// must be letters of one script that never turn from lower to upper case (Москва, привет);
// and in Latin script, where most letters are ASCII, such a run must be part of a word with
// an ASCII letter in it (Grüße). Most non-ASCII characters must be letters: Big5 pairs with
// an ASCII second byte come out as a symbol and an ASCII character ("¡]ª`¡G«e" is （注：前).
func readsAsWords(s string) bool {
	runes := []rune(s)
	symbols, nonASCII := 0, 0
	for _, r := range runes {
		if r >= utf8.RuneSelf {
			nonASCII++
			if !stdunicode.IsLetter(r) {
				symbols++
			}
		}
	}
	if symbols >= 2 && symbols*2 > nonASCII {
		return false
	}
	for start := 0; start < len(runes); {
		if runes[start] < utf8.RuneSelf {
			start++
			continue
		}
		end := start
		for end < len(runes) && runes[end] >= utf8.RuneSelf {
			end++
		}
		inWord := start > 0 && isASCIILetter(runes[start-1]) || end < len(runes) && isASCIILetter(runes[end])
		if end-start >= 2 && !alphabetic(runes[start:end], inWord) {
			return false
		}
		start = end
	}
	return true
}

// alphabetic reports a run of letters of one script that never turn from lower to upper case;
// a Latin one only inWord, next to an ASCII letter.
func alphabetic(run []rune, inWord bool) bool {
	script, lower := scriptOf(run[0]), false
	if script == "" || script == "Latin" && !inWord {
		return false
	}
	for _, r := range run {
		switch {
		case !stdunicode.IsLetter(r), scriptOf(r) != script:
			return false
		case stdunicode.IsLower(r):
			lower = true
		case stdunicode.IsUpper(r) && lower:
			return false
		}
	}
	return true
}

// scriptOf names the alphabet r belongs to, among those single-byte encodings exist for, or
// "" for any other.
func scriptOf(r rune) string {
	for _, script := range []string{"Latin", "Cyrillic", "Greek", "Hebrew", "Arabic", "Thai"} {
		if stdunicode.Is(stdunicode.Scripts[script], r) {
			return script
		}
	}
	return ""
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// isMultibyte reports the CJK encodings among the detector's guesses.
func isMultibyte(name string) bool {
	switch name {
	case "GB18030", "Big5", "Shift_JIS", "EUC-JP", "EUC-KR", "ISO-2022-JP", "ISO-2022-KR", "ISO-2022-CN":
		return true
	}
	return false
}
