package analysis

import (
	"strconv"
	"strings"
)

// A day of the year is written many ways: 6月8日 and 6月8号, June 8, June 8th, 8 June, the
// 8th of June. Its digits alone say little (6月8日 holds the 6 and the 8 of 8月6日), so a
// month and a day, in any of these forms, also make one Date term of their own, the same for
// all of them: "6月8日". A question about June 8th then finds the memory of 6月8号, and not
// the one about August 6th.

// dateAt returns the Date term that runs[i] starts, if it starts one: a month and a day.
func dateAt(runs []run, i int) (string, bool) {
	at := func(k int) (run, bool) {
		if i+k < len(runs) {
			return runs[i+k], true
		}
		return run{}, false
	}
	r0, _ := at(0)
	if r0.cjk {
		return "", false
	}
	// 6月8日, 6月8号
	if m, ok := number(r0.text, 1, 12); ok {
		r1, ok1 := at(1)
		r2, ok2 := at(2)
		r3, ok3 := at(3)
		if ok1 && ok2 && ok3 && r1.cjk && r1.text == "月" && !r2.cjk && r3.cjk &&
			(strings.HasPrefix(r3.text, "日") || strings.HasPrefix(r3.text, "号")) {
			if d, ok := number(r2.text, 1, 31); ok {
				return dateTerm(m, d), true
			}
		}
	}
	// June 8, June 8th
	if m, ok := months[r0.text]; ok {
		if r1, ok := at(1); ok && !r1.cjk {
			if d, ok := day(r1.text); ok {
				return dateTerm(m, d), true
			}
		}
		return "", false
	}
	// 8 June, 8th June, 8th of June
	if d, ok := day(r0.text); ok {
		next := 1
		if r1, ok := at(1); ok && r1.text == "of" {
			next = 2
		}
		if r, ok := at(next); ok && !r.cjk {
			if m, ok := months[r.text]; ok && (r.text != "may" || next == 2) {
				return dateTerm(m, d), true
			}
		}
	}
	return "", false
}

func dateTerm(month, day int) string {
	return strconv.Itoa(month) + "月" + strconv.Itoa(day) + "日"
}

// number reads a run of one or two ASCII digits as a number in [lo, hi].
func number(s string, lo, hi int) (int, bool) {
	if len(s) == 0 || len(s) > 2 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n >= lo && n <= hi
}

// day reads a day of the month as English writes it: 8, 08, 8th, 1st, 22nd, 3rd.
func day(s string) (int, bool) {
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if d, ok := strings.CutSuffix(s, suffix); ok {
			return number(d, 1, 31)
		}
	}
	return number(s, 1, 31)
}

// months are the English month names and their usual short forms, folded. "may" counts only
// before its day (May 8), where it is not the verb; "8 may" is left alone.
var months = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
}
