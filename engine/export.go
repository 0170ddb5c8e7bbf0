package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memdesk/memdesk/internal/atomicfile"
	"github.com/memdesk/memdesk/store"
)

// A person's memories leave memdesk and come back as a file of their own: JSON for programs,
// Markdown for people (and for editing by hand: a line "- text" added under a space's heading
// is a memory on the next import). Both carry what an active memory is: its text, its space,
// and when it was written and last changed. Superseded and forgotten memories stay behind:
// they are not what the person keeps, and their links to other memories would not survive a
// store they are imported into.

// MemoryExportFormat names the JSON layout; a file of another format is refused.
const MemoryExportFormat = "memdesk-memories/1"

// ExportedMemory is one memory in an export.
type ExportedMemory struct {
	Text      string    `json:"text"`
	Space     string    `json:"space"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// MemoryExport is a set of memories, oldest first.
type MemoryExport struct {
	Format     string           `json:"format"`
	ExportedAt time.Time        `json:"exported_at"`
	Memories   []ExportedMemory `json:"memories"`
}

// ExportMemories returns the active memories of space ("" for every space), oldest first.
func (e *Engine) ExportMemories(ctx context.Context, space string) (MemoryExport, error) {
	facts, err := e.st.ListFacts(ctx, store.FactFilter{Space: strings.TrimSpace(space)})
	if err != nil {
		return MemoryExport{}, fmt.Errorf("export memories: %w", e.damaged(ctx, err))
	}
	out := MemoryExport{Format: MemoryExportFormat, ExportedAt: e.opts.Now().UTC(), Memories: make([]ExportedMemory, 0, len(facts))}
	for _, f := range slices.Backward(facts) { // ListFacts is newest first
		out.Memories = append(out.Memories, exportedMemory(f))
	}
	return out, nil
}

// exportedMemory is a stored fact as an export holds it.
func exportedMemory(f store.Fact) ExportedMemory {
	return ExportedMemory{Text: f.Content, Space: f.Space, CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

// WriteMemoriesFile writes ex to path, whole or not at all (atomicfile): JSON when the name
// ends in .json, else Markdown.
func WriteMemoriesFile(path string, ex MemoryExport) error {
	write := WriteMemoriesMarkdown
	if strings.EqualFold(filepath.Ext(path), ".json") {
		write = WriteMemoriesJSON
	}
	return atomicfile.Write(path, func(w io.Writer) error { return write(w, ex) })
}

// ImportMemoriesResult sums up an import of memories.
type ImportMemoriesResult struct {
	Added     int `json:"added"`
	Duplicate int `json:"duplicate"` // already there, as an active memory of the same space
	// Refused are the memories that could not be stored, each with why ("memory 3: ...").
	Refused []string `json:"refused"`
}

// ImportMemories stores the memories of an export, each in its own space with its own times;
// one that is already there (the same text, active, in the same space) is counted, not
// doubled, so importing a file twice adds nothing. Progress gets the memories done.
func (e *Engine) ImportMemories(ctx context.Context, ex MemoryExport, progress func(done, total int)) (ImportMemoriesResult, error) {
	res := ImportMemoriesResult{Refused: []string{}}
	// Grouped by space, in file order within each, so one batch write serves a space.
	spaces, bySpace := groupBySpace(ex.Memories, func(sp string) string {
		if strings.TrimSpace(sp) == "" {
			return "default"
		}
		return sp
	})
	done := 0
	for _, sp := range spaces {
		at := bySpace[sp]
		items := make([]batchItem, len(at))
		for j, i := range at {
			m := ex.Memories[i]
			items[j] = batchItem{text: m.Text, created: m.CreatedAt, updated: m.UpdatedAt}
		}
		base := done
		results, err := e.rememberBatch(ctx, sp, items, func(n int) {
			if progress != nil {
				progress(base+n, len(ex.Memories))
			}
		})
		if err != nil {
			if errors.Is(err, ErrBadRequest) {
				for _, i := range at {
					res.Refused = append(res.Refused, fmt.Sprintf("memory %d: %v", i+1, err))
				}
				done += len(at)
				continue
			}
			return res, fmt.Errorf("import memories into space %q: %w", sp, err)
		}
		for j, r := range results {
			switch {
			case r.Err != "":
				res.Refused = append(res.Refused, fmt.Sprintf("memory %d: %s", at[j]+1, r.Err))
			case r.Status == StatusDuplicate:
				res.Duplicate++
			default:
				res.Added++
			}
		}
		done += len(at)
	}
	return res, nil
}

// groupBySpace returns the spaces of ms (as name makes them) in order of first appearance,
// and the indexes of each space's memories, in order.
func groupBySpace(ms []ExportedMemory, name func(string) string) (order []string, bySpace map[string][]int) {
	bySpace = map[string][]int{}
	for i, m := range ms {
		sp := name(m.Space)
		if _, ok := bySpace[sp]; !ok {
			order = append(order, sp)
		}
		bySpace[sp] = append(bySpace[sp], i)
	}
	return order, bySpace
}

// WriteMemoriesJSON writes ex as indented JSON.
func WriteMemoriesJSON(w io.Writer, ex MemoryExport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(ex)
}

// The Markdown layout: a title, one "## space" section per space in order of first
// appearance, and one list item per memory. A memory's further lines are indented two spaces;
// its times follow on its last line in an HTML comment, which Markdown viewers do not show.
const (
	mdTitle      = "# memdesk memories"
	mdMarker     = " <!-- memdesk "
	mdMarkerEnd  = " -->"
	mdItem       = "- "
	mdContinued  = "  "
	mdSpacePrefx = "## "
)

// WriteMemoriesMarkdown writes ex as Markdown that ReadMemories reads back unchanged.
func WriteMemoriesMarkdown(w io.Writer, ex MemoryExport) error {
	bw := bufio.NewWriter(w)
	// Memories of one space together, spaces in order of first appearance.
	order, bySpace := groupBySpace(ex.Memories, func(sp string) string { return sp })
	fmt.Fprintf(bw, "%s\n\nExported %s: %d memories in %d spaces. Import them with `memdesk memories import FILE`;\n"+
		"a line `- text` added under a space's heading is a new memory.\n", mdTitle, ex.ExportedAt.UTC().Format(time.RFC3339),
		len(ex.Memories), len(order))
	for _, sp := range order {
		fmt.Fprintf(bw, "\n%s%s\n\n", mdSpacePrefx, sp)
		for _, i := range bySpace[sp] {
			m := ex.Memories[i]
			lines := strings.Split(m.Text, "\n")
			for i, line := range lines {
				if i == 0 {
					bw.WriteString(mdItem)
				} else {
					bw.WriteString(mdContinued)
				}
				bw.WriteString(line)
				if i < len(lines)-1 {
					bw.WriteByte('\n')
				}
			}
			fmt.Fprintf(bw, "%screated=%s updated=%s%s\n", mdMarker, m.CreatedAt.UTC().Format(time.RFC3339Nano),
				m.UpdatedAt.UTC().Format(time.RFC3339Nano), mdMarkerEnd)
		}
	}
	return bw.Flush()
}

// ReadMemories reads an export written by WriteMemoriesJSON or WriteMemoriesMarkdown (or a
// Markdown file in that layout written by hand). It tells them apart by the first byte.
func ReadMemories(r io.Reader) (MemoryExport, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxMemoryFile+1))
	if err != nil {
		return MemoryExport{}, fmt.Errorf("read memories: %w", err)
	}
	if len(data) > maxMemoryFile {
		return MemoryExport{}, fmt.Errorf("%w: the memories file is over %d MB; split it", ErrBadRequest, maxMemoryFile>>20)
	}
	if !utf8.Valid(data) {
		return MemoryExport{}, fmt.Errorf("%w: the memories file is not UTF-8 text", ErrBadRequest)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		var ex MemoryExport
		if err := json.Unmarshal(data, &ex); err != nil {
			return MemoryExport{}, fmt.Errorf("%w: the memories file is not a memdesk JSON export: %v", ErrBadRequest, err)
		}
		if ex.Format != MemoryExportFormat {
			return MemoryExport{}, fmt.Errorf("%w: the memories file says format %q; this memdesk reads %q", ErrBadRequest, ex.Format, MemoryExportFormat)
		}
		return ex, nil
	}
	return readMemoriesMarkdown(string(data))
}

// maxMemoryFile bounds a memories file: a million short memories.
const maxMemoryFile = 256 << 20

func readMemoriesMarkdown(text string) (MemoryExport, error) {
	ex := MemoryExport{Format: MemoryExportFormat, Memories: []ExportedMemory{}}
	space := "default"
	var cur *ExportedMemory
	// A memory's lines gather in one builder: appending each continuation line to the text
	// so far copied it again every time, and 800 KB of continuation lines took 165 s.
	var lines strings.Builder
	finish := func() error {
		if cur == nil {
			return nil
		}
		body := lines.String()
		lines.Reset()
		if i := strings.LastIndex(body, mdMarker); i >= 0 && strings.HasSuffix(body, mdMarkerEnd) {
			meta := body[i+len(mdMarker) : len(body)-len(mdMarkerEnd)]
			body = body[:i]
			for _, field := range strings.Fields(meta) {
				key, value, _ := strings.Cut(field, "=")
				var at *time.Time
				switch key {
				case "created":
					at = &cur.CreatedAt
				case "updated":
					at = &cur.UpdatedAt
				default:
					continue
				}
				t, err := time.Parse(time.RFC3339Nano, value)
				if err != nil {
					return fmt.Errorf("%w: a memory's %s time %q is not a time: %v", ErrBadRequest, key, value, err)
				}
				*at = t
			}
		}
		cur.Text = body
		ex.Memories = append(ex.Memories, *cur)
		cur = nil
		return nil
	}
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, mdItem):
			if err := finish(); err != nil {
				return MemoryExport{}, fmt.Errorf("line %d: %w", n, err)
			}
			cur = &ExportedMemory{Space: space}
			lines.WriteString(line[len(mdItem):])
		case cur != nil && strings.HasPrefix(line, mdContinued):
			// Past the longest memory there is no point reading on: it will be refused.
			if lines.Len() <= MaxFactBytes+len(mdMarker)+200 {
				lines.WriteString("\n")
				lines.WriteString(line[len(mdContinued):])
			}
		case strings.HasPrefix(line, mdSpacePrefx):
			if err := finish(); err != nil {
				return MemoryExport{}, fmt.Errorf("line %d: %w", n, err)
			}
			space = strings.TrimSpace(line[len(mdSpacePrefx):])
		default:
			// The title, the note under it and blank lines: a memory ends at a line that
			// does not continue it.
			if err := finish(); err != nil {
				return MemoryExport{}, fmt.Errorf("line %d: %w", n+1, err)
			}
		}
	}
	if err := finish(); err != nil {
		return MemoryExport{}, err
	}
	return ex, nil
}
