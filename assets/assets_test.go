package assets

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// The embedded gold set is a copy, because go:embed cannot reach outside this folder; the
// copy must never drift from the cases the CLI and the golden reports use.
func TestBilingualCasesMatchTestdata(t *testing.T) {
	source := filepath.Join("..", "testdata", "eval", "bilingual.json")
	want, err := os.ReadFile(source)
	if err != nil {
		t.Fatalf("read the gold set: %v", err)
	}
	if got := BilingualCases(); !bytes.Equal(got, want) {
		t.Fatalf("assets/eval/bilingual.json (%d bytes) differs from %s (%d bytes); copy it again:\n\tcp testdata/eval/bilingual.json assets/eval/bilingual.json",
			len(got), source, len(want))
	}
}

func TestIconIsAPNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(IconPNG()))
	if err != nil {
		t.Fatalf("decode icon: %v", err)
	}
	if got := img.Bounds().Size(); got.X != 512 || got.Y != 512 {
		t.Errorf("icon size = %v, want 512×512", got)
	}
}
