package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// copyFixture copies an ingest fixture into dir under the name it has there; a name ending
// in .zip is written as a ZIP holding the fixture, as the chat apps hand an export over.
func copyFixture(t *testing.T, fixture, dir string) string {
	t.Helper()
	zipped := strings.HasSuffix(fixture, ".zip")
	fixture = strings.TrimSuffix(fixture, ".zip")
	data, err := os.ReadFile(filepath.Join("ingest", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(fixture))
	if zipped {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, member := range map[string][]byte{"conversations.json": data, "users.json": []byte(`[{"uuid":"u"}]`)} {
			w, err := zw.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(member); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data, path = buf.Bytes(), filepath.Join(dir, "data-2024-05-01.zip")
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestKBChatExports imports a ChatGPT and a Claude export and finds each conversation by a
// phrase of one of its messages, dated by the conversation: it was imported today, so a date
// range around the conversation's day keeps it only if the conversation's date is the one
// read, and a range around today drops it.
func TestKBChatExports(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		fixture string
		title   string // of the conversation the phrase is in
		phrase  string
		day     time.Time // the conversation's
		convs   int
	}{
		{"chatgpt english", "chatgpt/conversations.json", "Sourdough starter troubleshooting", "nail polish remover", time.Date(2023, 11, 14, 0, 0, 0, 0, time.UTC), 2},
		{"chatgpt chinese", "chatgpt/conversations.json", "周末去杭州的行程", "北山街", time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC), 2},
		{"claude english", "claude/conversations.json", "Postgres vacuum tuning", "dead tuples pile up", time.Date(2024, 1, 9, 0, 0, 0, 0, time.UTC), 2},
		{"claude chinese", "claude/conversations.json", "给奶奶的生日礼物", "紫砂花盆", time.Date(2023, 6, 18, 0, 0, 0, 0, time.UTC), 2},
		{"claude zipped", "claude/conversations.json.zip", "Postgres vacuum tuning", "dead tuples pile up", time.Date(2024, 1, 9, 0, 0, 0, 0, time.UTC), 2},
		{"chatgpt zipped", "chatgpt/conversations.json.zip", "周末去杭州的行程", "北山街", time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openTestEngine(t)
			path := copyFixture(t, tt.fixture, filepath.Join(t.TempDir(), "export"))
			res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Files) != 1 || res.Files[0].Outcome != ImportAdded || res.Files[0].Conversations != tt.convs || res.Added != 1 {
				t.Fatalf("KBAdd = %+v, want the file added with its %d conversations", res, tt.convs)
			}
			list, err := e.KBList(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Documents) != tt.convs {
				t.Fatalf("KBList holds %d documents, want one per conversation (%d): %+v", len(list.Documents), tt.convs, list.Documents)
			}
			var docID int64
			for _, d := range list.Documents {
				if d.File != path || filepath.Dir(d.Path) != path || d.Written == nil {
					t.Errorf("document %q: path %q, file %q, written %v; want a dated conversation under %s", d.Title, d.Path, d.File, d.Written, path)
				}
				if d.Title == tt.title {
					docID = d.ID
				}
			}
			if docID == 0 {
				t.Fatalf("no document titled %q in %+v", tt.title, list.Documents)
			}

			found := func(req RecallRequest) bool {
				t.Helper()
				req.Query, req.Source = tt.phrase, SourceKnowledge
				r, err := e.Recall(ctx, req)
				if err != nil {
					t.Fatalf("Recall(%+v): %v", req, err)
				}
				return slices.ContainsFunc(r.Hits, func(h Hit) bool { return h.Doc != nil && h.Doc.ID == docID })
			}
			if !found(RecallRequest{}) {
				t.Fatalf("recall of %q does not find %q", tt.phrase, tt.title)
			}
			// The why dates the hit by when the conversation was written, not by the import.
			r, err := e.Recall(ctx, RecallRequest{Query: tt.phrase, Source: SourceKnowledge, Lang: "en"})
			if err != nil || len(r.Hits) == 0 || !strings.Contains(r.Hits[0].WhyPlain, "written in ") {
				t.Errorf("Recall(%q) = %+v, %v; want its why to say when the conversation was written", tt.phrase, r.Hits, err)
			}
			day := 24 * time.Hour
			for _, f := range []struct {
				name         string
				since, until time.Time
				keep         bool
			}{
				{"the conversation's day", tt.day, tt.day.Add(day), true},
				{"the day before", tt.day.Add(-day), tt.day, false},
				{"since the day after", tt.day.Add(day), time.Time{}, false},
				{"since yesterday (it was imported today)", time.Now().Add(-day), time.Time{}, false},
				{"until the day after", time.Time{}, tt.day.Add(day), true},
			} {
				if got := found(RecallRequest{Since: f.since, Until: f.until}); got != f.keep {
					t.Errorf("%s (%v to %v): found %v, want %v", f.name, f.since, f.until, got, f.keep)
				}
			}

			again, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}})
			if err != nil || again.Unchanged != 1 || again.Files[0].Outcome != ImportUnchanged {
				t.Errorf("import again = %+v, %v; want the file unchanged", again, err)
			}
			re, err := e.KBReimport(ctx, docID)
			if err != nil || re.Outcome != ImportUnchanged || re.Path != path {
				t.Errorf("KBReimport(%d) = %+v, %v; want its export read again, unchanged", docID, re, err)
			}

			rm, err := e.KBRemovePath(ctx, "", path)
			if err != nil || rm.Conversations != tt.convs || !rm.Removed {
				t.Fatalf("KBRemovePath(%s) = %+v, %v; want its %d conversations removed", path, rm, err, tt.convs)
			}
			if list, err := e.KBList(ctx, ""); err != nil || len(list.Documents) != 0 {
				t.Errorf("KBList after removing the export = %+v, %v; want no documents", list.Documents, err)
			}
			if found(RecallRequest{}) {
				t.Errorf("recall of %q still finds %q after its export was removed", tt.phrase, tt.title)
			}
		})
	}
}

// TestKBChatExportChanges: a conversation deleted from the export leaves with the next
// import; one changed is updated in place; the others stay unchanged.
func TestKBChatExportChanges(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := filepath.Join(t.TempDir(), "export")
	path := filepath.Join(dir, "conversations.json")
	write := func(text string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	conv := func(id, text string) string {
		return `{"uuid":"` + id + `","name":"` + id + `","created_at":"2024-02-01T08:00:00Z","chat_messages":[{"sender":"human","created_at":"2024-02-01T08:00:00Z","text":"` + text + `"}]}`
	}
	titles := func() []string {
		t.Helper()
		list, err := e.KBList(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range list.Documents {
			out = append(out, d.Title)
		}
		slices.Sort(out)
		return out
	}
	// Imported as text before memdesk knew chat exports: the conversations replace it.
	write(`[{"uuid":"a","name":"a"}]`)
	if res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}}); err != nil || res.Added != 1 {
		t.Fatalf("KBAdd of plain JSON = %+v, %v", res, err)
	}
	write("[" + conv("a", "the kettle is descaled monthly") + "," + conv("b", "the bike chain needs oil") + "]")
	res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}})
	if err != nil || res.Updated != 1 || res.Files[0].Conversations != 2 {
		t.Fatalf("KBAdd of the export = %+v, %v; want the text replaced by 2 conversations", res, err)
	}
	if got := titles(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("documents %q, want the two conversations only", got)
	}
	write("[" + conv("b", "the bike chain needs wax now") + "]")
	if res, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{path}}); err != nil || res.Updated != 1 {
		t.Fatalf("KBAdd after a conversation left = %+v, %v; want the file updated", res, err)
	}
	if got := titles(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("documents %q, want only the conversation the export still holds", got)
	}
	write("[" + conv("b", "the bike chain needs wax now") + ", broken")
	res, err = e.KBAdd(ctx, KBAddRequest{Paths: []string{path}})
	if err != nil || res.Failed != 1 {
		t.Fatalf("KBAdd of a damaged export = %+v, %v; want it failed", res, err)
	}
	if got := titles(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("documents %q after a damaged export, want what was there before", got)
	}
}

// TestWatchChatExport: a watched folder's chat export imports its conversations, a rescan
// passes the unchanged export over and keeps them, and saving something else over the
// export or deleting it takes them out.
func TestWatchChatExport(t *testing.T) {
	e := openTestEngine(t)
	dir := mustReal(t, t.TempDir())
	path := copyFixture(t, "claude/conversations.json", dir)
	stop, _ := watching(t, e, dir)
	if got := len(knowledgeHits(t, e, "dead tuples")); got != 1 {
		t.Fatalf("after the first rescan, %d hits for a phrase of the export, want 1", got)
	}
	stop()

	_, events := watching(t, e, dir)
	if got := len(knowledgeHits(t, e, "dead tuples")); got != 1 {
		t.Errorf("after a second rescan, %d hits, want the conversation kept", got)
	}
	for _, ev := range events() {
		t.Errorf("the rescan of an unchanged export did %+v, want nothing", ev)
	}
	// Saved over with something that is no document: its conversations are not what it holds.
	writeFile(t, path, "\x00\x01binary\x00")
	waitFor(t, "conversations of an export saved over with a binary file gone", func() bool {
		list, err := e.KBList(context.Background(), "")
		return err == nil && len(list.Documents) == 0
	})
	path = copyFixture(t, "claude/conversations.json", dir)
	waitFor(t, "export written back imported again", func() bool { return len(knowledgeHits(t, e, "dead tuples")) == 1 })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "deleted export's conversations gone", func() bool {
		list, err := e.KBList(context.Background(), "")
		return err == nil && len(list.Documents) == 0
	})
}

// TestKBRemovePathOfGoneFolder: removing the path of a folder that is gone is not taken for
// removing a chat export: the files it held stay until removed one by one, as before.
func TestKBRemovePathOfGoneFolder(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	dir := filepath.Join(mustReal(t, t.TempDir()), "notes")
	writeFile(t, filepath.Join(dir, "heron.md"), "The heron nests by the weir.\n")
	if _, err := e.KBAdd(ctx, KBAddRequest{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if res, err := e.KBRemovePath(ctx, "", dir); err == nil {
		t.Errorf("KBRemovePath(gone folder) = %+v, want not found", res)
	}
	if got := len(knowledgeHits(t, e, "heron")); got != 1 {
		t.Errorf("after removing a gone folder's path, %d hits for its file, want it kept", got)
	}
}
