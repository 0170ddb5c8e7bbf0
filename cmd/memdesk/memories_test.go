package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMemoriesExportImport: the CLI writes an export to a file (Markdown by its name) and
// another database takes it back whole; importing it again adds nothing; an export to a
// folder that does not exist fails and leaves nothing behind.
func TestMemoriesExportImport(t *testing.T) {
	bin := memdeskBinary(t)
	a, b := newMemdeskRun(t, bin), newMemdeskRun(t, bin)
	var added struct{}
	for _, fact := range [][]string{{"老王喜欢简约风格"}, {"--space", "work", "CI uses Python 3.12"}, {"The nightly backup runs at 02:00"}} {
		a.mustJSON(t, &added, append([]string{"remember"}, fact...)...)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "memories.md")
	cmd, _, stderr := a.command("memories", "export", "--to", file)
	if err := cmd.Run(); err != nil {
		t.Fatalf("memories export: %v\n%s", err, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.HasPrefix(string(data), "# memdesk memories") || !strings.Contains(string(data), "## work\n\n- CI uses Python 3.12 <!-- memdesk created=") {
		t.Fatalf("export file (%v):\n%s", err, data)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("export file mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	var res struct {
		Added, Duplicate int
		Refused          []string
	}
	b.mustJSON(t, &res, "memories", "import", file)
	if res.Added != 3 || res.Duplicate != 0 || len(res.Refused) != 0 {
		t.Errorf("first import = %+v, want 3 added", res)
	}
	b.mustJSON(t, &res, "memories", "import", file)
	if res.Added != 0 || res.Duplicate != 3 {
		t.Errorf("second import = %+v, want 3 already there", res)
	}
	texts := func(r memdeskRun) []string {
		var out []string
		for _, f := range r.listAll(t) {
			out = append(out, f.Text)
		}
		slices.Sort(out)
		return out
	}
	if got, want := texts(b), texts(a); !slices.Equal(got, want) {
		t.Errorf("imported memories %q, want %q", got, want)
	}
	cmd, _, _ = a.command("memories", "export", "--to", filepath.Join(dir, "missing", "m.json"))
	if err := cmd.Run(); err == nil {
		t.Error("export into a missing folder succeeded")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) != 0 {
		t.Errorf("a failed export left %q", left)
	}
}
