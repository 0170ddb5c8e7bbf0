package eval

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var tokenCases = []struct {
	name string
	text string
	want []string
}{
	{"english lower-cased", "Hello, World 42!", []string{"hello", "world", "42"}},
	{"punctuation separates", "a-b_c.d", []string{"a", "b", "c", "d"}},
	{"cjk bigrams", "老王喜欢简约", []string{"老王", "王喜", "喜欢", "欢简", "简约"}},
	{"lone cjk character", "猫。", []string{"猫"}},
	{"mixed scripts split", "用Go写API服务", []string{"用", "go", "写", "api", "服务"}},
	{"kana are cjk", "ひらがな", []string{"ひら", "らが", "がな"}},
	{"hangul is cjk", "한국어", []string{"한국", "국어"}},
	{"accented latin stays one word", "Café Ünïcode", []string{"café", "ünïcode"}},
	{"greek letters are letters", "β-cells", []string{"β", "cells"}},
	{"full-width punctuation separates", "《战国无双3》（）", []string{"战国", "国无", "无双", "3"}},
	{"empty", "", nil},
	{"only punctuation", "…—!?", nil},
}

func TestTokens(t *testing.T) {
	for _, tc := range tokenCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Tokens(tc.text)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Tokens(%q) mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func FuzzTokens(f *testing.F) {
	for _, tc := range tokenCases {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range Tokens(text) {
			if tok == "" {
				t.Fatalf("Tokens(%q) returned an empty token", text)
			}
		}
	})
}

func TestBM25Search(t *testing.T) {
	docs := []Doc{
		{"long", "cat " + "filler words that only make this document longer than the others"},
		{"short", "cat on a mat"},
		{"twice", "cat cat on a mat"},
		{"rare", "an aardvark"},
		{"none", "dogs only"},
		{"short-too", "cat on a mat"},
	}
	x := NewBM25Index(docs)
	for _, tc := range []struct {
		name  string
		query string
		k     int
		want  []string
	}{
		// More occurrences first; among equal texts, corpus order; the longer text last.
		{"tf and length normalization", "cat", 10, []string{"twice", "short", "short-too", "long"}},
		{"k truncates", "cat", 2, []string{"twice", "short"}},
		{"a rare term outweighs a common one", "cat aardvark", 1, []string{"rare"}},
		{"no shared token, no hit", "quantum", 10, []string{}},
		{"k zero", "cat", 0, []string{}},
		{"case folded", "DOGS", 10, []string{"none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := x.Search(tc.query, tc.k)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Search(%q, %d) mismatch (-want +got):\n%s", tc.query, tc.k, diff)
			}
		})
	}
	if got := NewBM25Index(nil).Search("cat", 10); len(got) != 0 {
		t.Errorf("empty index Search = %q, want nothing", got)
	}
}

func TestBM25RetrieverScope(t *testing.T) {
	docs := []Doc{{"alice/1", "likes green tea"}, {"bob/1", "likes green tea"}, {"nouser", "green tea too"}}
	for _, tc := range []struct {
		name  string
		scope Scope
		query Query
		want  []string
	}{
		{"pooled", ScopeNone, Query{ID: "bob/q", Text: "green tea"}, []string{"alice/1", "bob/1", "nouser"}},
		{"own space only", ScopePrefix, Query{ID: "bob/q", Text: "green tea"}, []string{"bob/1"}},
		{"id without slash is the pooled space", ScopePrefix, Query{ID: "q", Text: "green tea"}, []string{"nouser"}},
		{"unknown space", ScopePrefix, Query{ID: "carol/q", Text: "green tea"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewBM25Retriever(docs, tc.scope).Retrieve(context.Background(), tc.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Retrieve(%+v) mismatch (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

func TestScopeSpaceOf(t *testing.T) {
	for _, tc := range []struct {
		scope Scope
		id    string
		want  string
	}{
		{ScopePrefix, "user7/q12", "user7"},
		{ScopePrefix, "a/b/c", "a"},
		{ScopePrefix, "/x", ""},
		{ScopePrefix, "plain", ""},
		{ScopeNone, "user7/q12", ""},
		{"", "user7/q12", ""},
	} {
		if got := tc.scope.SpaceOf(tc.id); got != tc.want {
			t.Errorf("Scope(%q).SpaceOf(%q) = %q, want %q", tc.scope, tc.id, got, tc.want)
		}
	}
}

func BenchmarkBM25Search(b *testing.B) {
	docs := make([]Doc, 2000)
	words := []string{"memory", "recall", "python", "database", "老王", "喜欢", "简约", "风格", "设计", "sqlite"}
	for i := range docs {
		text := ""
		for j := 0; j < 30; j++ {
			text += words[(i*7+j*3)%len(words)] + " "
		}
		docs[i] = Doc{ID: string(rune('a' + i%26)), Text: text}
	}
	x := NewBM25Index(docs)
	b.ReportAllocs()
	for b.Loop() {
		x.Search("python database 老王喜欢", 10)
	}
}
