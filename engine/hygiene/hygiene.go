// Package hygiene owns the judgement behind memory hygiene: it turns a short fact in Chinese
// or English into simple (subject, predicate, object) triples, and decides whether the triples
// of two facts contradict or restate each other. It is pure: no I/O, no SQL, no goroutines,
// no package-level mutable state (the lexicons below are only read), and deterministic, so the
// engine can call it on every remember and in a full contradictions pass.
//
// It is deliberately not a parser. Predicates come from a small lexicon of verbs (longest
// match for Chinese, which has no spaces; token lookup for English); the subject is what comes
// before the verb and the object what comes after, both trimmed. A sentence with no lexicon
// verb, a question, a hypothetical ("would like", "想住在"), or a subject that is only a
// pronoun yields nothing: a missed triple costs one unreported contradiction, a wrong one
// costs a person's trust in every report.
//
// The package does not import engine/entity: that package links the gse segmenter and lingua
// models (166 MB of binary), which a rule-based extractor has no use for. The folding both
// share lives in engine/textnorm.
package hygiene

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine/textnorm"
)

// RulesVersion is stamped on every stored triple; bump it whenever Extract can give a
// different output for the same input (lexicons, trimming, normalization), so the engine
// sweeps stale rows.
const RulesVersion = 2

// MaxTextBytes is how much of a text Extract reads. Facts are short; the cap only bounds the
// work on pathological input.
const MaxTextBytes = 16 << 10

// maxTriples bounds Extract's output: a text with more statements than this is a document,
// not a fact, and its later statements are not extracted.
const maxTriples = 16

// Triple is one statement of a fact. Subject and Object are normalized (NFKC, case-folded,
// whitespace collapsed, trimmed of punctuation); Predicate is a canonical lemma of the fact's
// language ("use", "live in", "喜欢", "住在"), or, for a tool used for a purpose, the lemma with
// the purpose ("use for backend", "用来写后端").
type Triple struct {
	Subject, Predicate, Object string
	Negated                    bool   // "不喜欢", "no longer uses", "doesn't like", "is not"
	Lang                       string // "zh" or "en"
}

// Extract returns the triples stated in text, at most one per sentence (and, in Chinese, one
// per comma-separated clause), in text order. It returns nil when it finds none.
func Extract(text string) []Triple {
	if len(text) > MaxTextBytes {
		text = text[:MaxTextBytes]
	}
	text = normalize(text)
	var triples []Triple
	for sentence, question := range sentences(text) {
		if len(triples) >= maxTriples {
			return triples[:maxTriples]
		}
		if question {
			continue
		}
		if hasHan(sentence) {
			before := len(triples)
			if triples = appendChinese(triples, sentence); len(triples) > before {
				continue
			}
		}
		// Latin text, or Chinese text the Chinese lexicon has no verb for ("CI uses
		// Python 3.12 在北京").
		if t, ok := extractEnglish(sentence); ok {
			triples = append(triples, t)
		}
	}
	if len(triples) > maxTriples {
		return triples[:maxTriples]
	}
	return triples
}

// normalize is engine/entity.Normalize's transform for whole texts: NFKC, case fold, lower,
// NFKC again (folding can leave text that is not normalized, and x/text folds some scripts
// back and forth), with control characters as spaces and typographic apostrophes as ASCII
// ones so "doesn’t" reads like "doesn't".
func normalize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u2019' || r == '\u2018':
			return '\''
		case unicode.IsControl(r) && r != '\n':
			return ' '
		}
		return r
	}, textnorm.Fold(s))
}

// cleanField makes a subject, object or purpose from a cut of normalized text: whitespace
// runs become one space and leading and trailing punctuation goes, except a trailing + or #
// after a letter or digit (c++, c#), as in engine/entity.
func cleanField(s string) string {
	if strings.ContainsFunc(s, unicode.IsSpace) {
		s = strings.Join(strings.Fields(s), " ")
	}
	return textnorm.TrimToWord(s)
}

func isWordRune(r rune) bool { return textnorm.IsWordRune(r) }

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// sentences yields the sentences of normalized text and whether each ended with a question
// mark. A period ends a sentence only before a space or the end, so "3.12" and "node.js"
// stay whole.
func sentences(text string) func(yield func(string, bool) bool) {
	return func(yield func(string, bool) bool) {
		start := 0
		for i, r := range text {
			end, question := false, false
			switch r {
			case '。', '!', ';', '\n':
				end = true
			case '?':
				end, question = true, true
			case '.':
				next := i + 1
				end = next == len(text) || text[next] == ' '
			}
			if !end {
				continue
			}
			if s := strings.TrimSpace(text[start:i]); s != "" {
				if !yield(s, question) {
					return
				}
			}
			start = i + utf8.RuneLen(r)
		}
		if s := strings.TrimSpace(text[start:]); s != "" {
			yield(s, false)
		}
	}
}
