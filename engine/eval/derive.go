package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/memdesk/memdesk/engine/timeexpr"
)

// Derived regression cases are generated from a case file's gold queries by the code below,
// so that every hand-written query also tests three ways a ranker goes wrong. Each fixture is
// checked against StubRetrieve (or the time-expression parser) when it is made: a fixture
// that does not test what it claims is skipped with its reason, never run.

// DerivedKind says what a derived case checks.
type DerivedKind string

// Derived case kinds.
const (
	// DerivedCollision plants a long unrelated fact, the carrier, that holds the words
	// linking the query to its gold. A raw overlap count cannot tell the two apart and ranks
	// the carrier, planted first, above the gold; a ranker that weighs evidence against
	// length keeps the gold first.
	DerivedCollision DerivedKind = "collision"
	// DerivedTimeWord adds a relative time word whose range covers today (facts are written
	// when the case runs) and plants a fact that holds the word literally. The gold must
	// still come back and the planted fact must not: a time word is a filter, not a term.
	DerivedTimeWord DerivedKind = "time_word"
	// DerivedIrrelevant swaps every content word that links a query to its relevant facts
	// for one no fact holds: a negative control that must come back empty.
	DerivedIrrelevant DerivedKind = "irrelevant"
)

// derivedKinds is the order kinds are derived and reported in.
var derivedKinds = []DerivedKind{DerivedCollision, DerivedTimeWord, DerivedIrrelevant}

// DerivedCase is one query derived from a gold query. It runs against the facts of its
// source case; when Planted is set, that fact comes first, as fact 0, and the source facts
// follow with their indices one higher (Query's indices say so already). First, because a
// ranker that cannot tell the planted fact from the gold then puts it on top: the stub breaks
// ties by fact order, and so does any ranker that breaks them by id.
type DerivedCase struct {
	Kind    DerivedKind `json:"kind"`
	Case    string      `json:"case"`
	From    string      `json:"from"`
	Planted string      `json:"planted,omitempty"`
	Query   CaseQuery   `json:"query"`
}

// DerivedSkip is a gold query a kind could not be derived from, and why.
type DerivedSkip struct {
	Kind   DerivedKind `json:"kind"`
	Case   string      `json:"case"`
	Query  string      `json:"query"`
	Reason string      `json:"reason"`
}

// Derived holds the regression cases derived from one case file. Its JSON is the fixtures
// themselves, for review; CaseFile turns them into cases RunCases can run.
type Derived struct {
	Name    string        `json:"name"`
	Cases   []DerivedCase `json:"cases"`
	Skipped []DerivedSkip `json:"skipped"`

	facts map[string][]string // source case name -> its facts
}

// Derive generates the derived cases of cf. now is the time the derived queries will be
// asked at; a time word is used only when its range covers it.
func Derive(cf *CaseFile, now time.Time) *Derived {
	d := &Derived{Name: cf.Name, Cases: []DerivedCase{}, Skipped: []DerivedSkip{}, facts: map[string][]string{}}
	for _, c := range cf.Cases {
		d.facts[c.Name] = c.Facts
	}
	var timeWords, absent rotation
	for _, kind := range derivedKinds {
		for _, c := range cf.Cases {
			for _, q := range c.Queries {
				var (
					dc     DerivedCase
					reason string
				)
				switch kind {
				case DerivedCollision:
					dc, reason = deriveCollision(c, q)
				case DerivedTimeWord:
					dc, reason = deriveTimeWord(c, q, now, &timeWords)
				case DerivedIrrelevant:
					dc, reason = deriveIrrelevant(c, q, &absent)
				}
				switch {
				case reason == "":
					dc.Kind, dc.Case, dc.From = kind, c.Name, q.Query
					d.Cases = append(d.Cases, dc)
				case reason != notApplicable:
					d.Skipped = append(d.Skipped, DerivedSkip{Kind: kind, Case: c.Name, Query: q.Query, Reason: reason})
				}
			}
		}
	}
	return d
}

// notApplicable is the skip reason of a query a kind does not derive from at all, such as an
// unrelated query for a collision: not worth a line in the report.
const notApplicable = "-"

// rotation picks list entries in turn across a whole derivation, so the fixtures vary but
// come out the same on every run.
type rotation struct{ next int }

// from returns the entries of list starting at the next one in turn, and moves the turn on.
func (r *rotation) from(list []string) []string {
	start := r.next % len(list)
	r.next++
	return slices.Concat(list[start:], list[:start])
}

func deriveCollision(c Case, q CaseQuery) (DerivedCase, string) {
	if q.Unrelated() {
		return DerivedCase{}, notApplicable
	}
	if len(q.Expect) != 1 {
		return DerivedCase{}, "several relevant facts: rank 1 cannot belong to one gold"
	}
	gold := q.Expect[0]
	if reason := stubFindsGold(c, q); reason != "" {
		return DerivedCase{}, reason
	}
	// The carrier holds the words that link the query to its gold and nothing else of the
	// query: it matches the query exactly as well as the gold does, only in a long text
	// about something else. Words the gold lacks would give it a real lead.
	var pieces []string
	zh := false
	for _, s := range segments(q.Query, []string{c.Facts[gold]}) {
		if s.bridging {
			pieces = append(pieces, s.text)
			zh = zh || s.cjk
		}
	}
	carrier := plantCarrier(pieces, zh)
	with, _ := StubRetrieve(context.Background(), q.Query, len(c.Facts)+1, slices.Concat([]string{carrier}, c.Facts))
	if rank(with, 0) > rank(with, gold+1) {
		return DerivedCase{}, fmt.Sprintf("the stub ranks %v: the carrier (0) is not above the gold (%d), the gold holds a fragment no bridging word carries", with, gold+1)
	}
	return DerivedCase{Planted: carrier, Query: CaseQuery{
		Query: q.Query, K: 1, Expect: []int{gold + 1}, MustInclude: []int{gold + 1}, MustExclude: []int{0},
		Note: "fact 0 is the carrier: the stub ranks it above the gold; the gold must stay first",
	}}, ""
}

// stubFindsGold checks that StubRetrieve ranks q's gold first among its case's facts: that
// the words of the query visibly link it to its gold, which the collision and irrelevant
// fixtures are built from. It returns why not, or "".
func stubFindsGold(c Case, q CaseQuery) string {
	got, _ := StubRetrieve(context.Background(), q.Query, len(c.Facts), c.Facts)
	if len(got) == 0 || !slices.Contains(q.Expect, got[0]) {
		return fmt.Sprintf("the stub ranks %v, not a gold first: the query's words alone do not pick its gold", got)
	}
	return ""
}

// shifted returns list with every fact index one higher, for a case with a planted fact 0.
func shifted(list []int) []int {
	if len(list) == 0 {
		return nil
	}
	out := make([]int, len(list))
	for i, f := range list {
		out[i] = f + 1
	}
	return out
}

// rank is the 0-based position of fact in ranked, or len(ranked) when it is absent.
func rank(ranked []int, fact int) int {
	if i := slices.Index(ranked, fact); i >= 0 {
		return i
	}
	return len(ranked)
}

// Carrier filler: one long unrelated passage per script, cut into clauses between which the
// query's bridging words are spread one by one, so the carrier never holds them as a phrase.
var (
	fillerZH = []string{
		"城东的老火车站后来改成了博物馆", "展厅里陈列着蒸汽机车的模型", "讲解员说这些铁轨是从北方运来的",
		"门口的售货亭卖明信片和冰镇汽水", "屋顶上总落着一群鸽子", "广场上有孩子在放风筝",
		"节假日排队的游客能一直排到街角", "馆长一直想修好那座钟楼", "志愿者定期擦拭那几口铜钟",
		"候车室墙上的壁画已经没人记得是谁画的",
	}
	fillerEN = []string{
		"The old railway station was turned into a museum long ago", "its hall keeps scale models of steam engines",
		"a guide explained that the rails came from the north", "a kiosk by the entrance sells postcards and cold lemonade",
		"pigeons gather on the roof", "children fly kites on the square outside",
		"on holidays the queue of visitors reaches the corner", "the curator hopes to repair the clock tower",
		"volunteers polish the brass bells", "and nobody remembers who painted the mural in the waiting room",
	}
)

func plantCarrier(pieces []string, zh bool) string {
	clauses, sep, end := fillerEN, ", ", "."
	if zh {
		clauses, sep, end = fillerZH, "，", "。"
	}
	parts := make([]string, 0, 2*max(len(clauses), len(pieces)))
	for i := 0; i < max(len(clauses), len(pieces)); i++ {
		parts = append(parts, clauses[i%len(clauses)])
		if i < len(pieces) {
			parts = append(parts, pieces[i])
		}
	}
	return strings.Join(parts, sep) + end
}

// Time words whose range covers today, so facts written as the case runs are inside it, and
// for each a distractor that holds it literally and nothing else a query is likely to ask.
var (
	timeWordsZH = []string{"最近", "今天", "这周", "这几天"}
	timeWordsEN = []string{"recently", "today", "this week", "lately"}
	distractors = map[string][]string{
		"最近":        {"最近楼下在修地铁，晚上噪音很大", "最近睡得不好，半夜总是醒"},
		"今天":        {"今天下雨，出门带了那把蓝色的伞", "今天晚饭吃了番茄炒蛋"},
		"这周":        {"这周楼道的灯坏了，物业说周四来修", "这周轮到我给绿萝浇水"},
		"这几天":       {"这几天花粉过敏，眼睛一直发痒", "这几天阳台上的茉莉开花了"},
		"recently":  {"Slept badly recently: construction noise next door", "Recently started juggling, three balls so far"},
		"today":     {"Parcel arrived today: replacement kettle, boxed", "Rain today; umbrella forgotten at home"},
		"this week": {"Trash pickup moved: Thursday this week, holiday schedule", "Balcony plants need watering twice this week"},
		"lately":    {"Neighbour's dog barking lately, mostly nights", "Coffee tastes burnt lately; descale machine"},
	}
)

func deriveTimeWord(c Case, q CaseQuery, now time.Time, turn *rotation) (DerivedCase, string) {
	if _, found := timeexpr.Parse(q.Query, now); len(found) > 0 {
		return DerivedCase{}, fmt.Sprintf("already holds the time word %q", found[0].Text)
	}
	zh := strings.IndexFunc(q.Query, IsCJK) >= 0
	words := timeWordsEN
	if zh {
		words = timeWordsZH
	}
	for _, word := range turn.from(words) {
		asked := withTimeWord(q.Query, word, zh)
		if !readsAsTimeWord(asked, word, q.Query, now) {
			continue
		}
		distractor := ""
		for _, cand := range distractors[word] {
			if !sharesToken(cand, q.Query) {
				distractor = cand
				break
			}
		}
		if distractor == "" {
			continue
		}
		dq := CaseQuery{Query: asked, K: c.k(q), Expect: shifted(q.Expect), MustExclude: append([]int{0}, shifted(q.MustExclude)...),
			Note: fmt.Sprintf("fact 0 holds %q literally and nothing else of the query", word)}
		if !q.Unrelated() {
			dq.MustInclude = shifted(q.MustInclude)
			if len(dq.MustInclude) == 0 {
				dq.MustInclude = dq.Expect
			}
		}
		return DerivedCase{Planted: distractor, Query: dq}, ""
	}
	return DerivedCase{}, "no time word reads as one in this query with a distractor that shares nothing else with it"
}

// withTimeWord adds word to q the way a person would type it: before a Chinese query, after
// an English one (before its closing punctuation).
func withTimeWord(q, word string, zh bool) string {
	if zh {
		return word + q
	}
	body := strings.TrimRightFunc(q, unicode.IsPunct)
	return body + " " + word + q[len(body):]
}

// readsAsTimeWord checks with the engine's parser that asked holds exactly word as a time
// expression covering now, and that removing it gives back the original query's fragments.
func readsAsTimeWord(asked, word, original string, now time.Time) bool {
	rest, found := timeexpr.Parse(asked, now)
	return len(found) == 1 && found[0].Text == word &&
		!now.Before(found[0].Range.From) && now.Before(found[0].Range.To) &&
		slices.Equal(Tokens(rest), Tokens(original))
}

func sharesToken(a, b string) bool {
	bt := Tokens(b)
	return slices.ContainsFunc(Tokens(a), func(t string) bool { return slices.Contains(bt, t) })
}

// Absent entities swapped into negative controls, tried in turn until one shares no fragment
// with the case's facts.
var (
	absentZH     = []string{"老赵", "潜水艇", "珊瑚礁", "天文台", "萨克斯", "骆驼", "灯塔", "马拉松", "冰川", "象棋"}
	absentLatin  = []string{"Zanzibar", "submarine", "glacier", "saxophone", "volcano", "camel", "lighthouse", "marathon", "harpsichord", "origami"}
	absentNumber = []string{"8.88", "4096", "7.77", "9191"}
)

// functionWords are English words that carry no topic: they stay when a negative control
// swaps the content words out, so the control keeps the shape of a real question.
const functionWords = `a an the is are was were be been do does did what which who whom whose when where
	why how i my me we our us you your he his she her it its they their in on at to for of and or not no with by
	from about as this that these those there can could should would will shall may might must any some much many`

func isFunctionWord(w string) bool {
	return slices.Contains(strings.Fields(functionWords), strings.ToLower(w))
}

func deriveIrrelevant(c Case, q CaseQuery, turn *rotation) (DerivedCase, string) {
	if q.Unrelated() {
		return DerivedCase{}, notApplicable
	}
	// Only the links the stub can see are swapped out; a query it cannot answer is linked to
	// its gold by something else (a paraphrase, the other script), which would stay.
	if reason := stubFindsGold(c, q); reason != "" {
		return DerivedCase{}, reason
	}
	relevant := make([]string, len(q.Expect))
	for i, f := range q.Expect {
		relevant[i] = c.Facts[f]
	}
	factTokens := map[string]bool{}
	for _, f := range c.Facts {
		for _, t := range Tokens(f) {
			factTokens[t] = true
		}
	}
	isAbsent := func(term string) bool {
		return !slices.ContainsFunc(Tokens(term), func(t string) bool { return factTokens[t] }) && !sharesToken(term, q.Query)
	}
	swapped := map[string]string{}
	var out, swaps []string
	for _, s := range segments(q.Query, relevant) {
		if !s.bridging || !s.cjk && isFunctionWord(s.text) {
			out = append(out, s.gap, s.text)
			continue
		}
		repl, ok := swapped[s.text]
		if !ok {
			list := absentLatin
			switch {
			case s.cjk:
				list = absentZH
			case unicode.IsDigit([]rune(s.text)[0]):
				list = absentNumber
			}
			for _, cand := range turn.from(list) {
				if isAbsent(cand) && !slices.Contains(slices.Collect(maps.Values(swapped)), cand) {
					repl = cand
					break
				}
			}
			if repl == "" {
				return DerivedCase{}, fmt.Sprintf("every absent entity shares a fragment with the facts; none can replace %q", s.text)
			}
			swapped[s.text] = repl
			swaps = append(swaps, s.text+"→"+repl)
		}
		out = append(out, s.gap, repl)
	}
	if len(swaps) == 0 {
		return DerivedCase{}, "shares no content word with its relevant facts: nothing to swap"
	}
	// Text after the last word (a question mark) is kept as it was.
	asked := strings.Join(out, "") + q.Query[len(strings.TrimRightFunc(q.Query, notWordRune)):]
	return DerivedCase{Query: CaseQuery{Query: asked, K: c.k(q), Note: "swapped " + strings.Join(swaps, ", ")}}, ""
}

// segment is a word of a query: a Latin word as written (identifiers and versions such as
// go-sqlite3 and 3.12 whole) or a piece of a CJK run. Bridging segments also occur in the
// facts the query is about; gap is the text between the previous segment and this one.
type segment struct {
	gap, text string
	cjk       bool
	bridging  bool
}

// segments splits q into its words and marks those that bridge to facts. A Latin word
// bridges when one of its Tokens occurs in a fact; a CJK run is cut greedily into the
// longest pieces of two or more characters that occur in a fact (one for a one-character
// run), and the characters between them into non-bridging pieces.
func segments(q string, facts []string) []segment {
	factTokens := map[string]bool{}
	for _, f := range facts {
		for _, t := range Tokens(f) {
			factTokens[t] = true
		}
	}
	inFacts := func(s string) bool {
		return slices.ContainsFunc(facts, func(f string) bool { return strings.Contains(f, s) })
	}
	var out []segment
	rs := []rune(q)
	gapStart := 0
	for i := 0; i < len(rs); {
		switch {
		case IsCJK(rs[i]):
			j := i
			for j < len(rs) && IsCJK(rs[j]) {
				j++
			}
			gap := string(rs[gapStart:i])
			for _, s := range cjkSegments(rs[i:j], inFacts) {
				s.gap, gap = gap, ""
				out = append(out, s)
			}
			i, gapStart = j, j
		case isLatinWordRune(rs[i]):
			j := i + 1
			for j < len(rs) {
				if isLatinWordRune(rs[j]) {
					j++
				} else if strings.ContainsRune("-._/'", rs[j]) && j+1 < len(rs) && isLatinWordRune(rs[j+1]) {
					j += 2
				} else {
					break
				}
			}
			word := string(rs[i:j])
			bridging := slices.ContainsFunc(Tokens(word), func(t string) bool { return factTokens[t] })
			out = append(out, segment{gap: string(rs[gapStart:i]), text: word, bridging: bridging})
			i, gapStart = j, j
		default:
			i++
		}
	}
	return out
}

func cjkSegments(run []rune, inFacts func(string) bool) []segment {
	if len(run) == 1 {
		return []segment{{text: string(run), cjk: true, bridging: inFacts(string(run))}}
	}
	var out []segment
	frame := -1 // start of the pending non-bridging piece
	for i := 0; i < len(run); {
		// A piece of a string a fact holds is held too, so the longest piece is found by
		// growing it until a fact stops holding it.
		end := 0
		for j := i + 2; j <= len(run) && inFacts(string(run[i:j])); j++ {
			end = j
		}
		if end == 0 {
			if frame < 0 {
				frame = i
			}
			i++
			continue
		}
		if frame >= 0 {
			out = append(out, segment{text: string(run[frame:i]), cjk: true})
			frame = -1
		}
		out = append(out, segment{text: string(run[i:end]), cjk: true, bridging: true})
		i = end
	}
	if frame >= 0 {
		out = append(out, segment{text: string(run[frame:]), cjk: true})
	}
	return out
}

func isLatinWordRune(r rune) bool {
	return !IsCJK(r) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func notWordRune(r rune) bool { return !IsCJK(r) && !isLatinWordRune(r) }

// CaseFile returns the derived cases as a case file. Queries of one kind and source case
// that plant the same fact share one case, named kind/source/n; each query keeps its K.
func (d *Derived) CaseFile() *CaseFile {
	cf, _ := d.caseFile()
	return cf
}

// caseFile also returns the derived case behind each query, in the order RunCases asks them.
func (d *Derived) caseFile() (*CaseFile, []DerivedCase) {
	type group struct {
		kind        DerivedKind
		source, fix string
	}
	cf := &CaseFile{Name: d.Name + " (derived)", Cases: []Case{}}
	var (
		index   = map[group]int{}
		origins [][]DerivedCase
		counts  = map[string]int{}
	)
	for _, dc := range d.Cases {
		g := group{dc.Kind, dc.Case, dc.Planted}
		i, ok := index[g]
		if !ok {
			facts := d.facts[dc.Case]
			if dc.Planted != "" {
				facts = slices.Concat([]string{dc.Planted}, facts)
			}
			prefix := string(dc.Kind) + "/" + dc.Case
			counts[prefix]++
			i = len(cf.Cases)
			index[g] = i
			cf.Cases = append(cf.Cases, Case{Name: fmt.Sprintf("%s/%d", prefix, counts[prefix]), Facts: facts})
			origins = append(origins, nil)
		}
		cf.Cases[i].Queries = append(cf.Cases[i].Queries, dc.Query)
		origins[i] = append(origins[i], dc)
	}
	return cf, slices.Concat(origins...)
}

// DerivedReport is the outcome of the derived cases through one arm: the stub arm shows the
// fixtures bite (it fails collisions and literal time words by construction), the real arm
// how the engine holds up. Both arms have this one shape.
type DerivedReport struct {
	Arm     string                             `json:"arm"`
	Name    string                             `json:"name"`
	Summary CaseSummary                        `json:"summary"`
	Kinds   map[DerivedKind]DerivedKindSummary `json:"kinds"`
	Queries []DerivedOutcome                   `json:"queries"`
}

// DerivedKindSummary counts the derived queries of one kind that passed.
type DerivedKindSummary struct {
	Queries int `json:"queries"`
	Passed  int `json:"passed"`
}

// DerivedOutcome is one derived query's result, with its kind and the gold query it came
// from.
type DerivedOutcome struct {
	Kind DerivedKind `json:"kind"`
	From string      `json:"from"`
	CaseOutcome
}

// RunDerived asks every derived query through retrieve, as RunCases does.
func RunDerived(ctx context.Context, d *Derived, retrieve CaseRetrieveFunc, opts CaseRunOptions) (DerivedReport, error) {
	cf, origins := d.caseFile()
	rep, err := RunCases(ctx, cf, retrieve, opts)
	if err != nil {
		return DerivedReport{}, err
	}
	out := DerivedReport{Arm: rep.Arm, Name: rep.Name, Summary: rep.Summary,
		Kinds: map[DerivedKind]DerivedKindSummary{}, Queries: make([]DerivedOutcome, len(rep.Queries))}
	for _, kind := range derivedKinds {
		out.Kinds[kind] = DerivedKindSummary{}
	}
	for i, o := range rep.Queries {
		dc := origins[i]
		out.Queries[i] = DerivedOutcome{Kind: dc.Kind, From: dc.From, CaseOutcome: o}
		s := out.Kinds[dc.Kind]
		s.Queries++
		if o.Pass {
			s.Passed++
		}
		out.Kinds[dc.Kind] = s
	}
	return out, nil
}
