package ui

import (
	"testing"

	"github.com/memdesk/memdesk/engine"
)

func facts(n int) []engine.FactView { return make([]engine.FactView, n) }

func TestFactPagesLength(t *testing.T) {
	tests := []struct {
		name  string
		total int
		pages []int // rows returned for pages 0, 1, ...
		want  int
		done  bool
	}{
		{"unknown total, empty", -1, []int{0}, 0, true},
		{"unknown total, short first page", -1, []int{3}, 3, true},
		{"unknown total, full page leaves a loading row", -1, []int{10}, 11, false},
		{"unknown total, then the end", -1, []int{10, 4}, 14, true},
		{"unknown total, exact multiple", -1, []int{10, 0}, 10, true},
		{"known total", 35, []int{10}, 35, false},
		{"known total, stale and too high", 35, []int{10, 10, 2}, 22, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFactPages(10, tt.total)
			for i, n := range tt.pages {
				p.put(i, facts(n))
			}
			if p.length != tt.want || p.done != tt.done {
				t.Errorf("length, done = %d, %v; want %d, %v", p.length, p.done, tt.want, tt.done)
			}
		})
	}
}

func TestFactPagesRow(t *testing.T) {
	p := newFactPages(10, -1)
	p.put(1, []engine.FactView{{ID: 42}})
	if f, ok := p.row(10); !ok || f.ID != 42 {
		t.Errorf("row(10) = %v, %v; want fact 42", f, ok)
	}
	for _, i := range []int{0, 9, 11} {
		if _, ok := p.row(i); ok {
			t.Errorf("row(%d) is loaded, want not", i)
		}
	}
}
