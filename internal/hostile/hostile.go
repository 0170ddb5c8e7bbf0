// Package hostile reads the lists of the hostile-input corpus (testdata/hostile), which the
// engine's and the binary's tests both feed through memdesk.
package hostile

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadList reads and parses the .list file at path (see ParseList).
func ReadList(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := ParseList(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ParseList reads a .list file: one Go double-quoted string per line, so NUL and raw bytes
// can be written; # comments and blank lines are ignored.
func ParseList(data []byte) ([]string, error) {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}
