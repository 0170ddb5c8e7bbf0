package rank

import (
	"slices"
	"strings"
	"testing"
)

// The same passage as Node's documentation has it in Markdown and in HTML (as the HTML
// importer reads it: markup gone, a "copy" button's label left in).
const (
	readFileMarkdown = "```mjs\nimport { readFile } from 'node:fs/promises';\ntry {\n  const filePath = new URL('./package.json', import.meta.url);\n  const contents = await readFile(filePath, { encoding: 'utf8' });\n  console.log(contents);\n} catch (err) {\n  console.error(err.message);\n}\n```"
	readFileHTML     = "import { readFile } from 'node:fs/promises'; try { const filePath = new URL('./package.json', import.meta.url); const contents = await readFile(filePath, { encoding: 'utf8' }); console.log(contents); } catch (err) { console.error(err.message); } copy"
	// A different passage that shares the first lines of the example.
	readFileCallback = "import { readFile } from 'node:fs'; readFile('/etc/passwd', 'utf8', callback); When the path is a directory, the behavior of fs.readFile() and fs.readFileSync() is platform-specific. On macOS, Linux, and Windows, an error will be returned."
	// The same passage as a documentation build's JSON holds it: HTML in a JSON string.
	readFileJSON    = `"desc": "<p>If no encoding is specified, then the raw buffer is returned.\nIf <code>options</code> is a string, then it specifies the encoding:</p>\n<pre><code class=\"language-mjs\">readFile(&#39;/etc/passwd&#39;, &#39;utf8&#39;, callback);\n</code></pre>\n<p>When the path is a directory, the behavior is platform-specific.</p>"`
	readFilePlain   = "If no encoding is specified, then the raw buffer is returned. If options is a string, then it specifies the encoding: readFile('/etc/passwd', 'utf8', callback); When the path is a directory, the behavior is platform-specific."
	pandaLong       = "南京的大熊猫很可爱，每天早上八点开始吃竹子，下午在树上睡觉，游客最多的时候是周末上午。"
	pandaPunctuated = "南京的大熊猫很可爱。每天早上八点开始吃竹子；下午在树上睡觉——游客最多的时候是周末上午！"
	pandaOther      = "南京的大熊猫很可爱，但是成都的熊猫基地更大，那里一共有两百多只熊猫。"
)

func chunkHit(id int64, matched ...string) Hit {
	return Hit{Key: Key{Kind: KindChunk, ID: id}, Matched: matched}
}

func TestCollapse(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog near the river bank ", 4)
	cases := []struct {
		name  string
		hits  []Hit
		texts map[int64]string
		// want is each kept hit's id with the ids folded into it.
		want map[int64][]int64
		kept []int64
	}{
		{
			name:  "the same passage in Markdown and in HTML is one hit",
			hits:  []Hit{chunkHit(1, "readfile"), chunkHit(2, "readfile"), chunkHit(3, "readfile")},
			texts: map[int64]string{1: readFileHTML, 2: readFileCallback, 3: readFileMarkdown},
			kept:  []int64{1, 2},
			want:  map[int64][]int64{1: {3}},
		},
		{
			name:  "markup and string escapes are not words: a JSON string of HTML is the page's passage",
			hits:  []Hit{chunkHit(1), chunkHit(2)},
			texts: map[int64]string{1: readFilePlain, 2: readFileJSON},
			kept:  []int64{1},
			want:  map[int64][]int64{1: {2}},
		},
		{
			name:  "a short higher hit does not stand for a longer lower one that says more",
			hits:  []Hit{chunkHit(1), chunkHit(2)},
			texts: map[int64]string{1: "the quick brown fox jumps over the lazy dog near the river bank", 2: long + " and then it swam across to the other side at dawn"},
			kept:  []int64{1, 2},
		},
		{
			name:  "a longer higher hit stands for a lower one inside it",
			hits:  []Hit{chunkHit(1), chunkHit(2)},
			texts: map[int64]string{1: long + " and then it swam across", 2: "the quick brown fox jumps over the lazy dog near the river bank"},
			kept:  []int64{1},
			want:  map[int64][]int64{1: {2}},
		},
		{
			name:  "a lower hit that matched a word the higher one lacks stays",
			hits:  []Hit{chunkHit(1, "readfile"), chunkHit(2, "readfile", "mjs")},
			texts: map[int64]string{1: readFileHTML, 2: readFileMarkdown},
			kept:  []int64{1, 2},
		},
		{
			name:  "Chinese: the same sentences with other punctuation fold, a shared opening does not",
			hits:  []Hit{chunkHit(1), chunkHit(2), chunkHit(3)},
			texts: map[int64]string{1: pandaLong, 2: pandaOther, 3: pandaPunctuated},
			kept:  []int64{1, 2},
			want:  map[int64][]int64{1: {3}},
		},
		{
			name:  "texts too short to tell are never folded",
			hits:  []Hit{chunkHit(1), chunkHit(2)},
			texts: map[int64]string{1: "Returns: undefined", 2: "Returns: undefined"},
			kept:  []int64{1, 2},
		},
		{
			name:  "memories are never folded",
			hits:  []Hit{{Key: Key{Kind: KindFact, ID: 1}}, {Key: Key{Kind: KindFact, ID: 2}}},
			texts: map[int64]string{1: readFileHTML, 2: readFileMarkdown},
			kept:  []int64{1, 2},
		},
		{
			name:  "a hit without a passage is kept as it is",
			hits:  []Hit{chunkHit(1), chunkHit(2), chunkHit(3)},
			texts: map[int64]string{1: readFileHTML, 3: readFileMarkdown},
			kept:  []int64{1, 2},
			want:  map[int64][]int64{1: {3}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			passages := map[Key]Passage{}
			for _, h := range c.hits {
				if text, ok := c.texts[h.Key.ID]; ok {
					passages[h.Key] = PassageOf(text)
				}
			}
			got := Collapse(c.hits, passages)
			var kept []int64
			for _, h := range got {
				kept = append(kept, h.Key.ID)
				var folded []int64
				for _, s := range h.Same {
					folded = append(folded, s.Key.ID)
					if s.Shared < sameShare || s.Shared > 1 {
						t.Errorf("hit %d folded into %d with share %.2f", s.Key.ID, h.Key.ID, s.Shared)
					}
				}
				if want := c.want[h.Key.ID]; !slices.Equal(folded, want) {
					t.Errorf("hit %d stands for %v, want %v", h.Key.ID, folded, want)
				}
			}
			if !slices.Equal(kept, c.kept) {
				t.Errorf("kept %v, want %v", kept, c.kept)
			}
		})
	}
}

func TestCollapseIsInTheWhy(t *testing.T) {
	hits := []Hit{chunkHit(1, "readfile"), chunkHit(2, "readfile")}
	hits[0].Legs.FTS, hits[1].Legs.FTS = 1, 0.9
	passages := map[Key]Passage{hits[0].Key: PassageOf(readFileHTML), hits[1].Key: PassageOf(readFileMarkdown)}
	got := Collapse(hits, passages)
	if len(got) != 1 {
		t.Fatalf("Collapse kept %d hits, want 1", len(got))
	}
	if why := Explain(got[0]); !strings.Contains(why, "same passage as 1 lower hit") {
		t.Errorf("Explain = %q, want it to say the hit stands for one lower hit", why)
	}
}

func FuzzPassageOf(f *testing.F) {
	for _, s := range []string{readFileHTML, readFileMarkdown, pandaLong, "", "a b c", "\xff\xfe 南京 \x00 café"} {
		f.Add(s, readFileHTML)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		pa, pb := PassageOf(a), PassageOf(b)
		if s := pa.In(pb); s < 0 || s > 1 {
			t.Fatalf("In = %v, want a share in [0, 1]", s)
		}
		if s := pa.In(pa); len(pa.shingles) >= minShingles && s != 1 {
			t.Fatalf("a passage holds %v of itself, want 1", s)
		}
	})
}
