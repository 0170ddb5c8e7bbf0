package ingest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	all := []Candidate{candidate("README.MD"), candidate("a.md"), candidate("sub/b.txt"), candidate("sub/deeper/c.htm")}
	cases := []struct {
		name        string
		paths       []string
		lim         Limits
		want        []Candidate
		wantSkipped []Skipped
	}{
		{
			name:  "folder tree without hidden and unsupported files",
			paths: []string{in("")},
			want:  all,
		},
		{
			name:  "relative and unclean paths come out absolute and clean",
			paths: []string{"testdata/tree/sub/../a.md", "./testdata/tree/sub/deeper/"},
			want:  []Candidate{candidate("a.md"), candidate("sub/deeper/c.htm")},
		},
		{
			name:  "a file named twice or inside a named folder is listed once",
			paths: []string{in("a.md"), in(""), in("a.md")},
			want:  all,
		},
		{
			name:        "named unsupported file is skipped with a reason",
			paths:       []string{in("sub/data.csv")},
			wantSkipped: []Skipped{{Path: in("sub/data.csv"), Reason: `unsupported file type ".csv" (memdesk reads .md, .txt, .html and .pdf)`}},
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
			want:        []Candidate{candidate("sub/b.txt")},
			wantSkipped: []Skipped{{Path: in("sub/deeper/c.htm"), Reason: "file too large (20 bytes > limit 18 bytes)"}},
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
			if diff := cmp.Diff(tc.want, got); diff != "" {
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
	// ext.md and outdir/o.md are the same file: the first one met is kept.
	if diff := cmp.Diff([]string{"a.md", "ext.md"}, gotPaths); diff != "" {
		t.Errorf("Discover() candidates mismatch (-want +got):\n%s", diff)
	}
	var skippedPaths []string
	for _, s := range skipped {
		skippedPaths = append(skippedPaths, strings.TrimPrefix(s.Path, root+string(filepath.Separator)))
		if !strings.HasPrefix(s.Reason, "cannot read: ") {
			t.Errorf("skipped %s: reason %q, want a 'cannot read' reason", s.Path, s.Reason)
		}
	}
	if diff := cmp.Diff([]string{"dangling.md", "self.md"}, skippedPaths); diff != "" {
		t.Errorf("Discover() skipped mismatch (-want +got):\n%s", diff)
	}
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
