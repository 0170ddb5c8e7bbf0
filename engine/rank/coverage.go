package rank

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/background"
)

// Coverage. Evidence (evidence.go) measures how unlikely a match is by chance in the store;
// it cannot tell what a match is about. A chat about a giraffe's skin shares "skin" with
// "AIRE is expressed in some skin tumors", a word one turn in 244 holds, and science abstracts
// hold "hours", "spent" and "total" together often enough that "how many hours have I spent
// playing games in total?" finds one with all three. What such a match lacks is most of the
// question: weighed by how specific each of its words is in general language (package
// background), whether the store holds them or not, "skin" is a small part of what the claim
// says, and "Tom lost his job at the plant" holds most of "what does Tom do for a job".
//
// So the store holds an answer only when some text holds at least MinCoverage of one clause
// of the query, by that weight, and among what it holds one of the clause's topicUnits most
// specific words, unless it holds most of the clause. A clause is a sentence or a line: in
// a pasted conversation the question is one of many things said, and a memory answers one
// line of it, not the whole. One quarter: a text holding one of a question's two words of
// equal weight, or its most specific of three, covers it; one ordinary word of a long claim
// does not, nor do three of its ordinary words without its topic ("reduces", "production"
// of "PD-1 triggering on monocytes reduces IL-10 production by monocytes"). A quarter in a
// person's store; in a larger scope more, as its best text holds more of any clause by chance
// (Floors.coverageBar).
const (
	topicUnits        = 3
	mostOfShare       = 0.5
	unknownTopicShare = 1.0 / 3
)

// Unit is one place in a query clause that can carry its topic, as package background
// finds it: a word (with a compound's parts, each worth its own TermSpecificity) or a
// Chinese word, spelled in index terms, and how specific it is in general language.
type Unit = background.Unit

// Clause is one sentence or line of the query, with its units.
type Clause struct {
	Text  string
	Units []Unit
}

// A large scope's ordinary words. In a scope of more than coverageReference texts, a clause
// whose most specific unit no text holds (中国空间技术研究院 of 中国空间技术研究院的业务是什么,
// over 3,494 role-play dialogues) is answered by a text holding less than most of it only if
// that text holds a word at least as specific as a name (background.NameSpecificity). What
// such a text holds otherwise are everyday words (业务, 公司, 职位, 妈妈), which many of a
// thousand texts hold by chance. This applies where a Chinese word is held: English words are
// weighed by another table. Where some text of the scope holds the top unit, the rule does not
// apply. A sentence that answers about 纽波特 while naming it only in the sentence before (纽波特在
// 2010年人口普查中共有多少人, answered by one holding 人口 and 普查) is still found, as it is in a
// person's store of a few hundred facts, where 妈妈 and the rest of a question about her
// birthday are no chance match.

// coverage measures candidates of one source against the query's clauses.
type coverage struct {
	clauses []clauseBits
	// nameSpecificity: see "A large scope's ordinary words".
	nameSpecificity float64
}

// clauseBits is a clause with its units spelled in the source's term bits, and the units'
// indices most specific first (ties: the earlier): its topic is the first topic of them.
type clauseBits struct {
	clause   *Clause
	total    float64
	units    []unitBits
	specific []int
	topic    int
	// unknownTopic: the clause's topic is something the store never mentions (unknownTopic);
	// a text holding its other words answers it only if it holds most of the clause.
	unknownTopic bool
	// ordinaryNotEnough: the scope is large and no text holds the clause's most specific
	// unit, so a text holding less than most of the clause, some of it in Chinese words and
	// none of it as specific as a name, does not cover it.
	ordinaryNotEnough bool
}

// unitBits is one unit in a source's term bits. An All unit needs all of its bits together
// (none: some term of it is in no text of the scope, so no text holds it) and is worth its
// specificity; any other is worth the best of the terms a text holds. Under the loose profile
// a substring match (the trigram fallback's) of the unit as the query wrote it holds it too.
type unitBits struct {
	all   uint64
	whole float64
	terms []uint64
	worth []float64
	sub   uint64
}

func newCoverage(clauses []Clause, src *Source) coverage {
	bit := map[string]uint64{}
	held := map[string]bool{} // terms some text of the scope may hold (DF not given: may)
	for i, t := range src.LexicalTerms {
		if i < 64 {
			bit[t.Text] = 1 << i
		}
		if i >= len(src.DF) || src.DF[i] > 0 {
			held[t.Text] = true
		}
	}
	c := coverage{nameSpecificity: background.NameSpecificity()}
	largeScope := src.N > coverageReference // see "A large scope's ordinary words"
	for i := range clauses {
		cl := &clauses[i]
		if !largeScope {
			cl = withoutGuessedNames(cl)
		}
		cb := clauseBits{clause: cl}
		known := make([]bool, len(cl.Units))
		for k, u := range cl.Units {
			known[k] = unitKnown(u, held, src)
			cb.total += u.Specificity
			ub := unitBits{whole: u.Specificity}
			for j, s := range src.Substrings {
				if j < 64 && strings.EqualFold(s, u.Surface) {
					ub.sub |= 1 << j
				}
			}
			if u.All {
				for _, t := range u.Terms {
					b, ok := bit[t]
					if !ok {
						ub.all = 0
						break
					}
					ub.all |= b
				}
			} else {
				for j, t := range u.Terms {
					if b, ok := bit[t]; ok {
						w := u.Specificity
						if j < len(u.TermSpecificity) {
							w = min(w, u.TermSpecificity[j])
						}
						ub.terms, ub.worth = append(ub.terms, b), append(ub.worth, w)
					}
				}
			}
			cb.units = append(cb.units, ub)
		}
		if cb.total > 0 {
			cb.specific = mostSpecificFirst(cl.Units)
			cb.topic = topicSize(cl.Units, cb.specific)
			top := cb.specific[0]
			cb.unknownTopic = unknownTopic(cl.Units, known, top, cb.total)
			cb.ordinaryNotEnough = largeScope && !known[top]
			c.clauses = append(c.clauses, cb)
		}
	}
	return c
}

// withoutGuessedNames is the clause without its guessed names (Unit.Guessed), or the clause
// itself when it has none. A guessed name counts only in a scope of more than
// coverageReference texts. There a name the store never mentions is what tells everyday
// words held by chance from an answer (于乐 of 于乐的职业是什么, over 3,494 role-play
// dialogues that say 职业), and a guess that is two everyday characters (都没) is held by
// some of a thousand texts like any word. A person's few hundred facts hold few of those, so
// there such a guess would read a question about the person as one about a stranger.
func withoutGuessedNames(cl *Clause) *Clause {
	if !slices.ContainsFunc(cl.Units, func(u Unit) bool { return u.Guessed }) {
		return cl
	}
	kept := slices.DeleteFunc(slices.Clone(cl.Units), func(u Unit) bool { return u.Guessed })
	return &Clause{Text: cl.Text, Units: kept}
}

// unknownTopic reports whether a clause asks about something no text of the scope holds: its
// most specific unit (top) is unknown to the scope, at least unknownTopicShare of the clause,
// and either a name (赵鹏 of 赵鹏的职业是什么, in a store that never mentions him) or a
// Chinese noun while the clause names no one the store knows (莱索托 of 莱索托哪一年独立, in
// a store of role-play dialogues that say 独立). Where the clause does name someone the store
// knows, the noun it lacks is what is asked about them (下场 of 邓飏的下场是什么), and a
// text about them may answer it in other words; a verb, adjective or time word the store
// lacks is what is asked about the topic too (过期 of 护照什么时候过期, in a store that says
// 护照明年三月到期). In a long sentence one unit the store lacks is a detail, not the topic.
// English words are not read this way: the English table cannot tell a name from jargon, or
// a noun from a verb, and a claim's rarest term is often absent from the abstract that
// supports it.
func unknownTopic(units []Unit, known []bool, top int, total float64) bool {
	u := units[top]
	if known[top] {
		return false
	}
	if u.Name {
		return nameSpecificity(units, known, top) >= unknownTopicShare*total
	}
	if u.Specificity < unknownTopicShare*total {
		return false
	}
	if !u.All || !u.Noun { // a Latin word, or no noun: see above
		return false
	}
	for k, other := range units {
		if other.Name && known[k] {
			return false
		}
	}
	return true
}

// nameSpecificity is the specificity of the unknown name units[top] is part of: a name of
// three characters the table does not know (鸣冠雉) is two pairs side by side (鸣冠, 冠雉),
// each a unit, each a part of one name; the pairs next to it that share a character and that
// no text holds either are counted with it.
func nameSpecificity(units []Unit, known []bool, top int) float64 {
	joined := func(a, b Unit) bool {
		last, _ := utf8.DecodeLastRuneInString(a.Surface)
		first, _ := utf8.DecodeRuneInString(b.Surface)
		return last == first
	}
	s := units[top].Specificity
	for i := top; i > 0 && units[i-1].Name && !known[i-1] && joined(units[i-1], units[i]); i-- {
		s += units[i-1].Specificity
	}
	for i := top; i+1 < len(units) && units[i+1].Name && !known[i+1] && joined(units[i], units[i+1]); i++ {
		s += units[i+1].Specificity
	}
	return s
}

// unitKnown reports whether some text of the scope may hold u: each of an All unit's terms,
// any term of another, or its surface as a substring.
func unitKnown(u Unit, held map[string]bool, src *Source) bool {
	for j, s := range src.Substrings {
		if j < len(src.SubstringDF) && src.SubstringDF[j] > 0 && strings.EqualFold(s, u.Surface) {
			return true
		}
	}
	if u.All {
		for _, t := range u.Terms {
			if !held[t] {
				return false
			}
		}
		return len(u.Terms) > 0
	}
	for _, t := range u.Terms {
		if held[t] {
			return true
		}
	}
	return false
}

// measurable reports whether the query has any unit at all: a query of numbers, stopwords or
// (before the segmenter has loaded) Chinese has none, and is answered on its evidence alone.
func (c coverage) measurable() bool { return len(c.clauses) > 0 }

// of returns the share of its best clause a candidate holds, and that clause. A share that is
// not most of the clause counts as none when it holds none of the clause's topic, when that
// topic is unknown to the store, or when it is everyday words of a large scope (above).
func (c coverage) of(cand Candidate, loose bool) (float64, *clauseBits) {
	var best float64
	var at *clauseBits
	for i := range c.clauses {
		cb := &c.clauses[i]
		var held, telling float64
		chinese := false
		for k, u := range cb.units {
			h := u.held(cand, loose)
			if h > 0 {
				unit := &cb.clause.Units[k]
				telling = max(telling, unit.Specificity)
				chinese = chinese || unit.All
			}
			held += h
		}
		share := held / cb.total
		ordinaryOnly := cb.ordinaryNotEnough && chinese && telling < c.nameSpecificity
		if share < mostOfShare && (cb.unknownTopic || ordinaryOnly || !cb.holdsTopic(cand, loose)) {
			share = 0
		}
		if share > best {
			best, at = share, cb
		}
	}
	return best, at
}

// topicSize is how many of a clause's units, most specific first (specific), are its topic:
// topicUnits, and every unit as specific as the last of them. The general-language table
// cannot rank words it does not know (every one is as specific as a word can be): in a
// sentence of another language (Indonesian, German) it knows none, and the topic taken in
// the order they were written was the clause's first three words, whatever they were. A
// text holding none of them held none of the topic, so a store that holds half of such a
// sentence's words answered nothing.
func topicSize(units []Unit, specific []int) int {
	n := min(topicUnits, len(specific))
	for n > 0 && n < len(specific) && units[specific[n]].Specificity == units[specific[n-1]].Specificity {
		n++
	}
	return n
}

// holdsTopic reports whether a candidate holds one of the clause's most specific units.
func (cb *clauseBits) holdsTopic(cand Candidate, loose bool) bool {
	for _, i := range cb.specific[:cb.topic] {
		if cb.units[i].held(cand, loose) > 0 {
			return true
		}
	}
	return false
}

// mostSpecificFirst returns the indices of units, most specific first (ties: the earlier).
func mostSpecificFirst(units []Unit) []int {
	idx := make([]int, len(units))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(units[b].Specificity, units[a].Specificity)
	})
	return idx
}

// held is what a candidate's holding of the unit is worth.
func (u unitBits) held(c Candidate, loose bool) float64 {
	if loose && c.Substrings&u.sub != 0 {
		return u.whole
	}
	if u.all != 0 {
		if c.Terms&u.all == u.all {
			return u.whole
		}
		return 0
	}
	var best float64
	for i, b := range u.terms {
		if c.Terms&b != 0 {
			best = max(best, u.worth[i])
		}
	}
	return best
}

// words lists a clause's n most specific units (ties: the earlier), for a report.
func (cb *clauseBits) words(n int) []string {
	var out []string
	for _, i := range cb.specific[:min(n, len(cb.specific))] {
		out = append(out, cb.clause.Units[i].Surface)
	}
	return out
}

// heldWords lists the units of a clause a candidate holds, in clause order.
func (cb *clauseBits) heldWords(cand Candidate, loose bool) []string {
	var out []string
	for i, u := range cb.units {
		if u.held(cand, loose) > 0 {
			out = append(out, cb.clause.Units[i].Surface)
		}
	}
	return out
}

// clip is a clause's text as a report shows it: one line, at most 80 characters.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
