package analysis

import "strings"

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
