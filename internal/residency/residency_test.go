package residency

import (
	"runtime"
	"testing"
)

// TestReleaseExecutableData touches the executable's read-only data (the runtime's own
// tables are there: a stack trace reads them) and checks that the call leaves less of it
// resident, and that the program still reads it correctly afterwards.
func TestReleaseExecutableData(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("MADV_PAGEOUT is Linux's")
	}
	buf := make([]byte, 1<<20)
	runtime.Stack(buf, true) // reads pclntab, which lives in the read-only data
	r, err := ReleaseExecutableData()
	if err != nil {
		t.Fatal(err)
	}
	if r.Mapped == 0 || r.ResidentBefore == 0 {
		t.Fatalf("found no resident read-only data in the executable: %+v", r)
	}
	if r.ResidentAfter >= r.ResidentBefore {
		t.Fatalf("resident read-only data did not shrink: %+v", r)
	}
	// Reading it again works: the pages come back from the file.
	n := runtime.Stack(buf, false)
	if n == 0 {
		t.Fatal("no stack after the release")
	}
	t.Logf("%+v", r)
}
