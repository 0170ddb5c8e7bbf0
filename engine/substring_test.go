package engine

import (
	"slices"
	"testing"
)

// TestSubstringFallbackKeepsWordsWhole: when no text holds a query's words, the substring
// fallback finds parts of identifiers and names and words being typed, but a word of
// general English is not found inside a longer word ("shed" in "established": issue 13),
// nor is the inside of a common word.
func TestSubstringFallbackKeepsWordsWhole(t *testing.T) {
	e := openTestEngine(t)
	established := remember(t, e, "", "The procedure is well established by now")
	postgres := remember(t, e, "", "Rupert deprecated PostgreSQL 16 for the CI pipeline")
	driver := remember(t, e, "", "Use go-sqlite3 for the local cache")
	shedding := remember(t, e, "", "The birches are shedding their leaves")
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"shed", []int64{shedding}}, // the start of a word counts, the inside of one does not
		{"garden shed", []int64{shedding}},
		{"postg", []int64{postgres}},     // a word being typed
		{"sqlite", []int64{driver}},      // part of an identifier
		{"establ", []int64{established}}, // a common word being typed, found by its start
		{"greSQL", []int64{postgres}},    // inside a name: not a word of general English
		// The inside of a common word is not kept (the trigram index holds no common words,
		// query.SubstringText): only its start finds it.
		{"blished", nil},
	} {
		got := recallIDs(t, e, RecallRequest{Query: tc.query})
		if !slices.Equal(got, tc.want) {
			t.Errorf("recall %q = %v, want %v", tc.query, got, tc.want)
		}
	}
}
