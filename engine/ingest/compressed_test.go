package ingest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestParseReadsCompressedFiles: a gzip or bzip2 file is imported as the file it holds,
// README.md.gz as README.md (its Markdown title and headings), under its own path and hash.
func TestParseReadsCompressedFiles(t *testing.T) {
	md, err := os.ReadFile("testdata/notes.md")
	if err != nil {
		t.Fatal(err)
	}
	bz, err := os.ReadFile("testdata/notes.md.bz2") // bzip2 -k -c notes.md: Go writes no bzip2
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse("docs/notes.md", md, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"notes.md.gz": gzipped(t, md), "notes.md.bz2": bz} {
		path := filepath.Join("docs", name)
		doc, err := Parse(path, data, Limits{})
		if err != nil {
			t.Fatalf("Parse(%s): %v", name, err)
		}
		if doc.Path != path || doc.Hash == want.Hash {
			t.Errorf("%s: path %q, hash %s; want its own path and the hash of its own bytes", name, doc.Path, doc.Hash)
		}
		if doc.Format != "markdown" || doc.Title != want.Title || doc.Text != want.Text {
			t.Errorf("%s: format %q, title %q; want markdown, %q and the text of notes.md", name, doc.Format, doc.Title, want.Title)
		}
		if diff := cmp.Diff(want.Chunks, doc.Chunks); diff != "" {
			t.Errorf("%s: chunks differ from notes.md's (-want +got):\n%s", name, diff)
		}
	}

	// A Debian changelog: plain text named by what is left of its name.
	doc, err := Parse("/usr/share/doc/zstd/changelog.Debian.gz", gzipped(t, []byte("zstd (1.5.6) unstable; urgency=medium\n\n  * New upstream release.\n")), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != "text" || doc.Title != "changelog.Debian" || !strings.Contains(doc.Text, "New upstream release") {
		t.Errorf("changelog.Debian.gz: format %q, title %q, text %q", doc.Format, doc.Title, doc.Text)
	}
}

// TestParseRefusesWhatACompressedFileShouldNotHold: an archive of many files, a compressed
// file inside another, a bomb, a broken stream and a picture are each refused, worded.
func TestParseRefusesWhatACompressedFileShouldNotHold(t *testing.T) {
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	body := []byte("hello from inside a tarball\n")
	if err := tw.WriteHeader(&tar.Header{Name: "hello.txt", Mode: 0o644, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	tw.Close()
	text := gzipped(t, []byte(strings.Repeat("a line of ordinary text\n", 2000)))
	cases := []struct {
		name   string
		data   []byte
		lim    Limits
		target error
		says   string
	}{
		{"src.tar.gz", gzipped(t, tarball.Bytes()), Limits{}, ErrBinary, "compressed archive (tar)"},
		{"twice.txt.gz.gz", gzipped(t, gzipped(t, []byte("deep"))), Limits{}, ErrBinary, "gzip file inside a compressed file"},
		{"bomb.txt.gz", gzipped(t, bytes.Repeat([]byte("a"), 3<<20)), Limits{MaxFileBytes: 1 << 20}, ErrTooLarge, "unpacks to more than the 1 MB limit"},
		{"cut.txt.gz", text[:len(text)/2], Limits{}, ErrUnsupported, "not a readable gzip file"},
		{"photo.gz", gzipped(t, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")), Limits{}, ErrBinary, "image (png)"},
	}
	for _, tc := range cases {
		_, err := Parse(tc.name, tc.data, tc.lim)
		if !errors.Is(err, tc.target) || err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Parse(%s) = %v; want %v saying %q", tc.name, err, tc.target, tc.says)
		}
	}
}
