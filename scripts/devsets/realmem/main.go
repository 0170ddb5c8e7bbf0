// Command realmem converts the RealMem benchmark (GitHub AvatarMemory/RealMemBench, folder
// dataset/: one <User>_dialogues_256k.json per simulated user) into a BEIR-form memory set
// for `memdesk eval --scope prefix`.
//
// The documents are the users' extracted memory points, the queries the user turns marked
// is_query, and a query's relevant documents the memory points that its answering assistant
// turn lists in memory_used, matched by session uuid and text. Every id starts with its
// space and a slash, so prefix scope searches one space:
//
//   - -store past (the default): one space per question, <user>-<query_id>, holding the
//     user's memory points from the sessions before the question's and from the turns of its
//     own session before it, as LongMemEval gives each question its own history. A memory
//     point that only exists after the question is asked is not in its space, and a
//     relevance label pointing at one is dropped.
//   - -store all: one space per user holding all of the user's memory points, later ones too.
//
// Identical texts in one space share one document. Questions are sampled by
// sha256("realmem:<user>/<query_id>"), so a -fraction keeps the same ones whatever else is
// present.
//
//	go run ./scripts/devsets/realmem -src DIR -out DIR [-fraction 0.2] [-store past|all]
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

const fileSuffix = "_dialogues_256k.json"

// The two ways of making spaces (-store).
const (
	storePast = "past"
	storeAll  = "all"
)

type memoryPoint struct {
	Index       string          `json:"index"`
	Type        string          `json:"type"`
	Content     json.RawMessage `json:"content"`
	SourceTurn  json.RawMessage `json:"source_turn"`
	SourceText  string          `json:"source_content_snapshot"`
	SourceRole  string          `json:"source_role_snapshot"`
	SessionUUID string          `json:"session_uuid"`
}

type usedMemory struct {
	SessionUUID string          `json:"session_uuid"`
	Content     json.RawMessage `json:"content"`
}

type turn struct {
	Speaker      string       `json:"speaker"`
	Content      string       `json:"content"`
	IsQuery      bool         `json:"is_query"`
	QueryID      *string      `json:"query_id"`
	Topic        string       `json:"topic"`
	CategoryName string       `json:"category_name"`
	SessionType  string       `json:"session_type"`
	MemoryUsed   []usedMemory `json:"memory_used"`
}

type session struct {
	Identifier string        `json:"session_identifier"`
	UUID       string        `json:"session_uuid"`
	Time       string        `json:"current_time"`
	Turns      []turn        `json:"dialogue_turns"`
	Memory     []memoryPoint `json:"extracted_memory"`
}

type sourceFile struct {
	Metadata struct {
		PersonName string `json:"person_name"`
	} `json:"_metadata"`
	Dialogues []session `json:"dialogues"`
}

type doc struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

type query struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

type qrel struct {
	QueryID   string `json:"query_id"`
	DocID     string `json:"doc_id"`
	Relevance int    `json:"relevance"`
}

// memoryMeta describes one memory point of the source, named <user>/S<session>:M<point>;
// a document <space>/S<session>:M<point> holds that point's text.
type memoryMeta struct {
	ID          string `json:"id"`
	User        string `json:"user"`
	Session     int    `json:"session"`
	SessionID   string `json:"session_identifier"`
	SessionUUID string `json:"session_uuid"`
	SessionTime string `json:"session_time"`
	Index       string `json:"memory_index"`
	Type        string `json:"type"`
	SourceTurn  int    `json:"source_turn_index"`
	SourceRole  string `json:"source_role"`
}

type queryMeta struct {
	ID          string `json:"id"`
	User        string `json:"user"`
	QueryID     string `json:"query_id"`
	Category    string `json:"category"`
	Topic       string `json:"topic"`
	SessionType string `json:"session_type"`
	Session     int    `json:"session"`
	SessionID   string `json:"session_identifier"`
	SessionTime string `json:"session_time"`
	Turn        int    `json:"turn"`
	Gold        int    `json:"gold"`
	GoldAbsent  int    `json:"gold_not_yet_known"`
}

func main() {
	src := flag.String("src", "", "folder holding the RealMem <User>"+fileSuffix+" files")
	out := flag.String("out", "", "folder to write corpus.jsonl, queries.jsonl, qrels.jsonl and side files to")
	fraction := flag.Float64("fraction", 0.2, "share of questions kept, by sha256 of the user and query id")
	store := flag.String("store", storePast, "past: one space per question with the memory points known when it is asked; all: one space per user with all of them")
	flag.Parse()
	if *src == "" || *out == "" || *fraction <= 0 || *fraction > 1 || (*store != storePast && *store != storeAll) {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*src, *out, *fraction, *store); err != nil {
		fmt.Fprintln(os.Stderr, "realmem:", err)
		os.Exit(1)
	}
}

func run(src, out string, fraction float64, store string) error {
	paths, err := filepath.Glob(filepath.Join(src, "*"+fileSuffix))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no *%s files in %s", fileSuffix, src)
	}
	sort.Strings(paths)

	var (
		docs    []doc
		mmeta   []memoryMeta
		queries []query
		qmeta   []queryMeta
		qrels   []qrel
		stats   = map[string]int{}
	)
	for _, path := range paths {
		sum, err := fileSHA256(path)
		if err != nil {
			return err
		}
		fmt.Printf("source %s sha256 %s\n", filepath.Base(path), sum)
		var f sourceFile
		if err := readJSON(path, &f); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		user := f.Metadata.PersonName
		if user == "" {
			user = strings.TrimSuffix(filepath.Base(path), fileSuffix)
		}
		if strings.ContainsAny(user, "/ ") {
			return fmt.Errorf("%s: user name %q would not make an id prefix", path, user)
		}

		// The user's memory points in session order.
		var points []point
		for si, s := range f.Dialogues {
			for mi, m := range s.Memory {
				text, err := memoryText(m.Content)
				if err != nil {
					return fmt.Errorf("%s: session %d memory %d: %w", path, si, mi, err)
				}
				if text == "" {
					stats["empty memory points dropped"]++
					continue
				}
				stats["memory points"]++
				uuid := m.SessionUUID
				if uuid == "" {
					uuid = s.UUID
				}
				st := sourceTurn(s, m)
				points = append(points, point{session: si, index: mi, uuid: uuid, text: text, sourceTurn: st})
				mmeta = append(mmeta, memoryMeta{ID: fmt.Sprintf("%s/S%d:M%d", user, si, mi), User: user,
					Session: si, SessionID: s.Identifier, SessionUUID: uuid, SessionTime: s.Time,
					Index: m.Index, Type: m.Type, SourceTurn: st, SourceRole: m.SourceRole})
			}
		}
		if store == storeAll {
			// One space per user holding all of the user's memory points.
			d, byKey := buildStore(user, points, func(point) bool { return true })
			docs = append(docs, d...)
			stats["memory points sharing a text"] += len(points) - len(d)
			err := addQueries(f, path, user, fraction, stats, func(string, int, int) (map[key][]string, string) {
				return byKey, user
			}, &queries, &qmeta, &qrels)
			if err != nil {
				return err
			}
			continue
		}
		// One space per question holding the memory points known when it is asked.
		err = addQueries(f, path, user, fraction, stats, func(qid string, si, ti int) (map[key][]string, string) {
			space := strings.ReplaceAll(qid, "/", "-")
			d, byKey := buildStore(space, points, func(p point) bool {
				return p.session < si || (p.session == si && p.sourceTurn >= 0 && p.sourceTurn < ti)
			})
			docs = append(docs, d...)
			return byKey, space
		}, &queries, &qmeta, &qrels)
		if err != nil {
			return err
		}
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := errors.Join(
		writeJSONL(filepath.Join(out, "corpus.jsonl"), docs),
		writeJSONL(filepath.Join(out, "queries.jsonl"), queries),
		writeJSONL(filepath.Join(out, "qrels.jsonl"), qrels),
		writeJSONL(filepath.Join(out, "memories_meta.jsonl"), mmeta),
		writeJSONL(filepath.Join(out, "queries_meta.jsonl"), qmeta),
	); err != nil {
		return err
	}
	keys := make([]string, 0, len(stats))
	for k := range stats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s: %d\n", k, stats[k])
	}
	fmt.Printf("written: %d docs, %d queries, %d qrels\n", len(docs), len(queries), len(qrels))
	return nil
}

type point struct {
	session, index int
	uuid, text     string
	sourceTurn     int
}

type key struct{ uuid, text string }

// buildStore makes the documents of one space from the points admitted: one document per
// distinct text, named after its first point. It returns the map from (session uuid, text)
// to the document holding that point.
func buildStore(space string, points []point, admit func(point) bool) ([]doc, map[key][]string) {
	var (
		docs    []doc
		byKey   = map[key][]string{}
		firstID = map[string]int{} // text -> position in docs
	)
	for _, p := range points {
		if !admit(p) {
			continue
		}
		k := key{p.uuid, p.text}
		if at, ok := firstID[p.text]; ok {
			if !slices.Contains(byKey[k], docs[at].ID) {
				byKey[k] = append(byKey[k], docs[at].ID)
			}
			continue
		}
		id := fmt.Sprintf("%s/S%d:M%d", space, p.session, p.index)
		firstID[p.text] = len(docs)
		byKey[k] = append(byKey[k], id)
		docs = append(docs, doc{ID: id, Text: p.text})
	}
	return docs, byKey
}

// addQueries adds the user's sampled questions: the is_query user turns, with the memory
// points that the next assistant turn lists in memory_used as their relevant documents.
// storeFor gives the (session uuid, text) -> document map of the question's space and the
// space's name; it is called only for sampled questions.
func addQueries(f sourceFile, path, user string, fraction float64, stats map[string]int,
	storeFor func(qid string, si, ti int) (map[key][]string, string),
	queries *[]query, qmeta *[]queryMeta, qrels *[]qrel) error {
	for si, s := range f.Dialogues {
		for ti, t := range s.Turns {
			if !t.IsQuery {
				continue
			}
			stats["questions"]++
			if t.QueryID == nil || *t.QueryID == "" {
				return fmt.Errorf("%s: session %d turn %d: a query without query_id", path, si, ti)
			}
			qid := user + "/" + *t.QueryID
			if ti+1 >= len(s.Turns) || s.Turns[ti+1].Speaker != "Assistant" || len(s.Turns[ti+1].MemoryUsed) == 0 {
				stats["questions without memory_used"]++
				continue
			}
			if !keep("realmem:"+qid, fraction) {
				continue
			}
			byKey, space := storeFor(qid, si, ti)
			gold := map[string]bool{}
			absent := 0
			for _, u := range s.Turns[ti+1].MemoryUsed {
				text, err := memoryText(u.Content)
				if err != nil {
					return fmt.Errorf("%s: %s: memory_used: %w", path, qid, err)
				}
				ids := byKey[key{u.SessionUUID, text}]
				if len(ids) == 0 {
					absent++
					continue
				}
				for _, id := range ids {
					gold[id] = true
				}
			}
			stats["sampled questions"]++
			stats["memory_used entries not in the store"] += absent
			if len(gold) == 0 {
				stats["sampled questions without gold in the store, dropped"]++
				continue
			}
			id := space + "/q"
			if space == user {
				id = qid
			}
			*queries = append(*queries, query{ID: id, Text: strings.TrimSpace(t.Content)})
			ids := make([]string, 0, len(gold))
			for g := range gold {
				ids = append(ids, g)
			}
			slices.Sort(ids)
			for _, g := range ids {
				*qrels = append(*qrels, qrel{QueryID: id, DocID: g, Relevance: 1})
			}
			*qmeta = append(*qmeta, queryMeta{ID: id, User: user, QueryID: *t.QueryID, Category: t.CategoryName,
				Topic: t.Topic, SessionType: t.SessionType, Session: si, SessionID: s.Identifier,
				SessionTime: s.Time, Turn: ti, Gold: len(ids), GoldAbsent: absent})
		}
	}
	return nil
}

// sourceTurn is the 0-based index in its session of the turn a memory point was extracted
// from, or -1 if unknown. The source numbers turns from 1 for most points and from 0 for
// some, so the turn whose text is the point's source snapshot decides; without a match the
// number is read as 1-based.
func sourceTurn(s session, m memoryPoint) int {
	var n int
	if err := json.Unmarshal(m.SourceTurn, &n); err != nil {
		return -1
	}
	snap := strings.TrimSpace(m.SourceText)
	for _, i := range []int{n - 1, n} {
		if i >= 0 && i < len(s.Turns) && snap != "" && strings.TrimSpace(s.Turns[i].Content) == snap {
			return i
		}
	}
	return n - 1
}

// memoryText is a memory point's content as text: a string as it is, anything else (one
// point holds a JSON object) as compact JSON with sorted keys.
func memoryText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strings.TrimSpace(s), nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// keep reports whether sha256(key), read as a fraction of 2^64 from its first 8 bytes, is
// below fraction.
func keep(key string, fraction float64) bool {
	if fraction >= 1 {
		return true
	}
	sum := sha256.Sum256([]byte(key))
	return float64(binary.BigEndian.Uint64(sum[:8])) < fraction*math.Pow(2, 64)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeJSONL writes each row as one JSON line, HTML characters left unescaped.
func writeJSONL[T any](path string, rows []T) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return w.Flush()
}
