//go:build unix

package engine

// Hostile input through the engine's real paths (issue 8): the corpus in testdata/hostile
// plus files made at run time (50 MB, 1 GB sparse, symlink loops, an unreadable file, a FIFO,
// a name with a newline), queries made of FTS5 syntax, 100 KB queries, every Unicode space
// and combining mark, and injection strings as text, query, space and path. Each input must
// get a clear outcome, the rest of the import must go on, and nothing else may change.
// doc/reliability.md records the figures; testdata/hostile/README.md lists the inputs.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/ncruces/go-sqlite3/driver"

	"github.com/memdesk/memdesk/engine/ingest"
	"github.com/memdesk/memdesk/internal/hostile"
)

var hostileDir = filepath.Join("..", "testdata", "hostile")

// readHostileList reads one of the corpus's .list files: one Go double-quoted string per
// line, # comments and blank lines ignored, so NUL and raw bytes can be written.
func readHostileList(t testing.TB, name string) []string {
	t.Helper()
	out, err := hostile.ReadList(filepath.Join(hostileDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// everyUnicodeSpace is every White_Space or Zs character, plus the invisible format
// characters that people paste as spaces (no White_Space property, so memdesk keeps them).
func everyUnicodeSpace() []rune {
	var out []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) {
			out = append(out, r)
		}
	}
	return append(out, '\u180e', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff')
}

// everyCombiningMark is every nonspacing, spacing and enclosing combining mark (Mn, Mc, Me).
func everyCombiningMark() []rune {
	var out []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) {
			out = append(out, r)
		}
	}
	return out
}

// engineSnapshot is everything a hostile input must leave alone.
type engineSnapshot struct {
	Facts  []FactView
	Docs   map[string]int // path -> chunks
	Schema []string       // sqlite_master entries
}

func snapshotEngine(t *testing.T, e *Engine) engineSnapshot {
	t.Helper()
	ctx := context.Background()
	checkEngineIntegrity(t, e)
	facts, err := e.List(ctx, ListRequest{All: true})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	docs, err := e.KBList(ctx, "")
	if err != nil {
		t.Fatalf("KBList: %v", err)
	}
	s := engineSnapshot{Facts: facts.Facts, Docs: map[string]int{}, Schema: sqliteSchema(t, e.Path())}
	for _, d := range docs.Documents {
		s.Docs[d.Path] = d.Chunks
	}
	return s
}

func checkEngineIntegrity(t *testing.T, e *Engine) {
	t.Helper()
	res, err := e.Admin(context.Background(), AdminRequest{Action: "integrity"})
	if err != nil || !res.OK {
		t.Fatalf("integrity = %+v, %v; want ok", res, err)
	}
}

// sqliteSchema lists the database's tables, indexes and triggers through a separate
// read-only connection, so a dropped or added table shows whatever the engine says.
func sqliteSchema(t *testing.T, path string) []string {
	t.Helper()
	db, err := driver.Open("file:" + path + "?mode=ro")
	if err != nil {
		t.Fatalf("open %s read-only: %v", path, err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT type || ' ' || name FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatalf("read schema: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(out, "table facts") || !slices.Contains(out, "table chunks") {
		t.Fatalf("schema %q has no facts or chunks table", out)
	}
	return out
}

// copyHostileCorpus copies the committed corpus (its regular files) into a new folder.
func copyHostileCorpus(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "hostile")
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if !en.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(hostileDir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, en.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// writeBigText writes a text file of about size bytes: paragraphs of numbered lines of
// words, with marker on the last line so a recall can prove the end of the file was indexed.
func writeBigText(t testing.TB, path string, size int, marker string) {
	t.Helper()
	var block bytes.Buffer
	for line := range 200 {
		fmt.Fprintf(&block, "Line %d of the big file talks about harbour%d, tide tables and the keeper's ledger.\n", line, line%97)
		if line%20 == 19 {
			block.WriteByte('\n')
		}
	}
	tail := fmt.Sprintf("\nThe last line names the %s.\n", marker)
	data := bytes.Repeat(block.Bytes(), (size-len(tail))/block.Len())
	data = append(data, tail...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// makeSparse creates a file of size bytes that holds no data blocks.
func makeSparse(t testing.TB, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("this file system cannot hold a %d-byte sparse file: %v", size, err)
	}
}

// addGeneratedHostileFiles adds the inputs too big or too odd to commit. It reports whether
// the unreadable file really is unreadable (not when running as root).
func addGeneratedHostileFiles(t *testing.T, dir string) (unreadable bool) {
	t.Helper()
	writeBigText(t, filepath.Join(dir, "big-50mb.txt"), 50<<20, "sandpiper")
	makeSparse(t, filepath.Join(dir, "sparse-1gb.md"), 1<<30)
	mustSymlink := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustSymlink(".", "loop-self")        // a folder link to itself
	mustSymlink("..", "sub/loop-up")     // a folder link back up the tree
	mustSymlink("self.md", "self.md")    // a file link to itself: ELOOP
	mustSymlink("ping.md", "pong.md")    // two links to each other
	mustSymlink("pong.md", "ping.md")    //
	mustSymlink("missing.md", "gone.md") // dangling
	mustSymlink("../good-note.md", "sub/alias.md")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "line\nbreak.md"), []byte("# Newline\n\nA file whose name holds a newline mentions the cormorant.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "long-line.md"), bytes.Repeat([]byte("x"), longLineBytes()), 0o600); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "unreadable.md")
	if err := os.WriteFile(locked, []byte("The pelican secret.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o600) })
	if os.Geteuid() == 0 {
		t.Log("running as root: chmod 000 does not stop root from reading, so unreadable.md is expected to import; run as a normal user to check the permission error")
		return false
	}
	return true
}

// longLineBytes is the size of the one-word file: 1 MiB, or 128 KiB under -short.
func longLineBytes() int {
	if testing.Short() {
		return 128 << 10
	}
	return 1 << 20
}

// importWant is the expected outcome of one file, by base name; reason is a substring.
type importWant struct {
	Outcome string
	Reason  string
}

func hostileImportWants(unreadable bool) map[string]importWant {
	w := map[string]importWant{
		"README.md":           {ImportAdded, ""},
		"good-note.md":        {ImportAdded, ""},
		"crlf-bom.md":         {ImportAdded, ""},
		"ansi-escapes.md":     {ImportAdded, ""},
		"unicode-spaces.md":   {ImportAdded, ""},
		"combining-marks.txt": {ImportAdded, ""},
		"html-bomb.html":      {ImportAdded, ""},
		"long-line.md":        {ImportAdded, ""},
		"line\nbreak.md":      {ImportAdded, ""},
		"invalid-utf8.md":     {ImportAdded, ""},
		"nul-bytes.txt":       {ImportSkipped, "binary file: not imported"},
		"binary-renamed.md":   {ImportSkipped, "image (png): not imported"},
		"utf16.txt":           {ImportAdded, ""},
		"empty.md":            {ImportSkipped, "empty or only whitespace"},
		"spaces-only.md":      {ImportSkipped, "empty or only whitespace"},
		"no-text-layer.pdf":   {ImportSkipped, "no extractable text"},
		"big-50mb.txt":        {ImportSkipped, "file too large (50 MB > limit 20 MB)"},
		"sparse-1gb.md":       {ImportSkipped, "file too large (1024 MB > limit 20 MB)"},
		"fifo.md":             {ImportSkipped, "not a regular file"},
		"self.md":             {ImportSkipped, "too many levels of symbolic links"},
		"ping.md":             {ImportSkipped, "too many levels of symbolic links"},
		"pong.md":             {ImportSkipped, "too many levels of symbolic links"},
		"gone.md":             {ImportSkipped, "no such file or directory"},
		"report.docx":         {ImportSkipped, "is not a readable Word document (zip: not a valid zip file)"},
		"queries.list":        {ImportAdded, ""},
		"escapes.list":        {ImportAdded, ""},
		"injection.list":      {ImportAdded, ""},
		"unreadable.md":       {ImportAdded, ""},
	}
	if unreadable {
		w["unreadable.md"] = importWant{ImportSkipped, "permission denied"}
	}
	return w
}

// checkImportOutcomes compares an import's per-file outcomes with want, by base name.
func checkImportOutcomes(t *testing.T, res KBAddResult, want map[string]importWant) {
	t.Helper()
	got := map[string]importWant{}
	for _, f := range res.Files {
		name := filepath.Base(f.Path)
		if _, dup := got[name]; dup {
			t.Errorf("%q reported twice", name)
		}
		w, ok := want[name]
		if ok && w.Reason != "" && strings.Contains(f.Reason, w.Reason) {
			// The reason says what was wanted; keep the substring so only outcomes differ.
			got[name] = importWant{f.Outcome, w.Reason}
			continue
		}
		got[name] = importWant{f.Outcome, f.Reason}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("import outcomes by file (-want +got; a want reason is a substring):\n%s", diff)
	}
}

// TestHostileImport imports the hostile corpus folder through KBAdd and checks each file's
// outcome, that the good files around the bad ones were imported and can be recalled, and
// that nothing already stored changed. The corpus includes a 50 MB file and a 1 GB sparse
// file, both refused by size before a byte is read.
func TestHostileImport(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	keep := remember(t, e, "", "The harbour master keeps the tide ledger in room 7")
	seedDir := filepath.Join(t.TempDir(), "seed")
	if err := os.Mkdir(seedDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seedDir, "seed.md"), []byte("# Seed\n\nThe seed note mentions the osprey.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{seedDir}}); err != nil {
		t.Fatal(err)
	}
	before := snapshotEngine(t, e)

	dir := copyHostileCorpus(t)
	unreadable := addGeneratedHostileFiles(t, dir)
	docx := filepath.Join(t.TempDir(), "report.docx")
	if err := os.WriteFile(docx, []byte("PK\x03\x04 not really a docx"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir, docx}})
	if err != nil {
		t.Fatalf("KBAdd(hostile corpus): %v", err)
	}
	took := time.Since(start)
	want := hostileImportWants(unreadable)
	checkImportOutcomes(t, res, want)
	if res.Failed != 0 {
		t.Errorf("failed = %d, want 0: every hostile file is skipped with a reason or imported", res.Failed)
	}
	for _, f := range res.Files {
		if f.Outcome == ImportSkipped && !strings.Contains(f.Reason, " ") {
			t.Errorf("%q skipped with reason %q; want a sentence a person can act on", f.Path, f.Reason)
		}
	}
	t.Logf("hostile import: %d files (%d added, %d skipped, %d failed) in %s", len(res.Files), res.Added, res.Skipped, res.Failed, took.Round(time.Millisecond))

	after := snapshotEngine(t, e)
	if diff := cmp.Diff(before.Facts, after.Facts); diff != "" {
		t.Errorf("facts changed by the import (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(before.Schema, after.Schema); diff != "" {
		t.Errorf("schema changed by the import (-before +after):\n%s", diff)
	}
	for path, chunks := range before.Docs {
		if after.Docs[path] != chunks {
			t.Errorf("document %s has %d chunks after the import, want %d as before", path, after.Docs[path], chunks)
		}
	}
	if got, want := len(after.Docs), len(before.Docs)+res.Added; got != want {
		t.Errorf("%d documents after the import, want %d (before) + %d (added)", got, len(before.Docs), res.Added)
	}
	if f, err := e.Fact(ctx, keep); err != nil || f.Text != "The harbour master keeps the tide ledger in room 7" {
		t.Errorf("Fact(%d) = %+v, %v; want the seeded text unchanged", keep, f, err)
	}
	if got := filepath.Join(dir, "sub", "line\nbreak.md"); after.Docs[got] == 0 {
		t.Errorf("the file named with a newline is not listed under its exact path %q", got)
	}

	for _, tc := range []struct{ query, wantFile string }{
		{"zephyrine tide", "good-note.md"},
		{"quokka nesting", "html-bomb.html"},
		{"albatross", "unicode-spaces.md"},
		{"narwhal", "combining-marks.txt"},
		{"marmot CRLF", "crlf-bom.md"},
		{"red heron", "ansi-escapes.md"},
		{"cormorant", "line\nbreak.md"},
		{"osprey", "seed.md"},
	} {
		t.Run("recall "+tc.query, func(t *testing.T) {
			res, err := e.Recall(ctx, RecallRequest{Query: tc.query, Source: SourceKnowledge})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || res.Hits[0].Doc == nil || filepath.Base(res.Hits[0].Doc.Path) != tc.wantFile {
				t.Errorf("Recall(%q) hits = %+v; want %s first", tc.query, res.Hits, tc.wantFile)
			}
		})
	}
	chunks, err := e.KBChunks(ctx, docIDByName(t, e, "long-line.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if n := len([]rune(c.Text)); n > 800 {
			t.Errorf("long-line.md chunk %d has %d runes, over the 800 limit", c.Ordinal, n)
		}
	}
	if len(chunks) < longLineBytes()/800 {
		t.Errorf("long-line.md (%d bytes, one word) has %d chunks, want at least %d", longLineBytes(), len(chunks), longLineBytes()/800)
	}

	// A second import of the same folder changes nothing: same reasons, nothing re-added.
	again, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir, docx}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added+again.Updated+again.Failed != 0 || again.Unchanged != res.Added || again.Skipped != res.Skipped {
		t.Errorf("re-import = added %d, updated %d, unchanged %d, skipped %d, failed %d; want only %d unchanged and %d skipped",
			again.Added, again.Updated, again.Unchanged, again.Skipped, again.Failed, res.Added, res.Skipped)
	}
	if diff := cmp.Diff(after, snapshotEngine(t, e)); diff != "" {
		t.Errorf("re-import changed the database (-first +second):\n%s", diff)
	}
}

func docIDByName(t *testing.T, e *Engine, name string) int64 {
	t.Helper()
	docs, err := e.KBList(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs.Documents {
		if filepath.Base(d.Path) == name {
			return d.ID
		}
	}
	t.Fatalf("no document named %s", name)
	return 0
}

// TestHostileImportHuge imports the 50 MB text file and the 1 GB sparse file with the size
// limit raised above them, so they are really read: the text must be chunked and findable
// to its last line, the sparse file (all NUL bytes) skipped as binary.
func TestHostileImportHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50 MB and 1 GB; run without -short")
	}
	ctx := context.Background()
	e, err := Open(ctx, filepath.Join(t.TempDir(), "memdesk.db"), Options{Import: ingest.Limits{MaxFileBytes: 2 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	keep := remember(t, e, "", "The harbour master keeps the tide ledger in room 7")
	before := snapshotEngine(t, e)
	dir := t.TempDir()
	big := filepath.Join(dir, "big-50mb.txt")
	writeBigText(t, big, 50<<20, "sandpiper")
	sparse := filepath.Join(dir, "sparse-1gb.md")
	makeSparse(t, sparse, 1<<30)

	for _, tc := range []struct {
		name, path string
		want       importWant
	}{
		{"50 MB text", big, importWant{ImportAdded, ""}},
		{"1 GB sparse", sparse, importWant{ImportSkipped, "binary file: not imported"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			start := time.Now()
			res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{tc.path}})
			took := time.Since(start)
			runtime.ReadMemStats(&ms1)
			if err != nil {
				t.Fatalf("KBAdd(%s): %v", tc.path, err)
			}
			checkImportOutcomes(t, res, map[string]importWant{filepath.Base(tc.path): tc.want})
			chunks := 0
			if len(res.Files) == 1 {
				chunks = res.Files[0].Chunks
			}
			t.Logf("%s: %s, %d chunks, %d MB allocated, heap peak %d MB", tc.name, took.Round(time.Millisecond),
				chunks, (ms1.TotalAlloc-ms0.TotalAlloc)>>20, ms1.HeapSys>>20)
		})
	}
	res, err := e.Recall(ctx, RecallRequest{Query: "sandpiper", Source: SourceKnowledge})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Doc == nil || filepath.Base(res.Hits[0].Doc.Path) != "big-50mb.txt" {
		t.Errorf("Recall(sandpiper) = %+v; want the last line of the 50 MB file", res.Hits)
	}
	after := snapshotEngine(t, e)
	if diff := cmp.Diff(before.Facts, after.Facts); diff != "" {
		t.Errorf("facts changed by the import (-before +after):\n%s", diff)
	}
	if f, err := e.Fact(ctx, keep); err != nil || f.Text != "The harbour master keeps the tide ledger in room 7" {
		t.Errorf("Fact(%d) = %+v, %v; want the seeded text unchanged", keep, f, err)
	}
}

// hundredKB repeats unit to 100 KiB; a rune cut in half at the end is dropped.
func hundredKB(unit string) string {
	return strings.ToValidUTF8(strings.Repeat(unit, (100<<10)/len(unit)+1)[:100<<10], "")
}

// hostileQueries is every query the query tests send: the corpus's queries and injection
// strings, each Unicode space and combining mark alone, and 100 KB queries.
func hostileQueries(t *testing.T) []string {
	t.Helper()
	qs := readHostileList(t, "queries.list")
	qs = append(qs, readHostileList(t, "injection.list")...)
	spaces := everyUnicodeSpace()
	for _, r := range spaces {
		qs = append(qs, string(r), "lighthouse"+string(r)+"keeper")
	}
	qs = append(qs, string(spaces))
	marks := everyCombiningMark()
	step := 1
	if testing.Short() {
		step = 10 // every tenth mark alone; all of them together below either way
	}
	for i := 0; i < len(marks); i += step {
		qs = append(qs, string(marks[i]))
	}
	qs = append(qs, string(marks), "lighthouse"+string(marks[:50])+" keeper")
	var distinct strings.Builder
	for i := 0; distinct.Len() < 100<<10; i++ {
		fmt.Fprintf(&distinct, "word%d ", i)
	}
	var invalid bytes.Buffer
	for i := 0; invalid.Len() < 100<<10; i++ {
		invalid.WriteByte(byte(0x80 + i%64))
		invalid.WriteString("lighthouse ")
	}
	return append(qs,
		hundredKB("lighthouse keeper "),
		hundredKB("灯塔看守人记录潮汐"),
		strings.Repeat("a", 100<<10),
		distinct.String(),
		hundredKB(`"( AND OR NOT NEAR * ^ - :col {a} `),
		hundredKB(string(marks[:200])),
		hundredKB(string(spaces)),
		hundredKB("\x00"),
		invalid.String(),
	)
}

// TestHostileQueries sends every hostile query through Recall: each must answer (hits or
// none) or, only when nothing but white space was typed, be refused as a bad request. No
// SQL error may escape, and the database must not change. Latency is reported, not asserted.
func TestHostileQueries(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	ctx := context.Background()
	e := openTestEngine(t)
	keep := remember(t, e, "", "The lighthouse keeper logs the tide every evening")
	remember(t, e, "", "灯塔看守人每天记录潮汐")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{filepath.Join(hostileDir, "good-note.md")}}); err != nil {
		t.Fatal(err)
	}
	before := snapshotEngine(t, e)

	queries := hostileQueries(t)
	var (
		slowest     time.Duration
		slowestQ    string
		total       time.Duration
		hits, empty int
		refused     int
	)
	for i, q := range queries {
		for _, source := range []Source{SourceAll, SourceKnowledge} {
			start := time.Now()
			res, err := e.Recall(ctx, RecallRequest{Query: q, Source: source})
			took := time.Since(start)
			total += took
			if took > slowest {
				slowest, slowestQ = took, q
			}
			switch {
			case err == nil && len(res.Hits) > 0:
				hits++
			case err == nil:
				empty++
			case errors.Is(err, ErrBadRequest) && strings.TrimSpace(q) == "":
				refused++
			default:
				t.Errorf("query %d (%d bytes, %.40q) source %s: err = %v; want hits or none (a bad request only for an all-space query)", i, len(q), q, source, err)
			}
		}
	}
	if len(slowestQ) > 40 {
		slowestQ = fmt.Sprintf("%.40q... (%d bytes)", slowestQ, len(slowestQ))
	}
	t.Logf("hostile queries: %d queries x 2 sources: %d with hits, %d empty, %d refused as empty; total %s, slowest %s (%s)",
		len(queries), hits, empty, refused, total.Round(time.Millisecond), slowest.Round(time.Millisecond), slowestQ)

	got := recallIDs(t, e, RecallRequest{Query: "lighthouse\u3000keeper", Source: SourceMemory})
	if !slices.Contains(got, keep) {
		t.Errorf("Recall(lighthouse<U+3000>keeper) = %v; want fact %d: an ideographic space separates words", got, keep)
	}
	if diff := cmp.Diff(before, snapshotEngine(t, e)); diff != "" {
		t.Errorf("queries changed the database (-before +after):\n%s", diff)
	}
}

// TestHostileFactText remembers each Unicode space and combining mark inside and around a
// fact: spaces separate words (and all-space text is refused), marks are stored as written.
func TestHostileFactText(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	for _, r := range everyUnicodeSpace() {
		text := "tern" + string(r) + "colony " + strconv.QuoteRuneToASCII(r)
		want, nerr := NormalizeFact(text)
		res, err := e.Remember(ctx, RememberRequest{Text: text})
		if nerr != nil || err != nil {
			t.Errorf("Remember(%q) = %v (normalize: %v); want it stored", text, err, nerr)
			continue
		}
		if f, err := e.Fact(ctx, res.FactID); err != nil || f.Text != want {
			t.Errorf("Fact(%d) = %q, %v; want %q", res.FactID, f.Text, err, want)
		}
		if _, err := e.Remember(ctx, RememberRequest{Text: string(r) + string(r)}); unicode.IsSpace(r) && !errors.Is(err, ErrInvalidText) {
			t.Errorf("Remember(%q twice) err = %v, want %v: nothing but white space", string(r), err, ErrInvalidText)
		}
	}
	marks := everyCombiningMark()
	for _, text := range []string{string(marks[:1]), string(marks), "Z" + string(marks[:30]) + "algo"} {
		res, err := e.Remember(ctx, RememberRequest{Text: text})
		if err != nil {
			t.Errorf("Remember(%d combining marks) = %v; want stored as written", len([]rune(text)), err)
			continue
		}
		want, _ := NormalizeFact(text)
		if f, err := e.Fact(ctx, res.FactID); err != nil || f.Text != want {
			t.Errorf("Fact(%d) text changed: %q, %v; want %q", res.FactID, f.Text, err, want)
		}
	}
	checkEngineIntegrity(t, e)
}

// TestHostileInjection uses each injection string as remember text, recall query, space name
// and file name (and as a path argument): each is stored and shown as data, or refused with
// a clear error; the schema stays as it was and every text round-trips.
func TestHostileInjection(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	keep := remember(t, e, "", "The harbour master keeps the tide ledger in room 7")
	before := snapshotEngine(t, e)
	docDir := filepath.Join(t.TempDir(), "docs")
	if err := os.Mkdir(docDir, 0o700); err != nil {
		t.Fatal(err)
	}
	injections := readHostileList(t, "injection.list")
	wantPaths := map[string]bool{}
	for i, s := range injections {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			// As text.
			res, err := e.Remember(ctx, RememberRequest{Text: s})
			if err != nil {
				t.Fatalf("Remember(%q): %v", s, err)
			}
			want, _ := NormalizeFact(s)
			if f, err := e.Fact(ctx, res.FactID); err != nil || f.Text != want {
				t.Errorf("Fact(%d) = %q, %v; want %q", res.FactID, f.Text, err, want)
			}
			list, err := e.List(ctx, ListRequest{Filter: s})
			if err != nil {
				t.Fatalf("List(filter %q): %v", s, err)
			}
			var found []string
			for _, f := range list.Facts {
				found = append(found, f.Text)
				if !strings.Contains(strings.ToLower(f.Text), strings.ToLower(want)) {
					t.Errorf("List(filter %q) returned %q, which does not contain it: the filter was read as a pattern", s, f.Text)
				}
			}
			if !slices.Contains(found, want) {
				t.Errorf("List(filter %q) = %q; want the fact itself", s, found)
			}
			// As a query.
			if _, err := e.Recall(ctx, RecallRequest{Query: s}); err != nil {
				t.Errorf("Recall(%q): %v", s, err)
			}
			// As a space name.
			sres, err := e.Remember(ctx, RememberRequest{Text: "kittiwake nest count " + fmt.Sprint(i), Space: s})
			if err != nil {
				t.Fatalf("Remember(space %q): %v", s, err)
			}
			inSpace, err := e.List(ctx, ListRequest{Space: s})
			if err != nil {
				t.Fatal(err)
			}
			if len(inSpace.Facts) != 1 || inSpace.Facts[0].ID != sres.FactID || inSpace.Facts[0].Space != strings.TrimSpace(s) {
				t.Errorf("List(space %q) = %+v; want only fact %d in that space", s, inSpace.Facts, sres.FactID)
			}
			if _, err := e.Recall(ctx, RecallRequest{Query: "kittiwake nest", Space: s}); err != nil {
				t.Errorf("Recall(space %q): %v", s, err)
			}
			// As a file name, and as a path argument.
			name := strings.ReplaceAll(s, "/", "\u2215") + ".md"
			path := filepath.Join(docDir, name)
			if err := os.WriteFile(path, []byte(fmt.Sprintf("Injection document %d about the guillemot.\n", i)), 0o600); err != nil {
				t.Fatal(err)
			}
			kres, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}, Space: s})
			if err != nil || kres.Added != 1 {
				t.Errorf("KBAdd(%q) = %+v, %v; want it added", path, kres, err)
			}
			wantPaths[path] = true
			// A path is taken as the person wrote it: "../../../../etc/passwd" names a real text
			// file, which they may import. What must not happen is a file other than the one
			// the string names being read.
			if res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{s}}); err == nil {
				named, _ := filepath.Abs(s)
				named, _ = filepath.EvalSymlinks(named)
				for _, f := range res.Files {
					if (f.Outcome == ImportAdded || f.Outcome == ImportUpdated) && f.Path != named {
						t.Errorf("KBAdd(path %q) imported %s, which the path does not name", s, f.Path)
					}
				}
			}
		})
	}
	after := snapshotEngine(t, e)
	if diff := cmp.Diff(before.Schema, after.Schema); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
	if got, want := len(after.Facts), len(before.Facts)+2*len(injections); got != want {
		t.Errorf("%d facts after, want %d", got, want)
	}
	for p := range wantPaths {
		if after.Docs[p] != 1 {
			t.Errorf("document %q has %d chunks listed, want 1 under its exact path", p, after.Docs[p])
		}
	}
	if f, err := e.Fact(ctx, keep); err != nil || f.Text != "The harbour master keeps the tide ledger in room 7" {
		t.Errorf("Fact(%d) = %+v, %v; want the seeded text unchanged", keep, f, err)
	}
}

// TestLogsKeepContentsOut runs remember, recall and an import (a good file and a skipped
// one) with a canary in every text, query and document, and checks that no log record at
// info level or above carries it. At debug level it may appear; the test reports whether.
func TestLogsKeepContentsOut(t *testing.T) {
	const canary = "CanaryQx7Zebu"
	run := func(t *testing.T, level slog.Level) string {
		var logs bytes.Buffer
		ctx := context.Background()
		e, err := Open(ctx, filepath.Join(t.TempDir(), "memdesk.db"),
			Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		dir := t.TempDir()
		files := map[string][]byte{
			"note.md":    []byte("# Note\n\nThe " + canary + " lives in the document.\n"),
			"latin1.md":  []byte("The " + canary + " caf\xe9.\n"),
			"binary.md":  []byte("\x00\x01" + canary),
			"repeat.txt": bytes.Repeat([]byte(canary+" "), 10),
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Remember(ctx, RememberRequest{Text: "The " + canary + " fact"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Remember(ctx, RememberRequest{Text: "The " + canary + " fact"}); err != nil { // duplicate
			t.Fatal(err)
		}
		if _, err := e.Remember(ctx, RememberRequest{Text: "bad " + canary + "\x00"}); !errors.Is(err, ErrInvalidText) {
			t.Fatalf("Remember(NUL) err = %v, want %v", err, ErrInvalidText)
		}
		if _, err := e.Recall(ctx, RecallRequest{Query: canary}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}}); err != nil {
			t.Fatal(err)
		}
		if !testing.Short() {
			// Loading the extractor takes seconds, so only the full run sweeps.
			if _, err := e.Admin(ctx, AdminRequest{Action: "entities-sweep", All: true}); err != nil {
				t.Fatal(err)
			}
		}
		return logs.String()
	}
	t.Run("info", func(t *testing.T) {
		logs := run(t, slog.LevelInfo)
		if strings.Contains(logs, canary) {
			t.Errorf("info-level logs contain memory contents:\n%s", logs)
		}
		if logs == "" {
			t.Error("no info-level log at all; the check would be empty (want at least the import summary)")
		}
	})
	t.Run("debug", func(t *testing.T) {
		logs := run(t, slog.LevelDebug)
		if logs == "" {
			t.Error("no debug-level log at all")
		}
		t.Logf("debug-level logs carry the canary: %v (allowed)", strings.Contains(logs, canary))
	})
}

// TestRememberRefusesInvisibleText: text made only of invisible format characters (no
// White_Space property, so normalization keeps them) is a memory that lists as empty and that
// no query can find; like all-space text it should be refused.
func TestRememberRefusesInvisibleText(t *testing.T) {
	e := openTestEngine(t)
	for _, text := range []string{"\u200b", "\u2060\ufeff", " \u200b\u200c\u200d "} {
		if res, err := e.Remember(context.Background(), RememberRequest{Text: text}); !errors.Is(err, ErrInvalidText) {
			t.Errorf("Remember(%q) = %+v, %v; want %v", text, res, err, ErrInvalidText)
		}
	}
}

// TestBigImportDoesNotLockOutWriters imports a text file just under the default 20 MB limit
// while a second engine on the same database (another process, in the app) remembers a fact:
// the remember must not fail with "database is locked". Stored in one write transaction, the
// document held the lock longer than the 10 s busy timeout; it is now written in pieces.
func TestBigImportDoesNotLockOutWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 19 MB (tens of seconds)")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memdesk.db")
	e, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	other, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	big := filepath.Join(t.TempDir(), "big.txt")
	writeBigText(t, big, 19<<20, "sandpiper")
	imported := make(chan error, 1)
	go func() {
		_, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{big}})
		imported <- err
	}()
	time.Sleep(3 * time.Second) // parsing takes about a second; then the document is written
	start := time.Now()
	if _, err := other.Remember(ctx, RememberRequest{Text: "A fact written during a big import"}); err != nil {
		t.Errorf("Remember during the import: %v after %s; want it written", err, time.Since(start).Round(time.Millisecond))
	}
	if err := <-imported; err != nil {
		t.Fatal(err)
	}
}
