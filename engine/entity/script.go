package entity

import (
	"iter"
	"unicode"

	"github.com/pemistahl/lingua-go"
)

type script uint8

const (
	scriptOther    script = iota // Latin and every other script, digits, spaces, punctuation
	scriptHan                    // Chinese characters, simplified and traditional, and kanji
	scriptHiragana               // Japanese grammar: particles and inflections
	scriptKatakana               // Japanese loanwords and foreign names
	scriptHangul                 // Korean
)

const (
	prolongedSoundMark = 'ー' // U+30FC has script Common but only ever lengthens kana
	katakanaMiddleDot  = '・' // U+30FB joins the parts of a foreign name: ドナルド・トランプ
)

func scriptOf(r rune) script {
	switch {
	case r < 0x2E80: // fast path: nothing below the CJK radicals block is CJK
		return scriptOther
	case unicode.Is(unicode.Han, r):
		return scriptHan
	case unicode.Is(unicode.Hiragana, r):
		return scriptHiragana
	case unicode.Is(unicode.Katakana, r), r == prolongedSoundMark, r == katakanaMiddleDot:
		return scriptKatakana
	case unicode.Is(unicode.Hangul, r):
		return scriptHangul
	}
	return scriptOther
}

type scriptRun struct {
	script script
	text   string
}

// scriptRuns yields the maximal runs of text in one script, in order. Spaces and punctuation
// belong to the scriptOther runs, so a CJK run holds no separators and a Latin run keeps the
// punctuation its rules need ("3.12", "node.js", sentence ends).
func scriptRuns(text string) iter.Seq[scriptRun] {
	return func(yield func(scriptRun) bool) {
		start, current := 0, scriptOther
		for i, r := range text {
			s := scriptOf(r)
			if s == current {
				continue
			}
			if i > start && !yield(scriptRun{current, text[start:i]}) {
				return
			}
			start, current = i, s
		}
		if start < len(text) {
			yield(scriptRun{current, text[start:]})
		}
	}
}

// latinPerHan weighs Latin letters against CJK characters when deciding which script a
// mixed text is written in: an English word averages about 4.7 letters and carries about as
// much as a Chinese word of 1.5 characters, so three Latin letters count as one CJK
// character. "用Go写API服务" is Chinese (4 vs 5/3); "CI uses Python 3.12 在北京" is English
// (3 vs 13/3).
const latinPerHan = 3

// maxDetectBytes is how much Latin text lingua reads. Detection cost is linear (~0.6 ms per
// KB); a document does not change language after its first kilobyte often enough to pay more.
const maxDetectBytes = 1 << 10

// minForeignConfidence is how sure lingua must be that Latin text is not English before the
// strict foreign rules apply. Below it the text is treated as English: memdesk's Latin text
// is mostly English, and lingua's confidence on short notes is low and often wrong ("CI uses
// Python 3.12" is French 0.33, "Use go-sqlite3 not mattn" German 0.47, "Password manager is
// 1Password" German 0.53), while short German, French and Spanish sentences mostly clear it
// ("Ich mag Kaffee" 0.68, "Me gusta el café por la mañana" 0.90). Misreading French as
// English costs a few lowercase junk entities; misreading English as foreign loses every
// lowercase noun.
const minForeignConfidence = 0.6

// lang decides the language of prepared text: script first (kana means Japanese, Hangul
// Korean, Han Chinese), lingua only when Latin letters dominate.
func (x *Extractor) lang(text string) string {
	var han, kana, hangul, latin, other int
	for _, r := range text {
		switch scriptOf(r) {
		case scriptHan:
			han++
		case scriptHiragana, scriptKatakana:
			kana++
		case scriptHangul:
			hangul++
		default:
			switch {
			case !unicode.IsLetter(r):
			case unicode.Is(unicode.Latin, r):
				latin++
			default:
				other++
			}
		}
	}
	cjk := han + kana + hangul
	switch {
	case cjk > 0 && cjk*latinPerHan >= latin && cjk*latinPerHan >= other:
		switch {
		case hangul >= han+kana:
			return "ko"
		case kana > 0:
			return "ja"
		}
		return "zh"
	case latin > 0 && latin >= other:
		return x.latinLang(text)
	}
	return "other"
}

func (x *Extractor) latinLang(text string) string {
	values := x.detector.ComputeLanguageConfidenceValues(truncate(text, maxDetectBytes))
	if len(values) > 0 && values[0].Language() != lingua.English && values[0].Value() >= minForeignConfidence {
		return "other"
	}
	return "en"
}
