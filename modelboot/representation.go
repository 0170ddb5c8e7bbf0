package modelboot

import (
	"strconv"
	"strings"
)

// Representation declares how [Boot.Embed]'s vectors are made; two vectors
// are comparable only when their representations are equal. Read it when
// the state is ready: before the first warm-up Dims is 0.
type Representation struct {
	Backend string // "ollama"
	Model   string // as the server names it, e.g. "bge-m3:latest"
	Digest  string // the model's digest, or "undeclared"
	Dims    int    // vector width measured at warm-up
	Pooling string // "mean", "cls", "last", "none", "rank", or "undeclared"
	// Normalization is "l2": Embed normalises every vector itself.
	Normalization string
	// InputWindow is the model's context length in tokens; 0 is undeclared.
	InputWindow int
	// Template is how inputs are worded for the model (see [TemplateFor]): a query vector
	// made with one template is not comparable with passages made with another.
	Template InputTemplate
}

// Representation returns the representation of the current model.
func (b *Boot) Representation() Representation {
	st := b.State()
	r := Representation{
		Backend:       "ollama",
		Model:         st.Model,
		Digest:        st.Digest,
		Dims:          st.Dims,
		Pooling:       st.Pooling,
		Normalization: "l2",
		InputWindow:   st.ContextLength,
		Template:      b.template,
	}
	if r.Digest == "" {
		r.Digest = Undeclared
	}
	if r.Pooling == "" {
		r.Pooling = Undeclared
	}
	return r
}

// String renders r as "ollama/bge-m3:latest@5f1e2ab3c4d5/1024/cls/l2/8192",
// the digest shortened to 12 characters and an undeclared number written
// "undeclared". A model with an input template gets "/in:" and the template's
// [InputTemplate.Key] at the end ("ollama/qwen3-embedding:0.6b@.../last/l2/32768/in:9c2e41d0"),
// so that vectors of a model without one keep the fingerprint they had before templates
// existed. The engine prefixes its own fingerprint version.
func (r Representation) String() string {
	digest := strings.TrimPrefix(r.Digest, "sha256:")
	if len(digest) > 12 && digest != Undeclared {
		digest = digest[:12]
	}
	num := func(n int) string {
		if n <= 0 {
			return Undeclared
		}
		return strconv.Itoa(n)
	}
	s := r.Backend + "/" + r.Model + "@" + digest + "/" + num(r.Dims) + "/" +
		r.Pooling + "/" + r.Normalization + "/" + num(r.InputWindow)
	if k := r.Template.Key(); k != "" {
		s += "/in:" + k
	}
	return s
}
