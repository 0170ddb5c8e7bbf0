package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine/analysis"
	"unicode/utf8"
)

func TestSpellingEdits(t *testing.T) {
	edits := spellingEdits("pyhton")
	for _, want := range []string{"python", "pyhon", "pythton", "pyhtin"} {
		if !slices.Contains(edits, want) {
			t.Errorf("spellingEdits(pyhton) lacks %q", want)
		}
	}
	if slices.Contains(edits, "pyhton") {
		t.Error("spellingEdits returns the word itself")
	}
	seen := map[string]bool{}
	for _, e := range edits {
		if seen[e] {
			t.Errorf("%q twice", e)
		}
		seen[e] = true
	}
	if n := len("pyhton"); len(edits) > 54*n+25 {
		t.Errorf("%d edits of a %d-letter word, want at most %d", len(edits), n, 54*n+25)
	}
}

func TestReplaceWords(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"pyhton", "python"},
		{"Pyhton 3.12 on CI?", "Python 3.12 on CI?"},
		{"the pyhton-based tool, pyhton!", "the python-based tool, python!"},
		{"老王 pyhton 咖啡", "老王 python 咖啡"},
		{"typhon", "typhon"},
	} {
		if got := replaceWords(tc.query, map[string]string{"pyhton": "python"}); got != tc.want {
			t.Errorf("replaceWords(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestDidYouMean: a query that finds nothing because of a typo gets the spelling the store's
// texts use, checked to find something; a query that finds something, a word with no close
// spelling, and Chinese get none.
func TestDidYouMean(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	for _, text := range []string{
		"CI uses Python 3.12 on the build server",
		"The configuration of the proxy lives in /etc/squid",
		"Python notebooks are kept in the lab share",
		"老王喜欢简约风格",
	} {
		if _, err := e.Remember(ctx, RememberRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"pyhton", "python"},
		{"Pyhton", "Python"},
		{"configuraton", "configuration"},
		{"pyhton configuraton", "python configuration"},
		{"Pyhton notebooks", ""}, // notebooks finds the fact: nothing to correct
		{"zzqxvw", ""},
		{"pyhton configuraton pyhton", "python configuration python"}, // two unknown words, pyhton twice
		{"pyhton configuraton xylophonist", ""},                       // three: a question about something else
		{"python", ""},                                                // found as typed
		{strings.Repeat("a", 100_000), ""},                            // no word is this long: the hostile query that cost gigabytes
		{"pyhton " + strings.Repeat("x ", 200), ""},                   // a pasted paragraph is not a typo
		{"简约风", ""},
	} {
		res, err := e.Recall(ctx, RecallRequest{Query: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if res.DidYouMean != tc.want {
			t.Errorf("Recall(%q): %d hits, did you mean %q; want %q", tc.query, len(res.Hits), res.DidYouMean, tc.want)
		}
		if tc.want != "" {
			again, err := e.Recall(ctx, RecallRequest{Query: res.DidYouMean})
			if err != nil || len(again.Hits) == 0 {
				t.Errorf("the suggestion %q finds %d hits (%v), want some", res.DidYouMean, len(again.Hits), err)
			}
		}
	}
}

// FuzzReplaceWords: any query survives a replacement without losing what is not replaced,
// and valid UTF-8 stays valid.
func FuzzReplaceWords(f *testing.F) {
	for _, s := range []string{"pyhton", "Pyhton 3.12?", "老王 pyhton", "\xff pyhton \x00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		if got := replaceWords(query, nil); got != query {
			t.Errorf("replaceWords(%q, nothing) = %q", query, got)
		}
		got := replaceWords(query, map[string]string{"pyhton": "python"})
		if utf8.ValidString(query) && !utf8.ValidString(got) {
			t.Errorf("replaceWords(%q) = %q, not valid UTF-8", query, got)
		}
		if !strings.Contains(strings.ToLower(query), "pyhton") && got != query {
			t.Errorf("replaceWords(%q) changed a query without the word: %q", query, got)
		}
	})
}

// fakeVocab is a word index's vocabulary and change log.
type fakeVocab struct {
	terms []string
	seq   int64
	scans int
}

func (f *fakeVocab) TermCounts(ctx context.Context, kind string, terms []string) (map[string]int, error) {
	return nil, nil
}

func (f *fakeVocab) EachTerm(ctx context.Context, kind string, marker func(string) bool, fn func(string)) (int64, error) {
	f.scans++
	for _, t := range f.terms {
		if !marker(t) {
			fn(t)
		}
	}
	return f.seq, nil
}

func (f *fakeVocab) LastChange(ctx context.Context) (int64, error) { return f.seq, nil }

// TestVocabularyFilter: the filter holds every term of the vocabulary, few others, leaves
// markers and compounds out, and is rebuilt after writes once a minute has passed.
func TestVocabularyFilter(t *testing.T) {
	ctx := context.Background()
	fv := &fakeVocab{seq: 1}
	letters := func(i int) string { // i in base 26, as letters: a distinct plain word per i
		var b []byte
		for ; i > 0; i /= 26 {
			b = append(b, byte('a'+i%26))
		}
		return "w" + string(b)
	}
	for i := range 5000 {
		fv.terms = append(fv.terms, letters(i+1))
	}
	fv.terms = append(fv.terms, "python", "configur", "python⁺2", "go-sqlite3")
	var v vocabulary
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	mayHold, err := v.filter(ctx, fv, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"python", "configur"} {
		if !mayHold(term) {
			t.Errorf("the filter lacks %q", term)
		}
	}
	passed := 0
	for i := range 10000 {
		if mayHold("x" + letters(i+1)) {
			passed++
		}
	}
	if !mayHold(letters(4321)) {
		t.Error("the filter lacks a term of the vocabulary")
	}
	if passed > 300 {
		t.Errorf("%d of 10000 absent terms pass the filter, want about 1%%", passed)
	}
	fv.terms, fv.seq = append(fv.terms, "heron"), 2
	if mayHold, _ = v.filter(ctx, fv, now.Add(10*time.Second)); mayHold("heron") || fv.scans != 2 {
		t.Errorf("rebuilt within the minute: heron %v, %d scans", mayHold("heron"), fv.scans)
	}
	if mayHold, _ = v.filter(ctx, fv, now.Add(2*time.Minute)); !mayHold("heron") || fv.scans != 4 {
		t.Errorf("not rebuilt after the minute: heron %v, %d scans (two kinds a build)", mayHold("heron"), fv.scans)
	}
	if _, _ = v.filter(ctx, fv, now.Add(4*time.Minute)); fv.scans != 4 {
		t.Errorf("rebuilt with nothing written: %d scans", fv.scans)
	}
}

// countsOf is a word index that holds the terms it maps, each in that many owners.
type countsOf map[string]int

func (c countsOf) TermCounts(ctx context.Context, kind string, terms []string) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range terms {
		if n := c[t]; n > 0 {
			out[t] = n
		}
	}
	return out, nil
}

// TestSuggestSpellingBuildsTheFilterOnlyForAnUnknownWord: the vocabulary filter reads every
// term of the store, so a query with nothing to correct (Chinese, or every word known) never
// asks for it, and one with a typo does, and is corrected.
func TestSuggestSpellingBuildsTheFilterOnlyForAnUnknownWord(t *testing.T) {
	ctx := context.Background()
	index := countsOf{analysis.Stem("python"): 3, analysis.Stem("release"): 2}
	built := 0
	filter := func() (func(string) bool, error) {
		built++
		return func(stem string) bool { return index[stem] > 0 }, nil
	}
	for _, query := range []string{"内存不足", "python release", "2026"} {
		if got, err := suggestSpelling(ctx, index, filter, query, []string{"facts"}); err != nil || got != "" {
			t.Errorf("suggestSpelling(%q) = %q, %v; want no suggestion", query, got, err)
		}
	}
	if built != 0 {
		t.Errorf("the filter was built %d times for queries with no unknown word", built)
	}
	if got, err := suggestSpelling(ctx, index, filter, "pyhton release", []string{"facts"}); err != nil || got != "python release" {
		t.Errorf("suggestSpelling(pyhton release) = %q, %v; want python release", got, err)
	}
	if built != 1 {
		t.Errorf("the filter was built %d times for a query with a typo, want once", built)
	}
}
