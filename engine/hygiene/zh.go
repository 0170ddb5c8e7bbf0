package hygiene

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// zhVerb is a Chinese lexicon entry. rank orders verbs that can share a sentence: a
// specific verb (喜欢, 住在, 用) wins over the locative 在 and 有, which win over 是, wherever
// they stand, because 在 and 是 are also parts of many words (现在, 还是) and prepositions
// (在周五发布).
type zhVerb struct {
	lemma   string
	rank    int
	negated bool // 讨厌 is read as 不喜欢
}

// zhVerbs is the Chinese predicate lexicon, keyed by surface form. It is only read.
var zhVerbs = map[string]zhVerb{
	"喜欢": {"喜欢", 1, false}, "喜爱": {"喜欢", 1, false}, "爱吃": {"喜欢", 1, false},
	"讨厌": {"喜欢", 1, true},
	"偏好": {"偏好", 1, false}, "更喜欢": {"偏好", 1, false}, "偏爱": {"偏好", 1, false},
	"住在": {"住在", 1, false}, "居住在": {"住在", 1, false}, "居住于": {"住在", 1, false},
	"定居在": {"住在", 1, false}, "定居于": {"住在", 1, false}, "住": {"住在", 2, false},
	"生日是": {"生日是", 1, false}, "生日在": {"生日是", 1, false},
	"用": {"使用", 1, false}, "使用": {"使用", 1, false}, "采用": {"使用", 1, false},
	"用的是": {"使用", 1, false}, "使用的是": {"使用", 1, false}, "改用": {"使用", 1, false},
	"负责": {"负责", 1, false},
	"依赖": {"依赖", 1, false}, "依赖于": {"依赖", 1, false},
	"运行在": {"运行在", 1, false}, "跑在": {"运行在", 1, false}, "运行于": {"运行在", 1, false},
	"工作于": {"工作于", 1, false}, "任职于": {"工作于", 1, false}, "就职于": {"工作于", 1, false},
	"属于": {"属于", 1, false},
	"名叫": {"名叫", 1, false}, "叫做": {"名叫", 1, false},
	"拥有": {"有", 1, false}, "有": {"有", 2, false},
	"在": {"在", 2, false},
	"是": {"是", 3, false},
}

const zhMaxVerbRunes = 4

// zhNegations are the negation prefixes a verb may carry, longest first so 不再 is not read
// as 不 followed by 再.
var zhNegations = []string{"从来没有", "从来不", "已经不", "并没有", "不再", "从不", "并不", "没有", "没", "不", "未"}

// zhNegationStarts are the first runes of zhNegations: most runes start none.
const zhNegationStarts = "从已并不没未"

// zhNotVerb rejects lexicon hits that are parts of other words: the rune before (所有, 现在,
// 还是) or after (用户, 有些, 负责人) the verb.
var zhNotVerb = map[string]struct{ before, after string }{
	"用":  {"费作应常可利适引调信试通实公家专享有", "户途法量品处"},
	"有":  {"所只特固共含", "些点关效时的意名趣用"},
	"在":  {"现正存实所自好内外", "于乎意"},
	"住":  {"", "在于宿址房"},
	"是":  {"但于还就总只正倒若要可真凡硬老像算便则而或", "否不"},
	"负责": {"", "人"},
}

// zhPlaceEnds are the last runes of the places the bare locative 在 may take; without them 老王在
// 开会 (is in a meeting) would read as a location. A Latin-only object (在 Berlin) is also taken.
const zhPlaceEnds = "市省区县国京海州村镇路街家楼室层港都城山湾岛口站园院校厂店馆部组司汉安阳津庆原林黎约敦"

// zhSubjectEdits are what may stand between the subject and its verb, longest first: adverbs
// and 的 are dropped (老王现在住在 -> 老王, 老王的生日是 -> 老王), a modal makes the clause a
// wish or a plan rather than a fact, so nothing is extracted.
var zhSubjectEdits = []struct {
	suffix string
	modal  bool
}{
	{"一直都", false}, {"也一直", false},
	{"现在", false}, {"目前", false}, {"已经", false}, {"仍然", false}, {"依然", false},
	{"一直", false}, {"总是", false}, {"比较", false}, {"真的", false}, {"确实", false},
	{"平时", false}, {"主要", false}, {"通常", false}, {"经常", false}, {"始终", false},
	{"向来", false}, {"其实", false}, {"非常", false}, {"特别", false}, {"一般", false},
	{"还是", false}, {"如今", false}, {"最近", false}, {"正在", false}, {"暂时", false},
	{"打算", true}, {"计划", true}, {"准备", true}, {"可能", true}, {"也许", true},
	{"应该", true}, {"可以", true}, {"希望", true}, {"需要", true}, {"将要", true},
	{"很", false}, {"最", false}, {"更", false}, {"也", false}, {"都", false}, {"还", false},
	{"就", false}, {"只", false}, {"是", false}, {"的", false}, {"仍", false}, {"又", false}, {"在", false},
	{"想", true}, {"要", true}, {"会", true}, {"能", true}, {"将", true},
}

// zhHedges in a subject mark reported speech, belief or a condition, not a fact.
var zhHedges = []string{"觉得", "认为", "听说", "据说", "以为", "如果", "假如", "要是", "万一", "或者", "因为", "由于", "所以", "导致"}

var zhLeadingConnectives = []string{"但是", "所以", "因为", "而且", "另外", "其实", "然后", "并且", "不过", "总之", "目前", "现在", "如今", "可是", "而"}

// zhPronouns are subjects that point elsewhere: without the sentence before, two facts about
// 他 need not be about the same person. 我 and 我们 are the writer and are kept.
var zhPronouns = map[string]bool{
	"他": true, "她": true, "它": true, "他们": true, "她们": true, "它们": true,
	"这": true, "那": true, "这个": true, "那个": true, "这些": true, "那些": true,
	"这里": true, "那里": true, "这儿": true, "那儿": true,
}

// zhQuestionWords mark a question even without a question mark.
var zhQuestionWords = []string{"什么", "哪", "谁", "怎么", "多少", "为什么", "是否"}

// zhPurposeVerbs end the tool in 用 X 写 Y (we use X to write Y); the rest is the purpose.
var zhPurposeVerbs = []string{"编写", "开发", "实现", "构建", "搭建", "部署", "管理", "处理", "存储", "测试", "记录",
	"编辑", "生成", "分析", "训练", "打包", "发布", "监控", "调试", "运行", "托管", "保存", "来", "写", "做", "跑", "存", "画"}

// zhObjectTrail is what a clause may end with after its object.
const zhObjectTrail = "了的啊呀吧哦啦呢嘛哈"

const (
	zhMaxSubjectRunes = 12
	zhMaxObjectRunes  = 24
	zhMaxPlaceRunes   = 10
	zhMaxRawBytes     = 512
)

// appendChinese appends the triples of a Chinese sentence, one per comma-separated clause.
// A clause without a subject (老王喜欢茶，不喜欢咖啡) takes the one before it.
func appendChinese(triples []Triple, sentence string) []Triple {
	if zhQuestion(sentence) {
		return triples
	}
	subject := ""
	for clause := range strings.SplitSeq(sentence, ",") {
		if len(triples) >= maxTriples {
			break
		}
		t, ok := extractChineseClause(clause, subject)
		if !ok {
			continue
		}
		subject = t.Subject
		triples = append(triples, t)
	}
	return triples
}

func zhQuestion(s string) bool {
	s = strings.TrimRight(s, " ,")
	for _, end := range []string{"吗", "呢", "么"} {
		if strings.HasSuffix(s, end) {
			return true
		}
	}
	for _, w := range zhQuestionWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	// A-not-A: 是不是, 有没有, 用不用, 喜不喜欢.
	var prev2, prev1 rune
	for _, r := range s {
		if r == prev2 && (prev1 == '不' || prev1 == '没') && unicode.Is(unicode.Han, r) {
			return true
		}
		prev2, prev1 = prev1, r
	}
	return false
}

// zhMatch is a predicate found in a clause: runes [start, end) hold the negation and verb.
type zhMatch struct {
	start, end int // rune indexes
	verb       zhVerb
	negated    bool
}

func extractChineseClause(clause, inherited string) (Triple, bool) {
	clause = strings.TrimSpace(clause)
	offs := runeOffsets(clause)
	n := len(offs) - 1 // runes
	best := zhMatch{start: -1}
	for i := 0; i < n; i++ {
		m, ok := zhMatchAt(clause, offs, i)
		if !ok {
			continue
		}
		if best.start < 0 || m.verb.rank < best.verb.rank {
			best = m
		}
	}
	if best.start < 0 {
		return Triple{}, false
	}
	// The trimming loops below are quadratic in what they trim; past these lengths no
	// subject or object would be short enough to keep anyway.
	if offs[best.start] > zhMaxRawBytes || len(clause)-offs[best.end] > zhMaxRawBytes {
		return Triple{}, false
	}
	subject, ok := zhSubject(clause[:offs[best.start]])
	if !ok {
		return Triple{}, false
	}
	if subject == "" {
		if inherited == "" {
			return Triple{}, false
		}
		subject = inherited
	}
	predicate, object, ok := zhObject(best.verb.lemma, clause[offs[best.end]:])
	if !ok {
		return Triple{}, false
	}
	return Triple{Subject: subject, Predicate: predicate, Object: object, Negated: best.negated, Lang: "zh"}, true
}

func runeOffsets(s string) []int {
	offs := make([]int, 0, len(s)+1)
	for i := range s {
		offs = append(offs, i)
	}
	return append(offs, len(s))
}

// zhMatchAt finds the longest lexicon verb at rune i, after an optional negation prefix.
func zhMatchAt(s string, offs []int, i int) (zhMatch, bool) {
	n := len(offs) - 1
	negations := len(zhNegations)
	if first, _ := utf8.DecodeRuneInString(s[offs[i]:]); !strings.ContainsRune(zhNegationStarts, first) {
		negations = 0
	}
	for ni := -1; ni < negations; ni++ {
		neg := ""
		if ni >= 0 {
			neg = zhNegations[ni]
		}
		if neg != "" && !strings.HasPrefix(s[offs[i]:], neg) {
			continue
		}
		j := i + utf8.RuneCountInString(neg)
		for k := min(zhMaxVerbRunes, n-j); k >= 1; k-- {
			surface := s[offs[j]:offs[j+k]]
			v, ok := zhVerbs[surface]
			if !ok {
				continue
			}
			if strings.HasPrefix(s[offs[j+k]:], "的") {
				continue // 最喜欢的颜色: the verb is inside a noun phrase
			}
			if rule, ok := zhNotVerb[surface]; ok {
				before, _ := utf8.DecodeLastRuneInString(s[:offs[i]])
				after, _ := utf8.DecodeRuneInString(s[offs[j+k]:])
				if (i > 0 && strings.ContainsRune(rule.before, before)) ||
					(j+k < n && strings.ContainsRune(rule.after, after)) {
					continue
				}
			}
			if neg != "" && v.negated {
				// 不讨厌 is not 喜欢: double negation is left alone.
				return zhMatch{}, false
			}
			return zhMatch{start: i, end: j + k, verb: v, negated: neg != "" || v.negated}, true
		}
	}
	return zhMatch{}, false
}

// zhSubject trims what stands before the verb. ok is false when the clause is not a plain
// statement (a wish, a belief, a condition) or the subject is a pronoun or too long; an empty
// subject with ok is a clause that continues the one before.
func zhSubject(s string) (string, bool) {
	s = cleanField(s)
	for _, w := range zhHedges {
		if strings.Contains(s, w) {
			return "", false
		}
	}
	for _, c := range zhLeadingConnectives {
		if rest, ok := strings.CutPrefix(s, c); ok {
			s = cleanField(rest)
		}
	}
trim:
	for s != "" {
		for _, e := range zhSubjectEdits {
			if strings.HasSuffix(s, e.suffix) {
				if e.modal {
					return "", false
				}
				s = cleanField(strings.TrimSuffix(s, e.suffix))
				continue trim
			}
		}
		break
	}
	for _, neg := range zhNegations {
		if strings.HasSuffix(s, neg) {
			return "", false // 不讨厌: a double negation is not read
		}
	}
	if zhPronouns[s] || utf8.RuneCountInString(s) > zhMaxSubjectRunes || strings.ContainsAny(s, ",:") {
		return "", false
	}
	return s, true
}

// zhObject trims what follows the verb and refines the predicate where the object says more:
// 在 X 工作 is where someone works, and 用 X 写 Y is a tool with a purpose.
func zhObject(lemma, s string) (predicate, object string, ok bool) {
	object = zhTrimObject(s)
	predicate = lemma
	switch lemma {
	case "在", "住在", "运行在":
		// 跑在 GitHub Actions 上, 住在城里: the locative noun after a place adds nothing.
		for _, w := range []string{"上", "里", "中"} {
			if rest, found := strings.CutSuffix(object, w); found && rest != "" {
				object = zhTrimObject(rest)
				break
			}
		}
	}
	switch lemma {
	case "在":
		for _, w := range []string{"工作", "上班", "任职", "就职", "打工"} {
			if rest, found := strings.CutSuffix(object, w); found {
				predicate, object = "工作于", zhTrimObject(rest)
				break
			}
		}
		if predicate == "在" && !zhIsPlace(object) {
			return "", "", false
		}
	case "是":
		// 老王是一名工程师, 老王是北京人: a kind someone belongs to, and people belong to
		// many; 项目代号是青松 names the one value.
		for _, w := range zhClassifiers {
			if rest, found := strings.CutPrefix(object, w); found && zhTrimObject(rest) != "" {
				predicate, object = "是一", zhTrimObject(rest)
				break
			}
		}
		if predicate == "是" && zhIsKind(object) {
			predicate = "是一"
		}
	case "使用":
		tool, purpose := zhCutPurpose(object)
		if purpose != "" {
			predicate = "用来" + purpose
		}
		object = tool
	}
	if object == "" || utf8.RuneCountInString(object) > zhMaxObjectRunes {
		return "", "", false
	}
	return predicate, object, true
}

// zhClassifiers open a noun of kind: 一名工程师, 一个好人.
var zhClassifiers = []string{"一个", "一名", "一位", "一家", "一种", "一只", "一条", "个"}

// zhKindSuffixes end nouns that name a kind of person: 工程师, 北京人, 程序员, 作家, 学生.
var zhKindSuffixes = []string{"人", "师", "员", "家", "者", "生", "手", "迷", "控", "工", "匠", "长", "官"}

func zhIsKind(object string) bool {
	for _, w := range zhKindSuffixes {
		if strings.HasSuffix(object, w) && object != w {
			return true
		}
	}
	return false
}

func zhTrimObject(s string) string {
	for {
		t := cleanField(strings.TrimLeft(strings.TrimRight(s, zhObjectTrail), "了着"))
		if t == s {
			return t
		}
		s = t
	}
}

func zhIsPlace(object string) bool {
	if object == "" {
		return false
	}
	if !hasHan(object) {
		return true // 在 Berlin, 在 scripts/deploy.sh
	}
	if utf8.RuneCountInString(object) > zhMaxPlaceRunes {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(object)
	return strings.ContainsRune(zhPlaceEnds, last)
}

// zhCutPurpose splits "go 写后端" into the tool "go" and the purpose "写后端". A purpose verb
// with nothing after it (后端是用 Go 写的) is no purpose.
func zhCutPurpose(object string) (tool, purpose string) {
	for i := range object {
		if i == 0 {
			continue
		}
		for _, v := range zhPurposeVerbs {
			if !strings.HasPrefix(object[i:], v) {
				continue
			}
			tool = zhTrimObject(object[:i])
			rest := zhTrimObject(strings.TrimPrefix(object[i:], "来"))
			if rest == "" || zhIsBarePurposeVerb(rest) {
				return tool, ""
			}
			return tool, rest
		}
	}
	return object, ""
}

func zhIsBarePurposeVerb(s string) bool {
	for _, v := range zhPurposeVerbs {
		if s == v {
			return true
		}
	}
	return false
}
