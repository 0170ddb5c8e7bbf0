package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// failingAfterEmbedder embeds its first n calls like the fake, then fails every call.
type failingAfterEmbedder struct {
	*fakeEmbedder
	ok int
}

func (f *failingAfterEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.ok <= 0 {
		return nil, errors.New("embed: llama runner process has terminated")
	}
	f.ok--
	return f.fakeEmbedder.Embed(ctx, texts)
}

func (f *failingAfterEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return embedOneText(ctx, f, text)
}

// TestVectorsFixSaysWhatItKept: a fix that fails mid-way keeps the pages it stored and says
// how many, and how to resume the rest.
func TestVectorsFixSaysWhatItKept(t *testing.T) {
	vecs := map[string][]float32{}
	for i := range 40 {
		vecs[fmt.Sprintf("fact number %d", i)] = []float32{1, float32(i), 0}
	}
	// Three calls answer: the model's measurement and two pages.
	emb := &failingAfterEmbedder{fakeEmbedder: newFakeEmbedder("fake/a@1/3", vecs), ok: 3}
	e := openSemanticEngine(t, emb, emb.state)
	e.embedPage = 16
	for i := range 40 {
		remember(t, e, "", fmt.Sprintf("fact number %d", i))
	}
	_, err := e.Admin(t.Context(), AdminRequest{Action: "vectors-fix", All: true})
	want := "32 of 40 re-embedded and kept; run `memdesk admin vectors-fix --all` again to resume the remaining 8"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "llama runner process has terminated") {
		t.Fatalf("vectors-fix error = %v, want the cause and %q", err, want)
	}
	if d, _ := e.DiagnoseVectors(t.Context()); d.Current != 32 || d.Stale != 8 {
		t.Errorf("after the failed fix: %+v, want 32 current, 8 stale", d)
	}
}

// TestVectorsDiagnoseWithoutTheModel: with the model not answering, diagnose counts what the
// database holds per stored vector space, at once, and says the model was not checked.
func TestVectorsDiagnoseWithoutTheModel(t *testing.T) {
	vecs := map[string][]float32{"one fact": {1, 0}, "two fact": {0, 1}, "zero fact": {}}
	emb := newFakeEmbedder("fake/a@1/2", vecs)
	e := openSemanticEngine(t, emb, emb.state)
	for _, text := range []string{"one fact", "two fact", "zero fact"} {
		remember(t, e, "", text)
	}
	if _, err := e.EmbedPending(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	remember(t, e, "", "a fact added while the model was away")
	emb.set(func(f *fakeEmbedder) { f.down = true })

	res, err := e.Admin(t.Context(), AdminRequest{Action: "vectors-diagnose"})
	if err != nil {
		t.Fatalf("vectors-diagnose with the model down: %v", err)
	}
	if res.OK {
		t.Error("OK with the model unchecked, want false")
	}
	if got := res.Counts; got["owners"] != 4 || got["unembedded"] != 1 || got["spaces"] != 1 {
		t.Errorf("counts = %v, want 4 owners, 1 unembedded, 1 space", got)
	}
	text := strings.Join(res.Details, "\n")
	for _, want := range []string{"could not be checked (semantic: offline)", "vector space " + fingerprintVersion + "fake/a@1/2: 3 vectors (1 of them embed to zero)",
		"1 have no vector in any space"} {
		if !strings.Contains(text, want) {
			t.Errorf("details %q lack %q", text, want)
		}
	}
	// What to do next is steps, not CLI words: wait for the model, count again, then fix.
	wantNext := []AdminStep{{Kind: StepWaitForModel},
		{Kind: StepRun, Action: "vectors-diagnose", Why: "to count against it"},
		{Kind: StepRun, Action: "vectors-fix", All: true, Why: "to re-embed what is stale"}}
	if diff := cmp.Diff(wantNext, res.Next); diff != "" {
		t.Errorf("next steps (-want +got):\n%s", diff)
	}
	if strings.Contains(text, "memdesk ") {
		t.Errorf("details %q name a CLI command; the window shows them too", text)
	}
}

func TestGroupThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 12: "12", 999: "999", 1000: "1,000", 4588: "4,588", 1234567: "1,234,567", -5000: "-5,000"} {
		if got := groupThousands(n); got != want {
			t.Errorf("groupThousands(%d) = %q, want %q", n, got, want)
		}
	}
}
