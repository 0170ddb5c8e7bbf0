package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
	"golang.org/x/text/unicode/norm"
)

// A chat export is one file of many conversations: ChatGPT's and Claude's "export data" both
// write a conversations.json that is a JSON array with one object per conversation. Imported
// as the text it is, it would be one huge document whose chunks cut across conversations and
// whose date is the day of the import; so each conversation becomes a document of its own,
// its text the turns as a person reads them, one chunk per turn, dated by the conversation.
//
// A conversation's document has the path of the file, a slash and the conversation's id
// ("…/conversations.json/6f1c…"): no file can exist under a file, so the path cannot collide
// with a real one, and everything a folder path already does for the files under it (the
// --folder filter, a watch removing what was under a deleted path, listing what a path holds)
// works for a file's conversations too.

// Chat export formats, each conversation's Document.Format.
const (
	FormatChatGPT = "chatgpt"
	FormatClaude  = "claude"
)

// IsConversation reports whether a document of format is one conversation of a chat export,
// whose Path is the export file's path, a slash and the conversation's id.
func IsConversation(format string) bool { return format == FormatChatGPT || format == FormatClaude }

// ConversationFile is the export file a conversation's document came from.
func ConversationFile(path string) string { return filepath.Dir(path) }

// chatTurn is one message as a person reads it.
type chatTurn struct {
	speaker string
	at      time.Time // zero when the export gives no time
	text    string
}

// conversation is one conversation of an export, whatever its format.
type conversation struct {
	id      string
	title   string
	created time.Time
	turns   []chatTurn
}

// chatExportKind tells a chat export by its content: a JSON array whose first object has
// ChatGPT's "mapping" or Claude's "chat_messages". Only that object is decoded, so any other
// JSON costs a few microseconds and is imported as the text it is, as before.
func chatExportKind(text string) string {
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	if !strings.HasPrefix(trimmed, "[") {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return ""
	}
	var first map[string]json.RawMessage
	if !dec.More() || dec.Decode(&first) != nil {
		return ""
	}
	switch {
	case first["mapping"] != nil:
		return FormatChatGPT
	case first["chat_messages"] != nil:
		return FormatClaude
	}
	return ""
}

// chatDocuments reads every conversation of an export of kind at path into a document of its
// own. The whole file is read before any document is returned, so a damaged export imports
// nothing rather than the conversations before the damage.
func chatDocuments(path, kind, text string, lim Limits) ([]Document, error) {
	var (
		convs []conversation
		err   error
	)
	switch kind {
	case FormatChatGPT:
		convs, err = chatGPTConversations(text)
	case FormatClaude:
		convs, err = claudeConversations(text)
	}
	if err != nil {
		return nil, fmt.Errorf("looks like a %s export but cannot be read, so none of it was imported; export it again: %w", exportName(kind), err)
	}
	var docs []Document
	seen := map[string]bool{}
	for i, c := range convs {
		name := conversationName(c, i)
		for n := 2; seen[name]; n++ {
			name = fmt.Sprintf("%s-%d", conversationName(c, i), n)
		}
		seen[name] = true
		doc := conversationDocument(path+string(filepath.Separator)+name, kind, c, lim)
		if len(doc.Chunks) > 0 {
			docs = append(docs, doc)
		}
	}
	return docs, nil
}

// chatExport is file, decoded as text, read as the chat export of kind it is: a document
// holding one per conversation.
func chatExport(file Document, name, kind string, lim Limits) (Document, error) {
	convs, err := chatDocuments(file.Path, kind, file.Text, lim)
	if err != nil {
		return Document{}, fmt.Errorf("%q %w", filepath.Base(file.Path), err)
	}
	if len(convs) == 0 {
		return Document{}, fmt.Errorf("%q is a %s export without a message in it: %w", filepath.Base(file.Path), exportName(kind), ErrNoText)
	}
	file.Format, file.Title, file.Text, file.Conversations = kind, fallbackTitle(name, kind), "", convs
	return file, nil
}

// formatZip is a .zip file, which is read only for a chat export inside it: both apps hand
// their export over as a ZIP holding conversations.json (with users.json, chat.html, images).
const formatZip = "zip"

// chatExportName is the member of an export's ZIP that holds the conversations.
const chatExportName = "conversations.json"

// chatExportZip reads the chat export inside the ZIP file doc, of bytes data. Any other ZIP
// is refused as before, with the reason an archive always had ("compressed archive (zip):
// not imported"), so only a chat export's ZIP changes what an import does. The member may
// inflate to the size limit of a plain file, and no further: archive/zip never reads past
// the size a header gives, and zipDoc refuses a header over the budget before inflating.
func chatExportZip(doc Document, data []byte, lim Limits) (Document, error) {
	notExport := notText(describeBinary(mimetype.Detect(data[:min(len(data), sniffBytes)])))
	z, err := openZipDoc(data, lim.MaxFileBytes)
	if err != nil {
		return Document{}, notExport
	}
	member := ""
	for _, f := range z.zr.File {
		// At the top, as both apps write it, or in the folder an unzip and re-zip adds.
		if path.Base(f.Name) == chatExportName && (member == "" || len(f.Name) < len(member)) {
			member = f.Name
		}
	}
	if member == "" {
		return Document{}, notExport
	}
	inner, err := z.read(member)
	if errors.Is(err, errExpandsTooFar) {
		return Document{}, fmt.Errorf("%q holds a %s over the %s limit; unpack it and raise the limit: %w",
			filepath.Base(doc.Path), chatExportName, byteSize(lim.MaxFileBytes), ErrTooLarge)
	}
	if err != nil {
		return Document{}, fmt.Errorf("%q holds a %s that cannot be read (%v); unpack it and import that file: %w",
			filepath.Base(doc.Path), chatExportName, err, ErrUnsupported)
	}
	text, _, err := DecodeText(inner, false)
	kind := chatExportKind(text)
	if err != nil || kind == "" {
		return Document{}, notExport
	}
	doc.Text = text
	return chatExport(doc, doc.Path, kind, lim)
}

func exportName(kind string) string {
	if kind == FormatClaude {
		return "Claude"
	}
	return "ChatGPT"
}

// conversationName is the last element of a conversation's path: its id where that is safe
// in a path, else a digest of it, else (no id at all) of its title, date and place.
func conversationName(c conversation, index int) string {
	if safePathElement(c.id) {
		return c.id
	}
	key := c.id
	if key == "" {
		key = fmt.Sprintf("%s\x00%d\x00%d", c.title, c.created.UnixNano(), index)
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

func safePathElement(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// conversationDocument lays a conversation out as text, one section per turn:
//
//	Title
//
//	User · 2024-05-01 10:02 UTC
//	the message
//
//	ChatGPT · 2024-05-01 10:03 UTC
//	…
//
// Each turn is a section, so no chunk mixes two speakers; a long turn is cut at its
// paragraphs like any text. The title opens the first turn's section. The heading of a turn's chunks names the conversation and the
// speaker. Times are UTC, as the exports give them: the text must not depend on where it is
// imported, or the same export would hash differently on two machines.
func conversationDocument(path, kind string, c conversation, lim Limits) Document {
	title := oneLine(c.title)
	if title == "" {
		title = "Untitled conversation"
		if !c.created.IsZero() {
			title += " of " + c.created.UTC().Format(time.DateOnly)
		}
	}
	var b strings.Builder
	b.WriteString(title)
	b.WriteString("\n")
	var lay layout
	for i, t := range c.turns {
		b.WriteString("\n")
		start := b.Len()
		if i == 0 {
			start = 0 // the title goes with the first turn, so its words are found too
		}
		head := t.speaker
		if !t.at.IsZero() {
			head += " · " + t.at.UTC().Format("2006-01-02 15:04 MST")
		}
		b.WriteString(head)
		b.WriteString("\n")
		b.WriteString(t.text)
		b.WriteString("\n")
		lay.sections = append(lay.sections, section{start: start, end: b.Len(), heading: title + " > " + head})
	}
	text := b.String()
	lay.breaks = scanLayout(text, false).breaks
	dated := c.created
	if dated.IsZero() {
		for _, t := range c.turns {
			if !t.at.IsZero() && (dated.IsZero() || t.at.Before(dated)) {
				dated = t.at
			}
		}
	}
	// The hash is of what is stored, so a conversation that did not change is unchanged
	// however the rest of the export did; the id keeps two conversations with the same
	// words (two "hi"s) from being taken for copies of each other.
	sum := sha256.Sum256([]byte(kind + "\x00" + c.id + "\x00" + text))
	return Document{
		Path:     path,
		Title:    title,
		Format:   kind,
		Encoding: UTF8,
		Text:     text,
		Hash:     hex.EncodeToString(sum[:]),
		Dated:    dated,
		Chunks:   chunkLayout(text, lay, lim),
	}
}

// cleanText makes a message's text what Document.Text promises: valid UTF-8, NFC, no NUL,
// LF line ends, no blank lines around it.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.TrimSpace(norm.NFC.String(s))
}

// oneLine is a title as one line of clean text.
func oneLine(s string) string {
	return strings.Join(strings.Fields(cleanText(s)), " ")
}

// unixSeconds reads ChatGPT's times: seconds since 1970 with a fraction, or null.
func unixSeconds(f *float64) time.Time {
	if f == nil || *f <= 0 || math.IsNaN(*f) || *f > 1e11 {
		return time.Time{}
	}
	// A float64 holds today's seconds to about a quarter of a microsecond: the exports'
	// microseconds, and float noise below them.
	sec, frac := math.Modf(*f)
	return time.Unix(int64(sec), int64(frac*1e9)).Round(time.Microsecond).UTC()
}

// ChatGPT's conversations.json, as its "Export data" writes it: each conversation is a tree
// of messages (every edit or regeneration starts a branch), and current_node is the last
// message of the branch the person saw last.
type chatGPTConversation struct {
	ID             string                 `json:"id"`
	ConversationID string                 `json:"conversation_id"`
	Title          string                 `json:"title"`
	CreateTime     *float64               `json:"create_time"`
	CurrentNode    string                 `json:"current_node"`
	Mapping        map[string]chatGPTNode `json:"mapping"`
}

type chatGPTNode struct {
	Message  *chatGPTMessage `json:"message"`
	Parent   *string         `json:"parent"`
	Children []string        `json:"children"`
}

type chatGPTMessage struct {
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        *string           `json:"text"`
	} `json:"content"`
	Metadata struct {
		Hidden bool `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

func chatGPTConversations(text string) ([]conversation, error) {
	var raw []chatGPTConversation
	if err := strictJSON(text, &raw); err != nil {
		return nil, err
	}
	out := make([]conversation, 0, len(raw))
	for _, rc := range raw {
		c := conversation{id: rc.ConversationID, title: rc.Title, created: unixSeconds(rc.CreateTime)}
		if c.id == "" {
			c.id = rc.ID
		}
		for _, node := range chatGPTBranch(rc) {
			m := node.Message
			if m == nil || m.Metadata.Hidden {
				continue
			}
			speaker := ""
			switch m.Author.Role {
			case "user":
				speaker = "User"
			case "assistant":
				speaker = "ChatGPT"
			default:
				// System prompts, custom instructions and tool output (browsing, code runs)
				// are not what either side said.
				continue
			}
			if t := chatGPTText(m); t != "" {
				c.turns = append(c.turns, chatTurn{speaker: speaker, at: unixSeconds(m.CreateTime), text: t})
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// chatGPTBranch is the branch of the tree the person saw last, oldest message first: from
// current_node up through the parents. Without a current_node it is the branch that ends
// with the newest message. A cycle (a damaged file) ends the walk.
func chatGPTBranch(c chatGPTConversation) []chatGPTNode {
	cur := c.CurrentNode
	if _, ok := c.Mapping[cur]; !ok {
		cur = newestLeaf(c.Mapping)
	}
	var branch []chatGPTNode
	seen := map[string]bool{}
	for cur != "" && !seen[cur] {
		node, ok := c.Mapping[cur]
		if !ok {
			break
		}
		seen[cur] = true
		branch = append(branch, node)
		cur = ""
		if node.Parent != nil {
			cur = *node.Parent
		}
	}
	for i, j := 0, len(branch)-1; i < j; i, j = i+1, j-1 {
		branch[i], branch[j] = branch[j], branch[i]
	}
	return branch
}

// newestLeaf is the childless node with the newest message; ties go to the smallest id, so
// the choice does not depend on map order.
func newestLeaf(mapping map[string]chatGPTNode) string {
	ids := make([]string, 0, len(mapping))
	for id := range mapping {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	best, bestAt := "", time.Time{}
	for _, id := range ids {
		n := mapping[id]
		if len(n.Children) > 0 {
			continue
		}
		var at time.Time
		if n.Message != nil {
			at = unixSeconds(n.Message.CreateTime)
		}
		if best == "" || at.After(bestAt) {
			best, bestAt = id, at
		}
	}
	return best
}

// chatGPTText is a message's text: its string parts (an image or file part is an object and
// holds no text), or the text of a code message.
func chatGPTText(m *chatGPTMessage) string {
	var parts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			if s = cleanText(s); s != "" {
				parts = append(parts, s)
			}
		}
	}
	if len(parts) == 0 && m.Content.Text != nil {
		return cleanText(*m.Content.Text)
	}
	return strings.Join(parts, "\n\n")
}

// Claude's conversations.json, as its "Export data" writes it: each conversation a list of
// messages in order, each with its text both whole ("text") and as content blocks.
type claudeConversation struct {
	UUID      string          `json:"uuid"`
	Name      string          `json:"name"`
	CreatedAt string          `json:"created_at"`
	Messages  []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	Text      string `json:"text"`
	Sender    string `json:"sender"`
	CreatedAt string `json:"created_at"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func claudeConversations(text string) ([]conversation, error) {
	var raw []claudeConversation
	if err := strictJSON(text, &raw); err != nil {
		return nil, err
	}
	out := make([]conversation, 0, len(raw))
	for _, rc := range raw {
		c := conversation{id: rc.UUID, title: rc.Name, created: rfc3339(rc.CreatedAt)}
		for _, m := range rc.Messages {
			speaker := "User"
			if m.Sender == "assistant" {
				speaker = "Claude"
			} else if m.Sender != "human" {
				continue
			}
			if t := claudeText(m); t != "" {
				c.turns = append(c.turns, chatTurn{speaker: speaker, at: rfc3339(m.CreatedAt), text: t})
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// claudeText is a message's text blocks (tool use and thinking blocks are left out), or its
// text field when it has no blocks, as older exports do not.
func claudeText(m claudeMessage) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			if s := cleanText(b.Text); s != "" {
				parts = append(parts, s)
			}
		}
	}
	if len(parts) == 0 {
		return cleanText(m.Text)
	}
	return strings.Join(parts, "\n\n")
}

func rfc3339(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// strictJSON decodes text into v and refuses anything after it, saying where a damaged file
// went wrong in a way a person can find: line and column, not a byte offset.
func strictJSON(text string, v any) error {
	dec := json.NewDecoder(strings.NewReader(text))
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); !errors.Is(extra, io.EOF) {
			err = errors.New("text after the end of the JSON")
		}
	}
	if err == nil {
		return nil
	}
	offset := int(dec.InputOffset())
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		offset = int(syn.Offset)
	case errors.As(err, &typ):
		offset = int(typ.Offset)
	}
	offset = min(max(offset, 0), len(text))
	line := 1 + strings.Count(text[:offset], "\n")
	col := 1 + utf8.RuneCountInString(text[strings.LastIndexByte(text[:offset], '\n')+1:offset])
	return fmt.Errorf("broken JSON at line %d, column %d: %v", line, col, err)
}
