package entity

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pemistahl/lingua-go"
)

// sharedExtractor loads the dictionary and models once for every test, fuzz target and
// benchmark in the package: New takes seconds.
var sharedExtractor = sync.OnceValues(func() (*Extractor, error) {
	return New(context.Background())
})

func testExtractor(tb testing.TB) *Extractor {
	tb.Helper()
	x, err := sharedExtractor()
	if err != nil {
		tb.Fatalf("New() error = %v", err)
	}
	return x
}

// extractTests pin the output of the current rules. A change here is a RulesVersion bump.
var extractTests = []struct {
	name string
	text string
	want []string
}{
	{"chinese", "老王喜欢简约风格", []string{"老王", "风格"}},
	{"traditional chinese", "老王喜歡簡約風格", []string{"老王", "风格"}},
	{"chinese names places organisations", "张三在阿里巴巴工作，住在杭州西湖区",
		[]string{"张三", "阿里巴巴", "工作", "杭州", "西湖区"}},
	{"chinese time words dropped", "我们上周把计费服务迁移到了PostgreSQL 16",
		[]string{"计费", "服务", "postgresql", "16"}},
	{"chinese generic nouns dropped", "那个时候的东西", nil},
	{"traditional chinese with latin", "這個項目使用向量資料庫和 Rust",
		[]string{"项目", "向量", "资料库", "rust"}},
	{"latin inside chinese", "用Go写API服务", []string{"go", "api", "服务"}},
	{"english acronym name version", "CI uses Python 3.12", []string{"ci", "python", "3.12"}},
	{"english stopwords and time words", "We migrated the billing service to PostgreSQL 16 last week",
		[]string{"billing", "service", "postgresql", "16"}},
	{"english then chinese", "CI uses Python 3.12 在北京", []string{"ci", "python", "3.12", "北京"}},
	{"identifiers", "Fixed the login bug in go-sqlite3 v0.37.0; see node.js docs and C++ / C# notes.",
		[]string{"login", "go-sqlite3", "v0.37.0", "node.js", "docs", "c++", "c#", "notes"}},
	{"possessive title phone", "Alice's dentist is Dr. Smith on Main Street, call 555-1234",
		[]string{"alice", "dentist", "smith", "street", "555-1234"}},
	{"sentence-initial past tense, acronym plurals, abbreviations", "Migrated billing to Postgres; the APIs and GPUs are fine. e.g. it's OK.",
		[]string{"billing", "postgres", "api", "gpu", "fine"}},
	{"numbers", "Kubernetes cluster upgrade on Friday: 3 nodes, 10:30am, 2nd attempt, 8080 port",
		[]string{"kubernetes", "cluster", "upgrade", "nodes", "attempt", "8080", "port"}},
	{"years stay", "Remember to renew the passport before the trip to Japan in May 2025",
		[]string{"renew", "passport", "trip", "japan", "2025"}},
	{"full-width", "ＡＰＩ ｋｅｙ ｆｏｒ ＯｐｅｎＡＩ is in 1Password", []string{"api", "openai", "1password"}},
	{"paths and urls", "The deploy script lives in scripts/deploy.sh at https://github.com/memdesk/memdesk",
		[]string{"deploy", "script", "scripts", "deploy.sh", "github.com", "memdesk"}},
	{"hyphens and apostrophes", "I met Ahmed at the well-known café; follow-up with Jean-Luc about Wi-Fi",
		[]string{"ahmed", "café", "jean-luc", "wi-fi"}},
	{"german keeps capitalized nouns only", "Die Katze schläft auf dem Sofa bei Frau Müller",
		[]string{"katze", "sofa", "frau", "müller"}},
	{"japanese", "東京タワーに行きました", []string{"东京", "タワー"}},
	{"half-width katakana", "ｺﾝﾋﾟｭｰﾀｰを買った", []string{"コンピューター"}},
	{"korean", "서울에 갔어요. 회의가 내일 있어요", []string{"서울", "회의", "내일"}},
	{"repeats once in first-appearance order", "Python, python, PYTHON and Python 3", []string{"python", "3"}},
	{"empty", "", nil},
	{"whitespace", " \t\n　", nil},
	{"punctuation only", "…!?，。、——()[]{}", nil},
	{"invalid utf-8", "Python\xff\xfe3.12 \xc3老王\x80喜欢", []string{"python", "3.12", "老王"}},
	{"nul and controls", "Go\x00Rust\x1bZig", []string{"go", "rust", "zig"}},
}

func TestExtract(t *testing.T) {
	x := testExtractor(t)
	for _, tt := range extractTests {
		t.Run(tt.name, func(t *testing.T) {
			got := x.Extract(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Extract(%q) got %q, want %q; diff (-want +got):\n%s", tt.text, got, tt.want, diff)
			}
		})
	}
}

func TestLang(t *testing.T) {
	x := testExtractor(t)
	tests := []struct {
		text string
		want string
	}{
		{"老王喜欢简约风格", "zh"},
		{"老王喜歡簡約風格", "zh"},
		{"用Go写API服务", "zh"},
		{"CI uses Python 3.12 在北京", "en"},
		{"CI uses Python 3.12", "en"}, // lingua: French 0.33, below minForeignConfidence
		{"Use go-sqlite3 not mattn", "en"},
		{"We migrated the billing service to PostgreSQL 16 last week", "en"},
		{"Wir haben den Dienst migriert", "other"},
		{"La réunion est demain à dix heures", "other"},
		{"東京タワーに行きました", "ja"},
		{"서울에 갔어요", "ko"},
		{"Москва", "other"},
		{"3.12", "other"},
		{"", "other"},
	}
	for _, tt := range tests {
		if got := x.Lang(tt.text); got != tt.want {
			t.Errorf("Lang(%q) got %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestDetectorLanguagesAreShipped: every language the detector chooses between has its models
// in the pruned lingua-go (third_party/lingua-go), which lingua would otherwise take as empty.
func TestDetectorLanguagesAreShipped(t *testing.T) {
	x := testExtractor(t)
	samples := map[lingua.Language]string{
		lingua.English: "We moved the billing service to the new database last week",
		lingua.German:  "Wir haben den Dienst letzte Woche auf die neue Datenbank umgezogen",
		lingua.French:  "Nous avons déplacé le service de facturation vers la nouvelle base",
		lingua.Spanish: "Trasladamos el servicio de facturación a la nueva base de datos",
	}
	for _, lang := range detectorLanguages() {
		sample, ok := samples[lang]
		if !ok {
			t.Errorf("no sample sentence for %v: add one", lang)
			continue
		}
		if got, ok := x.detector.DetectLanguageOf(sample); !ok || got != lang {
			t.Errorf("DetectLanguageOf(%q) = %v, %v; want %v (are its models in third_party/lingua-go?)", sample, got, ok, lang)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"ＡＢＣ", "abc"},
		{"  Python. ", "python"},
		{"Python  \t 3.12", "python 3.12"},
		{"C++", "c++"},
		{"C#.", "c#"},
		{"#hashtag", "hashtag"},
		{"+-#", ""},
		{"Straße", "strasse"},
		{"ｶﾞｿﾘﾝ", "ガソリン"},
		{"e\u0301", "é"},
		{"风格", "风格"},
		{"風格", "风格"}, // one script: traditional is written simplified
		{"(老王)", "老王"},
		{"\xffGo\xfe", "go"},
		{"Ꭺ", "ꭺ"}, // found by FuzzNormalize: x/text folds Cherokee to the other case
		{"ꭺ", "ꭺ"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) got %q, want %q", tt.in, got, tt.want)
		}
		if got := Normalize(tt.want); got != tt.want {
			t.Errorf("Normalize(%q) got %q, want it unchanged", tt.want, got)
		}
	}
}

func TestExtractReadsOnlyMaxTextBytes(t *testing.T) {
	x := testExtractor(t)
	filler := strings.Repeat("Kubernetes 老王 ", MaxTextBytes/len("Kubernetes 老王 ")+1)
	got := x.Extract(filler + "Zanzibar")
	if diff := cmp.Diff([]string{"kubernetes", "老王"}, got); diff != "" {
		t.Errorf("Extract(%d bytes) diff (-want +got):\n%s", len(filler)+8, diff)
	}
}

func TestExtractConcurrent(t *testing.T) {
	x := testExtractor(t)
	want := make([][]string, len(extractTests))
	for i, tt := range extractTests {
		want[i] = x.Extract(tt.text)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i, tt := range extractTests {
				if got := x.Extract(tt.text); !cmp.Equal(got, want[i]) {
					t.Errorf("concurrent Extract(%q) got %q, want %q", tt.text, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

func TestNewCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	x, err := New(ctx)
	if !errors.Is(err, context.Canceled) || x != nil {
		t.Fatalf("New(cancelled) got (%v, %v), want (nil, context.Canceled)", x, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("New(cancelled) took %v, want it to return before loading anything", d)
	}
}
