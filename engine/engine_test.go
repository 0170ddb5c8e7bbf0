package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func openTestEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := Open(context.Background(), filepath.Join(t.TempDir(), "memdesk.db"), Options{PDFCacheDir: testPDFCache()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// testPDFCache is the PDFium compile cache scripts/test.sh shares among the suite's test
// processes (under the race detector a compile is ~20 s of CPU); unset, each process
// compiles its own.
func testPDFCache() string { return os.Getenv("MEMDESK_TEST_PDF_CACHE") }

// runInBackground runs e's background work (Run) for the rest of the test, as the app does;
// the test's end stops it and fails on the error it returns.
func runInBackground(t *testing.T, e *Engine) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func remember(t testing.TB, e *Engine, space, text string) int64 {
	t.Helper()
	res, err := e.Remember(context.Background(), RememberRequest{Action: ActionAdd, Text: text, Space: space})
	if err != nil {
		t.Fatalf("Remember(%q): %v", text, err)
	}
	return res.FactID
}

// recallIDs returns the ids of the hits of one source, in rank order.
func recallIDs(t *testing.T, e *Engine, req RecallRequest) []int64 {
	t.Helper()
	res, err := e.Recall(context.Background(), req)
	if err != nil {
		t.Fatalf("Recall(%+v): %v", req, err)
	}
	var ids []int64
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestRememberLifecycle(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	steps := []struct {
		name string
		req  RememberRequest
		want RememberResult
	}{
		{"add", RememberRequest{Action: ActionAdd, Text: "  CI uses\tPython 3.12 "}, RememberResult{FactID: 1, Status: StatusAdded}},
		{"identical is duplicate", RememberRequest{Text: "CI uses Python 3.12"}, RememberResult{FactID: 1, Status: StatusDuplicate}},
		{"case and width fold to duplicate", RememberRequest{Text: "ci USES ｐｙｔｈｏｎ 3.12"}, RememberResult{FactID: 1, Status: StatusDuplicate}},
		{"another space is separate", RememberRequest{Text: "CI uses Python 3.12", Space: "work"}, RememberResult{FactID: 2, Status: StatusAdded}},
		{"edit", RememberRequest{Action: ActionEdit, ID: 1, Text: "CI uses Python 3.13"}, RememberResult{FactID: 1, Status: StatusEdited}},
		{"edit to same text", RememberRequest{Action: ActionEdit, ID: 1, Text: "CI uses  Python 3.13"}, RememberResult{FactID: 1, Status: StatusUnchanged}},
		{"forget", RememberRequest{Action: ActionForget, ID: 1}, RememberResult{FactID: 1, Status: StatusForgotten}},
		{"forget twice", RememberRequest{Action: ActionForget, ID: 1}, RememberResult{FactID: 1, Status: StatusUnchanged}},
		{"restore", RememberRequest{Action: ActionRestore, ID: 1}, RememberResult{FactID: 1, Status: StatusRestored}},
	}
	for _, s := range steps {
		got, err := e.Remember(ctx, s.req)
		if err != nil {
			t.Fatalf("%s: Remember(%+v): %v", s.name, s.req, err)
		}
		if !cmp.Equal(got, s.want) {
			t.Errorf("%s: Remember(%+v) = %+v, want %+v", s.name, s.req, got, s.want)
		}
	}
	f, err := e.Fact(ctx, 1)
	if err != nil || f.Text != "CI uses Python 3.13" || f.Status != "active" {
		t.Errorf("Fact(1) = %+v, %v", f, err)
	}
}

func TestRememberRejectsBadInput(t *testing.T) {
	e := openTestEngine(t)
	remember(t, e, "", "alpha")
	remember(t, e, "", "beta")
	tests := []struct {
		name string
		req  RememberRequest
		want error
	}{
		{"invalid utf-8", RememberRequest{Text: "bad \xff byte"}, ErrInvalidText},
		{"nul byte", RememberRequest{Text: "nul\x00byte"}, ErrInvalidText},
		{"empty", RememberRequest{Text: " \t\n "}, ErrInvalidText},
		{"too long", RememberRequest{Text: strings.Repeat("长", MaxFactBytes)}, ErrInvalidText},
		{"bad space", RememberRequest{Text: "x", Space: "a\nb"}, ErrBadRequest},
		{"unknown action", RememberRequest{Action: "explode", Text: "x"}, ErrBadRequest},
		{"edit missing id", RememberRequest{Action: ActionEdit, ID: 99, Text: "x"}, ErrNotFound},
		{"forget missing id", RememberRequest{Action: ActionForget, ID: 99}, ErrNotFound},
		{"edit into duplicate", RememberRequest{Action: ActionEdit, ID: 2, Text: "ALPHA"}, ErrDuplicate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Remember(context.Background(), tc.req)
			if !errors.Is(err, tc.want) {
				t.Errorf("Remember(%+v) err = %v, want %v", tc.req, err, tc.want)
			}
		})
	}
	list, err := e.List(context.Background(), ListRequest{All: true})
	if err != nil || len(list.Facts) != 2 {
		t.Errorf("after bad input: %d facts (%v), want the 2 good ones untouched", len(list.Facts), err)
	}
}

func TestRecallLexical(t *testing.T) {
	e := openTestEngine(t)
	wang := remember(t, e, "", "老王喜欢简约风格")
	ci := remember(t, e, "", "CI uses Python 3.12")
	meeting := remember(t, e, "", "每周三开会讨论进度")
	phone := remember(t, e, "", "上个月换了新手机")
	goFact := remember(t, e, "", "We write services in Go")
	goodFact := remember(t, e, "", "a good day for gophers")
	workFact := remember(t, e, "work", "老王的工位在三楼")

	tests := []struct {
		name string
		req  RecallRequest
		want []int64
	}{
		{"chinese trigram", RecallRequest{Query: "简约风格"}, []int64{wang}},
		{"english word", RecallRequest{Query: "which python version"}, []int64{ci}},
		{"version string", RecallRequest{Query: "3.12"}, []int64{ci}},
		{"two-char cjk falls back to substring", RecallRequest{Query: "周三"}, []int64{meeting}},
		{"another two-char cjk", RecallRequest{Query: "手机"}, []int64{phone}},
		{"short latin word needs word bounds", RecallRequest{Query: "Go"}, []int64{goFact}},
		{"space isolation", RecallRequest{Query: "老王", Space: "work"}, []int64{workFact}},
		{"default space only", RecallRequest{Query: "老王"}, []int64{wang}},
		{"unrelated", RecallRequest{Query: "量子纠缠实验"}, nil},
		{"k limits", RecallRequest{Query: "老王喜欢 python 周三", K: 1}, []int64{wang}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, recallIDs(t, e, tc.req), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Recall(%+v) ids (-want +got):\n%s", tc.req, diff)
			}
		})
	}
	_ = goodFact
}

func TestRecallHitExplainsItself(t *testing.T) {
	e := openTestEngine(t)
	remember(t, e, "", "老王喜欢简约风格")
	res, err := e.Recall(context.Background(), RecallRequest{Query: "老王 简约风格"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Fatalf("got %d hits, want 1", len(res.Hits))
	}
	h := res.Hits[0]
	if h.Source != SourceMemory || h.Legs.FTS <= 0 || h.Score != 1 {
		t.Errorf("hit = %+v; want a memory with a positive fts score, head score 1", h)
	}
	// 约风 overlaps both words: the evidence counts the words the query spells.
	if diff := cmp.Diff([]string{"老王", "简约", "风格"}, h.Matched); diff != "" {
		t.Errorf("matched terms (-want +got):\n%s", diff)
	}
	if !strings.Contains(h.Why, "简约") || !strings.Contains(h.Why, "lexical") || !strings.Contains(h.Why, "evidence") || h.Evidence <= 0 {
		t.Errorf("why = %q (evidence %v); want the lexical leg, the matched terms and their evidence", h.Why, h.Evidence)
	}
	if res.Semantic != "off" {
		t.Errorf("semantic = %q, want off without a model", res.Semantic)
	}
}

func TestRecallSurvivesFTS5Syntax(t *testing.T) {
	e := openTestEngine(t)
	remember(t, e, "", `She said "hello" AND left (quickly) - NEAR the door*`)
	queries := []string{
		`"`, `""`, `"""`, `*`, `(`, `)`, `()`, `-`, `^`, `:`, `+`, `AND`, `OR`, `NOT`, `NEAR`,
		`NEAR(a b)`, `a OR`, `AND AND AND`, `"unterminated`, `col:value`, `{a b}`, `hello*`,
		`-hello`, `^hello`, `hello NOT door`, `'); DROP TABLE facts; --`, "\x00", "\xff\xfe",
		`%`, `_`, `\`,
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			if _, err := e.Recall(context.Background(), RecallRequest{Query: q}); err != nil && !errors.Is(err, ErrBadRequest) {
				t.Errorf("Recall(%q) err = %v; want no error (or a bad-request for an empty query)", q, err)
			}
		})
	}
	got := recallIDs(t, e, RecallRequest{Query: `"hello" AND (quickly)`})
	if diff := cmp.Diff([]int64{1}, got); diff != "" {
		t.Errorf("operators as plain words (-want +got):\n%s", diff)
	}
}

func TestRecallRejectsBadRequests(t *testing.T) {
	e := openTestEngine(t)
	for _, req := range []RecallRequest{{Query: ""}, {Query: "   "}, {Query: "x", Source: "web"}} {
		if _, err := e.Recall(context.Background(), req); !errors.Is(err, ErrBadRequest) {
			t.Errorf("Recall(%+v) err = %v, want ErrBadRequest", req, err)
		}
	}
}

func TestRecallFollowsEditsAndForget(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	id := remember(t, e, "", "the staging server lives in Frankfurt")
	if _, err := e.Remember(ctx, RememberRequest{Action: ActionEdit, ID: id, Text: "the staging server moved to Dublin"}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "Frankfurt"}); len(got) != 0 {
		t.Errorf("old text still recalled after edit: %v", got)
	}
	if diff := cmp.Diff([]int64{id}, recallIDs(t, e, RecallRequest{Query: "Dublin"})); diff != "" {
		t.Errorf("edited text (-want +got):\n%s", diff)
	}
	if _, err := e.Remember(ctx, RememberRequest{Action: ActionForget, ID: id}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "Dublin"}); len(got) != 0 {
		t.Errorf("forgotten fact recalled: %v", got)
	}
}

// copyTree copies testdata/kb into a temporary folder the test may change.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func outcomes(res KBAddResult) map[string]string {
	out := map[string]string{}
	for _, f := range res.Files {
		out[filepath.Base(f.Path)] = f.Outcome
	}
	return out
}

func TestKBImportEachFormat(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	ctx := context.Background()
	e := openTestEngine(t)
	dir := copyTree(t, "testdata/kb")
	var progress []ImportProgress
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}, Progress: func(p ImportProgress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatalf("KBAdd: %v", err)
	}
	want := map[string]string{
		"deploy.md": ImportAdded, "cluster.txt": ImportAdded, "page.html": ImportAdded,
		"report.pdf": ImportAdded, "NEWS.gz": ImportAdded, "binary.md": ImportSkipped, "image.png": ImportSkipped,
	}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if n := len(progress); n != 5 || progress[n-1].FilesDone != 5 || progress[n-1].BytesDone != progress[n-1].BytesTotal {
		t.Errorf("progress = %+v; want 5 reports (every text file, the gzipped one too; the binaries are skipped before reading) ending at 5/5 files and all bytes", progress)
	}

	tests := []struct {
		query, wantFile, wantText string
	}{
		{"杭州机房", "deploy.md", "杭州机房"},
		{"rollback", "deploy.md", "make rollback"},
		{"Frankfurt nodes", "cluster.txt", "Frankfurt"},
		{"美式咖啡", "page.html", "美式咖啡"},
		{"quarterly revenue", "report.pdf", "revenue"},
		{"tide table importer", "NEWS.gz", "Lisbon harbour"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res, err := e.Recall(ctx, RecallRequest{Query: tc.query, Source: SourceKnowledge})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatalf("Recall(%q) found nothing", tc.query)
			}
			h := res.Hits[0]
			if h.Doc == nil || filepath.Base(h.Doc.Path) != tc.wantFile || !strings.Contains(strings.ToLower(h.Text), strings.ToLower(tc.wantText)) {
				t.Errorf("top hit = %+v (doc %+v); want a chunk of %s containing %q", h, h.Doc, tc.wantFile, tc.wantText)
			}
			if h.Doc != nil && (h.Doc.LineStart < 1 || h.Doc.LineEnd < h.Doc.LineStart) {
				t.Errorf("hit lines %d-%d are not a span", h.Doc.LineStart, h.Doc.LineEnd)
			}
			if wantPDF := tc.wantFile == "report.pdf"; h.Doc != nil && wantPDF != (h.Doc.Page > 0) {
				t.Errorf("hit of %s is on page %d; want a page exactly for PDFs", tc.wantFile, h.Doc.Page)
			}
		})
	}
	if got := recallIDs(t, e, RecallRequest{Query: "scriptword", Source: SourceKnowledge}); len(got) != 0 {
		t.Errorf("HTML script text was indexed: %v", got)
	}
}

func TestKBReimport(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := copyTree(t, "testdata/kb")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	again, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Unchanged != 5 || again.Added+again.Updated != 0 {
		t.Errorf("second import = %+v; want 5 unchanged", again)
	}
	cluster := filepath.Join(dir, "sub", "cluster.txt")
	if err := os.WriteFile(cluster, []byte("The staging cluster moved to Singapore.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := e.KBList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var docID int64
	for _, d := range list.Documents {
		if d.Path == cluster {
			docID = d.ID
		}
	}
	if docID == 0 {
		t.Fatalf("cluster.txt not in %+v", list.Documents)
	}
	f, err := e.KBReimport(ctx, docID)
	if err != nil || f.Outcome != ImportUpdated {
		t.Fatalf("KBReimport = %+v, %v; want updated", f, err)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "Frankfurt", Source: SourceKnowledge}); len(got) != 0 {
		t.Errorf("old chunk still recalled after re-import: %v", got)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "Singapore", Source: SourceKnowledge}); len(got) != 1 {
		t.Errorf("new chunk recalled %d times, want 1", len(got))
	}
	if err := os.Remove(cluster); err != nil {
		t.Fatal(err)
	}
	if _, err := e.KBReimport(ctx, docID); err == nil || !strings.Contains(err.Error(), "kb rm") {
		t.Errorf("re-import of a deleted file: err = %v; want one that says how to remove it", err)
	}
	if err := e.KBRemove(ctx, docID); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, e, RecallRequest{Query: "Singapore", Source: SourceKnowledge}); len(got) != 0 {
		t.Errorf("removed document recalled: %v", got)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "integrity"})
	if err != nil || !res.OK {
		t.Errorf("integrity after re-imports = %+v, %v", res, err)
	}
}

func TestKBImportCancel(t *testing.T) {
	e := openTestEngine(t)
	dir := copyTree(t, "testdata/kb")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}, Progress: func(p ImportProgress) {
		if p.FilesDone == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("KBAdd err = %v, want context.Canceled", err)
	}
	if res.Added != 1 {
		t.Errorf("cancelled import added %d files, want the 1 finished before cancel", res.Added)
	}
	list, lerr := e.KBList(context.Background(), "")
	if lerr != nil || len(list.Documents) != 1 || list.Documents[0].Chunks == 0 {
		t.Errorf("after cancel: %+v, %v; want exactly the finished document, whole", list, lerr)
	}
}

func TestKBAddErrors(t *testing.T) {
	e := openTestEngine(t)
	if _, err := e.KBAdd(context.Background(), KBAddRequest{}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("KBAdd() err = %v, want ErrBadRequest", err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := e.KBAdd(context.Background(), KBAddRequest{Paths: []string{missing}}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("KBAdd(missing) err = %v; want one naming the path", err)
	}
}

func TestAdminUnknownAction(t *testing.T) {
	e := openTestEngine(t)
	_, err := e.Admin(context.Background(), AdminRequest{Action: "defrag"})
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "integrity") {
		t.Errorf("Admin(defrag) err = %v; want ErrBadRequest listing the actions", err)
	}
}

func TestRememberBatch(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	existing := remember(t, e, "s", "already here")
	texts := []string{"first fact", "bad \xff text", "first  FACT", "already here", "second fact"}
	var progress []int
	got, err := e.RememberBatch(ctx, "s", texts, func(done int) { progress = append(progress, done) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("got %d results for %d texts", len(got), len(texts))
	}
	if got[0].Status != StatusAdded || got[2].Status != StatusDuplicate || got[2].FactID != got[0].FactID {
		t.Errorf("in-batch duplicate: %+v and %+v; want the second to point at the first", got[0], got[2])
	}
	if got[1].Err == "" || got[1].FactID != 0 {
		t.Errorf("invalid text result = %+v; want an error and no fact", got[1])
	}
	if got[3].Status != StatusDuplicate || got[3].FactID != existing {
		t.Errorf("duplicate of a stored fact = %+v; want fact %d", got[3], existing)
	}
	if got[4].Status != StatusAdded {
		t.Errorf("last text = %+v; want added", got[4])
	}
	if diff := cmp.Diff([]int{5}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if ids := recallIDs(t, e, RecallRequest{Query: "second fact", Space: "s"}); len(ids) == 0 || ids[0] != got[4].FactID {
		t.Errorf("batch fact not searchable: %v", ids)
	}
}

func TestAdminBackup(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	id := remember(t, e, "", "备份之前的记忆")
	dest := filepath.Join(t.TempDir(), "copy.db")
	res, err := e.Admin(ctx, AdminRequest{Action: "backup", To: dest})
	if err != nil || !res.OK || res.Counts["bytes"] <= 0 {
		t.Fatalf("backup = %+v, %v", res, err)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, %v; want a user-only file", fi, err)
	}
	if _, err := e.Admin(ctx, AdminRequest{Action: "backup", To: dest}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second backup to the same file: err = %v, want a refusal to overwrite", err)
	}
	copyEngine, err := Open(ctx, dest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer copyEngine.Close()
	if diff := cmp.Diff([]int64{id}, recallIDs(t, copyEngine, RecallRequest{Query: "备份之前"})); diff != "" {
		t.Errorf("recall in the backup (-want +got):\n%s", diff)
	}
	if res, err := copyEngine.Admin(ctx, AdminRequest{Action: "integrity"}); err != nil || !res.OK {
		t.Errorf("integrity of the backup = %+v, %v", res, err)
	}
	// Without --to, the copy lands beside the database with a timestamp.
	res, err = e.Admin(ctx, AdminRequest{Action: "backup"})
	if err != nil || len(res.Details) == 0 || !strings.Contains(res.Details[0], filepath.Dir(e.Path())) {
		t.Errorf("default backup = %+v, %v; want a file beside the database", res, err)
	}
}

// TestNegativeCountsRefused: a negative k or limit reaching the engine from any front-end
// (an agent over MCP, a script) is a bad request, not the default.
func TestNegativeCountsRefused(t *testing.T) {
	e := openTestEngine(t)
	ctx := context.Background()
	remember(t, e, "", "CI uses Python 3.12")
	if _, err := e.Recall(ctx, RecallRequest{Query: "python", K: -3}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("recall with k -3: %v, want ErrBadRequest", err)
	}
	if _, err := e.List(ctx, ListRequest{Limit: -1}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("list with limit -1: %v, want ErrBadRequest", err)
	}
	if _, err := e.List(ctx, ListRequest{Offset: -1}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("list with offset -1: %v, want ErrBadRequest", err)
	}
}

// TestKBImportDebianPDFs imports two real PDFs that Debian ships (TeX and DocBook output):
// the text keeps its word spaces, a phrase from each is recalled, and every hit knows its
// page.
func TestKBImportDebianPDFs(t *testing.T) {
	cases := []struct {
		pkg, path, phrase string
		pages             int
	}{
		{"shared-mime-info", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
			"Each element corresponds to one line of file(1)’s magic.mime file", 17},
		{"libtasn1-doc", "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
			"Distinguished Encoding Rules (DER) encoding support", 36},
	}
	ctx := context.Background()
	e := openTestEngine(t)
	for _, tc := range cases {
		t.Run(tc.pkg, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skipf("%s is not here; install the Debian package %s (scripts/deps.sh does)", tc.path, tc.pkg)
			}
			res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{tc.path}})
			if err != nil || res.Added != 1 {
				t.Fatalf("KBAdd(%s) = %+v, %v; want it added", tc.path, res, err)
			}
			chunks, err := e.KBChunks(ctx, res.Files[0].DocID)
			if err != nil {
				t.Fatal(err)
			}
			var all strings.Builder
			for _, c := range chunks {
				if c.Page < 1 || c.Page > tc.pages {
					t.Errorf("chunk %d is on page %d, want 1-%d", c.Ordinal, c.Page, tc.pages)
				}
				all.WriteString(c.Text + "\n")
			}
			if !strings.Contains(all.String(), tc.phrase) {
				t.Errorf("chunks of %s do not hold %q with its spaces", tc.path, tc.phrase)
			}
			if last := chunks[len(chunks)-1].Page; last != tc.pages {
				t.Errorf("last chunk is on page %d, want %d", last, tc.pages)
			}
			rec, err := e.Recall(ctx, RecallRequest{Query: tc.phrase, Source: SourceKnowledge})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range rec.Hits {
				if h.Doc == nil || h.Doc.Page < 1 {
					t.Errorf("hit %q has no page: %+v", h.Text, h.Doc)
					continue
				}
				found = found || (h.Doc.Path == tc.path && strings.Contains(h.Text, tc.phrase))
			}
			if !found {
				t.Errorf("Recall(%q) = %d hits, none of them the chunk of %s that holds it", tc.phrase, len(rec.Hits), tc.path)
			}
		})
	}
}
