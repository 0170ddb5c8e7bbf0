// Command simollama serves a simulated embedding model of known quality (package simembed)
// over Ollama's wire format, so `memdesk eval --legs fts,entity,semantic` can be run against
// a model as strong or as weak as wanted:
//
//	simollama -set ../shared/data/dev/scifact -quality 0.9 -addr 127.0.0.1:11500 &
//	MEMDESK_OLLAMA_HOST=127.0.0.1:11500 MEMDESK_OLLAMA_MODEL=sim memdesk eval --beir ... --legs fts,entity,semantic
//
// It also registers the engine's paraphrase probes, so the engine's calibration measures the
// model at the same quality.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/memdesk/memdesk/engine/probes"
	"github.com/memdesk/memdesk/internal/simembed"
	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

func main() {
	var sets []string
	flag.Func("set", "a benchmark folder (corpus/queries/qrels JSONL) whose relevance the model knows; repeatable", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	quality := flag.Float64("quality", 0.9, "0 (noise) .. 1 (perfect)")
	probeQuality := flag.Float64("probe-quality", 0, "quality on the engine's paraphrase probes (0: -quality)")
	noiseShare := flag.Float64("noise-share", 0, "share of queries that embed as noise (a fixed subset)")
	baseline := flag.Float64("baseline", 0.3, "cosine between unrelated texts")
	dims := flag.Int("dims", 256, "vector width")
	name := flag.String("model", "sim", "model name")
	addr := flag.String("addr", "127.0.0.1:11500", "address to listen on")
	perText := flag.Duration("per-text", 0, "how long the model takes per text: a slow CPU model (issue 31 measures 0.3s)")
	var pairs [][2]string
	flag.Func("pair", `"fact|question": the question embeds like the fact, sharing no word with it; repeatable`, func(s string) error {
		fact, question, ok := strings.Cut(s, "|")
		if !ok {
			return fmt.Errorf("want fact|question, got %q", s)
		}
		pairs = append(pairs, [2]string{fact, question})
		return nil
	})
	flag.Parse()
	m := simembed.New(simembed.Config{Dims: *dims, Quality: *quality, Baseline: *baseline,
		ProbeQuality: *probeQuality, NoiseShare: *noiseShare})
	for _, p := range probes.Paraphrases() {
		m.AddParaphrase(p[0], p[1])
	}
	for _, p := range pairs {
		m.AddParaphrase(p[0], p[1])
	}
	for _, s := range sets {
		if err := m.LoadBEIR(s); err != nil {
			log.Fatal(err)
		}
	}
	srv, err := ollamatest.NewServerAt(*addr, ollamatest.Model{Name: *name, Dims: *dims, ContextLength: 8192, Pooling: "mean",
		Embed: func(text string) []float32 { time.Sleep(*perText); return m.Embed(text) }})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	fmt.Printf("simulated model %q (quality %.2f, probe quality %.2f, noise share %.2f, baseline %.2f, %d dims, sets %s) on %s\n", *name, *quality, *probeQuality, *noiseShare, *baseline, *dims, strings.Join(sets, ", "), srv.Host())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
}
