// Package synthbench is what `memdesk bench` and the bleve comparison (bench/bleve, a module
// of its own so bleve never enters memdesk's) share, so that both measure the same store the
// same way: the synthetic corpus for a number of facts, how it goes into an engine, and the
// interleaved timing of the arms that answer the query mix.
package synthbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/synth"
)

// K is the hits asked per query, of memdesk and of every baseline alike.
const K = 10

// Corpus is the synthetic corpus beside n facts: the facts, then the documents, from one
// generator in that order, so a seed and n always give the same texts.
func Corpus(seed uint64, n int) (facts []string, docs []synth.Document) {
	gen := synth.New(seed)
	facts = gen.Facts(n)
	return facts, gen.Documents(documentCount(n))
}

// documentCount is how many synthetic documents go in beside n facts: a knowledge side
// present in every recall, small next to the facts.
func documentCount(n int) int { return min(max(n/1000, 4), 200) }

// RememberFacts stores facts with RememberBatch and fails unless every one was added: one
// merged or refused would leave a smaller store than the figures claim to measure.
func RememberFacts(ctx context.Context, e *engine.Engine, facts []string, progress func(done int)) error {
	stored, err := e.RememberBatch(ctx, "", facts, progress)
	if err != nil {
		return err
	}
	for i, s := range stored {
		if s.Err != "" || s.Status != engine.StatusAdded {
			return fmt.Errorf("synthetic fact %d %q not added (%s%s): the corpus is not what it claims", i, facts[i], s.Status, s.Err)
		}
	}
	return nil
}

// ImportDocuments writes docs under dir, imports them as knowledge, and returns their
// chunks' texts as the engine stored them (what a baseline indexes beside the facts) and
// the documents' size.
func ImportDocuments(ctx context.Context, e *engine.Engine, dir string, docs []synth.Document) ([]string, int64, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, 0, fmt.Errorf("write documents: %w", err)
	}
	var raw int64
	for _, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, d.Name), []byte(d.Text), 0o600); err != nil {
			return nil, 0, fmt.Errorf("write documents: %w", err)
		}
		raw += int64(len(d.Text))
	}
	added, err := e.KBAdd(ctx, engine.KBAddRequest{Paths: []string{dir}})
	if err != nil {
		return nil, 0, err
	}
	if added.Added != len(docs) {
		return nil, 0, fmt.Errorf("import documents: %d of %d added (%d skipped, %d failed)",
			added.Added, len(docs), added.Skipped, added.Failed)
	}
	var chunks []string
	for _, f := range added.Files {
		cs, err := e.KBChunks(ctx, f.DocID)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range cs {
			chunks = append(chunks, c.Text)
		}
	}
	return chunks, raw, nil
}

// Arm is one way of answering the query mix, with its per-query times.
type Arm struct {
	Name   string
	Answer func(ctx context.Context, q string) error
	// Samples are the timed answers in order: sample i is mix[i%len(mix)].
	Samples []time.Duration
}

// TimeArms runs the query mix, repeated to at least atLeast queries, through every arm
// after one untimed warm-up round. The arms take turns on each query, starting with a
// different one each time, so a burst of load from elsewhere on the machine falls on all of
// them alike, and sample i of every arm is the same query at nearly the same moment.
func TimeArms(ctx context.Context, arms []*Arm, mix []string, atLeast int, progress eval.Progress) error {
	rounds := (atLeast + len(mix) - 1) / len(mix)
	total := rounds * len(mix)
	for _, a := range arms {
		a.Samples = make([]time.Duration, 0, total)
	}
	for round := -1; round < rounds; round++ {
		for qi, q := range mix {
			for j := range arms {
				a := arms[(max(round, 0)+qi+j)%len(arms)]
				start := time.Now()
				if err := a.Answer(ctx, q); err != nil {
					return fmt.Errorf("%s: query %q: %w", a.Name, q, err)
				}
				if round >= 0 {
					a.Samples = append(a.Samples, time.Since(start))
				}
			}
			if round >= 0 && progress != nil {
				progress((round*len(mix))+qi+1, total) // a progress bar's error only loses the bar
			}
		}
	}
	return nil
}

// LoadAverage is /proc/loadavg's first three fields, or "" where there is none: printed
// beside every timing, since this machine is shared.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
