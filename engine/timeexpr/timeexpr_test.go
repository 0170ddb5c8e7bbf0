package timeexpr

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var shanghai = mustLoad("Asia/Shanghai")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

var (
	// A Monday afternoon in Shanghai: this week starts today.
	mondaySH = time.Date(2026, 11, 30, 15, 4, 0, 0, shanghai)
	// A Sunday in UTC: this week started six days ago.
	sundayUTC = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	// The last day of a 31-day month after February: month spans clamp to 28 February.
	march31UTC = time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
)

// found is an expression as the tables write it: day-aligned bounds as dates, others with the
// time of day, both in now's location.
type found struct{ Text, From, To string }

func show(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04")
}

var parseCases = []struct {
	name string
	now  time.Time
	q    string
	rest string
	want []found
}{
	// Chinese: days.
	{"今天", mondaySH, "今天的待办", "待办", []found{{"今天", "2026-11-30", "2026-12-01"}}},
	{"昨天 at the start", mondaySH, "昨天我说了什么", "我说了什么", []found{{"昨天", "2026-11-29", "2026-11-30"}}},
	{"昨天 inside, question mark kept", mondaySH, "我昨天去了哪里？", "我去了哪里？", []found{{"昨天", "2026-11-29", "2026-11-30"}}},
	{"前天", mondaySH, "前天买的书", "买的书", []found{{"前天", "2026-11-28", "2026-11-29"}}},
	{"大前天 is longer than 前天", mondaySH, "大前天见了老王", "见了老王", []found{{"大前天", "2026-11-27", "2026-11-28"}}},
	{"昨晚 reaches past midnight", mondaySH, "昨晚的想法", "想法", []found{{"昨晚", "2026-11-29", "2026-12-01"}}},
	{"今天 with 下午 kept", mondaySH, "今天下午开会", "下午开会", []found{{"今天", "2026-11-30", "2026-12-01"}}},
	{"早上 is not a date", mondaySH, "早上跑步", "早上跑步", nil},
	{"晚上 is not a date", mondaySH, "晚上吃什么", "晚上吃什么", nil},

	// Chinese: weeks, months, years.
	{"这周", mondaySH, "这周的计划", "计划", []found{{"这周", "2026-11-30", "2026-12-07"}}},
	{"本周", mondaySH, "本周进度", "进度", []found{{"本周", "2026-11-30", "2026-12-07"}}},
	{"上周", mondaySH, "上周的会议", "会议", []found{{"上周", "2026-11-23", "2026-11-30"}}},
	{"上星期", mondaySH, "上星期看的电影", "看的电影", []found{{"上星期", "2026-11-23", "2026-11-30"}}},
	{"上个星期", mondaySH, "上个星期的周报", "周报", []found{{"上个星期", "2026-11-23", "2026-11-30"}}},
	{"上上周", mondaySH, "上上周的会", "会", []found{{"上上周", "2026-11-16", "2026-11-23"}}},
	{"weekday stays in the week", mondaySH, "上周五的会议", "会议", []found{{"上周五", "2026-11-23", "2026-11-30"}}},
	{"上周末", mondaySH, "上周末去哪了", "去哪了", []found{{"上周末", "2026-11-23", "2026-11-30"}}},
	{"一起 is not Monday", mondaySH, "上周一起吃饭", "一起吃饭", []found{{"上周", "2026-11-23", "2026-11-30"}}},
	{"这个月", mondaySH, "这个月的开销", "开销", []found{{"这个月", "2026-11-01", "2026-12-01"}}},
	{"本月", mondaySH, "本月账单", "账单", []found{{"本月", "2026-11-01", "2026-12-01"}}},
	{"上个月", mondaySH, "上个月5号", "5号", []found{{"上个月", "2026-10-01", "2026-11-01"}}},
	{"上月", mondaySH, "上月工资", "工资", []found{{"上月", "2026-10-01", "2026-11-01"}}},
	{"今年", mondaySH, "今年的目标", "目标", []found{{"今年", "2026-01-01", "2027-01-01"}}},
	{"去年", mondaySH, "去年去过的城市", "去过的城市", []found{{"去年", "2025-01-01", "2026-01-01"}}},
	{"前年", mondaySH, "前年的照片", "照片", []found{{"前年", "2024-01-01", "2025-01-01"}}},
	{"去年底 is all of last year", mondaySH, "去年底的体检", "体检", []found{{"去年底", "2025-01-01", "2026-01-01"}}},
	{"上个月初", mondaySH, "上个月初", "", []found{{"上个月初", "2026-10-01", "2026-11-01"}}},
	{"初中 is a word", mondaySH, "今年初中毕业", "初中毕业", []found{{"今年", "2026-01-01", "2027-01-01"}}},
	{"中秋 is a word", mondaySH, "今年中秋", "中秋", []found{{"今年", "2026-01-01", "2027-01-01"}}},
	{"明天 is not a past", mondaySH, "明天开会", "明天开会", nil},

	// Chinese: counts.
	{"三天前", mondaySH, "三天前的笔记", "笔记", []found{{"三天前", "2026-11-27", "2026-11-28"}}},
	{"digits", mondaySH, "3天前", "", []found{{"3天前", "2026-11-27", "2026-11-28"}}},
	{"full-width digits", mondaySH, "３天前", "", []found{{"３天前", "2026-11-27", "2026-11-28"}}},
	{"两天前", mondaySH, "两天前", "", []found{{"两天前", "2026-11-28", "2026-11-29"}}},
	{"十一天前", mondaySH, "十一天前", "", []found{{"十一天前", "2026-11-19", "2026-11-20"}}},
	{"二十天以前", mondaySH, "二十天以前说的", "说的", []found{{"二十天以前", "2026-11-10", "2026-11-11"}}},
	{"一百零五天前", mondaySH, "一百零五天前", "", []found{{"一百零五天前", "2026-08-17", "2026-08-18"}}},
	{"两周前", mondaySH, "两周前提到的书", "提到的书", []found{{"两周前", "2026-11-16", "2026-11-23"}}},
	{"一个星期之前", mondaySH, "一个星期之前", "", []found{{"一个星期之前", "2026-11-23", "2026-11-30"}}},
	{"三个月前", mondaySH, "三个月前的体检", "体检", []found{{"三个月前", "2026-08-01", "2026-09-01"}}},
	{"两年前", mondaySH, "两年前的旅行", "旅行", []found{{"两年前", "2024-01-01", "2025-01-01"}}},
	{"半个月前 is two weeks", mondaySH, "半个月前", "", []found{{"半个月前", "2026-11-16", "2026-11-23"}}},
	{"半年前 is six months", mondaySH, "半年前", "", []found{{"半年前", "2026-05-01", "2026-06-01"}}},
	{"一月前 is not a count of months", mondaySH, "一月前完成", "一月前完成", nil},

	// Chinese: spans.
	{"最近", mondaySH, "最近在读什么书", "在读什么书", []found{{"最近", "2026-11-23", "2026-12-01"}}},
	{"近三天", mondaySH, "近三天的记录", "记录", []found{{"近三天", "2026-11-27", "2026-12-01"}}},
	{"最近两周内", mondaySH, "最近两周内", "", []found{{"最近两周内", "2026-11-16", "2026-12-01"}}},
	{"过去一年里", mondaySH, "过去一年里学了什么", "学了什么", []found{{"过去一年里", "2025-11-30", "2026-12-01"}}},
	{"近半年", mondaySH, "近半年", "", []found{{"近半年", "2026-05-30", "2026-12-01"}}},
	{"这几天", mondaySH, "这几天在忙什么", "在忙什么", []found{{"这几天", "2026-11-23", "2026-12-01"}}},
	{"刚才", mondaySH, "刚才说的", "说的", []found{{"刚才", "2026-11-30 12:04", "2026-12-01"}}},
	{"自上周以来", mondaySH, "自上周以来的变化", "变化", []found{{"自上周以来", "2026-11-23", "2026-12-01"}}},
	{"去年至今", mondaySH, "去年至今", "", []found{{"去年至今", "2025-01-01", "2026-12-01"}}},

	// Traditional.
	{"這週", mondaySH, "這週的計畫", "計畫", []found{{"這週", "2026-11-30", "2026-12-07"}}},
	{"上週", mondaySH, "上週開會", "開會", []found{{"上週", "2026-11-23", "2026-11-30"}}},
	{"上個月", mondaySH, "上個月的帳單", "帳單", []found{{"上個月", "2026-10-01", "2026-11-01"}}},
	{"這個月", mondaySH, "這個月", "", []found{{"這個月", "2026-11-01", "2026-12-01"}}},
	{"兩天前", mondaySH, "兩天前說的", "說的", []found{{"兩天前", "2026-11-28", "2026-11-29"}}},
	{"兩個星期前", mondaySH, "兩個星期前", "", []found{{"兩個星期前", "2026-11-16", "2026-11-23"}}},
	{"剛剛", mondaySH, "剛剛記的", "記的", []found{{"剛剛", "2026-11-30 12:04", "2026-12-01"}}},
	{"過去三天", mondaySH, "過去三天", "", []found{{"過去三天", "2026-11-27", "2026-12-01"}}},

	// Chinese: content, not time.
	{"year is content", mondaySH, "2023年的预算", "2023年的预算", nil},
	{"date is content", mondaySH, "5月7日开会", "5月7日开会", nil},
	{"2023年前 is before 2023", mondaySH, "2023年前的项目", "2023年前的项目", nil},
	{"以前|天气", mondaySH, "以前天气很好", "以前天气很好", nil},
	{"过去|年轻", mondaySH, "过去年轻的时候", "过去年轻的时候", nil},
	{"失去|年轻", mondaySH, "失去年轻的心", "失去年轻的心", nil},
	{"成本|月度", mondaySH, "成本月度报告", "成本月度报告", nil},
	{"马上|周末", mondaySH, "马上周末了", "马上周末了", nil},
	{"早上|周会", mondaySH, "早上周会", "早上周会", nil},
	{"周期", mondaySH, "本周期的指标", "本周期的指标", nil},
	{"月饼", mondaySH, "这个月饼好吃", "这个月饼好吃", nil},
	{"年轻", mondaySH, "今年轻松多了", "今年轻松多了", nil},
	{"如今|天气", mondaySH, "如今天气变了", "如今天气变了", nil},
	{"附近|来", mondaySH, "附近来了一家店", "附近来了一家店", nil},
	{"刚刚好", mondaySH, "刚刚好的尺寸", "刚刚好的尺寸", nil},
	{"最近 as nearest", mondaySH, "离公司最近的咖啡店", "离公司最近的咖啡店", nil},
	{"最近 at the end is nearest", mondaySH, "哪家店最近", "哪家店最近", nil},
	{"before a time", mondaySH, "上周之前的记录", "上周之前的记录", nil},
	{"after a time", mondaySH, "昨天以后", "昨天以后", nil},
	{"around a time", mondaySH, "三天前后", "三天前后", nil},
	{"vague count", mondaySH, "两三天前", "两三天前", nil},
	{"few", mondaySH, "几天前", "几天前", nil},
	{"ordinal", mondaySH, "第三天前", "第三天前", nil},
	{"decimal", mondaySH, "1.5天前", "1.5天前", nil},
	{"too many days", mondaySH, "12345天前", "12345天前", nil},
	{"identifier", mondaySH, "v3天前", "v3天前", nil},
	{"今日 is a name", mondaySH, "今日头条", "今日头条", nil},

	// English.
	{"today", mondaySH, "notes from today", "notes from", []found{{"today", "2026-11-30", "2026-12-01"}}},
	{"yesterday", mondaySH, "what did I do yesterday?", "what did I do?", []found{{"yesterday", "2026-11-29", "2026-11-30"}}},
	{"case-insensitive", mondaySH, "YESTERDAY standup", "standup", []found{{"YESTERDAY", "2026-11-29", "2026-11-30"}}},
	{"the day before yesterday", mondaySH, "the day before yesterday", "", []found{{"the day before yesterday", "2026-11-28", "2026-11-29"}}},
	{"this week", mondaySH, "plans for this week", "plans for", []found{{"this week", "2026-11-30", "2026-12-07"}}},
	{"last week possessive", mondaySH, "last week's meeting", "meeting", []found{{"last week", "2026-11-23", "2026-11-30"}}},
	{"this month", mondaySH, "this month budget", "budget", []found{{"this month", "2026-11-01", "2026-12-01"}}},
	{"last month", mondaySH, "bills last month", "bills", []found{{"last month", "2026-10-01", "2026-11-01"}}},
	{"this year", mondaySH, "goals this year", "goals", []found{{"this year", "2026-01-01", "2027-01-01"}}},
	{"last year", mondaySH, "Last Year trip", "trip", []found{{"Last Year", "2025-01-01", "2026-01-01"}}},
	{"days ago", mondaySH, "2 days ago", "", []found{{"2 days ago", "2026-11-28", "2026-11-29"}}},
	{"a week ago", mondaySH, "a week ago", "", []found{{"a week ago", "2026-11-23", "2026-11-30"}}},
	{"three months ago", mondaySH, "three months ago", "", []found{{"three months ago", "2026-08-01", "2026-09-01"}}},
	{"an year ago", mondaySH, "a year ago", "", []found{{"a year ago", "2025-01-01", "2026-01-01"}}},
	{"recently", mondaySH, "Recently added docs", "added docs", []found{{"Recently", "2026-11-23", "2026-12-01"}}},
	{"lately", mondaySH, "what have I read lately", "what have I read", []found{{"lately", "2026-11-23", "2026-12-01"}}},
	{"in the last N days", mondaySH, "errors in the last 3 days", "errors", []found{{"in the last 3 days", "2026-11-27", "2026-12-01"}}},
	{"past N weeks", mondaySH, "past two weeks", "", []found{{"past two weeks", "2026-11-16", "2026-12-01"}}},
	{"the past week", mondaySH, "over the past week", "", []found{{"over the past week", "2026-11-23", "2026-12-01"}}},
	{"since", mondaySH, "changes since last month", "changes", []found{{"since last month", "2026-10-01", "2026-12-01"}}},
	{"brackets emptied", mondaySH, "notes (yesterday) here", "notes here", []found{{"yesterday", "2026-11-29", "2026-11-30"}}},
	{"leading comma dropped", mondaySH, "yesterday, what did I do", "what did I do", []found{{"yesterday", "2026-11-29", "2026-11-30"}}},
	{"english inside chinese", mondaySH, "我yesterday去了", "我去了", []found{{"yesterday", "2026-11-29", "2026-11-30"}}},

	// English: content, not time.
	{"yesterdays", mondaySH, "all our yesterdays", "all our yesterdays", nil},
	{"lastweek", mondaySH, "lastweek", "lastweek", nil},
	{"last-week", mondaySH, "last-week", "last-week", nil},
	{"file name", mondaySH, "today.txt", "today.txt", nil},
	{"absolute date", mondaySH, "May 7 2023 review", "May 7 2023 review", nil},
	{"the last week of", mondaySH, "the last week of June", "the last week of June", nil},
	{"before", mondaySH, "before yesterday", "before yesterday", nil},
	{"before the last week", mondaySH, "notes before the last week", "notes before the last week", nil},
	{"in the past", mondaySH, "in the past", "in the past", nil},
	{"a few days ago", mondaySH, "a few days ago", "a few days ago", nil},
	{"hours are not covered", mondaySH, "an hour ago", "an hour ago", nil},
	{"decimal count", mondaySH, "1.5 days ago", "1.5 days ago", nil},

	// Several, and only filler left.
	{"two expressions", mondaySH, "上周和昨天的会", "和会", []found{{"上周", "2026-11-23", "2026-11-30"}, {"昨天", "2026-11-29", "2026-11-30"}}},
	{"nothing but time", mondaySH, "昨天，今天", "", []found{{"昨天", "2026-11-29", "2026-11-30"}, {"今天", "2026-11-30", "2026-12-01"}}},
	{"time and a question mark", mondaySH, "昨天？", "", []found{{"昨天", "2026-11-29", "2026-11-30"}}},
	{"separator before the end", mondaySH, "我说了什么，昨天？", "我说了什么？", []found{{"昨天", "2026-11-29", "2026-11-30"}}},
	{"whitespace tidied", mondaySH, "  meeting   yesterday   notes ", "meeting notes", []found{{"yesterday", "2026-11-29", "2026-11-30"}}},
	{"的确 is a word", mondaySH, "昨天的确下雨了", "的确下雨了", []found{{"昨天", "2026-11-29", "2026-11-30"}}},
	{"empty", mondaySH, "", "", nil},

	// Found by the fuzzer and a random stress run.
	{"two days in a row", mondaySH, "昨天前天都下雨", "都下雨", []found{{"昨天", "2026-11-29", "2026-11-30"}, {"前天", "2026-11-28", "2026-11-29"}}},
	{"a week after a day", mondaySH, "昨天上周", "", []found{{"昨天", "2026-11-29", "2026-11-30"}, {"上周", "2026-11-23", "2026-11-30"}}},
	{"几天前|天气 stays", mondaySH, "几天前天气很好", "几天前天气很好", nil},
	{"comma without a space", mondaySH, "notes,yesterday", "notes", []found{{"yesterday", "2026-11-29", "2026-11-30"}}},
	{"comma in a number", mondaySH, "1,5 days ago", "1,5 days ago", nil},

	// Other clocks: a Sunday in UTC, and month ends.
	{"this week from a Sunday", sundayUTC, "this week", "", []found{{"this week", "2026-02-23", "2026-03-02"}}},
	{"上周 from a Sunday", sundayUTC, "上周", "", []found{{"上周", "2026-02-16", "2026-02-23"}}},
	{"last month from March", sundayUTC, "last month", "", []found{{"last month", "2026-02-01", "2026-03-01"}}},
	{"yesterday across a month", sundayUTC, "yesterday", "", []found{{"yesterday", "2026-02-28", "2026-03-01"}}},
	{"last year in UTC", sundayUTC, "去年", "", []found{{"去年", "2025-01-01", "2026-01-01"}}},
	{"just now in UTC", sundayUTC, "just now", "", []found{{"just now", "2026-03-01 05:00", "2026-03-02"}}},
	{"month span clamps", march31UTC, "近一个月", "", []found{{"近一个月", "2026-02-28", "2026-04-01"}}},
	{"past month clamps", march31UTC, "the past month", "", []found{{"the past month", "2026-02-28", "2026-04-01"}}},
	{"leap day year span", time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC), "past year", "", []found{{"past year", "2023-02-28", "2024-03-01"}}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			rest, exprs := Parse(tc.q, tc.now)
			var got []found
			for _, e := range exprs {
				if tc.q[e.Start:e.End] != e.Text {
					t.Errorf("Parse(%q): span [%d,%d) is %q, Text is %q", tc.q, e.Start, e.End, tc.q[e.Start:e.End], e.Text)
				}
				if e.Range.From.Location() != tc.now.Location() || e.Range.To.Location() != tc.now.Location() {
					t.Errorf("Parse(%q): %q range is not in now's location", tc.q, e.Text)
				}
				got = append(got, found{e.Text, show(e.Range.From), show(e.Range.To)})
			}
			if rest != tc.rest {
				t.Errorf("Parse(%q) rest = %q, want %q", tc.q, rest, tc.rest)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse(%q) expressions mismatch (-want +got):\n%s", tc.q, diff)
			}
		})
	}
}

func TestParseOffsets(t *testing.T) {
	q := "老王 said 上周 and yesterday"
	_, got := Parse(q, mondaySH)
	var spans [][2]int
	for _, e := range got {
		spans = append(spans, [2]int{e.Start, e.End})
	}
	want := [][2]int{{12, 18}, {23, 32}}
	if diff := cmp.Diff(want, spans); diff != "" {
		t.Errorf("Parse(%q) spans mismatch (-want +got):\n%s", q, diff)
	}
}

func TestParseNothingFoundReturnsQuery(t *testing.T) {
	q := "  老王   喜欢简约风格 "
	if rest, found := Parse(q, mondaySH); rest != q || found != nil {
		t.Errorf("Parse(%q) = %q, %v; want the query unchanged and nothing found", q, rest, found)
	}
}

func TestCover(t *testing.T) {
	_, exprs := Parse("上周和昨天", mondaySH)
	got, ok := Cover(exprs)
	want := Range{time.Date(2026, 11, 23, 0, 0, 0, 0, shanghai), time.Date(2026, 11, 30, 0, 0, 0, 0, shanghai)}
	if !ok || !got.From.Equal(want.From) || !got.To.Equal(want.To) {
		t.Errorf("Cover(上周, 昨天) = %v, %v; want %v, true", got, ok, want)
	}
	if _, ok := Cover(nil); ok {
		t.Errorf("Cover(nil) reported a range")
	}
}

func TestZhWordsAreTimeWords(t *testing.T) {
	// Every fixed word must match on its own: a typo in the table would be a silent no-op.
	for _, w := range zhWords {
		if first, _ := utf8.DecodeRuneInString(w.text); !strings.ContainsRune(zhLead, first) {
			t.Errorf("zhLead lacks %q, the first character of %q", first, w.text)
		}
		if _, got := Parse(w.text+"的笔记", mondaySH); len(got) != 1 || got[0].Text != w.text {
			t.Errorf("Parse(%q) found %v, want exactly %q", w.text+"的笔记", got, w.text)
		}
	}
}

// FuzzParse checks that any query, at any time, yields valid text and well-formed spans.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.q, tc.now.Unix())
	}
	f.Fuzz(func(t *testing.T, q string, unix int64) {
		// Within 8000 years of 1970: far enough for any calendar edge, short of int overflow.
		now := time.Unix(unix%(8000*365*86400), 0).In(shanghai)
		rest, found := Parse(q, now)
		if !utf8.ValidString(rest) {
			t.Fatalf("Parse(%q) rest %q is not valid UTF-8", q, rest)
		}
		if len(found) == 0 && utf8.ValidString(q) && rest != q {
			t.Fatalf("Parse(%q) found nothing but changed the query to %q", q, rest)
		}
		end := 0
		for _, e := range found {
			if e.Start < end || e.End <= e.Start || e.End > len(q) || q[e.Start:e.End] != e.Text {
				t.Fatalf("Parse(%q) gave bad span [%d,%d) %q after %d", q, e.Start, e.End, e.Text, end)
			}
			end = e.End
			if !e.Range.From.Before(e.Range.To) {
				t.Fatalf("Parse(%q) at %v: %q has empty range %v", q, now, e.Text, e.Range)
			}
		}
		rest2, found2 := Parse(q, now)
		if rest2 != rest || !cmp.Equal(found, found2) {
			t.Fatalf("Parse(%q) is not deterministic", q)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse("老王上周五说的那家店在哪里, and what did I note 3 days ago about go-sqlite3?", mondaySH)
	}
}

func BenchmarkParseNoTime(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse("老王喜欢简约风格, and CI uses Python 3.12 with go-sqlite3", mondaySH)
	}
}
