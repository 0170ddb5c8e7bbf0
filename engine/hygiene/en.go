package hygiene

import (
	"strings"
)

type enForm uint8

const (
	formBase enForm = iota
	formThird
	formPast // also the past participle: used, liked, lived
	formIng
	formBe   // is, are, was, were, am
	formHave // has, have, had
)

// enVerb is an English lexicon entry, keyed by its first word. A phrasal verb (lives in,
// works at, switched to) needs one of its particles next.
type enVerb struct {
	lemma     string
	form      enForm
	particles []string
	negated   bool // hates, dislikes: read as "doesn't like"
}

// enVerbs is the English predicate lexicon. It is only read.
var enVerbs = buildEnVerbs()

func buildEnVerbs() map[string]enVerb {
	verbs := map[string]enVerb{}
	add := func(lemma string, particles []string, negated bool, base, third, past, ing string) {
		for form, w := range []string{base, third, past, ing} {
			verbs[w] = enVerb{lemma: lemma, form: enForm(form), particles: particles, negated: negated}
		}
	}
	add("use", nil, false, "use", "uses", "used", "using")
	add("use", []string{"to"}, false, "switch", "switches", "switched", "switching")
	add("use", []string{"to"}, false, "migrate", "migrates", "migrated", "migrating")
	add("like", nil, false, "like", "likes", "liked", "liking")
	add("like", nil, false, "love", "loves", "loved", "loving")
	add("like", nil, false, "enjoy", "enjoys", "enjoyed", "enjoying")
	add("like", nil, true, "hate", "hates", "hated", "hating")
	add("like", nil, true, "dislike", "dislikes", "disliked", "disliking")
	add("prefer", nil, false, "prefer", "prefers", "preferred", "preferring")
	add("live in", []string{"in"}, false, "live", "lives", "lived", "living")
	add("work at", []string{"at", "for"}, false, "work", "works", "worked", "working")
	add("run on", []string{"on"}, false, "run", "runs", "ran", "running")
	add("depend on", []string{"on"}, false, "depend", "depends", "depended", "depending")
	add("own", nil, false, "own", "owns", "owned", "owning")
	for _, w := range []string{"is", "are", "was", "were", "am"} {
		verbs[w] = enVerb{lemma: "be", form: formBe}
	}
	for _, w := range []string{"isn't", "aren't", "wasn't", "weren't"} {
		verbs[w] = enVerb{lemma: "be", form: formBe, negated: true}
	}
	for _, w := range []string{"has", "have", "had"} {
		verbs[w] = enVerb{lemma: "have", form: formHave}
	}
	return verbs
}

// enTail says what a word between the subject and the verb does to the statement.
type enTail uint8

const (
	tailSkip     enTail = iota + 1 // an auxiliary or adverb: does use, still uses
	tailNegate                     // doesn't use, never used, stopped using
	tailAbort                      // would like, wants to use: not a fact
	tailNoLonger                   // the "longer" of "no longer"
)

var enTails = map[string]enTail{
	"do": tailSkip, "does": tailSkip, "did": tailSkip, "has": tailSkip, "have": tailSkip,
	"had": tailSkip, "been": tailSkip, "be": tailSkip, "is": tailSkip, "are": tailSkip,
	"was": tailSkip, "were": tailSkip, "am": tailSkip, "still": tailSkip, "also": tailSkip,
	"now": tailSkip, "currently": tailSkip, "always": tailSkip, "really": tailSkip,
	"usually": tailSkip, "mostly": tailSkip, "only": tailSkip, "actually": tailSkip,
	"already": tailSkip, "just": tailSkip, "mainly": tailSkip, "primarily": tailSkip,
	"exclusively": tailSkip, "definitely": tailSkip, "strongly": tailSkip, "generally": tailSkip,
	"typically": tailSkip, "even": tailSkip, "officially": tailSkip, "then": tailSkip,
	"not": tailNegate, "never": tailNegate, "doesn't": tailNegate, "don't": tailNegate,
	"didn't": tailNegate, "hasn't": tailNegate, "haven't": tailNegate, "hadn't": tailNegate,
	"isn't": tailNegate, "aren't": tailNegate, "wasn't": tailNegate, "weren't": tailNegate,
	"stopped": tailNegate, "quit": tailNegate,
	"longer": tailNoLonger,
	"will":   tailAbort, "would": tailAbort, "can": tailAbort, "could": tailAbort,
	"should": tailAbort, "may": tailAbort, "might": tailAbort, "must": tailAbort,
	"shall": tailAbort, "won't": tailAbort, "wouldn't": tailAbort, "can't": tailAbort,
	"cannot": tailAbort, "couldn't": tailAbort, "shouldn't": tailAbort, "to": tailAbort,
	"if": tailAbort, "whether": tailAbort, "maybe": tailAbort, "perhaps": tailAbort,
	"probably": tailAbort,
}

// enSkipFirst are sentence openers that make a question or a condition.
var enSkipFirst = map[string]bool{
	"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true,
	"can": true, "could": true, "should": true, "would": true, "will": true, "has": true,
	"have": true, "what": true, "who": true, "where": true, "when": true, "why": true,
	"how": true, "which": true, "if": true, "whether": true, "unless": true, "maybe": true,
	"perhaps": true, "because": true, "although": true, "while": true,
}

var enLeading = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "but": true, "so": true, "also": true,
	"now": true, "currently": true, "today": true, "actually": true, "however": true,
}

var enArticles = map[string]bool{"the": true, "a": true, "an": true}

// enPronouns are subjects that point elsewhere (see zhPronouns). I, we and you are kept.
var enPronouns = map[string]bool{
	"it": true, "this": true, "that": true, "there": true, "these": true, "those": true,
	"they": true, "he": true, "she": true, "him": true, "her": true, "them": true,
	"which": true, "who": true, "what": true, "here": true, "one": true, "someone": true,
	"everyone": true, "nobody": true,
}

// enClauseStarts end an object: what follows is another clause.
var enClauseStarts = map[string]bool{
	"because": true, "since": true, "but": true, "when": true, "while": true, "which": true,
	"who": true, "although": true, "though": true, "unless": true, "until": true, "so": true,
	"if": true, "whereas": true, "where": true, "after": true, "before": true,
}

// enObjectTrail are adverbs that may end a sentence after its object.
var enObjectTrail = map[string]bool{
	"anymore": true, "now": true, "too": true, "also": true, "either": true, "instead": true,
	"currently": true, "today": true, "again": true, "nowadays": true, "already": true,
	"still": true, "though": true, "then": true,
}

const (
	enMaxSubjectWords = 6
	enMaxObjectWords  = 10
)

// extractEnglish reads one sentence as subject, lexicon verb, object.
func extractEnglish(sentence string) (Triple, bool) {
	words := strings.Fields(sentence)
	if len(words) < 3 || enSkipFirst[words[0]] {
		return Triple{}, false
	}
	for i := 1; i < len(words) && i <= enMaxSubjectWords+4; i++ {
		v, ok := enVerbs[strings.TrimRight(words[i], ",;:")]
		if !ok || strings.ContainsAny(words[i], ",;:") {
			continue
		}
		next := i + 1
		negated := v.negated
		switch {
		case v.form == formBe || v.form == formHave:
			// An auxiliary when a verb follows: is using, has used, has been, had to.
			j := next
			for j < len(words) && (words[j] == "not" || words[j] == "no" || words[j] == "longer" || words[j] == "never" || enTails[words[j]] == tailSkip) {
				j++
			}
			if j < len(words) {
				if w, ok := enVerbs[words[j]]; ok && w.form != formBe && w.form != formHave {
					if w.form == formIng {
						continue // the -ing verb is the predicate
					}
					return Triple{}, false // passive (is used by) or perfect (has used): not read
				}
				if v.form == formHave && len(words[j]) > 3 && strings.HasSuffix(words[j], "ed") {
					return Triple{}, false // has moved to: a perfect of a verb not in the lexicon
				}
				if words[j] == "been" || words[j] == "being" || words[j] == "to" || words[j] == "got" || words[j] == "going" {
					if v.form == formHave && words[j] == "been" {
						continue
					}
					return Triple{}, false
				}
			}
			for next < len(words) {
				switch {
				case words[next] == "not" || words[next] == "never" || (v.form == formHave && words[next] == "no"):
					negated = true
					next++
					continue
				case words[next] == "no" && next+1 < len(words) && words[next+1] == "longer":
					negated = true
					next += 2
					continue
				}
				break
			}
		case words[i] == "used" && next < len(words) && words[next] == "to":
			continue // used to live in: a habit, read from the verb after
		case len(v.particles) > 0:
			if next >= len(words) || !contains(v.particles, words[next]) {
				continue
			}
			next++
		}
		subject, subjectNegated, ok := enSubject(words[:i])
		if !ok {
			return Triple{}, false
		}
		if subject == "" {
			continue
		}
		predicate, object, ok := enObject(v.lemma, words[next:])
		if !ok {
			return Triple{}, false
		}
		return Triple{Subject: subject, Predicate: predicate, Object: object, Negated: negated != subjectNegated, Lang: "en"}, true
	}
	return Triple{}, false
}

func contains(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}

// enSubject trims the words before the verb: auxiliaries and adverbs go, negations set
// negated, and a modal or an infinitive (would like, wants to use) means there is no fact.
func enSubject(words []string) (subject string, negated, ok bool) {
	end := len(words)
tail:
	for end > 0 {
		switch enTails[words[end-1]] {
		case tailSkip:
		case tailNegate:
			negated = true
		case tailNoLonger:
			if end < 2 || words[end-2] != "no" {
				return "", false, false
			}
			negated = true
			end--
		case tailAbort:
			return "", false, false
		default:
			break tail
		}
		end--
	}
	start := 0
	for start < end && enLeading[words[start]] {
		start++
	}
	words = words[start:end]
	for _, w := range words {
		if strings.ContainsAny(w, ",;:") || enTails[w] == tailAbort {
			return "", false, false
		}
	}
	if len(words) > enMaxSubjectWords {
		return "", false, false
	}
	subject = cleanField(strings.Join(words, " "))
	if enPronouns[subject] {
		return "", false, false
	}
	return subject, negated, true
}

// enObject trims the words after the verb: a leading article, a following clause and trailing
// adverbs go. "use X for Y" is a tool with a purpose, whose predicate says the purpose.
func enObject(lemma string, words []string) (predicate, object string, ok bool) {
	predicate = lemma
	if len(words) > 0 && enArticles[words[0]] {
		// "is a doctor" says a kind the subject belongs to, and one belongs to many;
		// "is the lead" or "is Friday" names the one value.
		if lemma == "be" && (words[0] == "a" || words[0] == "an") {
			predicate = "be a"
		}
		words = words[1:]
	}
	for i, w := range words {
		if enClauseStarts[w] {
			words = words[:i]
			break
		}
		if strings.ContainsAny(w, ",;:") {
			words = words[:i+1]
			break
		}
	}
	if lemma == "use" {
		for i, w := range words {
			if w != "for" || i == 0 {
				continue
			}
			purpose := words[i+1:]
			if len(purpose) > 0 && enArticles[purpose[0]] {
				purpose = purpose[1:]
			}
			if p := cleanField(strings.Join(enTrimTrail(purpose), " ")); p != "" {
				predicate = "use for " + p
			}
			words = words[:i]
			break
		}
	}
	words = enTrimTrail(words)
	if len(words) == 0 || len(words) > enMaxObjectWords {
		return "", "", false
	}
	object = cleanField(strings.Join(words, " "))
	if object == "" {
		return "", "", false
	}
	return predicate, object, true
}

func enTrimTrail(words []string) []string {
	for len(words) > 0 && enObjectTrail[strings.TrimRight(words[len(words)-1], ",;:.!")] {
		words = words[:len(words)-1]
	}
	return words
}
