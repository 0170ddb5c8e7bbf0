package simembed

import (
	"fmt"
	"math"
	"testing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestSimulatedModelHasTheQualityItIsGiven(t *testing.T) {
	const baseline, quality = 0.3, 0.8
	m := New(Config{Dims: 512, Quality: quality, Baseline: baseline})
	docA := "The orchard behind the farmhouse has forty apple trees and six pear trees, planted by my grandfather in 1962."
	docB := "Quarterly revenue grew by twelve percent, mostly from the new subscription plans sold in Europe."
	m.AddDocument("a", docA)
	m.AddDocument("b", docB)
	m.AddQuery("Who planted the fruit trees?", map[string]float64{"a": 1})
	a, b := m.Embed(docA), m.Embed(docB)
	q := m.Embed("Who planted the fruit trees?")
	// Two unrelated texts: the baseline, up to the random part's spread (1/sqrt(512) ~ 0.044).
	if got := cos(a, b); math.Abs(got-baseline) > 0.15 {
		t.Errorf("cos(docA, docB) = %.3f, want near the baseline %.2f", got, baseline)
	}
	want := baseline + (1-baseline)*quality
	if got := cos(q, a); math.Abs(got-want) > 0.1 {
		t.Errorf("cos(query, relevant) = %.3f, want near %.3f", got, want)
	}
	if rel, unrel := cos(q, a), cos(q, b); rel <= unrel+0.3 {
		t.Errorf("cos(query, relevant) %.3f does not stand out from cos(query, unrelated) %.3f", rel, unrel)
	}
	// A chunk cut from a document, with its whitespace and case changed, is the document.
	chunk := "FORTY apple trees   and six pear trees, planted by my grandfather"
	if got := cos(m.Embed(chunk), a); got < 0.999 {
		t.Errorf("cos(chunk of docA, docA) = %.4f, want 1", got)
	}
	// A query the engine cut (time words left out) is still the query.
	if got := cos(m.Embed("Who planted the fruit"), q); got < 0.999 {
		t.Errorf("cos(cut query, query) = %.4f, want 1", got)
	}
	// Deterministic, and of unit length.
	if got := cos(m.Embed(docA), a); math.Abs(got-1) > 1e-5 {
		t.Errorf("the same text embeds differently: cos %.6f", got)
	}
}

func TestNoiseModelKnowsNothing(t *testing.T) {
	m := New(Config{Dims: 512, Quality: 0, Baseline: 0.3})
	m.AddDocument("a", "The orchard behind the farmhouse has forty apple trees.")
	m.AddQuery("Who planted the fruit trees?", map[string]float64{"a": 1})
	got := cos(m.Embed("Who planted the fruit trees?"), m.Embed("The orchard behind the farmhouse has forty apple trees."))
	if math.Abs(got-0.3) > 0.15 {
		t.Errorf("noise model: cos(query, relevant) = %.3f, want the baseline 0.3", got)
	}
}

func TestCopiesOfOneTextAreOneDocument(t *testing.T) {
	m := New(Config{Dims: 256, Quality: 0.9, Baseline: 0.3})
	text := "We went hiking in the Dolomites for a week last August and stayed in mountain huts."
	m.AddDocument("q1/d1", text)
	m.AddDocument("q2/d7", text) // the same session in another question's haystack
	m.AddQuery("Where did I go hiking?", map[string]float64{"q2/d7": 1})
	if got := cos(m.Embed("Where did I go hiking?"), m.Embed(text)); got < 0.9 {
		t.Errorf("cos(query, its relevant copy) = %.3f, want near 0.93", got)
	}
}

func TestNoiseShareQueriesKnowNothing(t *testing.T) {
	const n = 400
	m := New(Config{Dims: 256, Quality: 0.9, Baseline: 0.3, NoiseShare: 0.25, ProbeQuality: 0.5})
	m.AddParaphrase("The flight was delayed by two hours.", "Our plane left two hours late.")
	noise := 0
	for i := range n {
		doc, query := fmt.Sprintf("document number %d about topic %d", i, i*7), fmt.Sprintf("question %d on topic %d", i, i*7)
		m.AddDocument(fmt.Sprint(i), doc)
		m.AddQuery(query, map[string]float64{fmt.Sprint(i): 1})
		got := cos(m.Embed(query), m.Embed(doc))
		if m.NoiseQuery(query) {
			noise++
			if math.Abs(got-0.3) > 0.2 {
				t.Errorf("noise query %d: cos(query, relevant) = %.3f, want near the baseline 0.3", i, got)
			}
		} else if want := 0.3 + 0.7*0.9; math.Abs(got-want) > 0.1 {
			t.Errorf("query %d: cos(query, relevant) = %.3f, want near %.3f", i, got, want)
		}
	}
	if share := float64(noise) / n; math.Abs(share-0.25) > 0.07 {
		t.Errorf("%d of %d queries embed as noise (%.2f), want about 0.25", noise, n, share)
	}
	// A paraphrase is never noise, and embeds at ProbeQuality.
	if m.NoiseQuery("Our plane left two hours late.") {
		t.Error("a paraphrase probe was chosen as a noise query")
	}
	got := cos(m.Embed("Our plane left two hours late."), m.Embed("The flight was delayed by two hours."))
	if want := 0.3 + 0.7*0.5; math.Abs(got-want) > 0.1 {
		t.Errorf("cos(paraphrase, original) = %.3f, want near %.3f (probe quality 0.5)", got, want)
	}
}
