package leg

import (
	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/background"
	"github.com/memdesk/memdesk/engine/query"
)

// What the lexical leg's two indexes hold of each text: the store writes them with these
// (store.Options), so the reading of a stored text and of a query sit side by side here.

// IndexWords is a text as the word index stores it: its analysis terms (CJK bigrams and
// single characters, stemmed Latin words), the same terms PlanQuery searches.
func IndexWords(text string) string {
	words, _ := analysis.IndexText(text)
	return words
}

// IndexSubstrings is a text as the trigram index stores it: what only a substring search
// finds in it (query.SubstringText), common words told by the English word table.
func IndexSubstrings(text string) string {
	return query.SubstringText(text, background.CommonWord)
}

// SubstringsVersion names IndexSubstrings' rules: bump it whenever they can give another
// text for the same input (query.SubstringText, background.CommonWord's table or bar), so
// every trigram index is rebuilt under the new ones, as its deletes must see what its
// inserts saw.
//
// 2: SubstringText cuts text into the runs queries are cut into (splitRuns): two joiners in
// a row inside a word, as in a..b, no longer end it.
const SubstringsVersion = 2
