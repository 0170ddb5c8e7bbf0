package hostile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseList(t *testing.T) {
	got, err := ParseList([]byte("# queries\n\"a\\x00b\"\n\n\"\\xff\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a\x00b", "\xff"}, got); diff != "" {
		t.Errorf("ParseList (-want +got):\n%s", diff)
	}
	if _, err := ParseList([]byte("not quoted\n")); err == nil {
		t.Error("an unquoted line was accepted")
	}
}
