package modelboot

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// InputTemplate is how a model wants its inputs worded. Some retrieval models were trained
// with an instruction before each query, or a marker before each side, and place queries
// and passages wrongly without it; symmetric models (bge-m3) take the text as it is.
type InputTemplate struct {
	// QueryPrefix goes before a search query ([Boot.EmbedQuery]).
	QueryPrefix string
	// DocumentPrefix goes before a stored text ([Boot.Embed]).
	DocumentPrefix string
}

// IsZero reports whether t leaves both sides as they are.
func (t InputTemplate) IsZero() bool { return t == InputTemplate{} }

// Key names t in a fingerprint: "" for no template, else 8 hex digits of its hash, so that
// any change to either prefix makes the vectors made with the old one stale.
func (t InputTemplate) Key() string {
	if t.IsZero() {
		return ""
	}
	sum := sha256.Sum256([]byte(t.QueryPrefix + "\x00" + t.DocumentPrefix))
	return hex.EncodeToString(sum[:4])
}

// templateFamily is one row of the template table: models whose name contains one of
// names are worded as template says.
type templateFamily struct {
	names    []string
	template InputTemplate
}

// templateFamilies is the template table, from each model card's own usage notes. A model
// not in it (bge-m3, any unknown one) gets no template.
func templateFamilies() []templateFamily {
	return []templateFamily{
		{names: []string{"qwen3-embedding"}, template: InputTemplate{
			QueryPrefix: "Instruct: Given a question, retrieve passages that answer it\nQuery: "}},
		{names: []string{"nomic-embed-text"}, template: InputTemplate{
			QueryPrefix: "search_query: ", DocumentPrefix: "search_document: "}},
		{names: []string{"mxbai-embed-large"}, template: InputTemplate{
			QueryPrefix: "Represent this sentence for searching relevant passages: "}},
		// e5 last: "e5" is short and could occur inside another family's name.
		{names: []string{"multilingual-e5", "e5-"}, template: InputTemplate{
			QueryPrefix: "query: ", DocumentPrefix: "passage: "}},
	}
}

// TemplateFor returns the input template of model, matched on its name without registry,
// namespace or tag ("hf.co/Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0" is qwen3-embedding).
func TemplateFor(model string) InputTemplate {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	for _, f := range templateFamilies() {
		for _, n := range f.names {
			if strings.HasPrefix(name, n) || strings.Contains(name, "-"+n) {
				return f.template
			}
		}
	}
	return InputTemplate{}
}
