package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDiscover(t *testing.T) {
	tree, err := filepath.Abs(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	in := func(rel string) string { return filepath.Join(tree, filepath.FromSlash(rel)) }
	candidate := func(rel string) Candidate {
		info, err := os.Stat(in(rel))
		if err != nil {
			t.Fatal(err)
		}
		return Candidate{Path: in(rel), Size: info.Size()}
	}
	all := []Candidate{candidate("README.MD"), candidate("a.md"), candidate("sub/b.txt"), candidate("sub/data.csv"), candidate("sub/deeper/c.htm")}
	photoSkipped := Skipped{Path: in("sub/photo.png"), Reason: "image (png): not imported"}
	cases := []struct {
		name        string
		paths       []string
		lim         Limits
		want        []Candidate
		wantSkipped []Skipped
	}{
		{
			name:        "folder tree: every text file whatever its extension, no hidden files, binaries said",
			paths:       []string{in("")},
			want:        all,
			wantSkipped: []Skipped{photoSkipped},
		},
		{
			name:  "relative and unclean paths come out absolute and clean",
			paths: []string{"testdata/tree/sub/../a.md", "./testdata/tree/sub/deeper/"},
			want:  []Candidate{candidate("a.md"), candidate("sub/deeper/c.htm")},
		},
		{
			name:        "a file named twice or inside a named folder is listed once",
			paths:       []string{in("a.md"), in(""), in("a.md")},
			want:        all,
			wantSkipped: []Skipped{photoSkipped},
		},
		{
			name:  "named text file of any extension is read",
			paths: []string{in("sub/data.csv")},
			want:  []Candidate{candidate("sub/data.csv")},
		},
		{
			name:        "named binary file is skipped with what it is",
			paths:       []string{in("sub/photo.png")},
			wantSkipped: []Skipped{photoSkipped},
		},
		{
			name:  "named hidden folder is read",
			paths: []string{in(".hidden")},
			want:  []Candidate{candidate(".hidden/secret.md")},
		},
		{
			name:        "files over the limit are skipped with sizes",
			paths:       []string{in("sub")},
			lim:         Limits{MaxFileBytes: 18},
			want:        []Candidate{candidate("sub/b.txt"), candidate("sub/data.csv")},
			wantSkipped: []Skipped{{Path: in("sub/deeper/c.htm"), Reason: "file too large (20 bytes > limit 18 bytes)"}, {Path: in("sub/photo.png"), Reason: "file too large (33 bytes > limit 18 bytes)"}},
		},
		{
			name: "nothing to do",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped, err := Discover(context.Background(), tc.paths, tc.lim)
			if err != nil {
				t.Fatalf("Discover(%q) error: %v", tc.paths, err)
			}
			// Root depends on which path named the file; TestDiscoverSymlinks checks it.
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Candidate{}, "Root")); diff != "" {
				t.Errorf("Discover(%q) candidates mismatch (-want +got):\n%s", tc.paths, diff)
			}
			if diff := cmp.Diff(tc.wantSkipped, skipped); diff != "" {
				t.Errorf("Discover(%q) skipped mismatch (-want +got):\n%s", tc.paths, diff)
			}
		})
	}
}

func TestDiscoverMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	_, _, err := Discover(context.Background(), []string{"testdata/tree", missing}, Limits{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Discover(missing) error = %v, want one naming %q and wrapping fs.ErrNotExist", err, missing)
	}
}

func TestDiscoverCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Discover(ctx, []string{"testdata/tree"}, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Discover(cancelled) error = %v, want %v", err, context.Canceled)
	}
}

// TestDiscoverSymlinks builds links in a temporary folder: a loop back to the root, a link to
// itself, a dangling link, a link to a file outside and one to a file inside the tree.
func TestDiscoverSymlinks(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, dir := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "a.md"), filepath.Join(outside, "o.md")} {
		if err := os.WriteFile(f, []byte("# doc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"sub/loop":    root,                              // folder loop
		"self.md":     filepath.Join(root, "self.md"),    // link to itself
		"dangling.md": filepath.Join(root, "nowhere.md"), // target missing
		"ext.md":      filepath.Join(outside, "o.md"),    // file outside the tree
		"sub/dup.md":  filepath.Join(root, "a.md"),       // same file as a.md
		"outdir":      outside,                           // folder outside the tree
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("cannot create symlinks here: %v", err)
		}
	}
	got, skipped, err := Discover(context.Background(), []string{root}, Limits{})
	if err != nil {
		t.Fatalf("Discover() error: %v", err)
	}
	var gotPaths []string
	for _, c := range got {
		gotPaths = append(gotPaths, strings.TrimPrefix(c.Path, root+string(filepath.Separator)))
	}
	// sub/dup.md is a.md again; ext.md and outdir lead out of the folder and are refused.
	if diff := cmp.Diff([]string{"a.md"}, gotPaths); diff != "" {
		t.Errorf("Discover() candidates mismatch (-want +got):\n%s", diff)
	}
	gotSkipped := map[string]string{}
	for _, s := range skipped {
		gotSkipped[strings.TrimPrefix(s.Path, root+string(filepath.Separator))] = s.Reason
	}
	wantSkipped := map[string]string{
		"dangling.md": "cannot read: no such file or directory",
		"self.md":     "cannot read: too many levels of symbolic links",
		"ext.md":      "symbolic link leads outside the folder you chose: " + filepath.Join(outside, "o.md"),
		"outdir":      "symbolic link leads outside the folder you chose: " + outside,
	}
	if diff := cmp.Diff(wantSkipped, gotSkipped); diff != "" {
		t.Errorf("Discover() skipped mismatch (-want +got):\n%s", diff)
	}

	// A link named directly is the person's choice: followed, and recorded resolved.
	got, skipped, err = Discover(context.Background(), []string{filepath.Join(root, "ext.md")}, Limits{})
	want := []Candidate{{Path: filepath.Join(outside, "o.md"), Root: outside, Size: 6}}
	if err != nil || len(skipped) != 0 || !cmp.Equal(want, got) {
		t.Errorf("Discover(named link) = %+v, skipped %+v, %v; want %+v", got, skipped, err, want)
	}
}

// TestReadWithinRefusesSwappedLinks swaps a file, then its folder, for links out of the root
// after Discover has checked them: the read must refuse both, not follow them.
func TestReadWithinRefusesSwappedLinks(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, dir := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "a.md"), filepath.Join(root, "sub", "b.md")} {
		if err := os.WriteFile(f, []byte("# doc\n\nplain note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "a.md")
	if err := os.WriteFile(secret, []byte("root:secret-hash:19000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "b.md"), []byte("root:secret-hash:19000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cands, _, err := Discover(context.Background(), []string{root}, Limits{})
	if err != nil || len(cands) != 2 {
		t.Fatalf("Discover() = %+v, %v; want 2 candidates", cands, err)
	}
	for _, c := range cands {
		if _, err := new(Parser).ReadFileWithin(context.Background(), c.Root, c.Path, Limits{}); err != nil {
			t.Fatalf("ReadFileWithin(%s) before the swap: %v", c.Path, err)
		}
	}
	// The file becomes a link to the secret.
	if err := os.Remove(filepath.Join(root, "a.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "a.md")); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	// The folder becomes a link to the outside folder, which holds a b.md too.
	if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(base, "sub-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		doc, err := new(Parser).ReadFileWithin(context.Background(), c.Root, c.Path, Limits{})
		if !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("ReadFileWithin(%s) after a link was swapped in = %q, %v; want %v", c.Path, doc.Text, err, ErrOutsideRoot)
		}
	}
	// A file named directly has its own folder as root: swapping that folder is refused too.
	named := filepath.Join(root, "sub", "b.md")
	if _, err := new(Parser).ReadFileWithin(context.Background(), filepath.Join(root, "sub"), named, Limits{}); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("ReadFileWithin(root = a folder swapped for a link) error = %v, want %v", err, ErrOutsideRoot)
	}
}

var withinRootCases = []struct {
	root, path string
	want       bool
}{
	{"/data/notes", "/data/notes", true},
	{"/data/notes", "/data/notes/a.md", true},
	{"/data/notes", "/data/notes/sub/b.md", true},
	{"/data/notes", "/data/notes-old/a.md", false},
	{"/data/notes", "/data", false},
	{"/data/notes", "/etc/passwd", false},
	{"/data/notes", "/data/notes/../secret", false},
	{"/data/notes/", "/data/notes/a.md", true},
	{"/", "/etc/passwd", true},
	{"/data/notes", "relative/a.md", false},
	{"", "/a", false},
}

func TestWithinRoot(t *testing.T) {
	for _, tc := range withinRootCases {
		t.Run(tc.root+" "+tc.path, func(t *testing.T) {
			if got := WithinRoot(tc.root, tc.path); got != tc.want {
				t.Errorf("WithinRoot(%q, %q) = %v, want %v", tc.root, tc.path, got, tc.want)
			}
		})
	}
}

// FuzzWithinRoot checks WithinRoot against filepath.Rel, a different way to ask the same
// question: under root exactly when the relative path does not climb out.
func FuzzWithinRoot(f *testing.F) {
	for _, tc := range withinRootCases {
		f.Add(tc.root, tc.path)
	}
	f.Fuzz(func(t *testing.T, root, path string) {
		got := WithinRoot(root, path)
		if !filepath.IsAbs(root) || !filepath.IsAbs(path) {
			if got {
				t.Fatalf("WithinRoot(%q, %q) = true for a relative path", root, path)
			}
			return
		}
		rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
		want := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		if got != want {
			t.Fatalf("WithinRoot(%q, %q) = %v, but filepath.Rel gives %q, %v", root, path, got, rel, err)
		}
		if got && !WithinRoot(root, filepath.Dir(path)) && filepath.Clean(path) != filepath.Clean(root) {
			t.Fatalf("WithinRoot(%q, %q) but not its folder %q", root, path, filepath.Dir(path))
		}
	})
}

func TestDiscoverUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	if err := os.Mkdir(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	_, skipped, err := Discover(context.Background(), []string{root}, Limits{})
	if err != nil {
		t.Fatalf("Discover() error: %v", err)
	}
	if len(skipped) != 1 || skipped[0].Path != locked || !strings.Contains(skipped[0].Reason, "permission denied") {
		t.Errorf("Discover() skipped = %+v, want %s with permission denied", skipped, locked)
	}
}

// BenchmarkDiscover measures finding the documents of a folder of 200 files, whose first
// kilobytes Discover now reads to tell text from binary.
func BenchmarkDiscover(b *testing.B) {
	dir := b.TempDir()
	for i := range 200 {
		data := []byte(strings.Repeat("a line of a note\n", 100))
		if i%4 == 0 {
			data = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), data...)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Discover(context.Background(), []string{dir}, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
