package hygiene

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Conflict explains why two facts contradict each other.
type Conflict struct {
	// Reason is a sentence for a person: both say what "ci" uses, but one says "python 3.12"
	// and the other "python 3.11".
	Reason string
	Kind   string // KindNegation or KindDifferentObject
}

const (
	// KindNegation: one fact states what the other denies (喜欢 / 不喜欢, uses / no longer uses).
	KindNegation = "negation"
	// KindDifferentObject: both state a value that can only be one (lives in Berlin / Paris),
	// or two versions of the same thing (Python 3.12 / Python 3.11).
	KindDifferentObject = "different_object"
)

// predicateInfo is what the contradiction rules know about a lemma.
type predicateInfo struct {
	// concept joins the lemmas of both languages, so 老王住在北京 and a later "老王 lives in
	// Shanghai" are compared.
	concept string
	// single is true when a subject has one value at a time. The table is the product's
	// judgement, made for facts an assistant keeps about people and projects:
	//   - single: where someone lives or works, what something is (be), a birthday, a
	//     preference (prefers tea / prefers coffee disagree: a preference is a ranking with one
	//     top), a name, what something belongs to, and a tool for a stated purpose (one
	//     backend language, one CI database: "use X for Y" names the choice for Y).
	//   - multi: likes, uses, has, owns, runs on, depends on, is responsible for: people like
	//     many things and projects use many tools, so different objects are compatible.
	//     Versions are the exception, whatever the valency: "uses Python 3.12" and "uses
	//     Python 3.11" name one thing twice (see versionConflict).
	single bool
	// says is the lemma in a reason's "both say what X ...": "uses", "lives in", "住在".
	says string
}

var predicates = map[string]predicateInfo{
	"use": {"use", false, "uses"}, "使用": {"use", false, "使用"},
	"like": {"like", false, "likes"}, "喜欢": {"like", false, "喜欢"},
	"prefer": {"prefer", true, "prefers"}, "偏好": {"prefer", true, "偏好"},
	"live in": {"live in", true, "lives in"}, "住在": {"live in", true, "住在"},
	"work at": {"work at", true, "works at"}, "工作于": {"work at", true, "工作于"},
	"be": {"be", true, "is"}, "是": {"be", true, "是"},
	// A kind (is a doctor, 是工程师, 是北京人) is multi-valued: one person is many kinds.
	"be a": {"be a", false, "is a"}, "是一": {"be a", false, "是"},
	"have": {"have", false, "has"}, "有": {"have", false, "有"},
	"run on": {"run on", false, "runs on"}, "运行在": {"run on", false, "运行在"},
	"depend on": {"depend on", false, "depends on"}, "依赖": {"depend on", false, "依赖"},
	"own": {"own", false, "owns"},
	"负责":  {"be responsible for", false, "负责"},
	"在":   {"be in", true, "在"},
	"生日是": {"birthday", true, "生日是"},
	"属于":  {"belong to", true, "属于"},
	"名叫":  {"be named", true, "名叫"},
}

// predicateOf looks a lemma up. A tool for a purpose is single-valued; a lemma this version
// does not know (a triple stored by a later RulesVersion) is compared only with itself.
func predicateOf(lemma string) predicateInfo {
	if p, ok := predicates[lemma]; ok {
		return p
	}
	if rest, ok := strings.CutPrefix(lemma, "use for "); ok {
		return predicateInfo{lemma, true, "uses for " + rest}
	}
	if strings.HasPrefix(lemma, "用来") {
		return predicateInfo{lemma, true, lemma}
	}
	return predicateInfo{lemma, false, lemma}
}

// Contradicts reports whether two facts, given as their triples, contradict each other, with
// the first conflicting pair's reason (a's triples in order, then b's). Triples with
// different subjects or predicates never conflict; see predicateInfo for which predicates
// take one value. The answer does not depend on the order of a and b.
func Contradicts(a, b []Triple) (Conflict, bool) {
	for _, x := range a {
		for _, y := range b {
			if c, ok := contradicts(x, y); ok {
				return c, true
			}
		}
	}
	return Conflict{}, false
}

func contradicts(x, y Triple) (Conflict, bool) {
	if !comparable(x, y) {
		return Conflict{}, false
	}
	p := predicateOf(x.Predicate)
	switch {
	case x.Negated && y.Negated:
		return Conflict{}, false
	case x.Negated != y.Negated:
		pos, neg := x, y
		if x.Negated {
			pos, neg = y, x
		}
		if !denies(neg.Object, pos.Object) {
			return Conflict{}, false
		}
		return Conflict{
			Reason: fmt.Sprintf("one says %q %s %q and the other says it does not", pos.Subject, p.says, pos.Object),
			Kind:   KindNegation,
		}, true
	case key(x.Object) == key(y.Object), refines(x.Object, y.Object), refines(y.Object, x.Object):
		return Conflict{}, false
	case p.single || versionConflict(x.Object, y.Object):
		return Conflict{
			Reason: fmt.Sprintf("both say what %q %s, but one says %q and the other %q", x.Subject, p.says, x.Object, y.Object),
			Kind:   KindDifferentObject,
		}, true
	}
	return Conflict{}, false
}

// Restates reports whether two facts share a statement: the same subject, predicate, object
// and polarity, in either language.
func Restates(a, b []Triple) bool {
	for _, x := range a {
		for _, y := range b {
			if comparable(x, y) && x.Negated == y.Negated && key(x.Object) == key(y.Object) {
				return true
			}
		}
	}
	return false
}

// comparable is true for two well-formed triples about the same subject and predicate.
func comparable(x, y Triple) bool {
	if x.Subject == "" || y.Subject == "" || x.Object == "" || y.Object == "" {
		return false
	}
	return subjectKey(x.Subject) == subjectKey(y.Subject) && predicateOf(x.Predicate).concept == predicateOf(y.Predicate).concept
}

// key compares fields without their spaces: Chinese facts space Latin words at will
// (用Go, 用 Go), and "python3.12" is "python 3.12".
func key(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	return strings.Join(strings.Fields(s), "")
}

// subjectKey is key with the writer's pronouns in one language, so 我们用 Docker and "we
// don't use Docker" are about the same people.
func subjectKey(s string) string {
	switch s = key(s); s {
	case "我们", "咱们":
		return "we"
	case "我":
		return "i"
	}
	return s
}

// denies is true when a negated object covers a positive one: "no longer uses python" denies
// "uses python 3.12", but "doesn't use python 3.11" does not deny "uses python".
func denies(negated, positive string) bool {
	if key(negated) == key(positive) {
		return true
	}
	head, version := splitVersion(positive)
	return version != "" && key(head) == key(negated)
}

// refines is true when detailed says more about the same value than general: "berlin
// mitte" and "berlin", 北京朝阳区 and 北京, "friday 5pm" and "friday". Latin words must end
// where general ends (python 3 does not refine to python 3.12, and "go" is not "google").
func refines(detailed, general string) bool {
	rest, ok := strings.CutPrefix(detailed, general)
	if !ok || rest == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(general)
	return rest[0] == ' ' || unicode.Is(unicode.Han, last)
}

// versionConflict is true for two objects that name one thing in two versions: python 3.12
// and python 3.11, node 18 and node 20, postgresql 16 and postgresql v15. A bare name and a
// versioned one (python, python 3.12) agree.
func versionConflict(a, b string) bool {
	headA, versionA := splitVersion(a)
	headB, versionB := splitVersion(b)
	return versionA != "" && versionB != "" && key(headA) == key(headB) && key(versionA) != key(versionB)
}

// splitVersion cuts an object at its first digit: a head with a letter before it and the
// version from it on. An object that starts with a number (3 servers) has no head.
func splitVersion(object string) (head, version string) {
	i := strings.IndexFunc(object, unicode.IsDigit)
	if i <= 0 {
		return object, ""
	}
	head = strings.TrimRight(object[:i], " @-_/")
	if h, ok := strings.CutSuffix(head, " v"); ok {
		head = h
	}
	if !strings.ContainsFunc(head, unicode.IsLetter) {
		return object, ""
	}
	return head, object[i:]
}
