package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseCasesInputs are case files the loader must survive: the shapes TestParseCasesErrors
// rejects, valid files, and oddities a hand-edited file can hold. FuzzParseCases starts from
// them, and anything the fuzzer finds is added here as a regression case.
var parseCasesInputs = []struct {
	name   string
	json   string
	wantOK bool
}{
	{"valid minimal", `{"name": "x", "cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expect": [0]}]}]}`, true},
	{"valid unrelated query", `{"name": "x", "cases": [{"name": "a", "facts": ["f", "g"], "queries": [{"query": "q"}, {"query": "r", "expect": [1], "must_include": [1], "must_exclude": [0], "k": 3}]}]}`, true},
	{"valid without facts", `{"cases": [{"name": "a", "queries": [{"query": "q"}]}]}`, true},
	{"valid huge k", `{"cases": [{"name": "a", "k": 9223372036854775807, "facts": ["f"], "queries": [{"query": "q", "expect": [0]}]}]}`, true},
	{"valid case-insensitive keys", `{"NAME": "x", "Cases": [{"Name": "a", "Facts": ["f"], "Queries": [{"Query": "q", "Expect": [0]}]}]}`, true},
	{"valid escaped invalid utf-8", `{"cases": [{"name": "\udc00", "facts": ["\u0000"], "queries": [{"query": "\ud800x"}]}]}`, true},
	{"valid trailing garbage is ignored", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q"}]}]} trailing`, true},
	{"not json", `{`, false},
	{"empty input", ``, false},
	{"json null", `null`, false},
	{"array", `[]`, false},
	{"unknown field", `{"name": "x", "cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expected": [0]}]}]}`, false},
	{"no cases", `{"name": "x", "cases": []}`, false},
	{"case without name", `{"cases": [{"facts": ["f"], "queries": [{"query": "q"}]}]}`, false},
	{"duplicate case name", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q"}]}, {"name": "a", "facts": ["f"], "queries": [{"query": "q"}]}]}`, false},
	{"no queries", `{"cases": [{"name": "a", "facts": ["f"]}]}`, false},
	{"empty fact", `{"cases": [{"name": "a", "facts": [" "], "queries": [{"query": "q"}]}]}`, false},
	{"unicode-space fact", `{"cases": [{"name": "a", "facts": ["\u3000\u00a0\u2003"], "queries": [{"query": "q"}]}]}`, false},
	{"empty query", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": ""}]}]}`, false},
	{"index out of range", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expect": [1]}]}]}`, false},
	{"negative index", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expect": [0], "must_exclude": [-1]}]}]}`, false},
	{"index overflows int", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "expect": [1e30]}]}]}`, false},
	{"include without expect", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "must_include": [0]}]}]}`, false},
	{"expected and excluded", `{"cases": [{"name": "a", "facts": ["f", "g"], "queries": [{"query": "q", "expect": [0], "must_exclude": [0]}]}]}`, false},
	{"negative k", `{"cases": [{"name": "a", "facts": ["f"], "queries": [{"query": "q", "k": -1}]}]}`, false},
	{"deep nesting", strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000), false},
}

// checkParsedCases checks what ParseCases promises of a file it accepts, and that the file
// runs through the stub arm and survives a JSON round trip unchanged.
func checkParsedCases(t *testing.T, input []byte, cf *CaseFile) {
	t.Helper()
	if len(cf.Cases) == 0 {
		t.Fatalf("ParseCases(%q) accepted a file with no cases", input)
	}
	names := map[string]bool{}
	queries := 0
	for _, c := range cf.Cases {
		if c.Name == "" || names[c.Name] {
			t.Errorf("ParseCases(%q) accepted case name %q (empty or repeated)", input, c.Name)
		}
		names[c.Name] = true
		if len(c.Queries) == 0 {
			t.Errorf("ParseCases(%q) accepted case %q without queries", input, c.Name)
		}
		for _, f := range c.Facts {
			if strings.TrimSpace(f) == "" {
				t.Errorf("ParseCases(%q) accepted an empty fact in case %q", input, c.Name)
			}
		}
		for _, q := range c.Queries {
			queries++
			if strings.TrimSpace(q.Query) == "" || q.K < 0 {
				t.Errorf("ParseCases(%q) accepted query %+v", input, q)
			}
			for _, i := range slices.Concat(q.Expect, q.MustInclude, q.MustExclude) {
				if i < 0 || i >= len(c.Facts) {
					t.Errorf("ParseCases(%q) accepted index %d over %d facts", input, i, len(c.Facts))
				}
			}
			if q.Unrelated() && len(q.MustInclude) > 0 {
				t.Errorf("ParseCases(%q) accepted must_include without expect: %+v", input, q)
			}
		}
	}
	rep, err := RunCases(context.Background(), cf, StubRetrieve, CaseRunOptions{Arm: "stub"})
	if err != nil {
		t.Fatalf("RunCases(stub) on an accepted file %q: %v", input, err)
	}
	if rep.Summary.Queries != queries || rep.Summary.Passed+rep.Summary.Failed != queries {
		t.Errorf("RunCases(stub) summary = %+v, want %d queries, each passed or failed", rep.Summary, queries)
	}
	b, err := json.Marshal(cf)
	if err != nil {
		t.Fatalf("marshal an accepted case file: %v", err)
	}
	again, err := ParseCases(b)
	if err != nil {
		t.Fatalf("ParseCases(json.Marshal(ParseCases(%q))) error = %v, want the file back", input, err)
	}
	if diff := cmp.Diff(cf, again); diff != "" {
		t.Errorf("case file changed over a JSON round trip (-first +second):\n%s", diff)
	}
}

func TestParseCasesHostileInputs(t *testing.T) {
	for _, tc := range parseCasesInputs {
		t.Run(tc.name, func(t *testing.T) {
			cf, err := ParseCases([]byte(tc.json))
			if got := err == nil; got != tc.wantOK {
				t.Fatalf("ParseCases(%q) error = %v; accepted = %v, want %v", tc.json, err, got, tc.wantOK)
			}
			if err != nil {
				if !errors.Is(err, ErrBadCase) {
					t.Errorf("ParseCases(%q) error = %v, want %v", tc.json, err, ErrBadCase)
				}
				return
			}
			checkParsedCases(t, []byte(tc.json), cf)
		})
	}
}

func FuzzParseCases(f *testing.F) {
	for _, tc := range parseCasesInputs {
		f.Add([]byte(tc.json))
	}
	if b, err := os.ReadFile(filepath.Join(caseDir, "bilingual.json")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		cf, err := ParseCases(input)
		if err != nil {
			if !errors.Is(err, ErrBadCase) {
				t.Fatalf("ParseCases(%q) error = %v, want %v", input, err, ErrBadCase)
			}
			return
		}
		checkParsedCases(t, input, cf)
	})
}

// TestLoadCasesHostileFiles drives the file loader itself: what cannot be read is an
// error that names the file, never a panic.
func TestLoadCasesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		wantErr error
	}{
		{"missing file", filepath.Join(dir, "missing.json"), os.ErrNotExist},
		{"a folder", dir, nil},
		{"binary", write("binary.json", []byte{0x7f, 'E', 'L', 'F', 0, 0, 0xff}), ErrBadCase},
		{"invalid utf-8", write("latin1.json", []byte("{\"name\": \"caf\xe9\"}")), ErrBadCase},
		{"utf-16", write("utf16.json", []byte{0xff, 0xfe, '{', 0, '}', 0}), ErrBadCase},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadCases(tc.path)
			if err == nil {
				t.Fatalf("LoadCases(%s) = nil error, want one", tc.path)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("LoadCases(%s) error = %v, want %v", tc.path, err, tc.wantErr)
			}
		})
	}
}
