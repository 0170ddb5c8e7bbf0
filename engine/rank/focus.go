package rank

import (
	"math"
	"slices"
	"strings"
)

// Focus. Evidence (evidence.go) measures how unlikely a match is by chance in the store; it
// cannot tell what a match is about. Science abstracts hold "hours", "spent" and "total"
// together often enough that "how many hours have I spent playing games in total?" finds one
// that holds all three, and a chat about a house holds "show" and "properties" of a claim
// about biomaterials. What such a match lacks is the question's topic: the words of the
// question that are specific in general language, whether the store holds them or not
// (package background). So the store holds an answer only when some candidate that clears
// the per-hit bar holds one of the query's FocusTerms most specific units. A question whose
// topic the store has never seen is answered with nothing, however many of its common words
// some text shares.

// FocusUnit is one place in the query that can carry its topic: a word (with a compound's
// parts) or a Chinese content word, spelled in index terms, and how specific it is in general
// language.
type FocusUnit struct {
	Terms []string
	// All: a text holds the unit only when it holds every term (a Chinese word's bigrams);
	// otherwise any one (a compound or one of its parts).
	All         bool
	Surface     string
	Specificity float64
}

// focus is the query's focus in one ranking pass: its n most specific units, or a share of
// them when that is more (ties: the earlier). An empty focus (n is 0, or nothing in the
// query can carry a topic) holds no candidate back.
type focus struct {
	units   []FocusUnit
	surface []string
}

func newFocus(units []FocusUnit, n int, share float64) focus {
	if n <= 0 || len(units) == 0 {
		return focus{}
	}
	sorted := slices.Clone(units)
	slices.SortStableFunc(sorted, func(a, b FocusUnit) int {
		switch {
		case a.Specificity > b.Specificity:
			return -1
		case a.Specificity < b.Specificity:
			return 1
		}
		return 0
	})
	n = max(n, int(math.Ceil(share*float64(len(units)))))
	f := focus{units: sorted[:min(n, len(sorted))]}
	for _, u := range f.units {
		f.surface = append(f.surface, u.Surface)
	}
	return f
}

func (f focus) empty() bool { return len(f.units) == 0 }

// in returns whether a candidate of src holds a focus unit. Under the loose profile a
// substring match (the trigram fallback's) of a focus word as the query wrote it counts too.
func (f focus) in(src *Source) func(c Candidate, loose bool) bool {
	bit := map[string]uint64{}
	for i, t := range src.LexicalTerms {
		if i < 64 {
			bit[t.Text] = 1 << i
		}
	}
	var any []uint64 // per unit: the bits of its terms; with all, every bit is needed
	var all []bool
	for _, u := range f.units {
		var m uint64
		complete := true
		for _, t := range u.Terms {
			if b, ok := bit[t]; ok {
				m |= b
			} else {
				complete = false // no text of the scope holds this term
			}
		}
		if u.All && !complete {
			m = 0
		}
		any, all = append(any, m), append(all, u.All)
	}
	var subs uint64
	for i, s := range src.Substrings {
		for _, u := range f.units {
			if i < 64 && strings.EqualFold(s, u.Surface) {
				subs |= 1 << i
			}
		}
	}
	return func(c Candidate, loose bool) bool {
		for i, m := range any {
			if m != 0 && (all[i] && c.Terms&m == m || !all[i] && c.Terms&m != 0) {
				return true
			}
		}
		return loose && c.Substrings&subs != 0
	}
}
