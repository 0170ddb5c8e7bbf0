package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWordDF(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Words: strings.ToLower})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	rows := []struct {
		space, content, status string
	}{
		{"default", "Ethanol tolerance in E. coli", StatusActive},
		{"default", "ethanol stress and glycolysis", StatusActive},
		{"default", "glycolysis in neurons", StatusActive},
		{"default", "ethanol, forgotten", StatusDeleted},
		{"work", "ethanol at work", StatusActive},
		{"work", "ethanol again", StatusActive},
	}
	for i, r := range rows {
		// Written as rows, so the test does not depend on how facts are added; the triggers
		// keep the word index in step as they do for every write.
		if _, err := s.db.ExecContext(ctx, `INSERT INTO facts(space, content, dedupe, status, created_at, updated_after)
			VALUES (?, ?, ?, ?, 0, 0)`, r.space, r.content, i, r.status); err != nil {
			t.Fatalf("insert %q: %v", r.content, err)
		}
	}
	tests := []struct {
		name  string
		space string
		terms []string
		limit int
		want  map[string]int
	}{
		{"one space", "default", []string{"ethanol", "glycolysis", "absent"}, 10,
			map[string]int{"ethanol": 2, "glycolysis": 2, "absent": 0}},
		{"every space", "", []string{"ethanol"}, 10, map[string]int{"ethanol": 4}},
		{"counting stops past the limit", "", []string{"ethanol"}, 1, map[string]int{"ethanol": 2}},
		{"a term is the index's own, not stemmed again", "default", []string{"neurons", "neuron"}, 10,
			map[string]int{"neurons": 1, "neuron": 0}},
		{"FTS5 syntax is literal", "default", []string{`eth" OR "glycolysis`, "NEAR(a b)", "*"}, 10,
			map[string]int{`eth" OR "glycolysis`: 0, "NEAR(a b)": 0, "*": 0}},
		{"no terms", "default", nil, 10, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.WordDF(ctx, KindFact, tt.space, tt.terms, tt.limit)
			if err != nil {
				t.Fatalf("WordDF: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WordDF(%q, %q) (-want +got):\n%s", tt.space, tt.terms, diff)
			}
		})
	}
}

func TestWordDFOfChunks(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Words: strings.ToLower})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	for i, doc := range []struct{ space, text string }{
		{"default", "glycolysis in neurons"},
		{"default", "glycolysis and ethanol"},
		{"work", "glycolysis at work"},
	} {
		in := DocumentInput{Space: doc.space, Path: fmt.Sprintf("/notes/%d.md", i), Title: "t", Format: "md",
			Hash: fmt.Sprint(i), Bytes: int64(len(doc.text)), Chunks: []Chunk{{Text: doc.text}}}
		if _, _, err := s.PutDocument(ctx, in); err != nil {
			t.Fatalf("PutDocument: %v", err)
		}
	}
	for _, tc := range []struct {
		space string
		want  map[string]int
	}{
		{"default", map[string]int{"glycolysis": 2, "ethanol": 1}},
		{"", map[string]int{"glycolysis": 3, "ethanol": 1}},
	} {
		got, err := s.WordDF(ctx, KindChunk, tc.space, []string{"glycolysis", "ethanol"}, 10)
		if err != nil {
			t.Fatalf("WordDF: %v", err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("WordDF(chunks of %q) (-want +got):\n%s", tc.space, diff)
		}
	}
}
