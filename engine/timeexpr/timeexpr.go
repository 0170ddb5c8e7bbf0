// Package timeexpr finds relative time expressions in a query ("昨天", "上周", "三天前",
// "last week", "2 days ago") and turns each into a created-time range, so the engine filters
// on when a memory was written instead of matching the time word as text.
//
// It is pure and conservative on purpose: a false filter hides memories the person wanted,
// while a missed expression only leaves a word in the query. So:
//   - Absolute dates and years ("2023", "5月7日", "May 7", "2023年前") are content and stay.
//   - Vague or ambiguous phrases stay: "几天前", "两三天前", "以前", "in the past",
//     "a few days ago", "the last week of June", "before yesterday", "上周之前".
//   - A time word inside a larger word is not one: "过去年轻时" (过去+年轻), "以前天气"
//     (以前+天气), "成本月度" (成本+月度), "马上周末" (马上+周末), "本周期" (周期),
//     "这个月饼" (月饼), "yesterdays", "lastweek", "today.txt".
//
// Ranges are half-open, [From, To), with day boundaries in now's location and weeks starting
// on Monday:
//   - A named period is that whole calendar period: "上周"/"last week" is Monday to Monday,
//     "三天前" is all of that day, "两个月前" that calendar month. "上周" and "一周前" agree.
//     A weekday after a week word ("上周五") and 初/底/末 after a month or year ("去年底")
//     are part of the expression but still mean the whole period: people misplace a day
//     more often than a week.
//   - A span ("最近", "近三天", "past 2 weeks", "in the last 3 days") runs from that many
//     units before the start of today to the end of today: a day more than a strict
//     reading, so a note from the edge of the window is not lost.
//   - "since X" / "X以来" runs from the start of X to the end of today.
//
// Future words (明天, tomorrow) are not filters: nothing was written then, and a note about
// tomorrow's meeting says 明天 in its text. Times of day on their own ("早上", "下午"),
// weekdays ("周五", "Friday") and months ("五月", "May") are content too.
package timeexpr

import (
	"bytes"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/query"
)

// Range is a half-open interval [From, To) of creation times, in the caller's location.
type Range struct{ From, To time.Time }

// Expr is one relative time expression found in a query.
type Expr struct {
	Text       string // as written; always q[Start:End]
	Start, End int    // byte span in the query
	Range      Range
}

// recentDays is how far back "最近" and "recently" reach. A week matches how people use the
// words about their own notes; a wider window would make the filter almost a no-op.
const recentDays = 7

// justNowHours is how far back "刚才" and "just now" reach.
const justNowHours = 3

// Parse finds relative time expressions in q, evaluated against now (its Location is used
// for day boundaries). It returns the query with them removed (whitespace tidied, no dangling
// punctuation) and the expressions found, in order. When nothing is found rest is q itself.
// Bytes that are not valid UTF-8 never match and become spaces in rest.
func Parse(q string, now time.Time) (rest string, found []Expr) {
	found = scan(q, now)
	if len(found) == 0 {
		if !utf8.ValidString(q) {
			return strings.ToValidUTF8(q, " "), nil
		}
		return q, nil
	}
	return without(q, found), found
}

// Cover returns the smallest range holding every expression's range, and false when found is
// empty. A query that names two times ("上周和昨天") asks about both, so the filter is their
// hull rather than their (empty) intersection.
func Cover(found []Expr) (Range, bool) {
	if len(found) == 0 {
		return Range{}, false
	}
	r := found[0].Range
	for _, e := range found[1:] {
		if e.Range.From.Before(r.From) {
			r.From = e.Range.From
		}
		if e.Range.To.After(r.To) {
			r.To = e.Range.To
		}
	}
	return r, true
}

type unit int

const (
	hour unit = iota // only as a span ("刚才")
	day
	week
	month
	year
)

// period is what an expression means relative to now.
type period struct {
	unit  unit
	back  int  // how many units before the current one
	span  bool // from back units before today to the end of today, not one calendar unit
	since bool // from the start of the period to the end of today
}

// match is an expression found in the query before its range is computed.
type match struct {
	start, end int
	p          period
	refused    bool // looked like an expression but is not one: skip it whole
}

func (p period) rangeAt(now time.Time) Range {
	loc := now.Location()
	y, m, d := now.Date()
	date := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, loc) }
	tomorrow := date(y, m, d+1)
	if p.span {
		var from time.Time
		switch p.unit {
		case hour:
			from = now.Add(-time.Duration(p.back) * time.Hour)
		case day:
			from = date(y, m, d-p.back)
		case week:
			from = date(y, m, d-7*p.back)
		case month:
			from = monthsBefore(y, m, d, p.back, loc)
		case year:
			from = monthsBefore(y, m, d, 12*p.back, loc)
		}
		return Range{From: from, To: tomorrow}
	}
	var r Range
	switch p.unit {
	case day:
		r = Range{date(y, m, d-p.back), date(y, m, d-p.back+1)}
	case week:
		monday := d - (int(now.Weekday())+6)%7 - 7*p.back
		r = Range{date(y, m, monday), date(y, m, monday+7)}
	case month:
		r = Range{date(y, m-time.Month(p.back), 1), date(y, m-time.Month(p.back)+1, 1)}
	case year:
		r = Range{date(y-p.back, 1, 1), date(y-p.back+1, 1, 1)}
	}
	if p.since {
		r.To = tomorrow
	}
	return r
}

// monthsBefore is the same day n months earlier, clamped to the end of a shorter month:
// time.Date would roll 31 March minus one month over to 3 March and shorten the span.
func monthsBefore(y int, m time.Month, d, n int, loc *time.Location) time.Time {
	first := time.Date(y, m-time.Month(n), 1, 0, 0, 0, 0, loc)
	if last := time.Date(first.Year(), first.Month()+1, 0, 0, 0, 0, 0, loc).Day(); d > last {
		d = last
	}
	return time.Date(first.Year(), first.Month(), d, 0, 0, 0, 0, loc)
}

// maxBack bounds N in "N天前" and "N years ago": larger numbers are years or amounts
// ("2023年前" is "before 2023"), not distances in time.
func maxBack(u unit) int {
	switch u {
	case day:
		return 1000
	case week:
		return 520
	case month:
		return 240
	default:
		return 100
	}
}

// scan finds the expressions leftmost-first, preferring the longest at each position.
func scan(q string, now time.Time) []Expr {
	toks := tokenize(q)
	var found []Expr
	k := 0
	for i := 0; i < len(q); {
		for k < len(toks) && toks[k].start < i {
			k++
		}
		var m match
		ok := false
		if k < len(toks) && toks[k].start == i {
			m, ok = matchEnglish(q, toks, k)
		}
		afterExpr := len(found) > 0 && found[len(found)-1].End == i
		if zm, zok := matchChinese(q, i, afterExpr); zok && (!ok || zm.end > m.end) {
			m, ok = zm, true
		}
		if ok && m.refused {
			i = m.end
			continue
		}
		if ok {
			found = append(found, Expr{Text: q[m.start:m.end], Start: m.start, End: m.end, Range: m.p.rangeAt(now)})
			i = m.end
			continue
		}
		_, size := utf8.DecodeRuneInString(q[i:])
		i += size
	}
	return found
}

// without removes the expressions from q and tidies what is left at each seam.
func without(q string, found []Expr) string {
	buf := []byte(q[:found[0].Start])
	for j, e := range found {
		next := len(q)
		if j+1 < len(found) {
			next = found[j+1].Start
		}
		buf = joinSeam(buf, dropParticle(q[e.End:next]))
	}
	rest := strings.Join(strings.Fields(strings.ToValidUTF8(string(buf), " ")), " ")
	if strings.IndexFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	return rest
}

// dropParticle drops the possessive that tied the removed expression to what follows:
// "上周的会议" leaves "会议", "last week's notes" leaves "notes". 的确 ("indeed") is a word.
func dropParticle(s string) string {
	switch {
	case strings.HasPrefix(s, "的") && !strings.HasPrefix(s, "的确") && !strings.HasPrefix(s, "的確"):
		return s[len("的"):]
	case strings.HasPrefix(s, "'s") && !wordRuneAt(s, 2):
		return s[2:]
	case strings.HasPrefix(s, "’s") && !wordRuneAt(s, len("’s")):
		return s[len("’s"):]
	}
	return s
}

// joinSeam appends right to left where an expression was cut out, so that the cut leaves no
// empty brackets, no separator at the start, and no separator doubled before other
// punctuation. A space goes back only between two non-CJK words: Chinese has none to restore.
func joinSeam(left []byte, right string) []byte {
	// "(昨天)" leaves nothing inside its brackets: drop them too.
	if open, size := utf8.DecodeLastRune(left); size > 0 && closing(open) != 0 {
		if r, rs := utf8.DecodeRuneInString(right); r == closing(open) {
			left, right = left[:len(left)-size], right[rs:]
		}
	}
	left = bytes.TrimRightFunc(left, unicode.IsSpace)
	right = strings.TrimLeftFunc(right, unicode.IsSpace)
	first, _ := utf8.DecodeRuneInString(right)
	switch {
	case len(left) == 0:
		right = strings.TrimLeftFunc(right, func(r rune) bool {
			return unicode.IsSpace(r) || isSeparator(r) || isTerminal(r)
		})
		first, _ = utf8.DecodeRuneInString(right)
	case right == "" || isSeparator(first) || isTerminal(first) || isClosing(first):
		left = bytes.TrimRightFunc(left, func(r rune) bool {
			return unicode.IsSpace(r) || isSeparator(r)
		})
	}
	if len(left) == 0 || right == "" {
		return append(left, right...)
	}
	last, _ := utf8.DecodeLastRune(left)
	if !isTight(last) && !isTight(first) && !isOpening(last) &&
		!isSeparator(first) && !isTerminal(first) && !isClosing(first) {
		left = append(left, ' ')
	}
	return append(left, right...)
}

// isTight reports runes written without spaces around them: CJK text and its punctuation.
func isTight(r rune) bool {
	return query.IsCJK(r) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}

func isSeparator(r rune) bool { return strings.ContainsRune(",，、;；:：", r) }
func isTerminal(r rune) bool  { return strings.ContainsRune(".。?？!！…", r) }

func closing(open rune) rune {
	switch open {
	case '(':
		return ')'
	case '（':
		return '）'
	case '[':
		return ']'
	case '【':
		return '】'
	case '「':
		return '」'
	case '『':
		return '』'
	case '“':
		return '”'
	case '"':
		return '"'
	}
	return 0
}

func isOpening(r rune) bool { return strings.ContainsRune("(（[【「『“", r) }
func isClosing(r rune) bool { return strings.ContainsRune(")）]】」』”", r) }

// isWordRune reports letters and digits of space-separated scripts: the runes that make
// "yesterdays" one word. CJK letters are not among them, so "我yesterday去" holds a word.
func isWordRune(r rune) bool {
	return r == '_' || (unicode.IsLetter(r) || unicode.IsDigit(r)) && !query.IsCJK(r)
}

func wordRuneAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r)
}
