// Package synth generates deterministic synthetic memories and documents for benchmarks:
// mixed Chinese and English facts whose people, places, tools and topics follow a Zipf-like
// distribution, so a few entities are everywhere and most are rare, as in a real person's
// notes, and Markdown documents made of the same kind of sentences for the knowledge side.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var (
	surnames   = []string{"王", "李", "张", "刘", "陈", "杨", "黄", "赵", "周", "吴", "徐", "孙", "马", "朱", "胡", "郭", "何", "林", "罗", "高"}
	givenNames = []string{"伟", "芳", "娜", "敏", "静", "磊", "洋", "勇", "艳", "杰", "军", "涛", "明", "超", "霞", "平", "刚", "桂英", "建华", "志强"}
	cities     = []string{"北京", "上海", "杭州", "深圳", "成都", "南京", "武汉", "西安", "苏州", "广州", "Berlin", "Tokyo", "Dublin", "Austin", "Singapore", "Frankfurt"}
	zhThings   = []string{"简约风格", "咖啡", "绿茶", "跑步", "摄影", "钢琴", "火锅", "新手机", "机械键盘", "周报", "会议纪要", "预算表", "旅行计划", "健身卡", "电动车", "猫粮", "红酒", "登山鞋", "茶具", "书法"}
	zhVerbs    = []string{"喜欢", "讨厌", "买了", "推荐", "负责", "在用", "想要", "整理了", "修好了", "提到"}
	zhTimes    = []string{"每周三", "每天早上", "上个月", "周末", "下午三点", "年底", "春节前", "昨天"}
	tools      = []string{"Python 3.12", "Go 1.26", "PostgreSQL 16", "Redis", "Kubernetes", "Terraform", "Rust", "Node.js 22", "SQLite", "Grafana", "Kafka", "nginx", "Docker", "GitHub Actions", "Vim", "VS Code"}
	people     = []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil"}
	enVerbs    = []string{"uses", "prefers", "maintains", "migrated to", "deprecated", "benchmarks", "owns", "reviews"}
	enObjects  = []string{"the billing service", "the CI pipeline", "the search index", "the mobile app", "the data warehouse", "the auth gateway", "the release notes", "the on-call rota", "the design system", "the staging cluster"}
)

// Generator yields facts; the same seed yields the same sequence.
type Generator struct {
	rng  *rand.Rand
	n    int // sentences made so far: the sequence-derived detail of the next one
	docs int // documents made so far
}

// New returns a generator seeded with seed.
func New(seed uint64) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// zipf picks an index in [0, n) with probability falling off as 1/(i+1).
func (g *Generator) zipf(n int) int {
	// Inverse-CDF over harmonic weights; n is small, so a linear walk is fine.
	var total float64
	for i := 1; i <= n; i++ {
		total += 1 / float64(i)
	}
	x := g.rng.Float64() * total
	for i := 1; i <= n; i++ {
		x -= 1 / float64(i)
		if x <= 0 {
			return i - 1
		}
	}
	return n - 1
}

func (g *Generator) pick(list []string) string { return list[g.zipf(len(list))] }

// Fact returns the next fact: about half Chinese, half English, each unique thanks to a
// sequence-derived detail (a ticket number or a room), the way real notes carry specifics.
func (g *Generator) Fact() string { return g.sentence(g.rng.IntN(2) == 0) }

// sentence makes one fact-shaped sentence, in Chinese when zh is set.
func (g *Generator) sentence(zh bool) string {
	g.n++
	if zh {
		who := g.pick(surnames) + g.pick(givenNames)
		return fmt.Sprintf("%s%s在%s%s%s，编号%d", who, g.pick(zhTimes), g.pick(cities), g.pick(zhVerbs), g.pick(zhThings), g.n)
	}
	return fmt.Sprintf("%s %s %s for %s in %s (ticket OPS-%d)", g.pick(people), g.pick(enVerbs), g.pick(tools),
		g.pick(enObjects), g.pick(cities), g.n)
}

// Facts returns n facts.
func (g *Generator) Facts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.Fact()
	}
	return out
}

// Queries is a fixed query mix for latency measurements: 1-, 2- and 3+-character Chinese,
// English words, identifiers, and queries about nothing in the corpus.
func Queries() []string {
	return []string{
		"猫", "咖啡", "周三", "简约风格", "老王喜欢什么", "杭州的会议纪要",
		"python", "kubernetes staging", "who maintains the billing service", "Go 1.26", "OPS-4242",
		"量子纠缠实验", "submarine volcano", strings.Repeat("长", 3),
	}
}

// Document is a synthetic Markdown file for the knowledge side of a benchmark.
type Document struct {
	Name string // file name, unique among one generator's documents: "doc-0001.md"
	Text string
}

var (
	zhTitles = []string{"项目周报", "会议纪要", "旅行计划", "预算说明", "值班手册", "读书笔记"}
	enTitles = []string{"Runbook", "Design notes", "Postmortem", "Onboarding guide", "Release checklist", "Migration plan"}
)

// Documents returns n Markdown documents, each a title over three to five sections of two
// or three paragraphs. Paragraphs are runs of sentences shaped like Fact, in one language
// per paragraph, so a document mixes Chinese and English the way shared notes do and
// imports as several chunks with headings.
func (g *Generator) Documents(n int) []Document {
	out := make([]Document, n)
	for i := range out {
		g.docs++
		var b strings.Builder
		if g.rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "# %s %d\n\n", g.pick(zhTitles), g.docs)
		} else {
			fmt.Fprintf(&b, "# %s: %s %d\n\n", g.pick(enTitles), g.pick(enObjects), g.docs)
		}
		for range 3 + g.rng.IntN(3) {
			if g.rng.IntN(2) == 0 {
				fmt.Fprintf(&b, "## %s%s\n\n", g.pick(cities), g.pick(zhThings))
			} else {
				fmt.Fprintf(&b, "## %s and %s\n\n", g.pick(tools), g.pick(enObjects))
			}
			for range 2 + g.rng.IntN(2) {
				b.WriteString(g.paragraph())
				b.WriteString("\n\n")
			}
		}
		out[i] = Document{Name: fmt.Sprintf("doc-%04d.md", g.docs), Text: b.String()}
	}
	return out
}

// paragraph is three to five Fact-shaped sentences in one language.
func (g *Generator) paragraph() string {
	zh := g.rng.IntN(2) == 0
	var b strings.Builder
	for i := range 3 + g.rng.IntN(3) {
		switch {
		case zh:
			b.WriteString(g.sentence(true) + "。")
		case i > 0:
			b.WriteString(" " + g.sentence(false) + ".")
		default:
			b.WriteString(g.sentence(false) + ".")
		}
	}
	return b.String()
}
