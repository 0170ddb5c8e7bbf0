package hygiene

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func zh(s, p, o string) Triple { return Triple{Subject: s, Predicate: p, Object: o, Lang: "zh"} }
func zhNot(s, p, o string) Triple {
	return Triple{Subject: s, Predicate: p, Object: o, Negated: true, Lang: "zh"}
}
func en(s, p, o string) Triple { return Triple{Subject: s, Predicate: p, Object: o, Lang: "en"} }
func enNot(s, p, o string) Triple {
	return Triple{Subject: s, Predicate: p, Object: o, Negated: true, Lang: "en"}
}

// extractTests pin the output of the current rules. A change here is a RulesVersion bump.
var extractTests = []struct {
	name string
	text string
	want []Triple
}{
	// Chinese.
	{"zh like", "老王喜欢简约风格", []Triple{zh("老王", "喜欢", "简约风格")}},
	{"zh not like", "老王不喜欢简约风格", []Triple{zhNot("老王", "喜欢", "简约风格")}},
	{"zh dislike reads as not like", "老王讨厌红色", []Triple{zhNot("老王", "喜欢", "红色")}},
	{"zh double negation is left alone", "老王不讨厌红色", nil},
	{"zh no longer", "老王不再喜欢红色了", []Triple{zhNot("老王", "喜欢", "红色")}},
	{"zh live in", "老王住在北京", []Triple{zh("老王", "住在", "北京")}},
	{"zh adverb, negation and particles trimmed", "老王现在不住在北京了。", []Triple{zhNot("老王", "住在", "北京")}},
	{"zh locative", "老王在上海", []Triple{zh("老王", "在", "上海")}},
	{"zh locative needs a place", "老王在开会", nil},
	{"zh locative is not a time", "我们在周五发布", nil},
	{"zh works at", "老王在阿里巴巴工作", []Triple{zh("老王", "工作于", "阿里巴巴")}},
	{"zh be a kind", "老王是工程师", []Triple{zh("老王", "是一", "工程师")}},
	{"zh be a kind with a classifier", "老王是一名老师", []Triple{zh("老王", "是一", "老师")}},
	{"zh be a value", "项目代号是青松", []Triple{zh("项目代号", "是", "青松")}},
	{"zh not be", "老王不是工程师", []Triple{zhNot("老王", "是一", "工程师")}},
	{"zh 还是 is not the verb", "老王还是喜欢茶", []Triple{zh("老王", "喜欢", "茶")}},
	{"zh birthday", "老王的生日是5月3日", []Triple{zh("老王", "生日是", "5月3日")}},
	{"zh full-width digits", "老王的生日是５月３日", []Triple{zh("老王", "生日是", "5月3日")}},
	{"zh responsible for", "老王负责后端", []Triple{zh("老王", "负责", "后端")}},
	{"zh 负责人 is a noun", "老王是负责人", []Triple{zh("老王", "是一", "负责人")}},
	{"zh use", "CI 使用 Python 3.12", []Triple{zh("ci", "使用", "python 3.12")}},
	{"zh 用的是", "CI 用的是 Python 3.12", []Triple{zh("ci", "使用", "python 3.12")}},
	{"zh not use", "我们不用 Docker", []Triple{zhNot("我们", "使用", "docker")}},
	{"zh use for a purpose", "我们用 Go 写后端", []Triple{zh("我们", "用来写后端", "go")}},
	{"zh use for a purpose, no spaces", "我们用Rust来写后端", []Triple{zh("我们", "用来写后端", "rust")}},
	{"zh purpose verb without object is no purpose", "我们的后端是用 Go 写的", []Triple{zh("我们的后端", "使用", "go")}},
	{"zh 用户 is not the verb", "用户喜欢简约风格", []Triple{zh("用户", "喜欢", "简约风格")}},
	{"zh have not", "老王没有车", []Triple{zhNot("老王", "有", "车")}},
	{"zh 所有 is not the verb", "所有人都喜欢茶", []Triple{zh("所有人", "喜欢", "茶")}},
	{"zh clause inherits the subject", "老王喜欢茶，不喜欢咖啡", []Triple{zh("老王", "喜欢", "茶"), zhNot("老王", "喜欢", "咖啡")}},
	{"zh two sentences", "老王住在北京。小李住在上海。", []Triple{zh("老王", "住在", "北京"), zh("小李", "住在", "上海")}},
	{"zh verb inside a noun phrase", "老王最喜欢的颜色是红色", []Triple{zh("老王最喜欢的颜色", "是", "红色")}},
	{"zh causal clause", "这个bug是因为缓存没有失效", nil},
	{"zh locative noun after a place", "我们的 CI 跑在 GitHub Actions 上", []Triple{zh("我们的 ci", "运行在", "github actions")}},
	{"zh locative with a latin object", "部署脚本在 scripts/deploy.sh", []Triple{zh("部署脚本", "在", "scripts/deploy.sh")}},
	{"zh another purpose verb", "老王平时用 Vim 编辑代码", []Triple{zh("老王", "用来编辑代码", "vim")}},
	{"zh for now, not", "我们暂时不用 Kubernetes 了", []Triple{zhNot("我们", "使用", "kubernetes")}},
	{"zh question mark", "老王喜欢简约风格吗？", nil},
	{"zh question particle", "老王喜欢简约风格吗", nil},
	{"zh A-not-A question", "老王是不是住在北京", nil},
	{"zh question word", "老王住在哪里", nil},
	{"zh pronoun subject", "他住在北京", nil},
	{"zh wish", "老王想住在上海", nil},
	{"zh belief", "我觉得老王喜欢茶", nil},
	{"zh condition", "如果老王住在北京", nil},
	{"zh no lexicon verb", "今天天气不错", nil},
	{"zh subject too long", "那个在我们公司工作了很多年的老同事喜欢茶", nil},

	// English.
	{"en use", "CI uses Python 3.12", []Triple{en("ci", "use", "python 3.12")}},
	{"en no longer", "CI no longer uses Python 3.12", []Triple{enNot("ci", "use", "python 3.12")}},
	{"en doesn't", "CI doesn't use Python 3.12.", []Triple{enNot("ci", "use", "python 3.12")}},
	{"en does not", "CI does not use Python 3.12", []Triple{enNot("ci", "use", "python 3.12")}},
	{"en typographic apostrophe and trailing adverb", "Alice doesn’t like tea anymore", []Triple{enNot("alice", "like", "tea")}},
	{"en progressive", "CI is using Python 3.12", []Triple{en("ci", "use", "python 3.12")}},
	{"en perfect progressive", "CI has been using Python 3.12", []Triple{en("ci", "use", "python 3.12")}},
	{"en stopped using", "CI stopped using Docker", []Triple{enNot("ci", "use", "docker")}},
	{"en switched to", "CI switched to Python 3.13", []Triple{en("ci", "use", "python 3.13")}},
	{"en use for a purpose", "We use Go for the backend", []Triple{en("we", "use for backend", "go")}},
	{"en live in", "Alice lives in Berlin", []Triple{en("alice", "live in", "berlin")}},
	{"en works at, clause cut", "Alice works at Google, which is big.", []Triple{en("alice", "work at", "google")}},
	{"en like", "Alice likes tea", []Triple{en("alice", "like", "tea")}},
	{"en hate reads as not like", "Alice hates coffee", []Triple{enNot("alice", "like", "coffee")}},
	{"en prefer", "Alice prefers tabs", []Triple{en("alice", "prefer", "tabs")}},
	{"en be, article dropped", "The deadline is Friday", []Triple{en("deadline", "be", "friday")}},
	{"en be not", "Alice isn't a manager", []Triple{enNot("alice", "be a", "manager")}},
	{"en be a kind", "Alice is a doctor", []Triple{en("alice", "be a", "doctor")}},
	{"en is not", "The deadline is not Friday", []Triple{enNot("deadline", "be", "friday")}},
	{"en has no", "Alice has no car", []Triple{enNot("alice", "have", "car")}},
	{"en runs on", "The app runs on Linux", []Triple{en("app", "run on", "linux")}},
	{"en depends on", "The billing service depends on Redis 7", []Triple{en("billing service", "depend on", "redis 7")}},
	{"en full-width", "ＣＩ ｕｓｅｓ Ｐｙｔｈｏｎ ３.１２", []Triple{en("ci", "use", "python 3.12")}},
	{"en two sentences", "Alice likes tea. Bob likes coffee.", []Triple{en("alice", "like", "tea"), en("bob", "like", "coffee")}},
	{"en latin inside chinese without a chinese verb", "CI uses Python 3.12 在北京", []Triple{en("ci", "use", "python 3.12 在北京")}},
	{"en two versions in one object", "CI uses Python 3.12 and Node 20.", []Triple{en("ci", "use", "python 3.12 and node 20")}},
	{"en perfect of a verb not in the lexicon", "The team has moved to Slack", nil},
	{"en question mark", "Does CI use Python?", nil},
	{"en question without mark", "Does CI use Python", nil},
	{"en passive is not read", "Python is used by CI", nil},
	{"en modal", "Alice would like tea", nil},
	{"en infinitive", "Alice wants to use Vim", nil},
	{"en used to", "Alice used to live in Paris", nil},
	{"en pronoun subject", "It is Friday", nil},
	{"en condition", "If CI uses Python 3.12, tests pass", nil},
	{"en no lexicon verb", "Remember to renew the passport", nil},
	{"en subject too long", "The one thing that everybody on the team agreed about is lunch", nil},

	// Input that must not break anything.
	{"empty", "", nil},
	{"spaces", "  \t\n ", nil},
	{"invalid utf-8", "\xff\xfe老王喜欢\xff茶", []Triple{zh("老王", "喜欢", "茶")}},
	{"nul", "Alice\x00likes\x00tea", []Triple{en("alice", "like", "tea")}},
}

func TestExtract(t *testing.T) {
	for _, tt := range extractTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Extract(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestExtractCapsOutput(t *testing.T) {
	text := strings.Repeat("Alice likes tea. ", 100)
	if got := len(Extract(text)); got != maxTriples {
		t.Errorf("len(Extract(100 sentences)) = %d, want %d", got, maxTriples)
	}
	adverbs := "老王" + strings.Repeat("很", 5000) + "喜欢茶"
	if got := Extract(adverbs); got != nil {
		t.Errorf("Extract(5000 adverbs before the verb) = %v, want nil", got)
	}
	long := strings.Repeat("x", MaxTextBytes) + " Alice likes tea"
	if got := Extract(long); got != nil {
		t.Errorf("Extract(statement after MaxTextBytes) = %v, want nil", got)
	}
}

// contradictTests are pairs of facts; kind is the Conflict.Kind wanted, "" for no conflict.
var contradictTests = []struct {
	name string
	a, b string
	kind string
}{
	// Chinese.
	{"zh like vs not like", "老王喜欢简约风格", "老王不喜欢简约风格", KindNegation},
	{"zh two kinds are compatible", "老王是工程师", "老王是北京人", ""},
	{"zh a kind and its negation", "老王是工程师", "老王不是工程师", KindNegation},
	{"zh two values of one attribute", "项目代号是青松", "项目代号是白桦", KindDifferentObject},
	{"en two kinds are compatible", "Alice is a doctor", "Alice is a runner", ""},
	{"en a kind and its negation", "Alice is a manager", "Alice isn't a manager", KindNegation},
	{"zh like vs dislike", "老王喜欢红色", "老王讨厌红色", KindNegation},
	{"zh live in two cities", "老王住在北京", "老王住在上海", KindDifferentObject},
	{"zh no longer lives there", "老王住在北京", "老王不再住在北京", KindNegation},
	{"zh be", "截止日期是周五", "截止日期是周一", KindDifferentObject},
	{"zh birthday", "老王的生日是5月3日", "老王生日是6月1日", KindDifferentObject},
	{"zh versions", "CI 用的是 Python 3.12", "CI 使用 Python 3.11", KindDifferentObject},
	{"zh backend language", "我们用 Go 写后端", "我们用 Rust 写后端", KindDifferentObject},
	{"zh works at", "老王在阿里巴巴工作", "老王在腾讯工作", KindDifferentObject},
	{"zh a more precise place", "老王住在北京", "老王住在北京朝阳区", ""},
	{"zh likes many things", "老王喜欢简约风格", "老王喜欢红色", ""},
	{"zh different subjects", "老王喜欢简约风格", "小李不喜欢简约风格", ""},
	{"zh different subjects, one value each", "老王住在北京", "小李住在上海", ""},
	{"zh different purposes", "我们用 Go 写后端", "我们不用 Go 写脚本", ""},
	{"zh uses many tools", "我们使用 Docker", "我们使用 Kubernetes", ""},
	{"zh both negated", "老王不喜欢红色", "老王不喜欢蓝色", ""},
	{"zh not living elsewhere", "老王不住在北京", "老王住在上海", ""},
	{"zh restatement", "老王喜欢简约风格", "老王很喜欢简约风格。", ""},
	{"zh question", "老王住在北京", "老王住在上海吗？", ""},

	// English.
	{"en versions", "CI uses Python 3.12", "CI uses Python 3.11", KindDifferentObject},
	{"en no longer", "CI uses Python 3.12", "CI no longer uses Python 3.12", KindNegation},
	{"en negated bare name denies a version", "CI uses Python 3.12", "CI doesn't use Python anymore", KindNegation},
	{"en live in", "Alice lives in Berlin", "Alice lives in Paris", KindDifferentObject},
	{"en like vs doesn't like", "Alice likes tea", "Alice doesn't like tea", KindNegation},
	{"en deadline", "The deadline is Friday", "The deadline is Monday", KindDifferentObject},
	{"en prefer", "Alice prefers tabs", "Alice prefers spaces", KindDifferentObject},
	{"en backend language", "We use Go for the backend", "We use Rust for the backend", KindDifferentObject},
	{"en node versions with v", "The build runs on Node 18", "The build runs on node v20", KindDifferentObject},
	{"en a more precise place", "Alice lives in Berlin", "Alice lives in Berlin Mitte", ""},
	{"en a word prefix is not a refinement", "The team works at Go", "The team works at Google", KindDifferentObject},
	{"en versions with context", "We are using Postgres 16 in production", "We use Postgres 15", KindDifferentObject},
	{"en uses many tools", "CI uses Python 3.12", "CI uses Docker", ""},
	{"en likes many things", "Alice likes tea", "Alice likes coffee", ""},
	{"en different subjects", "Bob is tall", "Alice is short", ""},
	{"en versioned and bare name agree", "CI uses Python 3.12", "CI uses Python", ""},
	{"en negated version does not deny the bare name", "CI uses Python", "CI doesn't use Python 3.11", ""},
	{"en both negated", "Alice doesn't like tea", "Alice doesn't like coffee", ""},
	{"en question", "CI uses Python 3.12", "Does CI use Python 3.11?", ""},
	{"en hypothetical", "Alice lives in Berlin", "Alice would live in Paris", ""},
	{"en numbers without a name", "The cluster has 3 nodes", "The cluster has 5 nodes", ""},

	// Across languages: the predicates share a concept.
	{"cross-language versions", "CI 使用 Python 3.12", "CI uses Python 3.11", KindDifferentObject},
	{"cross-language negation", "我们用 Docker", "We don't use Docker", KindNegation},
	{"cross-language, different subjects", "老王住在北京", "Alice lives in Paris", ""},
}

func TestContradicts(t *testing.T) {
	for _, tt := range contradictTests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Extract(tt.a), Extract(tt.b)
			got, ok := Contradicts(a, b)
			if ok != (tt.kind != "") || got.Kind != tt.kind {
				t.Errorf("Contradicts(%q, %q) = %+v, %v; want kind %q (triples %+v and %+v)", tt.a, tt.b, got, ok, tt.kind, a, b)
			}
			if ok && got.Reason == "" {
				t.Errorf("Contradicts(%q, %q) got an empty reason", tt.a, tt.b)
			}
			if _, back := Contradicts(b, a); back != ok {
				t.Errorf("Contradicts(%q, %q) = %v, but the other way round = %v", tt.a, tt.b, ok, back)
			}
		})
	}
}

func TestContradictsReason(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"version", "CI uses Python 3.12", "CI uses Python 3.11",
			`both say what "ci" uses, but one says "python 3.12" and the other "python 3.11"`},
		{"single-valued", "老王住在北京", "老王住在上海",
			`both say what "老王" 住在, but one says "北京" and the other "上海"`},
		{"negation names the positive statement", "Alice doesn't like tea", "Alice likes tea",
			`one says "alice" likes "tea" and the other says it does not`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Contradicts(Extract(tt.a), Extract(tt.b))
			if !ok || got.Reason != tt.want {
				t.Errorf("Contradicts(%q, %q) = %q, %v; want %q, true", tt.a, tt.b, got.Reason, ok, tt.want)
			}
		})
	}
}

func TestContradictsMalformedTriples(t *testing.T) {
	tests := []struct {
		name string
		a, b []Triple
	}{
		{"nil", nil, nil},
		{"empty fields", []Triple{{}}, []Triple{{Negated: true}}},
		{"empty objects", []Triple{en("alice", "live in", "")}, []Triple{en("alice", "live in", "paris")}},
		{"unknown predicate, different objects", []Triple{en("alice", "speak", "french")}, []Triple{en("alice", "speak", "german")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := Contradicts(tt.a, tt.b); ok {
				t.Errorf("Contradicts(%+v, %+v) = %+v, true; want false", tt.a, tt.b, got)
			}
		})
	}
}

func TestRestates(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"zh adverb", "老王喜欢简约风格", "老王很喜欢简约风格。", true},
		{"zh spacing", "我们用Go写后端", "我们用 Go 写后端", true},
		{"en case and article", "The deadline is Friday", "the deadline is friday.", true},
		{"en tense", "CI uses Python 3.12", "CI is using Python 3.12", true},
		{"en negations agree", "CI no longer uses Docker", "CI doesn't use Docker", true},
		{"cross-language", "CI 使用 Docker", "CI uses Docker", true},
		{"polarity differs", "Alice likes tea", "Alice doesn't like tea", false},
		{"object differs", "Alice likes tea", "Alice likes coffee", false},
		{"subject differs", "Alice likes tea", "Bob likes tea", false},
		{"no triples", "hello", "hello", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Restates(Extract(tt.a), Extract(tt.b)); got != tt.want {
				t.Errorf("Restates(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
