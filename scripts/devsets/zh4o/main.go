// Command zh4o converts ZH-4O, the Chinese ultra-long role-play dialogue set with human
// memory annotations from MOOM (Chen et al., "MOOM: Maintenance, Organization and
// Optimization of Memory in Ultra-Long Role-Playing Dialogues", arXiv 2509.11860; GitHub
// cows21/MOOM-RolePlay, folder label/), into a BEIR-form retrieval set for
// `memdesk eval --scope prefix`.
//
// Each label/ZH-4O_label_<n>.jsonl file is one JSON object: one user–character dialogue
// ("messages", 1,000–1,900 lines) and "memory_human_label", a map from a message index to
// the memory statements a human annotator wrote down at that point ("赵齐称呼白羽岚为“小白”").
//
//   - corpus: the dialogue cut into consecutive blocks of -block messages (default 10), one
//     "speaker: text" line per message; id "<dialogue>/b<block>".
//   - queries: every annotated memory statement; id "<dialogue>/m<message index>".
//   - qrels: the block holding the annotated message, and also the next block when the
//     message is among the last -tail (default 3) of its block, since an annotated event
//     usually plays out over the following messages. Relevance 1.
//
// Every id starts with its dialogue and a slash, so prefix scope ranks only the blocks of
// the statement's own dialogue.
//
//	go run . -src DIR -out DIR [-block 10] [-tail 3]
//
// Output: corpus.jsonl ({"_id","title","text"}), queries.jsonl ({"_id","text"}),
// qrels/test.tsv (BEIR, with a header line), qrels.jsonl (the same pairs in the form
// memdesk eval reads) and queries_meta.jsonl. Standard library only; the same input gives
// the same bytes.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var labelFile = regexp.MustCompile(`^ZH-4O_label_(\d+)\.jsonl$`)

type message struct {
	Sender string `json:"sender_name"`
	Text   string `json:"text"`
	Flag   string `json:"flag"`
}

type source struct {
	Messages []message `json:"messages"`
	RoleMeta struct {
		Bot  string `json:"primary_bot_name"`
		User string `json:"user_name"`
	} `json:"role_meta"`
	Labels map[string][]string `json:"memory_human_label"`
}

type doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

type qrel struct {
	QueryID   string `json:"query_id"`
	DocID     string `json:"doc_id"`
	Relevance int    `json:"relevance"`
}

type queryMeta struct {
	ID        string   `json:"id"`
	Dialogue  string   `json:"dialogue"`
	File      string   `json:"source_file"`
	Bot       string   `json:"bot"`
	User      string   `json:"user"`
	Turns     []int    `json:"label_message_indexes"`
	Gold      []string `json:"gold"`
	Messages  int      `json:"dialogue_messages"`
	Statement int      `json:"statements_merged"`
}

func main() {
	src := flag.String("src", "", "folder holding label/ZH-4O_label_<n>.jsonl files")
	out := flag.String("out", "", "folder to write the BEIR files to")
	block := flag.Int("block", 10, "messages per corpus block")
	tail := flag.Int("tail", 3, "a label in the last this-many messages of a block also marks the next block")
	flag.Parse()
	if *src == "" || *out == "" || *block < 1 || *tail < 0 || *tail >= *block {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*src, *out, *block, *tail); err != nil {
		fmt.Fprintln(os.Stderr, "zh4o:", err)
		os.Exit(1)
	}
}

func run(src, out string, block, tail int) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	type file struct {
		n    int
		name string
	}
	var files []file
	for _, e := range entries {
		m := labelFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		files = append(files, file{n, e.Name()})
	}
	if len(files) == 0 {
		return fmt.Errorf("no ZH-4O_label_<n>.jsonl files in %s", src)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].n < files[j].n })

	var (
		docs    []doc
		queries []query
		qrels   []qrel
		metas   []queryMeta
		stats   = map[string]int{}
		seen    = map[string]string{} // dialogue content hash -> first dialogue
	)
	for _, f := range files {
		path := filepath.Join(src, f.name)
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		fmt.Printf("source %s %d bytes sha256 %s\n", f.name, len(raw), hex.EncodeToString(sum[:]))
		var s source
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("%s: more than one JSON value", path)
		}
		if len(s.Messages) == 0 {
			return fmt.Errorf("%s: no messages", path)
		}
		dlg := fmt.Sprintf("zh4o-%02d", f.n)

		h := sha256.New()
		for _, m := range s.Messages {
			fmt.Fprintf(h, "%s\x00%s\x00", m.Sender, m.Text)
		}
		key := hex.EncodeToString(h.Sum(nil))
		if first, ok := seen[key]; ok {
			return fmt.Errorf("%s: same dialogue as %s", path, first)
		}
		seen[key] = dlg
		stats["dialogues"]++
		stats["messages"] += len(s.Messages)

		// Blocks.
		nblocks := (len(s.Messages) + block - 1) / block
		for b := 0; b < nblocks; b++ {
			var sb strings.Builder
			for i := b * block; i < (b+1)*block && i < len(s.Messages); i++ {
				m := s.Messages[i]
				if i > b*block {
					sb.WriteByte('\n')
				}
				sb.WriteString(strings.TrimSpace(m.Sender))
				sb.WriteString(": ")
				sb.WriteString(strings.TrimSpace(m.Text))
			}
			docs = append(docs, doc{ID: blockID(dlg, b), Text: sb.String()})
		}
		stats["blocks"] += nblocks

		// Labels, in message order; identical statements in one dialogue become one query.
		idx := make([]int, 0, len(s.Labels))
		for k := range s.Labels {
			n, err := strconv.Atoi(strings.TrimSpace(k))
			if err != nil || n < 0 {
				return fmt.Errorf("%s: label key %q is not a message index", path, k)
			}
			idx = append(idx, n)
		}
		sort.Ints(idx)
		type q struct {
			id    string
			text  string
			turns []int
			gold  map[int]bool
			n     int
		}
		var qs []*q
		byText := map[string]*q{}
		for _, n := range idx {
			for j, text := range s.Labels[strconv.Itoa(n)] {
				text = strings.TrimSpace(text)
				if text == "" {
					stats["empty statements dropped"]++
					continue
				}
				stats["statements"]++
				if n >= len(s.Messages) {
					stats["statements past the dialogue's end dropped"]++
					continue
				}
				gold := map[int]bool{n / block: true}
				if n%block >= block-tail && n/block+1 < nblocks {
					gold[n/block+1] = true
				}
				if prev, ok := byText[text]; ok {
					stats["statements merged into an identical one"]++
					prev.turns = append(prev.turns, n)
					for g := range gold {
						prev.gold[g] = true
					}
					prev.n++
					continue
				}
				id := fmt.Sprintf("%s/m%04d", dlg, n)
				if j > 0 {
					id = fmt.Sprintf("%s-%d", id, j)
				}
				nq := &q{id: id, text: text, turns: []int{n}, gold: gold, n: 1}
				byText[text] = nq
				qs = append(qs, nq)
			}
		}
		for _, x := range qs {
			queries = append(queries, query{ID: x.id, Text: x.text})
			blocks := make([]int, 0, len(x.gold))
			for g := range x.gold {
				blocks = append(blocks, g)
			}
			sort.Ints(blocks)
			ids := make([]string, len(blocks))
			for i, b := range blocks {
				ids[i] = blockID(dlg, b)
				qrels = append(qrels, qrel{QueryID: x.id, DocID: ids[i], Relevance: 1})
			}
			metas = append(metas, queryMeta{ID: x.id, Dialogue: dlg, File: f.name, Bot: s.RoleMeta.Bot,
				User: s.RoleMeta.User, Turns: x.turns, Gold: ids, Messages: len(s.Messages), Statement: x.n})
		}
	}

	if err := os.MkdirAll(filepath.Join(out, "qrels"), 0o755); err != nil {
		return err
	}
	if err := errors.Join(
		writeJSONL(filepath.Join(out, "corpus.jsonl"), docs),
		writeJSONL(filepath.Join(out, "queries.jsonl"), queries),
		writeJSONL(filepath.Join(out, "qrels.jsonl"), qrels),
		writeJSONL(filepath.Join(out, "queries_meta.jsonl"), metas),
		writeTSV(filepath.Join(out, "qrels", "test.tsv"), qrels),
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

func blockID(dlg string, b int) string { return fmt.Sprintf("%s/b%03d", dlg, b) }

func writeJSONL[T any](path string, rows []T) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeTSV(path string, rows []qrel) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "query-id\tcorpus-id\tscore")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%d\n", r.QueryID, r.DocID, r.Relevance)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
