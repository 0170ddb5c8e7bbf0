package engine

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMemoriesRoundTrip exports a store's active memories to Markdown and to JSON, imports
// each file into a new store, and finds the same memories there: text, space and both times;
// a second import adds nothing; superseded memories stay behind.
func TestMemoriesRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := openTestEngine(t)
	add := func(text, space string) int64 {
		t.Helper()
		res, err := src.Remember(ctx, RememberRequest{Text: text, Space: space})
		if err != nil {
			t.Fatal(err)
		}
		return res.FactID
	}
	add("老王喜欢简约风格", "")
	add("CI uses Python 3.12 on the build server", "work")
	add("A note that mentions <!-- memdesk created=x --> in its text", "")
	add("- starts like a list item, ## and like a heading", "家里")
	old := add("The backup runs at 01:00", "work")
	if _, err := src.Remember(ctx, RememberRequest{Text: "The backup runs at 02:00", Space: "work", Supersedes: old}); err != nil {
		t.Fatal(err)
	}
	ex, err := src.ExportMemories(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Memories) != 5 {
		t.Fatalf("exported %d memories, want the 5 active ones: %+v", len(ex.Memories), ex.Memories)
	}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"markdown", func(b *bytes.Buffer) error { return WriteMemoriesMarkdown(b, ex) }},
		{"json", func(b *bytes.Buffer) error { return WriteMemoriesJSON(b, ex) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file bytes.Buffer
			if err := tc.write(&file); err != nil {
				t.Fatal(err)
			}
			read, err := ReadMemories(bytes.NewReader(file.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			dst := openTestEngine(t)
			res, err := dst.ImportMemories(ctx, read, nil)
			if err != nil || res.Added != 5 || len(res.Refused) != 0 {
				t.Fatalf("import = %+v, %v; want 5 added", res, err)
			}
			back, err := dst.ExportMemories(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			sortBySpace := func(ms []ExportedMemory) []ExportedMemory {
				out := slices.Clone(ms)
				// Import writes a space at a time; within a space the order is kept.
				slices.SortStableFunc(out, func(a, b ExportedMemory) int { return strings.Compare(a.Space, b.Space) })
				return out
			}
			if diff := cmp.Diff(sortBySpace(ex.Memories), sortBySpace(back.Memories)); diff != "" {
				t.Errorf("memories after the round trip (-exported +imported):\n%s\nfile:\n%s", diff, file.String())
			}
			again, err := dst.ImportMemories(ctx, read, nil)
			if err != nil || again.Added != 0 || again.Duplicate != 5 {
				t.Errorf("second import = %+v, %v; want 5 already there", again, err)
			}
		})
	}
}

// TestReadMemoriesByHand: a Markdown file a person wrote in the layout, without times, is
// read into memories of the spaces its headings name; broken files are refused with why.
func TestReadMemoriesByHand(t *testing.T) {
	ex, err := ReadMemories(strings.NewReader("# my memories\n\nsome words\n\n- first fact\n\n## work\n\n- second fact\n  continued\n- third <!-- memdesk created=2026-11-30T08:00:00Z -->\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []ExportedMemory{
		{Text: "first fact", Space: "default"},
		{Text: "second fact\ncontinued", Space: "work"},
		{Text: "third", Space: "work", CreatedAt: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)},
	}
	if diff := cmp.Diff(want, ex.Memories); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
	for name, file := range map[string]string{
		"another format": `{"format": "other/2", "memories": []}`,
		"broken json":    `{"format": "memdesk-memories/1", "memories": [`,
		"not utf-8":      "- caf\xe9\n",
		"a bad time":     "- x <!-- memdesk created=yesterday -->\n",
	} {
		if _, err := ReadMemories(strings.NewReader(file)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: ReadMemories error %v, want a bad request", name, err)
		}
	}
}

// FuzzMemoriesMarkdown: any memory a store could hold comes back from Markdown as it was.
func FuzzMemoriesMarkdown(f *testing.F) {
	for _, s := range []string{"老王喜欢简约风格", "- item", "## heading", "x <!-- memdesk created=2026-01-01T00:00:00Z -->", "a\nb", " lead"} {
		f.Add(s, "work")
	}
	f.Fuzz(func(t *testing.T, text, space string) {
		text, err := NormalizeFact(text)
		if err != nil {
			return
		}
		if space, err = validSpace(space); err != nil || strings.ContainsAny(space, "\n\r") || space != strings.TrimSpace(space) {
			return
		}
		at := time.Date(2026, 12, 1, 12, 0, 0, 123000000, time.UTC)
		in := MemoryExport{Format: MemoryExportFormat, Memories: []ExportedMemory{{Text: text, Space: space, CreatedAt: at, UpdatedAt: at}}}
		var b bytes.Buffer
		if err := WriteMemoriesMarkdown(&b, in); err != nil {
			t.Fatal(err)
		}
		out, err := ReadMemories(&b)
		if err != nil {
			t.Fatalf("ReadMemories of what WriteMemoriesMarkdown wrote: %v\n%s", err, b.String())
		}
		if diff := cmp.Diff(in.Memories, out.Memories); diff != "" {
			t.Errorf("round trip (-in +out):\n%s\nfile:\n%s", diff, b.String())
		}
	})
}

// TestMarkdownImportOfManyContinuationLines: a memories file of 2 MB, most of it one memory's
// continuation lines, is read in one pass, in a fraction of a second (it was quadratic: 800
// KB took 165 s of CPU, and 2 MB takes minutes). The long memory is refused for its length;
// the one after it is read whole.
func TestMarkdownImportOfManyContinuationLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("## default\n\n- a memory that never ends\n")
	for b.Len() < 2<<20 {
		b.WriteString("  and then it went on\n")
	}
	b.WriteString("- CI uses Python 3.12\n")
	done := make(chan MemoryExport, 1)
	errc := make(chan error, 1)
	go func() {
		ex, err := readMemoriesMarkdown(b.String())
		if err != nil {
			errc <- err
			return
		}
		done <- ex
	}()
	select {
	case err := <-errc:
		t.Fatal(err)
	case ex := <-done:
		if len(ex.Memories) != 2 || ex.Memories[1].Text != "CI uses Python 3.12" {
			t.Fatalf("read %d memories (last %q), want the long one and CI uses Python 3.12", len(ex.Memories), ex.Memories[len(ex.Memories)-1].Text)
		}
		if n := len(ex.Memories[0].Text); n <= MaxFactBytes {
			t.Errorf("the long memory was read as %d bytes, want more than MaxFactBytes so that it is refused, not cut", n)
		}
		if _, err := NormalizeFact(ex.Memories[0].Text); err == nil {
			t.Error("the long memory passes NormalizeFact; want it refused for its length")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a 2 MB memories file is still being read after 20 s")
	}
}
