package ingest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// searchIndex is shaped like Sphinx's searchindex.js: one line of JSON inside a call.
func searchIndex() string {
	var titles, terms []string
	for i, t := range []string{"Installing Python modules", "The Python tutorial", "Extending and embedding",
		"Python HOWTOs", "Descriptor guide", "Logging cookbook", "Sorting techniques", "Unicode HOWTO"} {
		titles = append(titles, fmt.Sprintf(`"%s":[[%d,null]]`, t, i))
	}
	for i, w := range []string{"python", "modul", "instal", "tutori", "embed", "extend", "descriptor", "log",
		"cookbook", "sort", "unicod", "howto", "packag", "pip", "virtual", "environ"} {
		terms = append(terms, fmt.Sprintf(`"%s":[%d,%d,[%d,%d],%d]`, w, i, i+3, i%4, i%7, 2*i))
	}
	return `Search.setIndex({"alltitles":{` + strings.Join(titles, ",") + `},"docnames":["install/index","tutorial/index",` +
		`"extending/index","howto/index","howto/descriptor","howto/logging-cookbook","howto/sorting","howto/unicode"],` +
		`"envversion":{"sphinx":61,"sphinx.domains.c":3,"sphinx.domains.python":4},"filenames":["install/index.rst",` +
		`"tutorial/index.rst"],"indexentries":{},"objects":{},"objnames":{},"objtypes":{},"terms":{` +
		strings.Join(terms, ",") + `},"titles":["Installing Python modules","The Python tutorial"],"titleterms":{` +
		`"python":[0,1],"modul":0,"tutori":1}})`
}

// englishParagraph is Markdown as editors that do not wrap write it: a paragraph per line,
// with links, code and parentheses.
var englishParagraph = strings.Repeat("The harbour master keeps the tide ledger in room 7 of the old customs house, "+
	"next to the charts (the 1962 survey, mostly) and a box of brass dividers; see [the ledger notes](https://example.org/ledger) "+
	"for how the entries are written, and `tide --table` for the program that prints them. ", 4)

// chineseProse is 2,000 characters of Chinese on one line: no spaces at all.
var chineseProse = []rune(strings.Repeat("老王喜欢简约风格，他家的客厅只有一张木桌、两把椅子和一盏落地灯。"+
	"每到周末，他会去南京的老城区散步，在茶馆里坐一下午，听人讲大熊猫和长江的故事。"+
	"他说，生活里的东西越少，心里就越安静；朋友们笑他固执，他却一直如此。", 20))[:2000]

func TestGeneratedReason(t *testing.T) {
	minifiedCSS := strings.Repeat(`.highlight .hll{background-color:#ffc}.highlight{background:#f8f8f8}`+
		`.highlight .c{color:#408080;font-style:italic}.highlight .k{color:#008000;font-weight:bold}`+
		`@media (max-width:600px){.nav>li{display:block;margin:0 auto}}`, 8) + "\n"
	sourceMap := `{"version":3,"file":"app.min.js","sources":["src/app.ts","src/ui.ts"],"names":["render","state"],"mappings":"` +
		strings.Repeat("AAAA,SAASA,GAAG,CAAC;AACA,IAAIC,KAAK,EAAE,OAAO;AAEb,", 20) + `AAAA"}` + "\n"
	chineseASCIIPunctuation := strings.NewReplacer("，", ",", "。", ".", "；", ";", "、", ",").Replace(string(chineseProse))
	prettyCSS := strings.Repeat(".highlight .c {\n  color: #408080;\n  font-style: italic;\n}\n", 40)
	cases := []struct {
		name, text string
		generated  bool
	}{
		{"sphinx search index", searchIndex(), true},
		{"minified css", minifiedCSS, true},
		{"source map", sourceMap, true},
		{"english paragraph per line", "# Tides\n\n" + englishParagraph + "\n\n" + englishParagraph + "\n", false},
		{"chinese paragraph on one line", string(chineseProse) + "\n", false},
		{"chinese with ascii punctuation", chineseASCIIPunctuation + "\n", false},
		{"hand-written css", prettyCSS, false},
		{"short minified line", `.a{color:#fff;margin:0}`, false}, // too short to matter
		{"empty", "", false},
		{"a long line of spaces", strings.Repeat(" ", 600) + "\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if why := generatedReason(tc.text); (why != "") != tc.generated {
				t.Errorf("generatedReason(%.60q...) = %q, want generated %v (%+v)", tc.text, why, tc.generated, measureShape(tc.text))
			}
		})
	}
}

// TestParseGenerated checks what an import sees: a generated file is refused with
// ErrGenerated and a reason that says why, prose with long lines is read.
func TestParseGenerated(t *testing.T) {
	_, err := Parse("searchindex.js", []byte(searchIndex()), Limits{})
	if !errors.Is(err, ErrGenerated) {
		t.Fatalf("Parse(searchindex.js) error = %v, want ErrGenerated", err)
	}
	if want := `"searchindex.js" is generated or minified, not prose (100% of it in one line of`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Parse(searchindex.js) error = %q, want it to start %q", err, want)
	}
	for _, tc := range []struct{ path, text string }{
		{"tides.md", englishParagraph + "\n"},
		{"tides.txt", englishParagraph + "\n"},
		{"老王.txt", string(chineseProse) + "\n"},
		{"老王.md", string(chineseProse) + "\n"},
	} {
		if doc, err := Parse(tc.path, []byte(tc.text), Limits{}); err != nil || len(doc.Chunks) == 0 {
			t.Errorf("Parse(%s) = %d chunks, %v; want the prose read", tc.path, len(doc.Chunks), err)
		}
	}
}

// FuzzGeneratedReason checks that any text is measured without a panic, and that only text
// with a long line is called generated.
func FuzzGeneratedReason(f *testing.F) {
	for _, s := range []string{searchIndex(), englishParagraph, string(chineseProse), "", strings.Repeat(" ", 600), "\xff\xfe{" + strings.Repeat("}", 600)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		why := generatedReason(text)
		if why != "" && measureShape(text).maxLine < generatedLineBytes {
			t.Errorf("generatedReason(%q) = %q, but no line is %d bytes long", text, why, generatedLineBytes)
		}
	})
}
