package ingest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// formatCode is the Format of a source file in a language codeLanguage knows: its chunks
// follow its declarations and are headed by their names.
const formatCode = "code"

// codeLanguage names the language whose declarations cut a source file, by its extension,
// or returns "" for a file that is read as plain text.
func codeLanguage(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return "go"
	case ".py", ".pyw", ".pyi":
		return "python"
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return "js"
	case ".rs":
		return "rust"
	case ".java":
		return "java"
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		return "c"
	}
	return ""
}

// codeDecl is one declaration: the start of its first line, which is the first line of the
// comments and attributes written right above it, and the names it declares.
type codeDecl struct {
	start  int
	names  []string
	header bool // a class or the like whose members are declarations of their own
}

// codeLayout cuts source code into a section per declaration, headed by the names declared:
// "Parser.Parse" for a method, "parseFile" for a function. Go is read with go/parser; a Go
// file that does not parse, and the other languages, with a line-based finder that knows
// each language's comments and strings, so a "def" inside a docstring starts nothing. Code
// before the first declaration (licence, imports) is a section of its own.
//
// Neighbouring declarations that fit in one chunk together share a section, headed by all
// their names: chunkLayout never joins sections, and a chunk per three-line getter would
// bury a search in fragments. A declaration too long for one chunk is cut at a blank line,
// else at a line end, and every piece keeps its heading.
func codeLayout(text, lang string, maxRunes int) layout {
	lines := scanCode(text, lang)
	decls, ok := []codeDecl(nil), false
	if lang == "go" {
		decls, ok = goDecls(text)
	}
	if !ok {
		decls = findDecls(lines, lang)
	}
	lay := layout{lineCuts: true}
	for _, ln := range lines {
		if ln.blank {
			lay.breaks = append(lay.breaks, ln.start)
		}
	}
	lay.sections = joinSmallDecls(text, decls, maxRunes)
	return lay
}

// joinSmallDecls turns declarations into sections, each running to the next declaration,
// and joins neighbours while their text together fits in maxRunes. A group does not end
// with the header of a class or impl whose members follow: the header goes with them.
func joinSmallDecls(text string, decls []codeDecl, maxRunes int) []section {
	if len(decls) == 0 || decls[0].start > 0 {
		decls = append([]codeDecl{{start: 0}}, decls...)
	}
	end := func(i int) int { // where declaration i ends
		if i+1 < len(decls) {
			return decls[i+1].start
		}
		return len(text)
	}
	var sections []section
	for i := 0; i < len(decls); {
		last := i
		for last+1 < len(decls) && fitsRunes(text[decls[i].start:end(last+1)], maxRunes) {
			last++
		}
		if last > i && last+1 < len(decls) && decls[last].header {
			last--
		}
		var names []string
		for _, d := range decls[i : last+1] {
			names = append(names, d.names...)
		}
		sections = append(sections, section{start: decls[i].start, end: end(last), heading: codeHeading(names)})
		i = last + 1
	}
	return sections
}

// fitsRunes reports whether s, trimmed as a chunk is, holds at most n runes.
func fitsRunes(s string, n int) bool {
	s = strings.TrimSpace(s)
	if len(s) > utf8.UTFMax*n {
		return false
	}
	return utf8.RuneCountInString(s) <= n
}

// codeHeadingRunes bounds a heading that names several declarations: a chunk of twenty
// constants is headed by the first few, and the chunk's text holds every name for search.
const codeHeadingRunes = 80

func codeHeading(names []string) string {
	var b strings.Builder
	names = slices.Compact(slices.Clone(names)) // a C prototype and its definition
	for i, name := range names {
		if i > 0 && utf8.RuneCountInString(b.String())+2+utf8.RuneCountInString(name) > codeHeadingRunes {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
	}
	return b.String()
}

// goDecls finds a Go file's top-level declarations with go/parser. It reports false for a
// file with a syntax error, whose partial tree would misplace them.
func goDecls(text string) ([]codeDecl, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", text, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	file := fset.File(f.Pos())
	decls := []codeDecl{{start: 0, names: []string{"package " + f.Name.Name}}}
	for _, d := range f.Decls {
		var (
			doc   *ast.CommentGroup
			names []string
		)
		switch d := d.(type) {
		case *ast.FuncDecl:
			doc, names = d.Doc, []string{goFuncName(d)}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue // imports stay with the package clause
			}
			doc = d.Doc
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		default:
			continue
		}
		pos := d.Pos()
		if doc != nil {
			pos = doc.Pos()
		}
		start := lineStart(text, file.Offset(pos))
		// Two declarations on one line ("var a = 1; var b = 2") are one section.
		if last := &decls[len(decls)-1]; start <= last.start {
			last.names = append(last.names, names...)
			continue
		}
		decls = append(decls, codeDecl{start: start, names: names})
	}
	return decls, true
}

// goFuncName is "Name" for a function and "Recv.Name" for a method, without the receiver's
// pointer or type parameters.
func goFuncName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		default:
			return d.Name.Name
		}
	}
}

// codeLine is one line of source code as the declaration finder sees it.
type codeLine struct {
	start, end int    // byte offsets of the line, without its newline
	indent     int    // bytes of leading white space
	code       string // the line with comments and the contents of strings blanked out
	blank      bool
	// inComment and inString say the line starts inside a block comment or a string
	// that spans lines, so it cannot start a declaration.
	inComment, inString bool
}

// commentOnly reports a line that holds nothing but comment.
func (l codeLine) commentOnly() bool {
	return !l.blank && !l.inString && strings.TrimSpace(l.code) == ""
}

// codeSyntax is how a language writes comments and strings, all the finder must skip.
type codeSyntax struct {
	lineComment string
	block       bool          // /* ... */ comments
	quotes      []quoteSyntax // longest delimiter first
	rust        bool          // 'a is a lifetime, not a char; r#"..."# is a raw string
}

// quoteSyntax is one kind of string literal.
type quoteSyntax struct {
	delim     string
	multiline bool // may span lines
	raw       bool // knows no backslash escapes
}

func syntaxOf(lang string) codeSyntax {
	var (
		double = quoteSyntax{delim: `"`}
		single = quoteSyntax{delim: `'`}
	)
	switch lang {
	case "python":
		return codeSyntax{lineComment: "#", quotes: []quoteSyntax{{`"""`, true, false}, {`'''`, true, false}, double, single}}
	case "go":
		return codeSyntax{lineComment: "//", block: true, quotes: []quoteSyntax{double, single, {"`", true, true}}}
	case "js":
		return codeSyntax{lineComment: "//", block: true, quotes: []quoteSyntax{double, single, {"`", true, false}}}
	case "java":
		return codeSyntax{lineComment: "//", block: true, quotes: []quoteSyntax{{`"""`, true, false}, double, single}}
	case "rust":
		return codeSyntax{lineComment: "//", block: true, quotes: []quoteSyntax{{`"`, true, false}}, rust: true}
	}
	return codeSyntax{lineComment: "//", block: true, quotes: []quoteSyntax{double, single}}
}

// scanCode splits text into lines and blanks out comments and the contents of strings, so
// the finder matches only code. A string that cannot span lines ends at the line's end
// even when its closing quote is missing, so one stray quote (a regular expression, a
// lifetime the scanner took for a char) cannot hide the rest of the file.
func scanCode(text, lang string) []codeLine {
	syn := syntaxOf(lang)
	code := []byte(text)
	var (
		lines     []codeLine
		inComment bool
		quote     string // the open string's closing delimiter, "" outside strings
		multi     bool   // the open string may span lines
		raw       bool
	)
	// opens marks the bytes that may start a comment or string; most bytes of code do not,
	// and skipping them quickly keeps the scan near the speed of reading the text.
	var opens [256]bool
	opens[syn.lineComment[0]], opens['/'], opens['\n'] = true, syn.block, true
	for _, q := range syn.quotes {
		opens[q.delim[0]] = true
	}
	if syn.rust {
		opens['r'], opens['b'], opens['\''] = true, true, true
	}
	newLine := func(start int) codeLine {
		return codeLine{start: start, inComment: inComment, inString: quote != "" && multi}
	}
	cur := newLine(0)
	for i := 0; i < len(text); {
		c := text[i]
		if !opens[c] && !inComment && quote == "" {
			i++
			continue
		}
		if c == '\n' {
			if quote != "" && !multi {
				quote = ""
			}
			cur.end = i
			lines = append(lines, cur)
			i++
			cur = newLine(i)
			continue
		}
		switch {
		case inComment:
			if strings.HasPrefix(text[i:], "*/") {
				code[i], code[i+1] = ' ', ' '
				inComment = false
				i += 2
				continue
			}
			code[i] = ' '
		case quote != "":
			switch {
			case c == '\\' && !raw && i+1 < len(text) && text[i+1] != '\n':
				code[i], code[i+1] = ' ', ' '
				i += 2
				continue
			case strings.HasPrefix(text[i:], quote):
				i += len(quote)
				quote = ""
				continue
			}
			code[i] = ' '
		case strings.HasPrefix(text[i:], syn.lineComment):
			for ; i < len(text) && text[i] != '\n'; i++ {
				code[i] = ' '
			}
			continue
		case syn.block && strings.HasPrefix(text[i:], "/*"):
			code[i], code[i+1] = ' ', ' '
			inComment = true
			i += 2
			continue
		case syn.rust && (c == 'r' || c == 'b') && rustRawString(text, i) > 0:
			n := rustRawString(text, i)
			hashes := strings.Count(text[i:i+n], "#")
			quote, multi, raw = `"`+strings.Repeat("#", hashes), true, true
			i += n
			continue
		case syn.rust && c == '\'':
			if n := rustChar(text, i); n > 0 {
				for j := i + 1; j < i+n-1; j++ {
					code[j] = ' '
				}
				i += n
				continue
			}
		default:
			for _, q := range syn.quotes {
				if strings.HasPrefix(text[i:], q.delim) {
					quote, multi, raw = q.delim, q.multiline, q.raw
					i += len(q.delim)
					break
				}
			}
			if quote != "" {
				continue
			}
		}
		i++
	}
	if cur.start < len(text) {
		cur.end = len(text)
		lines = append(lines, cur)
	}
	for i := range lines {
		l := &lines[i]
		line := text[l.start:l.end]
		l.code = string(code[l.start:l.end])
		l.blank = strings.TrimSpace(line) == ""
		l.indent = len(line) - len(strings.TrimLeft(line, " \t"))
	}
	return lines
}

// rustRawString returns the length of the opening of a raw string at i (r", r#", br##"),
// or 0 if none starts there.
func rustRawString(text string, i int) int {
	if i > 0 && isIdentByte(text[i-1]) {
		return 0
	}
	j := i
	if text[j] == 'b' {
		j++
	}
	if j >= len(text) || text[j] != 'r' {
		return 0
	}
	j++
	for j < len(text) && text[j] == '#' {
		j++
	}
	if j < len(text) && text[j] == '"' {
		return j + 1 - i
	}
	return 0
}

// rustChar returns the length of a char literal at i ('a', '\n', '\u{1F600}'), or 0 for a
// lifetime ('a, 'static), which has no closing quote.
func rustChar(text string, i int) int {
	rest := text[i+1:]
	if strings.HasPrefix(rest, `\`) {
		if j := strings.IndexByte(rest[1:], '\''); j >= 0 && j < 12 {
			return j + 3
		}
		return 0
	}
	_, size := utf8.DecodeRuneInString(rest)
	if size > 0 && size < len(rest) && rest[size] == '\'' {
		return size + 2
	}
	return 0
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// declRules is how one language's declarations look at the start of a line.
type declRules struct {
	// top matches a declaration at the left margin. A container's body holds members (a
	// class's methods) that the finder names "container.member".
	top func(code string) (name, container string, ok bool)
	// member matches a member at the indentation of a container's body.
	member func(code string) (name string, ok bool)
	// opens reports the line where a container's body begins.
	opens func(code string) bool
	// attribute reports a decorator or attribute line that belongs to the declaration
	// below it (@Override, #[derive(Debug)]).
	attribute func(code string) bool
}

// findDecls finds the declarations of a language without a parser here: top-level ones at
// the left margin and, inside classes, impls and the like, one level of members.
func findDecls(lines []codeLine, lang string) []codeDecl {
	if lang == "c" {
		return findCDecls(lines)
	}
	rules := rulesOf(lang)
	var (
		decls        []codeDecl
		container    string
		opened       bool
		memberIndent = -1
	)
	for i, ln := range lines {
		code := strings.TrimSpace(ln.code)
		if ln.inComment || ln.inString || code == "" {
			continue
		}
		switch {
		case ln.indent == 0:
			name, members, ok := rules.top(code)
			switch {
			case ok:
				container = ""
				if members != "" && rules.member != nil {
					container, opened, memberIndent = members, rules.opens(code), -1
				}
				decls = appendDecl(decls, codeDecl{start: attachedStart(lines, i, rules), names: []string{name}, header: container != ""})
			case container != "" && !opened:
				opened = rules.opens(code) // a header's last line: "):" or "{"
			default:
				container = "" // any other line at the margin ends the body
			}
		case container != "" && !opened:
			opened = rules.opens(code) // the rest of a header that spans lines
		case container != "":
			if memberIndent < 0 {
				memberIndent = ln.indent
			}
			if ln.indent != memberIndent {
				continue
			}
			if name, ok := rules.member(code); ok {
				decls = appendDecl(decls, codeDecl{start: attachedStart(lines, i, rules), names: []string{container + "." + name}})
			}
		}
	}
	return decls
}

// appendDecl adds d unless it starts where the last declaration does or before, which
// happens when comments between them were taken as d's.
func appendDecl(decls []codeDecl, d codeDecl) []codeDecl {
	if n := len(decls); n > 0 && d.start <= decls[n-1].start {
		return decls
	}
	return append(decls, d)
}

// attachedStart returns where the declaration on line i starts: at the comment and
// attribute lines directly above it, if any.
func attachedStart(lines []codeLine, i int, rules declRules) int {
	indent := lines[i].indent
	j := i
	for j > 0 {
		p := lines[j-1]
		code := strings.TrimSpace(p.code)
		switch {
		case p.blank || p.inString:
		case p.inComment, p.commentOnly() && p.indent <= indent:
			j--
			continue
		case rules.attribute != nil && p.indent == indent && rules.attribute(code):
			j--
			continue
		}
		break
	}
	return lines[j].start
}

const ident = `[\p{L}_$][\p{L}\p{N}_$]*`

// The patterns match a line's code with its indentation trimmed. Each is compiled once and
// only read after.
var (
	pyDef   = regexp.MustCompile(`^(?:async\s+)?def\s+(` + ident + `)`)
	pyClass = regexp.MustCompile(`^class\s+(` + ident + `)`)

	jsFunction       = regexp.MustCompile(`^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?function\b\s*\*?\s*(` + ident + `)`)
	jsClass          = regexp.MustCompile(`^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?class\s+(` + ident + `)`)
	jsType           = regexp.MustCompile(`^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:const\s+)?(?:interface|enum|namespace|module|type)\s+(` + ident + `(?:\.` + ident + `)*)`)
	jsVar            = regexp.MustCompile(`^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+(` + ident + `)\s*(?::[^=]*)?=\s*(.*)$`)
	jsFuncVal        = regexp.MustCompile(`^(?:async\s+)?(?:function\b|\(|` + ident + `\s*=>|class\b)`)
	jsClassValue     = regexp.MustCompile(`^(?:export\s+)?(?:(?:const|let|var)\s+)?(module\.exports|exports\.` + ident + `|` + ident + `)\s*=\s*(?:[^=]*=>\s*)?class\b\s*(` + ident + `)?`)
	jsExportedObject = regexp.MustCompile(`^(?:(module\.exports)\s*=|export\s+(default))\s*\{$`)
	jsExports        = regexp.MustCompile(`^(module\.exports|exports\.` + ident + `)\s*=`)
	jsField          = regexp.MustCompile(`^(?:(?:static|readonly|public|private|protected|override)\s+)*(#?` + ident + `)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|` + ident + `\s*=>)`)
	jsMethod         = regexp.MustCompile(`^(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract|declare)\s+)*\*?\s*(#?` + ident + `)\s*(?:<[^()]*>)?\s*\(`)

	javaType   = regexp.MustCompile(`^(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|interface|enum|record|@interface)\s+(` + ident + `)`)
	javaMethod = regexp.MustCompile(`^(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\s+)*(?:<[^()]*>\s+)?(?:[\p{L}\p{N}_$.<>\[\]?,\s]+\s+)?(` + ident + `)\s*\(`)

	rustFn    = regexp.MustCompile(`^(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+(?:"[^"]*"\s+)?)?fn\s+(` + ident + `)`)
	rustItem  = regexp.MustCompile(`^(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(struct|enum|union|trait|type|mod|static|const)\s+(?:mut\s+)?(` + ident + `)`)
	rustImpl  = regexp.MustCompile(`^(?:unsafe\s+)?impl\b\s*(.*)$`)
	rustMacro = regexp.MustCompile(`^macro_rules!\s*(` + ident + `)`)

	goFunc = regexp.MustCompile(`^func\s*(?:\(\s*(?:` + ident + `\s+)?\*?\s*(` + ident + `)[^)]*\)\s*)?(` + ident + `)`)
	goGen  = regexp.MustCompile(`^(?:type|var|const)\s+(` + ident + `)`)

	cTag    = regexp.MustCompile(`\b(struct|union|enum|class|namespace)\b((?:\s*` + ident + `)*)\s*(?::[^{]*)?$`)
	cDefine = regexp.MustCompile(`^#\s*define\s+(` + ident + `)`)
	cClose  = regexp.MustCompile(`^\}\s*(` + ident + `)`)
	cVar    = regexp.MustCompile(`(` + ident + `)\s*(?:\[[^\]]*\]\s*)*=$`)
)

// isKeyword reports a keyword that a loose pattern could take for a method's name: "if"
// in "if (x) {", "return" in "return f(x);".
func isKeyword(word string) bool {
	switch word {
	case "if", "for", "while", "switch", "catch", "return", "new", "throw", "else", "do", "try",
		"synchronized", "function", "super", "this", "with", "sizeof", "await", "yield", "case",
		"typeof", "delete", "void":
		return true
	}
	return false
}

func firstGroup(re *regexp.Regexp, code string) (string, bool) {
	m := re.FindStringSubmatch(code)
	if m == nil || m[1] == "" {
		return "", false
	}
	return m[1], true
}

func rulesOf(lang string) declRules {
	braceOpens := func(code string) bool { return strings.Contains(code, "{") }
	atAttribute := func(code string) bool { return strings.HasPrefix(code, "@") && !strings.HasPrefix(code, "@interface") }
	switch lang {
	case "python":
		return declRules{
			top: func(code string) (string, string, bool) {
				if name, ok := firstGroup(pyDef, code); ok {
					return name, "", true
				}
				name, ok := firstGroup(pyClass, code)
				return name, name, ok
			},
			member: func(code string) (string, bool) {
				if name, ok := firstGroup(pyDef, code); ok {
					return name, true
				}
				return firstGroup(pyClass, code)
			},
			opens:     func(code string) bool { return strings.Contains(code, ":") },
			attribute: func(code string) bool { return strings.HasPrefix(code, "@") },
		}
	case "js":
		return declRules{
			top: func(code string) (string, string, bool) {
				if name, ok := firstGroup(jsClass, code); ok {
					if name == "extends" { // export default class extends Base {
						name = "default"
					}
					return name, name, true
				}
				if m := jsClassValue.FindStringSubmatch(code); m != nil {
					// module.exports = class Minipass extends Stream {, and the mixin
					// module.exports = cls => class Reifier extends cls {
					name := m[2]
					if name == "" || name == "extends" {
						name = m[1]
					}
					return name, name, true
				}
				if m := jsExportedObject.FindStringSubmatch(code); m != nil {
					// The object's methods are members: module.exports.parse,
					// default.data in a Vue component.
					return m[1] + m[2], m[1] + m[2], true
				}
				for _, re := range []*regexp.Regexp{jsFunction, jsType, jsExports} {
					if name, ok := firstGroup(re, code); ok {
						return name, "", true
					}
				}
				if strings.HasPrefix(code, "export default") && strings.HasSuffix(code, "{") {
					return "default", "", true // export default defineComponent({
				}
				if m := jsVar.FindStringSubmatch(code); m != nil {
					value := strings.TrimSpace(m[2])
					if jsFuncVal.MatchString(value) || value == "{" || value == "[" || value == "" {
						return m[1], "", true
					}
				}
				return "", "", false
			},
			member: func(code string) (string, bool) {
				if name, ok := firstGroup(jsField, code); ok {
					return name, true
				}
				name, ok := firstGroup(jsMethod, code)
				return name, ok && !isKeyword(name)
			},
			opens:     braceOpens,
			attribute: atAttribute,
		}
	case "java":
		return declRules{
			top: func(code string) (string, string, bool) {
				name, ok := firstGroup(javaType, code)
				return name, name, ok
			},
			member: func(code string) (string, bool) {
				if name, ok := firstGroup(javaType, code); ok {
					return name, true
				}
				before, _, found := strings.Cut(code, "(")
				if !found || strings.ContainsAny(before, "=;\"'") {
					return "", false
				}
				name, ok := firstGroup(javaMethod, code)
				first, _, _ := strings.Cut(before, " ")
				return name, ok && !isKeyword(name) && !isKeyword(first)
			},
			opens:     braceOpens,
			attribute: atAttribute,
		}
	case "rust":
		return declRules{
			top: func(code string) (string, string, bool) {
				if name, ok := firstGroup(rustFn, code); ok {
					return name, "", true
				}
				if m := rustItem.FindStringSubmatch(code); m != nil {
					switch {
					case m[1] == "mod" && strings.HasSuffix(code, ";"):
						return "", "", false // mod x; is an import
					case m[1] == "trait" || m[1] == "mod":
						return m[2], m[2], true
					}
					return m[2], "", true
				}
				if m := rustImpl.FindStringSubmatch(code); m != nil {
					return rustImplName(m[1]), rustSelfType(m[1]), true
				}
				if name, ok := firstGroup(rustMacro, code); ok {
					return name + "!", "", true
				}
				return "", "", false
			},
			member: func(code string) (string, bool) {
				return firstGroup(rustFn, code)
			},
			opens:     braceOpens,
			attribute: func(code string) bool { return strings.HasPrefix(code, "#[") },
		}
	}
	// Go without its parser: a file with a syntax error.
	return declRules{
		top: func(code string) (string, string, bool) {
			if m := goFunc.FindStringSubmatch(code); m != nil {
				if m[1] != "" {
					return m[1] + "." + m[2], "", true
				}
				return m[2], "", true
			}
			if name, ok := firstGroup(goGen, code); ok {
				return name, "", true
			}
			for _, kw := range []string{"type", "var", "const"} {
				if rest, ok := strings.CutPrefix(code, kw); ok && strings.HasPrefix(strings.TrimSpace(rest), "(") {
					return kw, "", true
				}
			}
			return "", "", false
		},
	}
}

// rustImplName heads an impl block as it is written, without its generic parameters and
// where clause: "impl fmt::Display for Point<T>".
func rustImplName(header string) string {
	header = skipAngles(strings.TrimSpace(header))
	header, _, _ = strings.Cut(header, "{")
	if i := strings.Index(header, " where"); i >= 0 {
		header = header[:i]
	}
	return strings.TrimSpace("impl " + strings.Join(strings.Fields(header), " "))
}

// rustSelfType names an impl block by the type it implements for, without generics or
// path: "Point" for "impl<T> fmt::Display for Point<T> where T: Debug {".
func rustSelfType(header string) string {
	header = skipAngles(strings.TrimSpace(header))
	header, _, _ = strings.Cut(header, "{")
	if i := strings.Index(header, " where"); i >= 0 {
		header = header[:i]
	}
	if _, after, ok := strings.Cut(header, " for "); ok {
		header = after
	}
	header = strings.TrimSpace(header)
	if i := strings.IndexByte(header, '<'); i >= 0 {
		header = header[:i]
	}
	header = strings.TrimLeft(header, "&*' ")
	if i := strings.LastIndex(header, "::"); i >= 0 {
		header = header[i+2:]
	}
	if header == "" {
		return "impl"
	}
	return header
}

// skipAngles drops a leading <...> (generic parameters), nested ones included.
func skipAngles(s string) string {
	if !strings.HasPrefix(s, "<") {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '<':
			depth++
		case '>':
			if depth--; depth == 0 {
				return strings.TrimSpace(s[i+1:])
			}
		}
	}
	return s
}

// cStatementLines bounds how many lines a C declaration's head may take before its "{".
const cStatementLines = 8

// findCDecls finds C (and C++) declarations: a statement that starts at the left margin and
// reaches a "{" before a ";" (a function, a struct, union or enum, an initialised table), a
// function prototype, or a #define. Other declarations that end in ";" start no section.
func findCDecls(lines []codeLine) []codeDecl {
	noAttributes := declRules{}
	var (
		decls []codeDecl
		next  int // the first line after the last statement read
	)
	for i, ln := range lines {
		code := strings.TrimSpace(ln.code)
		continued := i > 0 && strings.HasSuffix(lines[i-1].code, "\\") // a macro's next line
		if i < next || continued || ln.indent != 0 || ln.inComment || ln.inString || code == "" {
			continue
		}
		if name, ok := firstGroup(cDefine, code); ok {
			// A run of macros is headed by their names, not by the function above it.
			decls = appendDecl(decls, codeDecl{start: attachedStart(lines, i, noAttributes), names: []string{name}})
			continue
		}
		if strings.ContainsAny(code[:1], "#{})") {
			continue
		}
		var head strings.Builder
		for j := i; j < len(lines) && j < i+cStatementLines && !lines[j].blank; j++ {
			if j > i && lines[j].indent == 0 && strings.HasPrefix(strings.TrimSpace(lines[j].code), "#") {
				break
			}
			c := strings.TrimSpace(lines[j].code)
			if k := strings.IndexAny(c, "{;"); k >= 0 {
				// The lines of this head start nothing more: in GNU style the name
				// stands at the margin on the line after the return type.
				next = j + 1
				head.WriteString(c[:k])
				name := cPrototypeName(head.String())
				if c[k] == '{' {
					name = cDeclName(head.String(), lines, j)
				}
				if name != "" {
					decls = appendDecl(decls, codeDecl{start: attachedStart(lines, i, noAttributes), names: []string{name}})
				}
				break
			}
			head.WriteString(c)
			head.WriteByte(' ')
		}
	}
	return decls
}

// cPrototypeName names the function a declaration that ends in ";" declares, or returns ""
// for any other declaration. A header is mostly prototypes with their documentation: each
// is a section, or its text would sit under the heading of the struct above it.
func cPrototypeName(head string) string {
	// A return type comes first: "int (*handler)(int)" and MACRO(x) declare no function.
	if name, typed := cFunctionName(head); typed {
		return name
	}
	return ""
}

// cFunctionName returns the name of the function whose head (its code up to the "{" or
// ";") is given, "" for a head that declares no function, and whether a type precedes the
// name. Macros in capitals are passed over: the name is "f" in "STACK_OF(X509) *f(SSL *s)",
// and "deflate" in zlib's "int deflate OF((z_streamp strm))", where the macro wraps the
// parameters.
func cFunctionName(head string) (name string, typed bool) {
	head = dropCAttributes(head)
	type call struct{ at, end int } // the name before parentheses at depth 0
	var calls []call
	depth := 0
	for i := 0; i < len(head); i++ {
		switch head[i] {
		case '(':
			if depth == 0 {
				at, end := cNameBefore(head, i)
				if at == end {
					// "int (*handler)(int)": a pointer to a function, or a cast.
					return "", false
				}
				calls = append(calls, call{at, end})
			}
			depth++
		case ')':
			depth--
		case '=':
			if depth == 0 {
				return "", false
			}
		}
	}
	for k, c := range calls {
		name, rest := head[c.at:c.end], strings.TrimSpace(head[:c.at])
		switch {
		case isKeyword(name) || isCType(name):
			return "", false
		case !isMacroName(name):
			return name, rest != ""
		case k+1 < len(calls):
			continue
		}
		// Only macros: "typedef STACK_OF(X509) chain;" and a line of macro calls without a
		// semicolon ("DECLARE_X(a)" over "DECLARE_Y(b)") declare no function. Else the
		// name before the macro, unless that is a type ("void FOO(void)").
		if strings.HasPrefix(rest, "typedef") || strings.ContainsAny(rest, "()") {
			return "", false
		}
		if at, end := cNameBefore(rest, len(rest)); at < end && !isCType(rest[at:end]) && !isKeyword(rest[at:end]) {
			return rest[at:end], strings.TrimSpace(rest[:at]) != ""
		}
		return name, rest != ""
	}
	return "", false
}

// cNameBefore returns the span of the name that ends right before s[i], white space
// between them allowed: "area" in "int area (", "Shape::area" and "~Shape" in C++. The
// span is empty if no name is there.
func cNameBefore(s string, i int) (start, end int) {
	end = len(strings.TrimRight(s[:i], " \t"))
	start = end
	for start > 0 && (isIdentByte(s[start-1]) || s[start-1] == ':' || s[start-1] == '~' || s[start-1] == '$') {
		start--
	}
	// The name starts with a letter, "_" or "~": not with a digit, nor with the "::" left
	// of it by template arguments ("Base<T>::size" is named "size").
	for start < end && (s[start] == ':' || s[start] >= '0' && s[start] <= '9') {
		start++
	}
	return start, end
}

// isMacroName reports a name in capitals, as C macros are written: STACK_OF, OF, DEFINE_X.
func isMacroName(name string) bool {
	return strings.ToUpper(name) == name && strings.ToLower(name) != name
}

// isCType reports a word of a C type, which a loose pattern could take for a name.
func isCType(word string) bool {
	switch word {
	case "int", "char", "short", "long", "float", "double", "signed", "unsigned", "bool", "_Bool",
		"const", "volatile", "struct", "union", "enum", "static", "extern", "inline", "typedef",
		"auto", "register":
		return true
	}
	return false
}

// cClosingName returns the first name after the last "}" of a line, "" if there is none.
func cClosingName(code string) string {
	i := strings.LastIndexByte(code, '}')
	if i < 0 {
		return ""
	}
	name, _ := firstGroup(cClose, code[i:])
	return name
}

// dropCAttributes removes GCC's __attribute__((...)) and MSVC's __declspec(...) from a
// head, whose parentheses would be taken for the parameter list.
func dropCAttributes(head string) string {
	for _, kw := range []string{"__attribute__", "__declspec"} {
		for {
			i := strings.Index(head, kw)
			if i < 0 {
				break
			}
			end, depth := i+len(kw), 0
			for ; end < len(head); end++ {
				if head[end] == '(' {
					depth++
				} else if head[end] == ')' {
					if depth--; depth == 0 {
						end++
						break
					}
				} else if depth == 0 && head[end] != ' ' {
					break
				}
			}
			head = head[:i] + " " + head[end:]
		}
	}
	return head
}

// cDeclName names a C definition from the code before its "{", or returns "" for a
// statement that is no definition (extern "C" {, a label before an if at the margin).
func cDeclName(head string, lines []codeLine, open int) string {
	head = strings.TrimSpace(head)
	if strings.Contains(head, "(") {
		if name, _ := cFunctionName(head); name != "" {
			return name
		}
	}
	if m := cVar.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	if m := cTag.FindStringSubmatch(head); m != nil {
		// The tag is the last word: "class LLVM_NODISCARD APInt", "struct Point final".
		words := strings.Fields(m[2])
		if n := len(words); n > 0 && words[n-1] == "final" {
			words = words[:n-1]
		}
		if n := len(words); n > 0 {
			return words[n-1]
		}
		// typedef struct { ... } name, *pname; is named where it closes: on its first line,
		// or on the next one with code at the margin.
		if name := cClosingName(lines[open].code); name != "" {
			return name
		}
		for _, ln := range lines[open+1:] {
			code := strings.TrimSpace(ln.code)
			if ln.indent != 0 || ln.inComment || ln.inString || code == "" {
				continue
			}
			if name := cClosingName(code); name != "" {
				return name
			}
			break
		}
		return m[1]
	}
	return ""
}
