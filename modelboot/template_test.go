package modelboot

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/memdesk/memdesk/modelboot/ollamatest"
)

func TestTemplateFor(t *testing.T) {
	qwen := "Instruct: Given a question, retrieve passages that answer it\nQuery: "
	tests := []struct {
		model string
		want  InputTemplate
	}{
		{"qwen3-embedding:0.6b", InputTemplate{QueryPrefix: qwen}},
		{"qwen3-embedding", InputTemplate{QueryPrefix: qwen}},
		{"hf.co/Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0", InputTemplate{QueryPrefix: qwen}},
		{"nomic-embed-text:v1.5", InputTemplate{QueryPrefix: "search_query: ", DocumentPrefix: "search_document: "}},
		{"mxbai-embed-large", InputTemplate{QueryPrefix: "Represent this sentence for searching relevant passages: "}},
		{"jeffh/intfloat-multilingual-e5-large:f16", InputTemplate{QueryPrefix: "query: ", DocumentPrefix: "passage: "}},
		{"e5-large-v2", InputTemplate{QueryPrefix: "query: ", DocumentPrefix: "passage: "}},
		{"bge-m3", InputTemplate{}},
		{"bge-m3:latest", InputTemplate{}},
		{"all-minilm", InputTemplate{}},
		{"qwen3:0.6b", InputTemplate{}}, // the chat model, not the embedding one
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, TemplateFor(tt.model)); diff != "" {
				t.Errorf("TemplateFor(%q) (-want +got):\n%s", tt.model, diff)
			}
		})
	}
}

// TestRepresentationTemplate: a template is part of the fingerprint, and a model without one
// keeps the fingerprint it had before templates existed.
func TestRepresentationTemplate(t *testing.T) {
	base := Representation{Backend: "ollama", Model: "qwen3-embedding:0.6b", Digest: "sha256:ac6da0dfba84aabb",
		Dims: 1024, Pooling: "last", Normalization: "l2", InputWindow: 32768}
	plain := base.String()
	if want := "ollama/qwen3-embedding:0.6b@ac6da0dfba84/1024/last/l2/32768"; plain != want {
		t.Errorf("without a template: %q, want %q", plain, want)
	}
	withTpl := base
	withTpl.Template = TemplateFor(base.Model)
	got := withTpl.String()
	if !strings.HasPrefix(got, plain+"/in:") || len(got) != len(plain)+len("/in:")+8 {
		t.Errorf("with the qwen3 template: %q, want %q + /in: + 8 hex digits", got, plain)
	}
	edited := withTpl
	edited.Template.QueryPrefix += " "
	if edited.String() == got {
		t.Errorf("editing the query prefix left the fingerprint at %q", got)
	}
	docSide := withTpl
	docSide.Template.DocumentPrefix = "passage: "
	if docSide.String() == got {
		t.Errorf("adding a document prefix left the fingerprint at %q", got)
	}
}

// TestEmbedQueryAndDocumentSides: queries get the model's query prefix, stored texts its
// document prefix, both inside the input window.
func TestEmbedQueryAndDocumentSides(t *testing.T) {
	const model = "nomic-embed-text"
	srv := newServer(t, ollamatest.Model{Name: model, Dims: 16, ContextLength: 512, Pooling: "mean"})
	set := fastSettings(srv)
	set.Model = model
	b := ready(t, srv, set)

	q, err := b.EmbedQuery(t.Context(), "who likes a simple style")
	if err != nil {
		t.Fatalf("EmbedQuery: %v", err)
	}
	if got, want := srv.LastEmbed().Inputs, []string{"search_query: who likes a simple style"}; !cmp.Equal(got, want) {
		t.Errorf("query sent as %q, want %q", got, want)
	}
	if want := ollamatest.Embedding("search_query: who likes a simple style", 16); !sameVector(q, want) {
		t.Errorf("query vector = %v, want the server's for the prefixed text %v", q, want)
	}
	if _, err := b.Embed(t.Context(), []string{"my manager likes a simple style", "the tea is green"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if got, want := srv.LastEmbed().Inputs, []string{"search_document: my manager likes a simple style", "search_document: the tea is green"}; !cmp.Equal(got, want) {
		t.Errorf("documents sent as %q, want %q", got, want)
	}
	if fp := (Retrieval{Boot: b}).Fingerprint(); !strings.Contains(fp, "/in:"+TemplateFor(model).Key()) {
		t.Errorf("fingerprint %q does not name the template %s", fp, TemplateFor(model).Key())
	}
	if _, err := b.EmbedQuery(t.Context(), "  "); !errors.Is(err, ErrZeroVector) {
		t.Errorf("EmbedQuery of blank text: error %v, want ErrZeroVector", err)
	}
	if v, err := (Retrieval{Boot: b}).EmbedQuery(t.Context(), ""); err != nil || v == nil || len(v) != 0 {
		t.Errorf("Retrieval.EmbedQuery of empty text = %v, %v; want an empty vector (no evidence), no error", v, err)
	}
}

func TestEmbedQueryWithoutTemplateSendsTheText(t *testing.T) {
	srv := newServer(t, tinyWith(nil))
	b := ready(t, srv, fastSettings(srv))
	if _, err := b.EmbedQuery(t.Context(), "python version"); err != nil {
		t.Fatalf("EmbedQuery: %v", err)
	}
	if got, want := srv.LastEmbed().Inputs, []string{"python version"}; !cmp.Equal(got, want) {
		t.Errorf("query sent as %q, want %q", got, want)
	}
}
