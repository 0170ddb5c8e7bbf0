package ui

import (
	"encoding/json"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/memdesk/memdesk/engine"
)

// TestMain pins the tests to English whatever the machine's locale: they read the window's
// words. Fyne's lang package chose its language when it was loaded, so the translations are
// registered again under the pinned locale.
func TestMain(m *testing.M) {
	os.Setenv("LANGUAGE", "en")
	registerTranslations(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}

// translationKeys are the keys the ui package's source asks for: the first argument of
// every lang.L/N/X/XN call, and for plural the English plural it is keyed by, mapped to the
// English singular ("" for the others). A key that is not a constant string is an error:
// it could not be checked.
func translationKeys(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	keys := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Name == "plural" {
				return false // its lang.N takes the key its callers give, checked at each call
			}
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := fun.X.(*ast.Ident); ok && pkg.Name == "lang" && slices.Contains([]string{"L", "N", "X", "XN"}, fun.Sel.Name) {
					key, ok := constantString(fset, call.Args[0])
					if !ok {
						t.Errorf("%s: lang.%s with a key that is not a constant string", fset.Position(call.Pos()), fun.Sel.Name)
						return true
					}
					if _, seen := keys[key]; !seen {
						keys[key] = ""
					}
				}
			case *ast.Ident:
				if fun.Name == "plural" && len(call.Args) == 3 {
					one, ok1 := constantString(fset, call.Args[1])
					many, ok2 := constantString(fset, call.Args[2])
					if !ok1 || !ok2 {
						t.Errorf("%s: plural with words that are not constant strings", fset.Position(call.Pos()))
						return true
					}
					keys["{{.Count}} "+many] = "{{.Count}} " + one
				}
			}
			return true
		})
	}
	if len(keys) < 50 {
		t.Fatalf("found %d translation keys; run from the ui package directory", len(keys))
	}
	return keys
}

// constantString evaluates a string literal or a sum of them.
func constantString(fset *token.FileSet, e ast.Expr) (string, bool) {
	tv, err := types.Eval(fset, types.NewPackage("ui", "ui"), token.NoPos, types.ExprString(e))
	if err != nil || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// readTranslations reads one translations file: each key's message, or its plural forms.
func readTranslations(t *testing.T, name string) map[string]map[string]string {
	t.Helper()
	data, err := translations.ReadFile("translations/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := map[string]map[string]string{}
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = map[string]string{"other": s}
			continue
		}
		var forms map[string]string
		if err := json.Unmarshal(v, &forms); err != nil {
			t.Errorf("%s: %q is neither a message nor plural forms: %v", name, k, err)
			continue
		}
		out[k] = forms
	}
	return out
}

var templateField = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// fields are the {{.Name}} fields a message fills in, sorted.
func fields(msg string) []string {
	var out []string
	for _, m := range templateField.FindAllStringSubmatch(msg, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestTranslationsCoverEveryKey(t *testing.T) {
	keys := translationKeys(t)
	en, zh := readTranslations(t, "en.json"), readTranslations(t, "zh-Hans.json")
	for key, one := range keys {
		e, z := en[key], zh[key]
		if e == nil {
			t.Errorf("no English for %q", key)
		}
		if z == nil {
			t.Errorf("no Chinese for %q", key)
			continue
		}
		// A message of fields and punctuation only may read the same in both.
		words := strings.IndexFunc(templateField.ReplaceAllString(key, ""), unicode.IsLetter) >= 0
		if z["other"] == "" || z["other"] == key && words && key != "memdesk.language" {
			t.Errorf("the Chinese for %q is %q: empty or the English", key, z["other"])
		}
		if e != nil && one != "" && e["one"] != one {
			t.Errorf("the English singular of %q is %q, want %q", key, e["one"], one)
		}
		for form, msg := range z {
			if got, want := fields(msg), fields(key); !slices.Equal(got, want) {
				t.Errorf("the Chinese (%s) for %q fills in %q, want %q", form, key, got, want)
			}
		}
	}
	for name, file := range map[string]map[string]map[string]string{"en.json": en, "zh-Hans.json": zh} {
		for key := range file {
			if _, used := keys[key]; !used {
				t.Errorf("%s has %q, which the source no longer asks for", name, key)
			}
		}
	}
}

// inChinese puts the tests' process in a Chinese locale for t, and the localizer back in
// English after it.
func inChinese(t *testing.T) {
	// Registered before the variables are set, so it runs after they are restored.
	t.Cleanup(func() { registerTranslations(slog.New(slog.DiscardHandler)) })
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "zh_CN.UTF-8")
	t.Setenv("LANGUAGE", "")
}

func TestMainWindowInChinese(t *testing.T) {
	inChinese(t)
	h := newHarness(t, Options{}, nil)
	if got := uiLanguage(); got != langChinese {
		t.Fatalf("uiLanguage() in a zh_CN locale = %q, want %q", got, langChinese)
	}
	var tabs []string
	for _, item := range h.u.tabs.Items {
		tabs = append(tabs, item.Text)
	}
	if want := []string{"回忆", "记忆", "知识库", "设置"}; !slices.Equal(tabs, want) {
		t.Errorf("tabs = %q, want %q", tabs, want)
	}
	var menus []string
	for _, m := range h.u.win.MainMenu().Items {
		menus = append(menus, m.Label)
	}
	if want := []string{"文件", "视图"}; !slices.Equal(menus, want) {
		t.Errorf("menus = %q, want %q", menus, want)
	}
	if got, want := plural(3, "memory", "memories"), "3 条记忆"; got != want {
		t.Errorf("plural(3 memories) = %q, want %q", got, want)
	}
	if got := h.u.recall.request().Lang; got != langChinese {
		t.Errorf("recall asks the engine for explanations in %q, want %q", got, langChinese)
	}
}

func TestLanguageChoiceWaitsForTheNextStart(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	p := h.u.appearance
	if got := p.language.Selected; got != "Follow the system" {
		t.Errorf("language choice on a fresh start = %q, want Follow the system", got)
	}
	if p.restart.Visible() {
		t.Error("the restart note shows before any change")
	}
	for _, c := range []struct{ label, stored, env string }{
		{"中文", langChinese, "zh_CN"}, {"English", langEnglish, "en"}, {"Follow the system", langSystem, ""},
	} {
		p.language.SetSelected(c.label)
		if got := h.u.fa.Preferences().String(prefLanguage); got != c.stored {
			t.Errorf("after choosing %s the stored language is %q, want %q", c.label, got, c.stored)
		}
		if got := LanguageOverride(h.u.fa); got != c.env {
			t.Errorf("after choosing %s LanguageOverride = %q, want %q", c.label, got, c.env)
		}
		if !p.restart.Visible() {
			t.Errorf("after choosing %s no note says it takes effect on the next start", c.label)
		}
	}
	if got := uiLanguage(); got != langEnglish {
		t.Errorf("the window's language changed at once to %q; it waits for the next start", got)
	}
}

// TestWordsMadeInChinese: what the window builds from parts (dates, the semantic state,
// leg lists, selector values) reads as Chinese, not as translated English words.
func TestWordsMadeInChinese(t *testing.T) {
	inChinese(t)
	registerTranslations(slog.New(slog.DiscardHandler))
	loc := time.FixedZone("UTC+8", 8*3600)
	now := time.Date(2026, 12, 1, 0, 30, 0, 0, loc)
	for _, tc := range []struct{ got, want string }{
		{dayHeader(time.Date(2026, 12, 1, 0, 0, 0, 0, loc), now), "今天"},
		{dayHeader(time.Date(2026, 11, 30, 0, 0, 0, 0, loc), now), "昨天"},
		{dayHeader(time.Date(2026, 11, 29, 0, 0, 0, 0, loc), now), "11月29日 周日"},
		{dayHeader(time.Date(2025, 11, 30, 0, 0, 0, 0, loc), now), "2025年11月30日 周日"},
		{semanticLabel("pulling 42%"), "正在下载 42%"},
		{semanticLabel("ready"), "就绪"},
		{semanticLabel("failed: model not found"), "失败: model not found"},
		{semanticLabel("off (ollama.enabled = false in the config)"), "关闭 (ollama.enabled = false in the config)"},
		{semanticLabel("something new"), "something new"},
		{legsPhrase([]string{"lexical"}), "仅词法检索"},
		{legsPhrase([]string{"lexical", "entity", "semantic"}), "词法、实体和语义检索"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if got, want := choiceLabels(sourceChoices()), []string{"全部", "记忆", "知识库"}; !slices.Equal(got, want) {
		t.Errorf("source choices = %q, want %q", got, want)
	}
	r := newHarness(t, Options{}, nil).u.recall
	r.source.SetSelected("知识库")
	r.order.SetSelected("最新")
	if req := r.request(); req.Source != engine.SourceKnowledge || req.Sort != engine.SortNewest {
		t.Errorf("知识库 and 最新 ask for source %q, sort %q; want %q, %q", req.Source, req.Sort, engine.SourceKnowledge, engine.SortNewest)
	}
}
