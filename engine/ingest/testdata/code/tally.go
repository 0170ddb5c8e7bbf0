// Package tally counts words in notes.
package tally

import (
	"sort"
	"strings"
)

// Counter counts how often each word occurs.
type Counter struct {
	counts map[string]int
}

// Add counts the words of one line. A "func" in a string starts nothing:
// "func Fake() {}"
func (c *Counter) Add(line string) {
	for _, w := range strings.Fields(line) {
		c.counts[strings.ToLower(w)]++
	}
}

// Top returns the n most frequent words.
func (c *Counter) Top(n int) []string {
	words := make([]string, 0, len(c.counts))
	for w := range c.counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool { return c.counts[words[i]] > c.counts[words[j]] })
	return words[:min(n, len(words))]
}

const (
	minLen = 2
	maxLen = 40
)

func keep[T ~string](w T) bool { return len(w) >= minLen && len(w) <= maxLen }
