package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/memdesk/memdesk/engine/synth"
)

// benchSizes are the corpus sizes of the insert and recall benchmarks; the largest is
// skipped under -short so CI's run-once pass (-benchtime=1x) stays quick.
var benchSizes = []int{10_000, 100_000}

func skipLarge(b *testing.B, n int) {
	if testing.Short() && n > 10_000 {
		b.Skipf("%d facts: skipped with -short", n)
	}
}

// BenchmarkRemember reports write throughput (facts/s) into a database that already holds
// n facts, one transaction per fact as the surfaces do it.
func BenchmarkRemember(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			skipLarge(b, n)
			e := openTestEngine(b)
			gen := synth.New(1)
			fill(b, e, gen, n)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := e.Remember(ctx, RememberRequest{Text: gen.Fact()}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "facts/s")
		})
	}
}

// BenchmarkRecall runs the fixed query mix over n facts; ns/op is one query.
func BenchmarkRecall(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			skipLarge(b, n)
			e := openTestEngine(b)
			fill(b, e, synth.New(1), n)
			queries := synth.Queries()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				if _, err := e.Recall(ctx, RecallRequest{Query: queries[i%len(queries)]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// fill loads n generated facts in bulk (RememberBatch: one transaction per 500), as an
// import would: one transaction per fact made the setup of a single -benchtime=1x pass take
// minutes on a loaded CI machine.
func fill(b *testing.B, e *Engine, gen *synth.Generator, n int) {
	b.Helper()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = gen.Fact()
	}
	if _, err := e.RememberBatch(context.Background(), "", texts, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkContradictions is the full pass over n facts loaded in bulk (the Memories screen
// runs it for its badges whenever facts change); ns/op is one pass.
func BenchmarkContradictions(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			skipLarge(b, n)
			e := openTestEngine(b)
			gen := synth.New(1)
			texts := make([]string, n)
			for i := range texts {
				texts[i] = gen.Fact()
			}
			ctx := context.Background()
			if _, err := e.RememberBatch(ctx, "", texts, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			pairs := 0
			for b.Loop() {
				res, err := e.Contradictions(ctx, ContradictionsRequest{})
				if err != nil {
					b.Fatal(err)
				}
				pairs = len(res.Pairs)
			}
			b.ReportMetric(float64(pairs), "pairs")
		})
	}
}
