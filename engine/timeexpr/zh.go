package timeexpr

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type zhWord struct {
	text string
	p    period
}

// zhWords are the fixed Chinese expressions, simplified and traditional. 今日 is left out on
// purpose: it is as often a name (今日头条) as a date.
var zhWords = [...]zhWord{
	{"今天", period{unit: day}},
	{"今早", period{unit: day}},
	{"今晚", period{unit: day}},
	{"昨天", period{unit: day, back: 1}},
	{"昨日", period{unit: day, back: 1}},
	// Late-night notes are written after midnight as often as before.
	{"昨晚", period{unit: day, back: 1, span: true}},
	{"昨夜", period{unit: day, back: 1, span: true}},
	{"前天", period{unit: day, back: 2}},
	{"大前天", period{unit: day, back: 3}},

	{"刚才", period{unit: hour, back: justNowHours, span: true}},
	{"刚刚", period{unit: hour, back: justNowHours, span: true}},
	{"剛才", period{unit: hour, back: justNowHours, span: true}},
	{"剛剛", period{unit: hour, back: justNowHours, span: true}},
	{"最近", period{unit: day, back: recentDays, span: true}},
	{"近来", period{unit: day, back: recentDays, span: true}},
	{"近來", period{unit: day, back: recentDays, span: true}},
	{"这几天", period{unit: day, back: recentDays, span: true}},
	{"這幾天", period{unit: day, back: recentDays, span: true}},
	{"这两天", period{unit: day, back: recentDays, span: true}},
	{"這兩天", period{unit: day, back: recentDays, span: true}},
	{"最近几天", period{unit: day, back: recentDays, span: true}},
	{"最近幾天", period{unit: day, back: recentDays, span: true}},
	{"前几天", period{unit: day, back: recentDays, span: true}},
	{"前幾天", period{unit: day, back: recentDays, span: true}},

	{"这周", period{unit: week}},
	{"這周", period{unit: week}},
	{"這週", period{unit: week}},
	{"本周", period{unit: week}},
	{"本週", period{unit: week}},
	{"这星期", period{unit: week}},
	{"這星期", period{unit: week}},
	{"这个星期", period{unit: week}},
	{"這個星期", period{unit: week}},
	{"本星期", period{unit: week}},
	{"这礼拜", period{unit: week}},
	{"這禮拜", period{unit: week}},
	{"这个礼拜", period{unit: week}},
	{"這個禮拜", period{unit: week}},
	{"上周", period{unit: week, back: 1}},
	{"上週", period{unit: week, back: 1}},
	{"上星期", period{unit: week, back: 1}},
	{"上个星期", period{unit: week, back: 1}},
	{"上個星期", period{unit: week, back: 1}},
	{"上礼拜", period{unit: week, back: 1}},
	{"上禮拜", period{unit: week, back: 1}},
	{"上个礼拜", period{unit: week, back: 1}},
	{"上個禮拜", period{unit: week, back: 1}},
	{"上上周", period{unit: week, back: 2}},
	{"上上週", period{unit: week, back: 2}},
	{"上上星期", period{unit: week, back: 2}},
	{"上上个星期", period{unit: week, back: 2}},
	{"上上個星期", period{unit: week, back: 2}},

	{"这个月", period{unit: month}},
	{"這個月", period{unit: month}},
	{"这月", period{unit: month}},
	{"這月", period{unit: month}},
	{"本月", period{unit: month}},
	{"上个月", period{unit: month, back: 1}},
	{"上個月", period{unit: month, back: 1}},
	{"上月", period{unit: month, back: 1}},
	{"上上个月", period{unit: month, back: 2}},
	{"上上個月", period{unit: month, back: 2}},

	{"今年", period{unit: year}},
	{"去年", period{unit: year, back: 1}},
	{"前年", period{unit: year, back: 2}},
	{"大前年", period{unit: year, back: 3}},
}

// zhUnits follow a count: "三天前", "两个星期前", "兩個月前", "五年前". Months need 个/個:
// "一月前" reads as "before January".
var zhUnits = [...]struct {
	text string
	unit unit
}{
	{"天", day},
	{"周", week}, {"週", week}, {"星期", week}, {"个星期", week}, {"個星期", week},
	{"礼拜", week}, {"禮拜", week}, {"个礼拜", week}, {"個禮拜", week},
	{"个月", month}, {"個月", month},
	{"年", year},
}

// blockedBefore lists, for the first character of an expression, the characters that would
// make it the tail of a longer word: 以前|天气, 过去|年轻, 马上|周末, 早上|周会, 成本|月度, 附近|来.
func blockedBefore(first rune) string {
	switch first {
	case '今':
		return "如至迄现現当當古而"
	case '去':
		return "过過失除死离離回出进進上下归歸来來逝老"
	case '前':
		return "以之从從提目眼面当當跟生事空向往先此日门門上年月天超"
	case '上':
		return "马馬早晚网網线線路身手面楼樓桌天地海山车車床头頭街台班之以加爱愛赶趕跟比顶頂关關穿戴写寫填贴貼挂掛放登考配追遇碰"
	case '本':
		return "日记記成资資基根版课課样樣剧劇文账賬脚腳原范範标標读讀书書画畫副正母血话話底蓝藍抄译譯刻手"
	case '近':
		return "附接靠将將临臨亲親贴貼逼挨走"
	}
	return ""
}

// blockedAfter lists, for the last character of an expression, the characters that would make
// it the head of a longer word: 年|轻, 周|期, 月|饼, 刚刚|好.
func blockedAfter(last rune) string {
	switch last {
	case '年':
		return "轻輕龄齡级級"
	case '周', '週':
		return "期边邊围圍到全岁歲年"
	case '月':
		return "饼餅亮光球台臺票"
	case '刚', '剛':
		return "好"
	}
	return ""
}

// zhLead holds every character a Chinese expression can start with; most of a query is
// ruled out by one lookup instead of a pass over zhWords.
const zhLead = "今昨前大刚剛最近这這本上去过過自从從半零〇一二两兩三四五六七八九十百"

// matchChinese matches a Chinese expression starting at byte i, including "自/从上周以来".
// afterExpr says an expression ends at i: its last character ends a time word, not a word
// this one could be the tail of, so "昨天前天" is two days even though "天前" may not be.
func matchChinese(q string, i int, afterExpr bool) (match, bool) {
	r, size := utf8.DecodeRuneInString(q[i:])
	if digitValue(r) < 0 && (r < utf8.RuneSelf || !strings.ContainsRune(zhLead, r)) {
		return match{}, false
	}
	if r == '自' || r == '从' || r == '從' {
		if m, ok := zhExpr(q, i+size, false); ok && m.p.since {
			m.start = i
			return m, true
		}
	}
	return zhExpr(q, i, afterExpr)
}

func zhExpr(q string, i int, afterExpr bool) (match, bool) {
	s := q[i:]
	m, ok := match{}, false
	for _, w := range zhWords {
		if len(w.text) > m.end-m.start && strings.HasPrefix(s, w.text) {
			m, ok = match{start: i, end: i + len(w.text), p: w.p}, true
		}
	}
	literal := ok
	if n, p, found := zhAgo(q, i); found && (!ok || i+n > m.end) {
		m, ok, literal = match{start: i, end: i + n, p: p}, true, false
	}
	if n, p, found := zhSpan(q, i); found && (!ok || i+n > m.end) {
		m, ok, literal = match{start: i, end: i + n, p: p}, true, false
	}
	if !ok {
		return match{}, false
	}
	first, _ := utf8.DecodeRuneInString(s)
	if prev, size := utf8.DecodeLastRuneInString(q[:i]); !afterExpr && size > 0 && strings.ContainsRune(blockedBefore(first), prev) {
		return match{}, false
	}
	last, _ := utf8.DecodeLastRuneInString(q[i:m.end])
	if next, _ := utf8.DecodeRuneInString(q[m.end:]); strings.ContainsRune(blockedAfter(last), next) {
		return match{}, false
	}
	if q[i:m.end] == "最近" && !recentMeansTime(q, i, m.end) {
		return match{}, false
	}
	if literal && !m.p.span {
		switch m.p.unit {
		case week:
			m.end += weekdayLen(q[m.end:], last)
		case month, year:
			m.end += periodPartLen(q[m.end:])
		}
	}
	after := q[m.end:]
	if !m.p.span {
		for _, since := range [...]string{"以来", "以來", "至今"} {
			if strings.HasPrefix(after, since) {
				m.end += len(since)
				m.p.since = true
				return m, true
			}
		}
	}
	// "上周之前", "昨天以后", "三天前后": before, after or around a time is not that time.
	// "昨天前天" is two times.
	if next, _ := utf8.DecodeRuneInString(after); strings.ContainsRune("前后後", next) && !startsWithPast(after) {
		return match{}, false
	}
	for _, rel := range [...]string{"以前", "之前", "以后", "以後", "之后", "之後"} {
		if strings.HasPrefix(after, rel) {
			return match{}, false
		}
	}
	return m, true
}

// startsWithPast reports whether s starts with a time word that itself begins with 前.
func startsWithPast(s string) bool {
	for _, w := range [...]string{"前天", "前年", "前几天", "前幾天"} {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// recentMeansTime tells 最近 "recently" from 最近 "nearest": "离公司最近的咖啡店" measures
// a distance, and a sentence ending in 最近 ("哪家店最近") is asking which is closest.
func recentMeansTime(q string, start, end int) bool {
	if strings.ContainsAny(q[:start], "离距離") {
		return false
	}
	return strings.TrimFunc(q[end:], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || r == '的'
	}) != ""
}

// weekdayLen is the length of a weekday after a week word: "上周五", "这周末", "上星期天".
// It is part of the expression but the range stays the whole week. 一 and 日 that start a
// word are left alone: "上周一起" is "together last week", "上周日记" a diary.
func weekdayLen(after string, weekWordLast rune) int {
	r, size := utf8.DecodeRuneInString(after)
	days := "一二三四五六日末"
	if weekWordLast == '期' || weekWordLast == '拜' {
		days += "天" // 星期天, 礼拜天; 周天 is rare and 上周天气 common
	}
	if size == 0 || !strings.ContainsRune(days, r) {
		return 0
	}
	next, _ := utf8.DecodeRuneInString(after[size:])
	switch {
	case r == '一' && strings.ContainsRune("起样樣直定些点點般切共同次", next),
		r == '日' && strings.ContainsRune("记記志常程期本", next):
		return 0
	}
	return size
}

// periodPartLen is the length of 初, 底 or 末 after a month or year word: "去年底",
// "上个月初". Like a weekday it stays inside the whole period. 初中 (junior high) and 初一..初十
// (lunar days) are words of their own; 中 is left alone for 今年中秋.
func periodPartLen(after string) int {
	r, size := utf8.DecodeRuneInString(after)
	if size == 0 || !strings.ContainsRune("初底末", r) {
		return 0
	}
	if next, _ := utf8.DecodeRuneInString(after[size:]); r == '初' && strings.ContainsRune("中一二三四五六七八九十", next) {
		return 0
	}
	return size
}

// zhAgo matches "N<unit>前", "N<unit>以前", "N<unit>之前": "三天前", "两个月前", "10年前".
// 半个月 counts as two weeks, 半年 as six months.
func zhAgo(q string, i int) (n int, p period, ok bool) {
	count, half, j, ok := zhCount(q, i)
	if !ok {
		return 0, period{}, false
	}
	u, k, ok := zhUnit(q[j:])
	if !ok {
		return 0, period{}, false
	}
	if p, ok = countPeriod(count, half, u); !ok {
		return 0, period{}, false
	}
	for _, ago := range [...]string{"以前", "之前", "前"} {
		if strings.HasPrefix(q[j+k:], ago) {
			return j + k + len(ago) - i, p, true
		}
	}
	return 0, period{}, false
}

// zhSpan matches "近N<unit>", "最近N<unit>", "过去N<unit>" with an optional 内/来/里 after:
// "近三天", "最近两周内", "过去一年里".
func zhSpan(q string, i int) (n int, p period, ok bool) {
	j := i
	for _, pre := range [...]string{"最近", "过去的", "過去的", "过去", "過去", "近"} {
		if strings.HasPrefix(q[i:], pre) {
			j = i + len(pre)
			break
		}
	}
	if j == i {
		return 0, period{}, false
	}
	count, half, j, ok := zhCount(q, j)
	if !ok {
		return 0, period{}, false
	}
	u, k, ok := zhUnit(q[j:])
	if !ok {
		return 0, period{}, false
	}
	if p, ok = countPeriod(count, half, u); !ok {
		return 0, period{}, false
	}
	p.span = true
	j += k
	for _, within := range [...]string{"以来", "以來", "来", "來", "内", "內", "里", "裡"} {
		if strings.HasPrefix(q[j:], within) {
			j += len(within)
			break
		}
	}
	return j - i, p, true
}

func zhUnit(s string) (u unit, n int, ok bool) {
	for _, zu := range zhUnits {
		if len(zu.text) > n && strings.HasPrefix(s, zu.text) {
			u, n, ok = zu.unit, len(zu.text), true
		}
	}
	return u, n, ok
}

func countPeriod(count int, half bool, u unit) (period, bool) {
	switch {
	case half && u == month:
		return period{unit: week, back: 2}, true
	case half && u == year:
		return period{unit: month, back: 6}, true
	case half:
		return period{}, false
	}
	return period{unit: u, back: count}, count >= 1 && count <= maxBack(u)
}

// zhCount reads a count at byte i: digits (ASCII or full-width), Chinese numerals up to the
// hundreds (三, 十一, 二十五, 两百), or 半. A count that continues a number or identifier
// ("2023年前", "v3天前", "1.5天前", "第三天前") or is not one well-formed number ("两三天前")
// is no count.
func zhCount(q string, i int) (n int, half bool, end int, ok bool) {
	prev, _ := utf8.DecodeLastRuneInString(q[:i])
	if digitValue(prev) >= 0 || zhDigit(prev) >= 0 || isWordRune(prev) || strings.ContainsRune(".,-/:第十百半", prev) {
		return 0, false, i, false
	}
	if strings.HasPrefix(q[i:], "半") {
		return 0, true, i + len("半"), true
	}
	end = i
	for digits := 0; end < len(q); digits++ {
		r, size := utf8.DecodeRuneInString(q[end:])
		d := digitValue(r)
		if d < 0 {
			break
		}
		if digits == 4 { // a fifth digit: a number, not a count
			return 0, false, i, false
		}
		n = n*10 + d
		end += size
	}
	if end > i {
		return n, false, end, true
	}
	n, end, ok = zhNumeral(q, i)
	return n, false, end, ok
}

// zhNumeral parses Chinese numerals below a thousand: 三, 十一, 二十五, 两百, 一百零五.
func zhNumeral(q string, i int) (n, end int, ok bool) {
	digit, lastUnit, zero := -1, 1000, false
scan:
	for end = i; end < len(q); {
		r, size := utf8.DecodeRuneInString(q[end:])
		switch d := zhDigit(r); {
		case r == '零' || r == '〇':
			if lastUnit != 100 || digit >= 0 || zero {
				return 0, i, false
			}
			zero = true
		case d >= 0:
			if digit >= 0 {
				return 0, i, false // "两三": a guess, not a count
			}
			digit = d
		case r == '十':
			if lastUnit <= 10 {
				return 0, i, false
			}
			if digit < 0 {
				digit = 1
			}
			n += digit * 10
			digit, lastUnit = -1, 10
		case r == '百':
			if digit < 0 || lastUnit <= 100 {
				return 0, i, false
			}
			n += digit * 100
			digit, lastUnit = -1, 100
		default:
			break scan
		}
		end += size
	}
	if digit >= 0 {
		n += digit
	}
	return n, end, end > i && n > 0
}

func zhDigit(r rune) int {
	switch r {
	case '一':
		return 1
	case '二', '两', '兩':
		return 2
	case '三':
		return 3
	case '四':
		return 4
	case '五':
		return 5
	case '六':
		return 6
	case '七':
		return 7
	case '八':
		return 8
	case '九':
		return 9
	}
	return -1
}

func digitValue(r rune) int {
	switch {
	case '0' <= r && r <= '9':
		return int(r - '0')
	case '０' <= r && r <= '９':
		return int(r - '０')
	}
	return -1
}
