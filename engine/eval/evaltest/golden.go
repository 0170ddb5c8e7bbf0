// Package evaltest holds test helpers for eval reports: golden files that turn a ranking
// change into a reviewed diff.
package evaltest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Golden compares v, as indented JSON, with the golden file at path, or rewrites the file
// when update is set (tests wire it to an -update flag).
func Golden(t testing.TB, path string, v any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("report differs from %s (-want +got):\n%s\nRun go test -update if the change is intended.",
			path, cmp.Diff(string(want), string(got)))
	}
}
