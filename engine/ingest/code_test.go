package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// brokenGo is a Go fixture with a syntax error. It lives here rather than in testdata, where
// gofmt -l would read it and fail.
const brokenGo = `package tally

// Merge adds other's counts to c.
func (c *Counter) Merge(other *Counter) {
	for w, n := range other.counts {
		c.counts[w] += n
	// the closing brace of the loop is missing
}

// Reset forgets every count.
func Reset(c *Counter) { c.counts = map[string]int{} }
`

// codeFixture returns the text of a fixture under testdata/code, or brokenGo for broken.go.
func codeFixture(t testing.TB, name string) string {
	t.Helper()
	if name == "broken.go" {
		return brokenGo
	}
	data, err := os.ReadFile(filepath.Join("testdata", "code", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// codeSections lists a layout's sections as "line heading: first line of its text", so a
// table shows where each section starts and that the line really opens the declaration or
// the comment above it.
func codeSections(text string, lay layout) []string {
	var got []string
	for _, s := range lay.sections {
		first, _, _ := strings.Cut(text[s.start:s.end], "\n")
		got = append(got, fmt.Sprintf("%d %s: %s", 1+strings.Count(text[:s.start], "\n"), s.heading, strings.TrimSpace(first)))
	}
	return got
}

// TestCodeDeclarations reads one fixture per language with a cap of 0 runes, which joins no
// declarations, so every section is one declaration with its comments and attributes.
func TestCodeDeclarations(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"tally.go", []string{
			"1 package tally: // Package tally counts words in notes.",
			"9 Counter: // Counter counts how often each word occurs.",
			"14 Counter.Add: // Add counts the words of one line. A \"func\" in a string starts nothing:",
			"22 Counter.Top: // Top returns the n most frequent words.",
			"32 minLen, maxLen: const (",
			"37 keep: func keep[T ~string](w T) bool { return len(w) >= minLen && len(w) <= maxLen }",
		}},
		{"broken.go", []string{ // read without go/parser: the loop's brace is missing
			"1 : package tally",
			"3 Counter.Merge: // Merge adds other's counts to c.",
			"10 Reset: // Reset forgets every count.",
		}},
		{"shapes.py", []string{
			"1 : #!/usr/bin/env python3",
			"10 Circle: @dataclass",
			"19 Circle.area: def area(self):",
			"22 Circle.describe: # Async, for the sake of the example.",
			"27 total_area: def total_area(shapes):",
		}},
		{"cart.ts", []string{
			`1 : import { Item } from "./item";`,
			"3 Line: /** A line in the cart. */",
			"9 Cart: /**",
			"16 Cart.constructor: constructor(private readonly currency: string) {}",
			"18 Cart.add: // add puts one more of item in the cart.",
			"28 Cart.total: @memoize()",
			"34 formatPrice: export const formatPrice = (cents: number): string => `${(cents / 100).toFixed(2)}`;",
			"36 emptyCart: export default function emptyCart(): Cart {",
		}},
		{"geometry.rs", []string{
			"1 : //! Points and distances.",
			"5 Point: /// A point in the plane.",
			"12 impl Point: impl Point {",
			"13 Point.origin: /// The origin.",
			"18 Point.distance: pub fn distance(&self, other: &Point) -> f64 {",
			"24 impl fmt::Display for Point: impl<'a> fmt::Display for Point {",
			"25 Point.fmt: fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {",
			"30 tests: #[cfg(test)]",
			"34 tests.origin_is_zero: #[test]",
		}},
		{"Account.java", []string{
			"1 : package bank;",
			"6 Account: /**",
			"13 Account.Account: /** Creates an empty account. */",
			"17 Account.deposit: /**",
			"28 Account.toString: @Override",
			"33 Account.Listener: /** What an account reports to. */",
		}},
		{"list.c", []string{
			"1 : /* list.c: a singly linked list of words. */",
			"5 node: /* One word and the next. */",
			"11 stop_words: static const char *const stop_words[] = {",
			"15 list_push: /* Pushes a copy of word in front of head.",
			"28 list_len: int list_len(const node *head);",
			"30 list_len: int list_len(const node *head) {",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text := codeFixture(t, tc.file)
			got := codeSections(text, codeLayout(text, codeLanguage(tc.file), 0))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("codeLayout(%s) sections (-want +got):\n%s", tc.file, diff)
			}
		})
	}
}

// TestCodeFallsBackWithoutGoParser makes sure broken.go above really took the line-based
// path: a file go/parser reads would not show that path working.
func TestCodeFallsBackWithoutGoParser(t *testing.T) {
	if decls, ok := goDecls(brokenGo); ok {
		t.Errorf("goDecls(broken.go) = %v, true; want false for a file with a syntax error", decls)
	}
}

// TestParseCode parses the fixtures as an import does: small declarations share a chunk,
// long ones are cut, and every chunk points back into the text.
func TestParseCode(t *testing.T) {
	for _, tc := range []struct {
		file string
		lim  Limits
		want []string // "lines heading" of each chunk
	}{
		{"tally.go", Limits{}, []string{
			"1-35 package tally, Counter, Counter.Add, Counter.Top, minLen, maxLen",
			"37-37 keep",
		}},
		{"tally.go", Limits{ChunkMaxRunes: 300, ChunkOverlapRunes: noOverlap}, []string{
			"1-12 package tally, Counter",
			"14-20 Counter.Add",
			"22-28 Counter.Top", // too long: cut at a line end, not after the comment's full stop
			"29-30 Counter.Top",
			"32-37 minLen, maxLen, keep",
		}},
		{"broken.go", Limits{}, []string{"1-11 Counter.Merge, Reset"}},
		{"shapes.py", Limits{ChunkMaxRunes: 200, ChunkOverlapRunes: noOverlap}, []string{
			"1-7 ",
			"10-20 Circle, Circle.area",
			"22-24 Circle.describe",
			"27-29 total_area",
		}},
		{"cart.ts", Limits{ChunkMaxRunes: 300, ChunkOverlapRunes: noOverlap}, []string{
			"1-7 Line",
			"9-16 Cart, Cart.constructor",
			"18-26 Cart.add",
			"28-38 Cart.total, formatPrice, emptyCart",
		}},
		{"geometry.rs", Limits{ChunkMaxRunes: 300, ChunkOverlapRunes: noOverlap}, []string{
			"1-16 Point, impl Point, Point.origin",
			"18-22 Point.distance",
			"24-38 impl fmt::Display for Point, Point.fmt, tests, tests.origin_is_zero",
		}},
		{"Account.java", Limits{ChunkMaxRunes: 250, ChunkOverlapRunes: noOverlap}, []string{
			"1-4 ",
			"6-15 Account, Account.Account", // a class's header goes with its first member
			"17-24 Account.deposit",
			"25-26 Account.deposit",
			"28-37 Account.toString, Account.Listener",
		}},
		{"list.c", Limits{ChunkMaxRunes: 200, ChunkOverlapRunes: noOverlap}, []string{
			"1-9 node",
			"11-13 stop_words",
			"15-21 list_push",
			"22-26 list_push",
			"28-35 list_len",
		}},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.file, tc.lim.ChunkMaxRunes), func(t *testing.T) {
			doc, err := Parse(tc.file, []byte(codeFixture(t, tc.file)), tc.lim)
			if err != nil {
				t.Fatalf("Parse(%s) error: %v", tc.file, err)
			}
			if doc.Format != "code" || doc.Title != tc.file {
				t.Errorf("Parse(%s) format %q, title %q; want %q, %q", tc.file, doc.Format, doc.Title, "code", tc.file)
			}
			checkChunks(t, doc.Text, doc.Chunks, tc.lim)
			var got []string
			for _, c := range doc.Chunks {
				got = append(got, fmt.Sprintf("%d-%d %s", c.LineStart, c.LineEnd, c.Heading))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%s) chunks (-want +got):\n%s", tc.file, diff)
			}
		})
	}
}

// codeCases are the traps of each language's comments and strings, and names the finder
// must read right.
var codeCases = []struct {
	name, file, text string
	want             []string // codeSections with a cap of 0
}{
	{
		name: "python def inside a string", file: "a.py",
		text: "x = '''\ndef hidden():\n'''\ny = \"def also_hidden(): '''\"\n\ndef shown():\n    pass\n",
		want: []string{"1 : x = '''", "6 shown: def shown():"},
	},
	{
		name: "python comment above a function at the margin, not one in the body above", file: "a.py",
		text: "def a():\n    x = 1\n    # about x\n# about b\ndef b():\n    pass\n",
		want: []string{"1 a: def a():", "4 b: # about b"},
	},
	{
		name: "python nested class and methods one level deep", file: "a.py",
		text: "class A(\n    Base,\n):\n    class Meta:\n        def deep(self): pass\n    def m(self):\n        pass\n",
		want: []string{"1 A: class A(", "4 A.Meta: class Meta:", "6 A.m: def m(self):"},
	},
	{
		name: "python class on one line ends at the next line at the margin", file: "a.pyi",
		text: "class A: pass\ndef f():\n    def inner(): pass\n",
		want: []string{"1 A: class A: pass", "2 f: def f():"},
	},
	{
		name: "javascript template literal spanning lines", file: "a.js",
		text: "const page = `\nfunction hidden() {}\n`;\nfunction shown() {}\n",
		want: []string{"1 : const page = `", "4 shown: function shown() {}"},
	},
	{
		name: "javascript requires stay in the preamble; arrow functions and objects count", file: "a.mjs",
		text: "const fs = require('fs')\nconst add = async (a, b) => a + b\nlet config = {\n  a: 1,\n}\nmodule.exports = { add }\n",
		want: []string{"1 : const fs = require('fs')", "2 add: const add = async (a, b) => a + b", "3 config: let config = {", "6 module.exports: module.exports = { add }"},
	},
	{
		name: "javascript classes and objects given to module.exports", file: "a.cjs",
		text: "module.exports = class Minipass extends Stream {\n  write(chunk) {}\n}\nmodule.exports = cls => class Reifier extends cls {\n  #reify() {}\n}\n" +
			"exports.Parser = class extends Base {\n  parse() {}\n}\nmodule.exports = {\n  parse (text) {},\n  name: 'x',\n}\nexport default {\n  data() {},\n}\n",
		want: []string{
			"1 Minipass: module.exports = class Minipass extends Stream {", "2 Minipass.write: write(chunk) {}",
			"4 Reifier: module.exports = cls => class Reifier extends cls {", "5 Reifier.#reify: #reify() {}",
			"7 exports.Parser: exports.Parser = class extends Base {", "8 exports.Parser.parse: parse() {}",
			"10 module.exports: module.exports = {", "11 module.exports.parse: parse (text) {},",
			"14 default: export default {", "15 default.data: data() {},",
		},
	},
	{
		name: "typescript class members", file: "a.tsx",
		text: "export abstract class Store<T> {\n  static #count = 0;\n  private cache = new Map<string, T>();\n  protected abstract load<K>(key: K): Promise<T>;\n  get size(): number { return 0 }\n  onChange = (e: Event) => {}\n  if (x) {}\n}\ntype Id = string | number;\n",
		want: []string{
			"1 Store: export abstract class Store<T> {", "4 Store.load: protected abstract load<K>(key: K): Promise<T>;",
			"5 Store.size: get size(): number { return 0 }", "6 Store.onChange: onChange = (e: Event) => {}", "9 Id: type Id = string | number;",
		},
	},
	{
		name: "rust raw string, lifetimes and chars", file: "a.rs",
		text: "const HELP: &str = r#\"\nfn hidden() {}\n\"#;\nfn first<'a>(s: &'a str) -> char { '\"' }\npub(crate) async unsafe fn second() {}\nmacro_rules! square { ($x:expr) => { $x * $x }; }\nmod util;\n",
		want: []string{"1 HELP: const HELP: &str = r#\"", "4 first: fn first<'a>(s: &'a str) -> char { '\"' }", "5 second: pub(crate) async unsafe fn second() {}", "6 square!: macro_rules! square { ($x:expr) => { $x * $x }; }"},
	},
	{
		name: "rust trait and generic impl", file: "a.rs",
		text: "pub trait Shape {\n    fn area(&self) -> f64;\n}\n\nimpl<T: Copy> Shape for Wrapper<T> where T: Debug {\n    fn area(&self) -> f64 { 0.0 }\n}\n",
		want: []string{"1 Shape: pub trait Shape {", "2 Shape.area: fn area(&self) -> f64;", "5 impl Shape for Wrapper<T>: impl<T: Copy> Shape for Wrapper<T> where T: Debug {", "6 Wrapper.area: fn area(&self) -> f64 { 0.0 }"},
	},
	{
		name: "java text block, generics and statements that look like calls", file: "A.java",
		text: "public final class A {\n    static final String Q = \"\"\"\n    void hidden() {\n    \"\"\";\n    public static <T> List<T> of(T... xs) {\n        return null;\n    }\n    private Map<String, List<Integer>> index() { return null; }\n    private Runnable r = () -> {};\n}\n",
		want: []string{"1 A: public final class A {", "5 A.of: public static <T> List<T> of(T... xs) {", "8 A.index: private Map<String, List<Integer>> index() { return null; }"},
	},
	{
		name: "c comment at the margin, K&R and GNU styles, C++ methods", file: "a.cpp",
		text: "/*\nint hidden(void) {\n*/\n\nstatic int\nshown(int x)\n{\n\treturn x;\n}\n\nint Shape::area() const {\n\treturn 0;\n}\ntemplate <class T> size_t Vec<T>::size() const {}\nShape::~Shape() {}\nstruct ALIGNED point final : base { int x, y; };\nextern \"C\" {\nvoid g(void);\n}\n",
		want: []string{"1 : /*", "5 shown: static int", "11 Shape::area: int Shape::area() const {", "14 size: template <class T> size_t Vec<T>::size() const {}", "15 Shape::~Shape: Shape::~Shape() {}",
			"16 point: struct ALIGNED point final : base { int x, y; };", "18 g: void g(void);"},
	},
	{
		name: "c macros are declarations; macro calls and function pointers are no functions", file: "a.h",
		text: "#include <zlib.h>\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define SWAP(a, b) \\\nvoid g(int a); \\\n\tb = a;\nint (*handler)(int);\nDECLARE_THING(x);\n" +
			"extern int ZEXPORT deflate OF((z_streamp strm));\nvoid f(void) __attribute__((noreturn));\n",
		want: []string{
			"1 : #include <zlib.h>", "2 MAX: #define MAX(a, b) ((a) > (b) ? (a) : (b))", `3 SWAP: #define SWAP(a, b) \`,
			"8 deflate: extern int ZEXPORT deflate OF((z_streamp strm));", "9 f: void f(void) __attribute__((noreturn));",
		},
	},
	{
		name: "c typedefs: named where they close, function pointers left out", file: "a.h",
		text: "typedef enum { LIST_HEAD, LIST_TAIL } list_pos;\n\ntypedef struct {\n\tint x;\n} point, *point_p;\n\ntypedef int (*PFNPROC)(int x);\n" +
			"STACK_OF(X509) *SSL_get_chain(const SSL *s);\nvoid FOO(void);\ntypedef STACK_OF(X509) chain;\nDECLARE_X(a)\nDECLARE_Y(b)\ntypedef int t;\n",
		want: []string{"1 list_pos: typedef enum { LIST_HEAD, LIST_TAIL } list_pos;", "3 point: typedef struct {", "8 SSL_get_chain: STACK_OF(X509) *SSL_get_chain(const SSL *s);", "9 FOO: void FOO(void);"},
	},
	{
		name: "go generic receiver and two declarations on one line", file: "a.go",
		text: "package list\n\nfunc (l *List[K, V]) Len() int { return 0 }\nvar a = 1; var b = 2\n",
		want: []string{"1 package list: package list", "3 List.Len: func (l *List[K, V]) Len() int { return 0 }", "4 a, b: var a = 1; var b = 2"},
	},
	{
		name: "go without its parser", file: "a.go",
		text: "package list\n\nfunc (l *List[T]) Len() int {\n\nvar (\n\tx = 1\n)\ntype T struct{\n",
		want: []string{"1 : package list", "3 List.Len: func (l *List[T]) Len() int {", "5 var: var (", "8 T: type T struct{"},
	},
}

func TestCodeCases(t *testing.T) {
	for _, tc := range codeCases {
		t.Run(tc.name, func(t *testing.T) {
			got := codeSections(tc.text, codeLayout(tc.text, codeLanguage(tc.file), 0))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("codeLayout(%q) sections (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestCodeHeading(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"Parse"}, "Parse"},
		{[]string{"list_len", "list_len", "list_push"}, "list_len, list_push"},
		{[]string{strings.Repeat("x", 100), "y"}, strings.Repeat("x", 100) + ", …"},
		{[]string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima", "mike"},
			"alpha, bravo, charlie, delta, echo, foxtrot, golf, hotel, india, juliett, kilo, …"},
	} {
		if got := codeHeading(tc.names); got != tc.want {
			t.Errorf("codeHeading(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// FuzzCodeLayout feeds any text to every language's finder: sections must cover the text
// in order, and the chunks cut from them must point back into it.
func FuzzCodeLayout(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "code", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range append(files, "broken.go") {
		f.Add(codeFixture(f, filepath.Base(path)), filepath.Ext(path), 120)
	}
	for _, tc := range codeCases {
		f.Add(tc.text, filepath.Ext(tc.file), 0)
	}
	f.Fuzz(func(t *testing.T, text, ext string, maxRunes int) {
		lang := codeLanguage("x" + ext)
		if lang == "" {
			lang = "c"
		}
		maxRunes %= 300
		lay := codeLayout(text, lang, maxRunes)
		end := 0
		for i, s := range lay.sections {
			if s.start != end || s.end <= s.start && len(text) > 0 {
				t.Fatalf("section %d spans [%d, %d) after %d: sections must tile the text", i, s.start, s.end, end)
			}
			end = s.end
		}
		if end != len(text) {
			t.Fatalf("sections end at %d of %d bytes", end, len(text))
		}
		lim := Limits{ChunkMaxRunes: maxRunes}
		checkChunks(t, text, chunkLayout(text, lay, lim), lim)
	})
}

// BenchmarkCodeLayout lays out each fixture repeated to about 100 KB, a large source file.
func BenchmarkCodeLayout(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("testdata", "code", "*"))
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range files {
		fixture := codeFixture(b, filepath.Base(path))
		text := strings.Repeat(fixture, 100<<10/len(fixture))
		lang := codeLanguage(path)
		b.Run(lang, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				codeLayout(text, lang, defaultChunkRunes)
			}
		})
	}
}
