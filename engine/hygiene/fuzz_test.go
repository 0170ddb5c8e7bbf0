package hygiene

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func FuzzExtract(f *testing.F) {
	for _, tt := range extractTests {
		f.Add(tt.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := Extract(text)
		if len(got) > maxTriples {
			t.Errorf("Extract(%q) got %d triples, want at most %d", text, len(got), maxTriples)
		}
		for _, tr := range got {
			for _, field := range []string{tr.Subject, tr.Predicate, tr.Object} {
				switch {
				case field == "":
					t.Errorf("Extract(%q) got a triple with an empty field: %+v", text, tr)
				case !utf8.ValidString(field):
					t.Errorf("Extract(%q) got invalid UTF-8 %q in %+v", text, field, tr)
				case cleanField(normalize(field)) != field:
					t.Errorf("Extract(%q) got %q in %+v, which normalizes to %q", text, field, tr, cleanField(normalize(field)))
				}
			}
			if tr.Lang != "zh" && tr.Lang != "en" {
				t.Errorf("Extract(%q) got Lang %q in %+v, want zh or en", text, tr.Lang, tr)
			}
			if !Restates([]Triple{tr}, []Triple{tr}) {
				t.Errorf("Restates(%+v, itself) = false, want true", tr)
			}
		}
		if again := Extract(text); !cmp.Equal(got, again) {
			t.Errorf("Extract(%q) is not deterministic: got %+v, then %+v", text, got, again)
		}
	})
}

func FuzzContradicts(f *testing.F) {
	for _, tt := range contradictTests {
		f.Add(tt.a, tt.b)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ta, tb := Extract(a), Extract(b)
		c, ok := Contradicts(ta, tb)
		if _, back := Contradicts(tb, ta); back != ok {
			t.Errorf("Contradicts(%q, %q) = %v, but the other way round = %v", a, b, ok, back)
		}
		switch {
		case !ok && c != (Conflict{}):
			t.Errorf("Contradicts(%q, %q) = %+v, false; want the zero Conflict", a, b, c)
		case ok && (c.Reason == "" || (c.Kind != KindNegation && c.Kind != KindDifferentObject)):
			t.Errorf("Contradicts(%q, %q) = %+v, want a reason and a known kind", a, b, c)
		}
		if Restates(ta, tb) != Restates(tb, ta) {
			t.Errorf("Restates(%q, %q) is not symmetric", a, b)
		}
	})
}
