package rewrite

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var stripCases = []struct {
	name string
	q    string
	want string
}{
	// Chinese, simplified.
	{"什么 inside", "老王喜欢什么风格", "老王喜欢 风格"},
	{"how long at the end", "崇陵墓道有多长？", "崇陵墓道有"},
	{"how far at the end", "沃夫424距离太阳多远", "沃夫424距离太阳"},
	{"多 and an adjective inside a word", "很多长辈喜欢他", "很多长辈喜欢他"},
	{"什么时候 is when", "周会是什么时候", "周会"},
	{"啥时候", "张伟明啥时候入职", "张伟明 入职"},
	{"怎么", "怎么部署应用", "部署应用"},
	{"如何", "如何配置代理", "配置代理"},
	{"在哪里", "我的钥匙在哪里？", "我的钥匙"},
	{"哪儿", "老王住哪儿", "老王住"},
	{"哪个", "哪个项目用了Rust", "项目用了Rust"},
	{"哪 alone", "哪天交房租", "天交房租"},
	{"是谁", "项目负责人是谁", "项目负责人"},
	{"为什么", "为什么构建失败了", "构建失败了"},
	{"多少", "房租多少钱", "房租 钱"},
	{"几 before a measure word", "会议几点开始", "会议 开始"},
	{"请问 and 吗", "请问，明天开会吗？", "明天开会"},
	{"是不是", "老王是不是搬家了", "老王 搬家了"},
	{"有没有", "有没有提到预算", "提到预算"},
	{"是否", "是否续约", "续约"},
	{"我想知道", "我想知道妈妈的生日", "妈妈的生日"},
	{"告诉我", "告诉我WiFi密码", "WiFi密码"},
	{"的是什么", "老王喜欢的是什么", "老王喜欢"},
	{"什么是", "什么是向量数据库", "向量数据库"},
	{"的是 at the end", "老王最喜欢的是？", "老王最喜欢"},
	{"几个", "家里有几个房间", "家里有 房间"},
	{"呢 at the end", "那本书的作者呢", "那本书的作者"},
	{"吧 at the end", "应该是周三吧", "应该是周三"},

	// Chinese: words that only look like filler.
	{"目的是什么 keeps 目的", "这次旅行的目的是什么", "这次旅行的目的"},
	{"现在哪里 keeps 现在", "他现在哪里工作", "他现在 工作"},
	{"还是 keeps 还", "他还是什么都没说", "他还是 都没说"},
	{"茶几", "客厅的茶几", "客厅的茶几"},
	{"几乎", "几乎每天跑步", "几乎每天跑步"},
	{"哪吒", "哪吒的故事", "哪吒的故事"},
	{"酒吧", "上次去的酒吧", "上次去的酒吧"},
	{"吗啡 mid-sentence", "吗啡的剂量", "吗啡的剂量"},
	{"吧 mid-sentence", "吧台的高度", "吧台的高度"},
	{"毛呢", "冬天穿的毛呢", "冬天穿的毛呢"},

	// Chinese, traditional.
	{"什麼", "老王喜歡什麼風格", "老王喜歡 風格"},
	{"怎麼", "怎麼設定路由器", "設定路由器"},
	{"哪裡", "護照放在哪裡", "護照放"},
	{"為什麼", "為什麼延期", "延期"},
	{"請問 and 嗎", "請問報告寫完了嗎？", "報告寫完了"},
	{"誰", "誰負責採購", "負責採購"},

	// English.
	{"what is", "what is the staging cluster", "staging cluster"},
	{"how do I", "how do I deploy the app", "deploy app"},
	{"case kept", "What is the Staging cluster?", "Staging cluster"},
	{"where", "Where did I put the router password?", "put router password"},
	{"contractions", "what's my wifi password", "wifi password"},
	{"I'm", "I'm looking for the invoice", "looking invoice"},
	{"don't is not filler", "why don't builds cache", "don't builds cache"},
	{"please tell me", "please tell me about our Q3 plan", "Q3 plan"},
	{"acronym kept", "who runs IT", "runs IT"},
	{"shouting stripped", "WHAT IS THE CI", "CI"},
	{"identifiers kept", "how to use go-sqlite3 end-to-end", "use go-sqlite3 end-to-end"},
	{"version kept", "which Python is 3.12", "Python 3.12"},

	// Mixed.
	{"english in chinese", "staging集群在哪里？", "staging集群"},
	{"chinese between english words", "deploy什么app", "deploy app"},
	{"acronym in chinese", "IT部门是谁负责", "IT部门 负责"},
	{"both", "what is 老王喜欢什么", "老王喜欢"},

	// Nothing to strip: unchanged, whitespace and all.
	{"nothing chinese", "老王喜欢简约风格", "老王喜欢简约风格"},
	{"nothing english", "staging  cluster password", "staging  cluster password"},
	{"nothing but punctuation", "？", "？"},
	{"empty", "", ""},

	// Only filler.
	{"only chinese filler", "是什么？", ""},
	{"only english filler", "What is it?", ""},
	{"only particles", "吗", ""},

	// Fuzz findings.
	{"removal parts its neighbours", "什什么么", "什 么"},
}

func TestStrip(t *testing.T) {
	for _, tc := range stripCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Strip(tc.q); got != tc.want {
				t.Errorf("Strip(%q) = %q, want %q", tc.q, got, tc.want)
			}
		})
	}
}

func TestStripInvalidUTF8(t *testing.T) {
	if got, want := Strip("what is ab\xffcd"), "ab cd"; got != want {
		t.Errorf("Strip(invalid) = %q, want %q", got, want)
	}
}

func TestQuestionWordsLongestFirst(t *testing.T) {
	// zhQuestionLen takes the first word that matches, so a word must never follow one of
	// its own prefixes.
	for i, w := range zhQuestionWords {
		for _, earlier := range zhQuestionWords[:i] {
			if strings.HasPrefix(w, earlier) {
				t.Errorf("zhQuestionWords has %q before %q, which it starts", earlier, w)
			}
		}
	}
}

// FuzzStrip checks that any query yields valid text no longer than the query, that stripping
// twice changes nothing, and that unchanged input means nothing was found.
func FuzzStrip(f *testing.F) {
	for _, tc := range stripCases {
		f.Add(tc.q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := Strip(q)
		if !utf8.ValidString(got) {
			t.Fatalf("Strip(%q) = %q, not valid UTF-8", q, got)
		}
		if len(got) > len(q) {
			t.Fatalf("Strip(%q) = %q, longer than its input", q, got)
		}
		if again := Strip(got); again != got {
			t.Fatalf("Strip(Strip(%q)) = %q, want %q", q, again, got)
		}
	})
}

func BenchmarkStrip(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Strip("请问老王上次说的那家咖啡店在哪里？ and what is the staging cluster's address?")
	}
}

func BenchmarkStripNothing(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Strip("老王喜欢简约风格, CI uses Python 3.12 with go-sqlite3")
	}
}
