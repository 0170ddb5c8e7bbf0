package synthbench

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCorpusDocuments(t *testing.T) {
	for _, tc := range []struct{ facts, docs int }{
		{facts: 300, docs: 4},
		{facts: 10000, docs: 10},
		{facts: 100000, docs: 100},
		{facts: 300000, docs: 200},
	} {
		t.Run(fmt.Sprint(tc.facts), func(t *testing.T) {
			if got := documentCount(tc.facts); got != tc.docs {
				t.Errorf("documentCount(%d) = %d, want %d", tc.facts, got, tc.docs)
			}
		})
	}
}

// Two programs that ask for the same seed and size must index the same texts.
func TestCorpusDeterministic(t *testing.T) {
	facts1, docs1 := Corpus(7, 500)
	facts2, docs2 := Corpus(7, 500)
	if diff := cmp.Diff(facts1, facts2); diff != "" {
		t.Errorf("facts differ between two calls (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(docs1, docs2); diff != "" {
		t.Errorf("documents differ between two calls (-first +second):\n%s", diff)
	}
	if len(facts1) != 500 || len(docs1) != 4 {
		t.Errorf("Corpus(7, 500) = %d facts, %d documents; want 500, 4", len(facts1), len(docs1))
	}
}

func TestTimeArms(t *testing.T) {
	var calls []string
	arm := func(name string) *Arm {
		return &Arm{Name: name, Answer: func(_ context.Context, q string) error {
			calls = append(calls, name+":"+q)
			return nil
		}}
	}
	arms := []*Arm{arm("a"), arm("b")}
	// Three queries wanted from a mix of two: two timed rounds after the warm-up.
	if err := TimeArms(t.Context(), arms, []string{"x", "y"}, 3, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a:x", "b:x", "b:y", "a:y", // warm-up, untimed: ordered as the first timed round
		"a:x", "b:x", "b:y", "a:y",
		"b:x", "a:x", "a:y", "b:y",
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("answer order (-want +got):\n%s", diff)
	}
	for _, a := range arms {
		if len(a.Samples) != 4 {
			t.Errorf("arm %s: %d samples, want 4", a.Name, len(a.Samples))
		}
	}
}

func TestTimeArmsError(t *testing.T) {
	boom := errors.New("boom")
	arms := []*Arm{{Name: "broken", Answer: func(context.Context, string) error { return boom }}}
	err := TimeArms(t.Context(), arms, []string{"q"}, 1, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("TimeArms = %v, want an error wrapping %v", err, boom)
	}
}
