// Package rewrite removes question words and filler from a query so that its content words
// remain. The engine grades this rewrite beside the original query, each with its own FTS
// bar, so "老王喜欢什么风格" can reach a memory that says "老王喜欢简约风格". Where a question
// word goes, a space stays: the characters either side of it were never neighbours.
//
// It is pure and errs towards keeping text: a word wrongly kept costs a little precision, a
// word wrongly removed can lose the one term that mattered. So:
//   - Chinese question words of two or more characters go wherever they are (什么, 怎么,
//     哪里, 为什么, 请问, 是不是…); they do not occur inside ordinary words.
//   - Single characters are words' parts as often as words, so each has its own rule: 谁 and
//     哪 always ask (except in the name 哪吒); 几 asks only before a measure word (几个, 几点;
//     茶几 and 几乎 stay); 吗, 呢, 吧, 啊, 呀, 嘛 are particles only at the end of a sentence,
//     and not in the nouns that end in them (酒吧, 毛呢, 喇嘛).
//   - 是, 的是 and 在 go only when they lead into a question word (他是谁, 喜欢的是什么,
//     钥匙在哪里), and stay where they end a word (目的是什么 keeps 目的, 现在哪里 keeps 现在).
//   - English filler is removed as whole words, case-insensitively, with contractions
//     (what's, I'm) but not inside identifiers (how-to, end-to-end); words written in
//     capitals (IT) are kept as acronyms unless the whole query is in capitals.
package rewrite

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/query"
)

// Strip removes question words and filler so that the content words remain:
// "老王喜欢什么风格" -> "老王喜欢 风格"; "what is the staging cluster" -> "staging cluster";
// "how do I deploy the app" -> "deploy app". It returns "" when nothing but filler remains,
// and the input unchanged when there is nothing to strip. What remains has its whitespace
// collapsed and no punctuation at either end. Bytes that are not valid UTF-8 become spaces.
func Strip(q string) string {
	q = strings.ToValidUTF8(q, " ")
	out, removed := stripOnce(q)
	if !removed {
		return q
	}
	// A removal can leave text that another pass removes. Stop at a fixed point, which is
	// also what makes Strip idempotent.
	for {
		next, removed := stripOnce(out)
		if !removed {
			return out
		}
		out = next
	}
}

// stripOnce removes every filler word it finds in one pass and tidies the result. It reports
// whether it removed anything; if not, q is returned as it was.
func stripOnce(q string) (string, bool) {
	// Capitals are acronyms ("IT部门", "who runs IT") unless the whole query shouts.
	keepCaps := strings.IndexFunc(q, func(r rune) bool { return unicode.IsLower(r) || query.IsCJK(r) }) >= 0
	out := make([]byte, 0, len(q))
	removed := false
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if isWordRune(r) {
			end := i + tokenLen(q[i:])
			if isFillerToken(q[i:end], keepCaps) {
				removed = true
			} else {
				out = append(out, q[i:end]...)
			}
			i = end
			continue
		}
		if n := zhFillerLen(q, i); n > 0 {
			removed = true
			// The question word stood between two words, and still parts them: "deploy什么app"
			// had no other space, and 莱索托哪一年 must not become 莱索托一年, whose 托一
			// is a pair no text means (it matched 委托一份).
			last, _ := utf8.DecodeLastRune(out)
			next, _ := utf8.DecodeRuneInString(q[i+n:])
			if isLetter(last) && isLetter(next) {
				out = append(out, ' ')
			}
			i += n
			continue
		}
		out = append(out, q[i:i+size]...)
		i += size
	}
	if !removed {
		return q, false
	}
	return tidy(string(out)), true
}

// tidy collapses whitespace, drops a separator that follows another punctuation mark (the word
// between them is gone), trims punctuation from both ends, and returns "" when no letter or
// digit is left.
func tidy(s string) string {
	var b strings.Builder
	var prev rune // last rune written that is not a space
	for _, f := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for _, r := range f {
			if isSeparator(r) && (isSeparator(prev) || isTerminal(prev)) {
				continue
			}
			b.WriteRune(r)
			prev = r
		}
	}
	out := strings.TrimFunc(b.String(), func(r rune) bool {
		return unicode.IsSpace(r) || isSeparator(r) || isTerminal(r)
	})
	if strings.IndexFunc(out, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	return out
}

func isSeparator(r rune) bool { return strings.ContainsRune(",，、;；:：", r) }
func isTerminal(r rune) bool  { return strings.ContainsRune(".。?？!！…", r) }

// isLetter reports a letter or digit of any script, CJK included.
func isLetter(r rune) bool { return isWordRune(r) || query.IsCJK(r) }

// isWordRune reports the letters and digits of space-separated scripts. CJK letters are not
// among them: "老王what" holds the English word "what".
func isWordRune(r rune) bool {
	return r == '_' || (unicode.IsLetter(r) || unicode.IsDigit(r)) && !query.IsCJK(r)
}

// tokenLen is the length of the English word at the start of s. Inner '.', '-' and
// apostrophes join it ("go-sqlite3", "3.12", "what's"), so filler inside an identifier such
// as "how-to" or "end-to-end" is never removed.
func tokenLen(s string) int {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) {
			i += size
			continue
		}
		if strings.ContainsRune(".-'’", r) {
			if next, _ := utf8.DecodeRuneInString(s[i+size:]); isWordRune(next) {
				i += size
				continue
			}
		}
		break
	}
	return i
}

// isFillerToken reports whether an English word is filler. keepCaps keeps words of two or
// more letters written in capitals.
func isFillerToken(tok string, keepCaps bool) bool {
	if keepCaps && len(tok) >= 2 && strings.IndexFunc(tok, unicode.IsLower) < 0 {
		return false
	}
	word := tok
	for _, apos := range [...]string{"'", "’"} {
		if base, suffix, ok := strings.Cut(tok, apos); ok {
			switch strings.ToLower(suffix) {
			case "s", "re", "m", "ll", "d", "ve":
				word = base
			default:
				return false // "don't" says the opposite of "do"
			}
		}
	}
	if len(word) > len("please") {
		return false
	}
	var buf [8]byte
	lower := buf[:0]
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c < 'a' || c > 'z':
			return false
		}
		lower = append(lower, c)
	}
	return isFillerWord(string(lower))
}

func isFillerWord(w string) bool {
	switch w {
	case "what", "which", "who", "whom", "whose", "where", "when", "why", "how",
		"is", "are", "was", "were", "do", "does", "did",
		"can", "could", "should", "would", "will",
		"the", "a", "an", "of", "to", "for", "about",
		"i", "me", "my", "we", "our", "you", "your", "it", "its",
		"tell", "know", "please", "any", "there", "that", "this":
		return true
	}
	return false
}

// zhQuestionWords are removed wherever they occur, longest first where one starts another.
var zhQuestionWords = [...]string{
	"为什么", "為什麼", "为何", "為何", "为啥", "為啥",
	// 什么时候 is "when": 时候 ("time") is no topic of the question.
	"什么时候", "什麼時候", "啥时候", "啥時候",
	"什么是", "什麼是", "什么", "什麼",
	"怎么样", "怎麼樣", "怎么", "怎麼", "怎样", "怎樣", "如何",
	"哪里", "哪裡", "哪儿", "哪兒", "哪个", "哪個", "哪些",
	"多少", "请问", "請問", "是不是", "有没有", "有沒有", "是否",
	"我想知道", "告诉我", "告訴我",
}

// zhHowAdjectives are the adjectives 多 turns into a "how …" question at a sentence's end:
// 多长 (long), 多远 (far), 多久 (long a time), 多高, 多大, 多重, 多宽, 多深, 多厚, 多快, 多老.
const zhHowAdjectives = "长長远遠久高大重宽寬深厚快老"

// zhFillerLen is the length of the Chinese filler at byte i of q, or 0.
func zhFillerLen(q string, i int) int {
	s := q[i:]
	if n := zhQuestionLen(s); n > 0 {
		return n
	}
	prev, _ := utf8.DecodeLastRuneInString(q[:i])
	for _, lead := range [...]struct{ text, wordEnds string }{
		{"的是", "目真有别別"}, // 目的是什么 keeps 目的
		{"是", "但还還就可不于於只总總正凡要或若倒真都也硬算"}, // 还是什么 keeps 还是
		{"在", "现現正存实實自所好"},              // 现在哪里 keeps 现在
	} {
		if strings.HasPrefix(s, lead.text) && !strings.ContainsRune(lead.wordEnds, prev) {
			after := s[len(lead.text):]
			if zhQuestionLen(after) > 0 || lead.text == "的是" && atSentenceEnd(after) {
				return len(lead.text)
			}
		}
	}
	r, size := utf8.DecodeRuneInString(s)
	// 多 and an adjective at the end of a question asks "how long", "how far" (崇陵墓道有多长,
	// 太阳有多远): what is asked, not what it is asked about. Inside a sentence the same
	// characters are parts of words (很多长辈, 许多高山), so only at its end.
	if r == '多' {
		if adj, n := utf8.DecodeRuneInString(s[size:]); strings.ContainsRune(zhHowAdjectives, adj) && atSentenceEnd(s[size+n:]) {
			return size + n
		}
	}
	if strings.ContainsRune("吗嗎呢吧啊呀嘛", r) && atSentenceEnd(s[size:]) {
		switch {
		case r == '吧' && strings.ContainsRune("酒网網贴貼水氧书書茶陶", prev),
			r == '呢' && prev == '毛',
			r == '嘛' && prev == '喇':
			return 0
		}
		return size
	}
	return 0
}

// zhQuestionLen is the length of the question word at the start of s, or 0.
func zhQuestionLen(s string) int {
	for _, w := range zhQuestionWords {
		if strings.HasPrefix(s, w) {
			return len(w)
		}
	}
	r, size := utf8.DecodeRuneInString(s)
	switch r {
	case '谁', '誰':
		return size
	case '哪':
		if !strings.HasPrefix(s, "哪吒") {
			return size
		}
	case '几', '幾':
		if m, msize := utf8.DecodeRuneInString(s[size:]); strings.ContainsRune("个個位点點号號次岁歲年月天名本张張件种種份", m) {
			return size + msize
		}
	}
	return 0
}

// atSentenceEnd reports whether s, the text after a particle, starts a new sentence or ends.
func atSentenceEnd(s string) bool {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(s)
	return s == "" || isTerminal(r) || isSeparator(r)
}
