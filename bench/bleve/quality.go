package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memdesk/memdesk/engine/eval"
)

// qualityOptions are the settings of one --beir run.
type qualityOptions struct {
	dir      string
	scope    eval.Scope
	scoring  string // "bm25" or "tfidf" (bleve's default)
	analyzer string // "cjk" or "en"
	k        int
	// merge makes the index one segment before the queries. bleve's BM25 takes its average
	// field length from the segments' term dictionaries summed (distinct terms per segment,
	// over the doc count), so its scores depend on the segment layout; one segment is the
	// layout that does not depend on batching and merge timing.
	merge bool
	// perQuery, when set, is a file that gets one JSON line per query: its id, bleve's
	// ranking and its recall, to set beside memdesk eval's --per-query.
	perQuery string
}

// qualityDoc is what bleve indexes per corpus document.
type qualityDoc struct {
	Text  string `json:"text"`
	Space string `json:"space"`
}

// runQuality indexes a BEIR-style set in a scorch index and prints bleve's recall@k and
// nDCG@k (binary gains) over the queries that have a relevant document.
func runQuality(ctx context.Context, log *slog.Logger, o qualityOptions, stdout io.Writer) (err error) {
	if o.scope != eval.ScopeNone && o.scope != eval.ScopePrefix {
		return fmt.Errorf("--scope %q: want none or prefix", o.scope)
	}
	analyzer := map[string]string{"cjk": cjk.AnalyzerName, "en": en.AnalyzerName}[o.analyzer]
	scoring := map[string]string{"bm25": "bm25", "tfidf": ""}[o.scoring]
	if analyzer == "" || (scoring == "" && o.scoring != "tfidf") || o.k <= 0 {
		return fmt.Errorf("want --analyzer cjk|en, --scoring bm25|tfidf and a positive -k")
	}
	ds, err := loadSet(o.dir)
	if err != nil {
		return err
	}

	tmp, err := os.MkdirTemp("", "memdesk-bleve-quality-")
	if err != nil {
		return fmt.Errorf("create scratch directory: %w", err)
	}
	defer closeInto(&err, func() error { return os.RemoveAll(tmp) })

	im := bleve.NewIndexMapping()
	im.ScoringModel = scoring // "" is bleve's default, tf-idf
	im.DefaultAnalyzer = analyzer
	text := bleve.NewTextFieldMapping()
	text.Analyzer = analyzer
	text.Store, text.IncludeInAll, text.IncludeTermVectors = false, false, false
	space := bleve.NewKeywordFieldMapping()
	space.Analyzer = keyword.Name
	space.Store, space.IncludeInAll, space.IncludeTermVectors = false, false, false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("text", text)
	dm.AddFieldMappingsAt("space", space)
	im.DefaultMapping = dm
	idx, err := bleve.New(filepath.Join(tmp, "bleve"), im)
	if err != nil {
		return fmt.Errorf("create bleve index: %w", err)
	}
	defer closeInto(&err, idx.Close)

	start := time.Now()
	b := idx.NewBatch()
	for _, d := range ds.Docs {
		if err := b.Index(d.ID, qualityDoc{Text: d.Text, Space: o.scope.SpaceOf(d.ID)}); err != nil {
			return fmt.Errorf("bleve index %q: %w", d.ID, err)
		}
		if b.Size() == bleveBatch {
			if err := idx.Batch(b); err != nil {
				return fmt.Errorf("bleve index: %w", err)
			}
			b.Reset()
		}
	}
	if err := idx.Batch(b); err != nil {
		return fmt.Errorf("bleve index: %w", err)
	}
	s, err := scorchOf(idx)
	if err != nil {
		return err
	}
	if o.merge {
		if err := mergeToOneSegment(ctx, s); err != nil {
			return err
		}
	}
	segments := func() any { return s.StatsMap()["TotFileSegmentsAtRoot"] }
	log.Info("bleve indexed", "docs", len(ds.Docs), "segments", segments(), "took", time.Since(start).Round(time.Millisecond))

	var perQuery *json.Encoder
	if o.perQuery != "" {
		f, err := os.Create(o.perQuery)
		if err != nil {
			return fmt.Errorf("per-query file: %w", err)
		}
		defer closeInto(&err, f.Close)
		perQuery = json.NewEncoder(f)
	}
	var recall, ndcg float64
	n := 0
	for _, q := range ds.Queries {
		rel := ds.Relevant[q.ID]
		if len(rel) == 0 {
			continue
		}
		mq := bleve.NewMatchQuery(q.Text) // an OR of the analyzed terms
		mq.SetField("text")
		mq.Analyzer = analyzer
		var qq query.Query = mq
		if o.scope == eval.ScopePrefix {
			tq := bleve.NewTermQuery(o.scope.SpaceOf(q.ID))
			tq.SetField("space")
			qq = bleve.NewConjunctionQuery(mq, tq)
		}
		res, err := idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(qq, o.k, 0, false))
		if err != nil {
			return fmt.Errorf("query %q: %w", q.ID, err)
		}
		ranked := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = h.ID
		}
		r := eval.Recall(ranked, rel, o.k)
		recall += r
		ndcg += eval.NDCG(ranked, rel, o.k)
		if perQuery != nil {
			if err := perQuery.Encode(map[string]any{"id": q.ID, "ranked": ranked, "recall": r}); err != nil {
				return fmt.Errorf("per-query file: %w", err)
			}
		}
		n++
	}
	if n == 0 {
		return errors.New("no query has a relevant document")
	}
	fmt.Fprintf(stdout, "%s\tbleve 2.6.3 %s %s scope %s\t%d docs (%v segments)\t%d queries\trecall@%d %.4f\tnDCG@%d %.4f\n",
		o.dir, o.analyzer, o.scoring, o.scope, len(ds.Docs), segments(), n, o.k, recall/float64(n), o.k, ndcg/float64(n))
	return nil
}

// loadSet reads dir's corpus.jsonl, queries.jsonl and qrels.jsonl, or, without the last,
// qrels/test.tsv (query id, doc id, relevance; a header line first).
func loadSet(dir string) (*eval.Dataset, error) {
	if _, err := os.Stat(filepath.Join(dir, eval.QrelsFile)); err == nil {
		return eval.LoadBEIR(dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ds := &eval.Dataset{Relevant: map[string]eval.Relevance{}}
	err := eachLine(filepath.Join(dir, eval.CorpusFile), func(line string) error {
		d, err := eval.ParseDocLine([]byte(line))
		ds.Docs = append(ds.Docs, d)
		return err
	})
	if err == nil {
		err = eachLine(filepath.Join(dir, eval.QueriesFile), func(line string) error {
			q, err := eval.ParseQueryLine([]byte(line))
			ds.Queries = append(ds.Queries, q)
			return err
		})
	}
	header := true
	if err == nil {
		err = eachLine(filepath.Join(dir, "qrels", "test.tsv"), func(line string) error {
			if header {
				header = false
				return nil
			}
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				return fmt.Errorf("qrels/test.tsv: want 3 tab-separated fields: %q", line)
			}
			r, err := strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
			if err != nil {
				return fmt.Errorf("qrels/test.tsv: %w", err)
			}
			if r > 0 {
				if ds.Relevant[f[0]] == nil {
					ds.Relevant[f[0]] = eval.Relevance{}
				}
				ds.Relevant[f[0]][f[1]] = true
			}
			return nil
		})
	}
	return ds, err
}

// eachLine calls fn with each non-blank line of path.
func eachLine(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			if err := fn(line); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return sc.Err()
}
