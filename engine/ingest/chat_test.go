package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The fixtures are written by hand in the shape the exports have (ChatGPT's conversations.json
// from "Export data", Claude's from its "Export data"), each with one English and one Chinese
// conversation, dated in 2023 and 2024.

type wantConversation struct {
	path    string // under the file's path
	title   string
	dated   time.Time
	turns   []string // each chunk's first line after the title: speaker and time
	has     []string // phrases the text holds
	hasNot  []string // phrases it must not
	heading string   // the first chunk's heading
}

func TestParseChatExports(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		format string
		want   []wantConversation
	}{
		{
			name: "chatgpt", file: "testdata/chatgpt/conversations.json", format: FormatChatGPT,
			want: []wantConversation{{
				path:  "6553a1b2-0c3d-4e5f-8a9b-1c2d3e4f5a6b",
				title: "Sourdough starter troubleshooting",
				dated: time.Date(2023, 11, 14, 10, 0, 0, 512345000, time.UTC),
				// The edited question's branch is the one current_node ends; the system
				// message and the tool's output are left out.
				turns: []string{"User · 2023-11-14 10:02 UTC", "ChatGPT · 2023-11-14 10:02 UTC",
					"User · 2023-11-14 10:20 UTC", "ChatGPT · 2023-11-14 10:21 UTC"},
				has:     []string{"My rye starter smells like nail polish remover", "acetone smell means the yeast ran out of food"},
				hasNot:  []string{"abandoned branch", "search results", "file-service"},
				heading: "Sourdough starter troubleshooting > User · 2023-11-14 10:02 UTC",
			}, {
				path:    "65e2c9d8-7b6a-4c5d-9e8f-0a1b2c3d4e5f",
				title:   "周末去杭州的行程",
				dated:   time.Date(2024, 3, 2, 9, 0, 0, 0, time.UTC),
				turns:   []string{"User · 2024-03-02 09:00 UTC", "ChatGPT · 2024-03-02 09:00 UTC"},
				has:     []string{"西湖附近有什么安静的住处", "北山街一带"},
				hasNot:  []string{"prefers short answers"},
				heading: "周末去杭州的行程 > User · 2024-03-02 09:00 UTC",
			}},
		},
		{
			name: "claude", file: "testdata/claude/conversations.json", format: FormatClaude,
			want: []wantConversation{{
				path:  "2f9c1e7a-5b3d-4a8e-9c6f-1d2e3f4a5b6c",
				title: "Postgres vacuum tuning",
				dated: time.Date(2024, 1, 9, 16, 20, 31, 118374000, time.UTC),
				turns: []string{"User · 2024-01-09 16:20 UTC", "Claude · 2024-01-09 16:20 UTC",
					"User · 2024-01-09 16:30 UTC", "Claude · 2024-01-09 16:31 UTC"},
				has:     []string{"dead tuples pile up every afternoon", "autovacuum_vacuum_scale_factor", "Per-table settings"},
				hasNot:  []string{"The user has a hot table"}, // a thinking block
				heading: "Postgres vacuum tuning > User · 2024-01-09 16:20 UTC",
			}, {
				path:    "8e7d6c5b-4a39-4281-9f0e-d1c2b3a4f5e6",
				title:   "给奶奶的生日礼物",
				dated:   time.Date(2023, 6, 18, 2, 5, 44, 0, time.UTC),
				turns:   []string{"User · 2023-06-18 02:05 UTC", "Claude · 2023-06-18 02:06 UTC"},
				has:     []string{"奶奶下个月八十岁生日", "紫砂花盆"},
				heading: "给奶奶的生日礼物 > User · 2023-06-18 02:05 UTC",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ReadFile(tt.file, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Format != tt.format || doc.Text != "" || len(doc.Chunks) != 0 {
				t.Errorf("export: format %q, %d bytes of text, %d chunks; want %q and its text only in its conversations",
					doc.Format, len(doc.Text), len(doc.Chunks), tt.format)
			}
			if len(doc.Conversations) != len(tt.want) {
				t.Fatalf("got %d conversations, want %d", len(doc.Conversations), len(tt.want))
			}
			hashes := map[string]bool{}
			for i, w := range tt.want {
				c := doc.Conversations[i]
				checkChunkSpans(t, c)
				if want := tt.file + "/" + w.path; c.Path != want {
					t.Errorf("path %q, want %q", c.Path, want)
				}
				if ConversationFile(c.Path) != tt.file || !IsConversation(c.Format) {
					t.Errorf("%s: file %q, format %q: not a conversation of %s", c.Path, ConversationFile(c.Path), c.Format, tt.file)
				}
				if c.Title != w.title || !c.Dated.Equal(w.dated) || c.Format != tt.format {
					t.Errorf("%s: title %q, dated %v, format %q; want %q, %v, %q", c.Path, c.Title, c.Dated, c.Format, w.title, w.dated, tt.format)
				}
				var turns []string
				for _, ch := range c.Chunks {
					first, _, _ := strings.Cut(strings.TrimPrefix(ch.Text, w.title+"\n\n"), "\n")
					turns = append(turns, first)
				}
				if diff := cmp.Diff(w.turns, turns); diff != "" {
					t.Errorf("%s: one chunk per turn, in order (-want +got):\n%s", c.Path, diff)
				}
				if c.Chunks[0].Heading != w.heading {
					t.Errorf("%s: heading %q, want %q", c.Path, c.Chunks[0].Heading, w.heading)
				}
				if !strings.HasPrefix(c.Text, w.title+"\n\n") {
					t.Errorf("%s: text starts %q, want the title first", c.Path, c.Text[:min(len(c.Text), 60)])
				}
				for _, p := range w.has {
					if !strings.Contains(c.Text, p) {
						t.Errorf("%s: text lacks %q:\n%s", c.Path, p, c.Text)
					}
				}
				for _, p := range w.hasNot {
					if strings.Contains(c.Text, p) {
						t.Errorf("%s: text holds %q, which the conversation did not show:\n%s", c.Path, p, c.Text)
					}
				}
				if hashes[c.Hash] {
					t.Errorf("%s: hash %s is another conversation's", c.Path, c.Hash)
				}
				hashes[c.Hash] = true
			}
		})
	}
}

// checkChunkSpans holds every chunk to what the store and the document view rely on.
func checkChunkSpans(t *testing.T, doc Document) {
	t.Helper()
	for i, c := range doc.Chunks {
		if c.Ordinal != i || c.ByteStart < 0 || c.ByteEnd > len(doc.Text) || c.ByteStart > c.ByteEnd ||
			doc.Text[c.ByteStart:c.ByteEnd] != c.Text {
			t.Fatalf("%s: chunk %d (ordinal %d, bytes %d-%d) does not point at its text %q", doc.Path, i, c.Ordinal, c.ByteStart, c.ByteEnd, c.Text)
		}
		if c.LineStart < 1 || c.LineEnd < c.LineStart {
			t.Fatalf("%s: chunk %d has lines %d-%d", doc.Path, i, c.LineStart, c.LineEnd)
		}
	}
}

func TestChatExportLongTurnIsCut(t *testing.T) {
	long := strings.Repeat("Proofing in the fridge slows the yeast down a lot. ", 60)
	export := `[{"uuid":"u-1","name":"Long","created_at":"2024-05-01T10:00:00Z","chat_messages":[
		{"sender":"human","created_at":"2024-05-01T10:00:00Z","text":"Tell me everything."},
		{"sender":"assistant","created_at":"2024-05-01T10:01:00Z","text":"` + long + `"}]}]`
	doc, err := Parse("conversations.json", []byte(export), Limits{ChunkMaxRunes: 400})
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Conversations[0]
	checkChunkSpans(t, c)
	if len(c.Chunks) < 4 {
		t.Fatalf("got %d chunks, want the long answer cut into several", len(c.Chunks))
	}
	for _, ch := range c.Chunks[1:] {
		if ch.Heading != "Long > Claude · 2024-05-01 10:01 UTC" {
			t.Errorf("chunk %d: heading %q, want the answer's", ch.Ordinal, ch.Heading)
		}
		if strings.Contains(ch.Text, "Tell me everything") {
			t.Errorf("chunk %d mixes the question into the answer: %q", ch.Ordinal, ch.Text)
		}
	}
}

func TestChatExportRecognisedByContent(t *testing.T) {
	tests := []struct {
		name, path, text string
		want             string // Format
	}{
		{"chatgpt under another name", "backup-2024.json", `[{"title":"t","mapping":{"a":{"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["hello there"]}},"parent":null,"children":[]}},"current_node":"a","id":"x"}]`, FormatChatGPT},
		{"claude without extension", "export", `[{"uuid":"x","name":"n","chat_messages":[{"sender":"human","text":"hello there"}]}]`, FormatClaude},
		{"other JSON array", "conversations.json", `[{"title":"not a chat","messages":[]}]`, "text"},
		{"JSON object", "conversations.json", `{"mapping":{}}`, "text"},
		{"Markdown about exports", "notes.md", "[{\"mapping\": 1}]\n", "markdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(tt.path, []byte(tt.text), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Format != tt.want {
				t.Errorf("format %q, want %q", doc.Format, tt.want)
			}
			if (len(doc.Conversations) > 0) != IsConversation(tt.want) {
				t.Errorf("%d conversations for format %q", len(doc.Conversations), tt.want)
			}
		})
	}
}

func TestChatExportDamaged(t *testing.T) {
	whole, err := os.ReadFile("testdata/claude/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want string // in the error
		is   error
	}{
		// Cut in the second conversation: the first one reads, and must not be imported alone.
		{"truncated", whole[:len(whole)*3/4], "broken JSON at line", nil},
		{"wrong type", []byte(`[{"uuid":"x","name":"n","chat_messages":[{"sender":"human","text":7}]}]`), "broken JSON at line 1", nil},
		{"text after it", []byte(`[{"uuid":"x","name":"n","chat_messages":[]}] {}`), "text after the end", nil},
		{"no messages", []byte(`[{"uuid":"x","name":"n","chat_messages":[]}]`), "without a message", ErrNoText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(filepath.Join("export", "conversations.json"), tt.data, Limits{})
			if err == nil {
				t.Fatalf("got %d conversations and no error; want the export refused whole", len(doc.Conversations))
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"conversations.json"`) {
				t.Errorf("error %q, want it to name the file and say %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestChatGPTBranchWithoutCurrentNode(t *testing.T) {
	export := `[{"title":"t","create_time":1700000000,"id":"c","mapping":{
		"r":{"message":null,"parent":null,"children":["q"]},
		"q":{"message":{"author":{"role":"user"},"create_time":1700000001,"content":{"content_type":"text","parts":["question"]}},"parent":"r","children":["a1","a2"]},
		"a1":{"message":{"author":{"role":"assistant"},"create_time":1700000002,"content":{"content_type":"text","parts":["first answer"]}},"parent":"q","children":[]},
		"a2":{"message":{"author":{"role":"assistant"},"create_time":1700000009,"content":{"content_type":"text","parts":["regenerated answer"]}},"parent":"q","children":[]},
		"loop1":{"message":null,"parent":"loop2","children":["x"]},
		"loop2":{"message":null,"parent":"loop1","children":["y"]}}}]`
	doc, err := Parse("conversations.json", []byte(export), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	text := doc.Conversations[0].Text
	if !strings.Contains(text, "regenerated answer") || strings.Contains(text, "first answer") {
		t.Errorf("text %q, want the branch of the newest message only", text)
	}
}

func TestConversationNamesAreSafePaths(t *testing.T) {
	export := `[{"uuid":"../../etc","name":"a","chat_messages":[{"sender":"human","text":"one"}]},
		{"uuid":"same","name":"b","chat_messages":[{"sender":"human","text":"two"}]},
		{"uuid":"same","name":"c","chat_messages":[{"sender":"human","text":"three"}]},
		{"name":"d","chat_messages":[{"sender":"human","text":"four"}]}]`
	doc, err := Parse("/x/conversations.json", []byte(export), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range doc.Conversations {
		name := strings.TrimPrefix(c.Path, "/x/conversations.json/")
		if !safePathElement(name) || ConversationFile(c.Path) != "/x/conversations.json" || seen[c.Path] {
			t.Errorf("conversation %q has path %q: want one safe element of its own under the file", c.Title, c.Path)
		}
		seen[c.Path] = true
	}
}

func FuzzChatExport(f *testing.F) {
	for _, name := range []string{"testdata/chatgpt/conversations.json", "testdata/claude/conversations.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"mapping":{"a":{"message":null,"parent":"a","children":["a"]}},"current_node":"a"}]`))
	f.Add([]byte(`[{"chat_messages":[{"sender":"human","text":"\r\n\u0000x","created_at":"2024-13-01"}]}]`))
	// The chat readers directly: through Parse, an input the fuzzer turns into a PDF would
	// start PDFium for every run (FuzzParse covers that path with a Parser of its own).
	lim := Limits{ChunkMaxRunes: 120}.withDefaults()
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(docs []Document) {
			for _, c := range docs {
				checkChunkSpans(t, c)
				checkChunks(t, c.Text, c.Chunks, lim)
				if ConversationFile(c.Path) != "conversations.json" && ConversationFile(c.Path) != "export.zip" {
					t.Fatalf("conversation path %q is not under its file", c.Path)
				}
			}
		}
		if doc, err := chatExportZip(Document{Path: "export.zip"}, zipOf(t, [2]string{"conversations.json", string(data)}), lim); err == nil {
			check(doc.Conversations)
		}
		text, _, err := DecodeText(data, false)
		if err != nil {
			return
		}
		if kind := chatExportKind(text); kind != "" {
			if docs, err := chatDocuments("conversations.json", kind, text, lim); err == nil {
				check(docs)
			}
		}
	})
}

// TestChatExportZip reads the export as the apps hand it over, a ZIP; any other ZIP is still
// refused as an archive.
func TestChatExportZip(t *testing.T) {
	data, err := os.ReadFile("testdata/chatgpt/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	export := string(data)
	tests := []struct {
		name    string
		members [][2]string
		lim     Limits
		convs   int
		is      error
		want    string // in the error
	}{
		{"chatgpt export", [][2]string{{"chat.html", "<html></html>"}, {"conversations.json", export},
			{"user.json", `{"id":"user-1"}`}, {"file-abc.png", "\x89PNG"}}, Limits{}, 2, nil, ""},
		{"re-zipped in a folder", [][2]string{{"export/conversations.json", export}}, Limits{}, 2, nil, ""},
		{"other archive", [][2]string{{"notes.txt", "zipped notes"}}, Limits{}, 0, ErrBinary, "compressed archive (zip): not imported"},
		{"other conversations.json", [][2]string{{"conversations.json", `[{"id":1}]`}}, Limits{}, 0, ErrBinary, "compressed archive (zip): not imported"},
		{"over the limit", [][2]string{{"conversations.json", export}}, Limits{MaxFileBytes: 4 << 10}, 0, ErrTooLarge, "over the 4 KB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse("/x/export.zip", zipOf(t, tt.members...), tt.lim)
			if tt.is != nil {
				if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("got %d conversations, error %v; want %v saying %q", len(doc.Conversations), err, tt.is, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Conversations) != tt.convs || ConversationFile(doc.Conversations[0].Path) != "/x/export.zip" {
				t.Fatalf("got %d conversations (first at %q), want %d under the ZIP's path", len(doc.Conversations), doc.Conversations[0].Path, tt.convs)
			}
			for _, c := range doc.Conversations {
				checkChunkSpans(t, c)
			}
		})
	}
}
