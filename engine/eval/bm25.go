package eval

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Tokens splits text the way the plain BM25 baseline indexes it: lower-cased runs of letters
// and digits for alphabetic scripts, and character bigrams for CJK runs (a lone CJK character
// is its own token). Everything else separates tokens.
//
// Words are Unicode letters and digits, so "café" and the "β" of "β-cells" stay whole. The
// dev README's figures were made with ASCII words; that tokenizer reproduces them exactly
// (SciFact recall@10 0.784, nDCG@10 0.662), this one is 0.004 and 0.001 above.
func Tokens(text string) []string {
	var out []string
	var run []rune
	cjk := false
	flush := func() {
		switch {
		case len(run) == 0:
		case !cjk:
			out = append(out, string(run))
		case len(run) == 1:
			out = append(out, string(run))
		default:
			for i := 0; i+2 <= len(run); i++ {
				out = append(out, string(run[i:i+2]))
			}
		}
		run = run[:0]
	}
	for _, r := range text {
		isCJK := IsCJK(r)
		isWord := !isCJK && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !isCJK && !isWord {
			flush()
			continue
		}
		if len(run) > 0 && isCJK != cjk {
			flush()
		}
		cjk = isCJK
		run = append(run, unicode.ToLower(r))
	}
	flush()
	return out
}

// IsCJK reports whether r is written without spaces between words: Han, kana or Hangul.
func IsCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// BM25 parameters of the baseline, the common defaults (Lucene, BEIR's Anserini runs).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25Index is an in-memory Okapi BM25 index over Tokens: the plain full-text baseline
// memdesk is compared with. It is safe for concurrent searches once built.
type BM25Index struct {
	ids      []string
	docLen   []float64
	avgLen   float64
	postings map[string][]posting
}

type posting struct {
	doc int32
	tf  int32
}

// NewBM25Index indexes docs.
func NewBM25Index(docs []Doc) *BM25Index {
	x := &BM25Index{ids: make([]string, len(docs)), docLen: make([]float64, len(docs)),
		postings: map[string][]posting{}}
	var total float64
	tf := map[string]int32{}
	for i, d := range docs {
		x.ids[i] = d.ID
		clear(tf)
		toks := Tokens(d.Text)
		for _, t := range toks {
			tf[t]++
		}
		for t, n := range tf {
			x.postings[t] = append(x.postings[t], posting{doc: int32(i), tf: n})
		}
		x.docLen[i] = float64(len(toks))
		total += float64(len(toks))
	}
	if len(docs) > 0 {
		x.avgLen = total / float64(len(docs))
	}
	return x
}

// Len is the number of documents indexed.
func (x *BM25Index) Len() int { return len(x.ids) }

// Search returns the ids of the k best documents for text, best first; documents sharing no
// token with the query are never returned. Equal scores keep corpus order.
func (x *BM25Index) Search(text string, k int) []string {
	if k <= 0 || len(x.ids) == 0 {
		return nil
	}
	scores := map[int32]float64{}
	n := float64(len(x.ids))
	// A term repeated in the query counts once per repetition, as in Lucene's
	// BooleanQuery of term clauses.
	for _, t := range Tokens(text) {
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			f := float64(p.tf)
			norm := BM25K1 * (1 - BM25B + BM25B*x.docLen[p.doc]/x.avgLen)
			scores[p.doc] += idf * f * (BM25K1 + 1) / (f + norm)
		}
	}
	docs := make([]int32, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b int32) int {
		if sa, sb := scores[a], scores[b]; sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	out := make([]string, 0, min(k, len(docs)))
	for _, d := range docs[:min(k, len(docs))] {
		out = append(out, x.ids[d])
	}
	return out
}

// BM25Retriever is the baseline arm: one BM25 index per space, so with ScopePrefix each
// query is answered only from its own space, as the engine arm does.
type BM25Retriever struct {
	scope   Scope
	indexes map[string]*BM25Index
}

// NewBM25Retriever indexes docs, split into spaces by scope.
func NewBM25Retriever(docs []Doc, scope Scope) *BM25Retriever {
	bySpace := map[string][]Doc{}
	for _, d := range docs {
		s := scope.SpaceOf(d.ID)
		bySpace[s] = append(bySpace[s], d)
	}
	r := &BM25Retriever{scope: scope, indexes: make(map[string]*BM25Index, len(bySpace))}
	for s, ds := range bySpace {
		r.indexes[s] = NewBM25Index(ds)
	}
	return r
}

// Retrieve implements Retriever.
func (r *BM25Retriever) Retrieve(ctx context.Context, q Query, k int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := r.indexes[r.scope.SpaceOf(q.ID)]
	if x == nil {
		return nil, nil
	}
	return x.Search(q.Text, k), nil
}

// Scope says how documents and queries split into spaces.
type Scope string

// Scopes.
const (
	// ScopeNone pools every document; every query searches all of them.
	ScopeNone Scope = "none"
	// ScopePrefix puts each id's part before the first "/" in its own space (an id without
	// "/" belongs to the space ""), and answers each query only from its own space: the
	// shape of per-user memory benchmarks.
	ScopePrefix Scope = "prefix"
)

// SpaceOf is the space an id belongs to under the scope; "" is the pooled space.
func (s Scope) SpaceOf(id string) string {
	if s != ScopePrefix {
		return ""
	}
	prefix, _, found := strings.Cut(id, "/")
	if !found {
		return ""
	}
	return prefix
}
