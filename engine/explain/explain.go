// Package explain says in plain words, in English or Simplified Chinese, why recall found a
// text: from the ranking stage's records (the words matched, the names shared, how close in
// meaning, when it was written), never from the scores behind them. It is pure: the clock
// relative dates are read against is a parameter.
package explain

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Lang is a language the sentence can be written in.
type Lang string

// The languages a sentence can be in.
const (
	English Lang = "en"
	Chinese Lang = "zh"
)

// LangOf is the language to answer a query in when nothing else says: Chinese when it holds
// a Han character, English otherwise.
func LangOf(query string) Lang {
	for _, r := range query {
		if unicode.Is(unicode.Han, r) {
			return Chinese
		}
	}
	return English
}

// Parse reads a language code ("en", "zh", "zh-CN", "zh_Hans"…); ok is false for one it does
// not write.
func Parse(code string) (lang Lang, ok bool) {
	code = strings.ToLower(strings.TrimSpace(code))
	switch {
	case code == "en" || strings.HasPrefix(code, "en-") || strings.HasPrefix(code, "en_"):
		return English, true
	case code == "zh" || strings.HasPrefix(code, "zh-") || strings.HasPrefix(code, "zh_"):
		return Chinese, true
	}
	return "", false
}

// Record is what the ranking stage knows of one hit, as explain needs it.
type Record struct {
	// Knowledge says the hit is a chunk of an imported document dated by its import, not a
	// memory or a document dated by when it was written (a chat conversation).
	Knowledge bool
	// Matched are the query's words the text holds, as the query wrote them.
	Matched []string
	// Lexical says the lexical leg found the text. With no matched words that means the
	// substring fallback did: what was typed is inside a longer word ("sqlite" in
	// "go-sqlite3").
	Lexical bool
	// Anchors are the names (entities) the query and the text share.
	Anchors []string
	// Semantic is the semantic leg's cosine (0: it did not find the text); SemanticLead how
	// many standard deviations above chance a leading model put it (0: not above, or a
	// supporting model); SemanticOnly says only the semantic leg found it.
	Semantic     float64
	SemanticLead float64
	SemanticOnly bool
	// Written is when the memory was written or the document imported; zero: unknown.
	Written time.Time
	// AlsoIn is how many other places hold the same passage, shown with this hit once.
	AlsoIn int
}

// maxWords is how many matched words or names a sentence lists before "and 3 more".
const maxWords = 4

// clearLead is how far above chance (in standard deviations) a meaning must be to be
// called very close rather than close.
const clearLead = 3

// Sentence is why r was found, in lang, with relative dates read against now: e.g.
// "matched 预算 and 李娜 · also names Alice · written last Tuesday", or
// "匹配 预算、李娜 · 也提到 Alice · 上周二写的".
func Sentence(r Record, lang Lang, now time.Time) string {
	w := wordsFor(lang)
	var parts []string
	switch {
	case len(r.Matched) > 0:
		parts = append(parts, w.matched+" "+w.list(r.Matched))
	case r.Lexical:
		parts = append(parts, w.inside)
	}
	if names := unmatched(r.Anchors, r.Matched); len(names) > 0 {
		parts = append(parts, w.names+" "+w.list(names))
	}
	switch {
	case r.SemanticOnly || (r.Semantic > 0 && !r.Lexical && len(r.Matched) == 0 && len(r.Anchors) == 0):
		parts = append(parts, w.meaningOnly)
	case r.SemanticLead >= clearLead:
		parts = append(parts, w.veryClose)
	case r.SemanticLead > 0:
		parts = append(parts, w.close)
	case r.Semantic > 0:
		parts = append(parts, w.related)
	}
	if !r.Written.IsZero() {
		parts = append(parts, w.written(when(r.Written, now, lang), r.Knowledge))
	}
	if r.AlsoIn > 0 {
		parts = append(parts, w.alsoIn(r.AlsoIn))
	}
	return strings.Join(parts, " · ")
}

// unmatched are the names not already among the matched words, compared without case.
func unmatched(names, matched []string) []string {
	seen := make(map[string]bool, len(matched))
	for _, m := range matched {
		seen[strings.ToLower(m)] = true
	}
	var out []string
	for _, n := range names {
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			out = append(out, n)
		}
	}
	return out
}

// words are one language's phrases.
type words struct {
	matched, inside, names                 string
	meaningOnly, veryClose, close, related string
	list                                   func([]string) string
	written                                func(when string, knowledge bool) string
	alsoIn                                 func(n int) string
}

func wordsFor(lang Lang) words {
	if lang == Chinese {
		return words{
			matched: "匹配", inside: "输入的字在更长的词里", names: "也提到",
			meaningOnly: "按意思找到，字面不同", veryClose: "意思非常接近", close: "意思相近", related: "意思有关",
			list: func(ws []string) string {
				if len(ws) > maxWords {
					return fmt.Sprintf("%s 等 %d 个词", strings.Join(ws[:maxWords], "、"), len(ws))
				}
				return strings.Join(ws, "、")
			},
			written: func(when string, knowledge bool) string {
				if knowledge {
					return when + "导入的"
				}
				return when + "写的"
			},
			alsoIn: func(n int) string { return fmt.Sprintf("同一段落另见 %d 处", n) },
		}
	}
	return words{
		matched: "matched", inside: "holds what you typed inside a longer word", names: "also names",
		meaningOnly: "found by meaning, not by its words", veryClose: "very close in meaning", close: "close in meaning", related: "related in meaning",
		list: func(ws []string) string {
			if len(ws) > maxWords {
				return fmt.Sprintf("%s and %d more", strings.Join(ws[:maxWords], ", "), len(ws)-maxWords)
			}
			if len(ws) == 1 {
				return ws[0]
			}
			return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
		},
		written: func(when string, knowledge bool) string {
			if knowledge {
				return "imported " + when
			}
			return "written " + when
		},
		alsoIn: func(n int) string {
			if n == 1 {
				return "the same passage is in 1 more place"
			}
			return fmt.Sprintf("the same passage is in %d more places", n)
		},
	}
}

// when says when t was, seen from now, in now's time zone: today, yesterday, a weekday of
// this week or the last, some days ago within a month, a date this year, a month before.
func when(t, now time.Time, lang Lang) string {
	t = t.In(now.Location())
	day := func(x time.Time) time.Time { return time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, x.Location()) }
	days := int(day(now).Sub(day(t)).Hours()/24 + 0.5) // whole calendar days, DST-proof
	// Weeks start on Monday, as both languages' calendars print them.
	weekStart := day(now).AddDate(0, 0, -((int(now.Weekday()) + 6) % 7))
	zh := lang == Chinese
	switch {
	case days <= 0:
		return pick(zh, "today", "今天")
	case days == 1:
		return pick(zh, "yesterday", "昨天")
	case !day(t).Before(weekStart):
		return pick(zh, "on "+t.Weekday().String(), "本周"+zhWeekday(t.Weekday()))
	case !day(t).Before(weekStart.AddDate(0, 0, -7)):
		return pick(zh, "last "+t.Weekday().String(), "上周"+zhWeekday(t.Weekday()))
	case days <= 31:
		return pick(zh, fmt.Sprintf("%d days ago", days), fmt.Sprintf("%d 天前", days))
	case t.Year() == now.Year():
		return pick(zh, t.Format("on 2 January"), fmt.Sprintf("%d月%d日", t.Month(), t.Day()))
	}
	return pick(zh, t.Format("in January 2006"), fmt.Sprintf("%d年%d月", t.Year(), t.Month()))
}

func pick(zh bool, en, chinese string) string {
	if zh {
		return chinese
	}
	return en
}

func zhWeekday(d time.Weekday) string {
	return [...]string{"日", "一", "二", "三", "四", "五", "六"}[d]
}
