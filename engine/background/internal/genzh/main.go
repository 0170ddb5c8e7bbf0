// Command genzh writes zh-words.tsv, the Chinese word table of package background, from the
// simplified-Chinese dictionary of the gse module (data/dict/zh/s_1.txt: word, count, part of
// speech, one entry a line; most of it from jieba's dictionary). It keeps the entries counted
// at least minCount times, as the entity extractor loads that dictionary, and sorts them by
// their bytes so the package can search the table in place, without loading it. The first
// line is the total of the counts kept, under the empty word.
//
//	go run ./engine/background/internal/genzh -dict $(go env GOMODCACHE)/github.com/go-ego/gse@v0.80.3/data/dict/zh/s_1.txt > engine/background/zh-words.tsv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// minCount drops the rare entries (counts 2-4, 60% of the dictionary): largely proper nouns a
// question's topic does not turn on, and the table's size halves.
const minCount = 5

func main() {
	dict := flag.String("dict", "", "the gse dictionary s_1.txt")
	flag.Parse()
	if *dict == "" {
		log.Fatal("genzh: -dict is required")
	}
	f, err := os.Open(*dict)
	if err != nil {
		log.Fatalf("genzh: %v", err)
	}
	defer f.Close()
	type entry struct {
		word, tag string
		count     int
	}
	best := map[string]entry{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		count, err := strconv.Atoi(fields[1])
		if err != nil || count < minCount || !allHan(fields[0]) {
			continue
		}
		tag := "x"
		if len(fields) > 2 {
			tag = fields[2]
		}
		// A word entered twice keeps its larger count (and that entry's tag).
		if e, ok := best[fields[0]]; !ok || count > e.count {
			best[fields[0]] = entry{fields[0], tag, count}
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatalf("genzh: %v", err)
	}
	words := make([]string, 0, len(best))
	for w := range best {
		words = append(words, w)
	}
	slices.Sort(words)
	total := 0
	for _, e := range best {
		total += e.count
	}
	out := bufio.NewWriter(os.Stdout)
	// The first line holds the counts' total under the empty word, which sorts first.
	fmt.Fprintf(out, "\t%d\ttotal\n", total)
	for _, w := range words {
		e := best[w]
		fmt.Fprintf(out, "%s\t%d\t%s\n", e.word, e.count, e.tag)
	}
	if err := out.Flush(); err != nil {
		log.Fatalf("genzh: %v", err)
	}
}

// allHan reports whether s is one or more Han characters and nothing else: queries reach the
// table with Han runs only.
func allHan(s string) bool {
	if !utf8.ValidString(s) || s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
