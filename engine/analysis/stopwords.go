package analysis

import "strings"

// HasFunctionChar reports whether text holds a Chinese function character (a particle,
// pronoun, copula, measure word, or a question word of everyday speech: 啥, 咋, 几). A
// bigram that holds one (的电, 话是, 你的, 让我) spans a word boundary or is a grammatical
// frame, not a word: it is searched, but it is no evidence that a text is about the query,
// and a long chat shares a few of them with some sentence of any large store.
func HasFunctionChar(text string) bool { return strings.ContainsAny(text, functionChars) }

const functionChars = "的了是在和与及或有也都就还又很吗呢吧啊呀着过把被让给对从向到这那哪谁什么个一不没我你他她它们之其啥咋几嘛呗啦哦"

// IsStopword reports whether a folded word is an English function word: frequent enough that
// matching it says nothing, so queries do not search for it (it is still indexed).
func IsStopword(word string) bool { return stopwords[word] }

// stopwords is read-only after package initialization.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down
		during each few for from further had has have having he her here hers herself him himself
		his how i if in into is it its itself just me more most my myself no nor not now of off
		on once only or other our ours ourselves out over own same she should so some such than
		that the their theirs them themselves then there these they this those through to too
		under until up very was we were what when where which while who whom why will with would
		you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()
