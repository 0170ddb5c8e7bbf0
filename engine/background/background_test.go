package background

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/engine/analysis"
)

// specificity of each term of text, by surface.
func specificity(text string) map[string]float64 {
	out := map[string]float64{}
	for t := range analysis.Terms(text) {
		out[t.Surface+"/"+t.Text] = Specificity(t)
	}
	return out
}

func TestTopicWordsAreMoreSpecificThanWhatAnyQuestionSays(t *testing.T) {
	cases := []struct{ text, specific, common string }{
		{"hours documentaries", "documentaries", "hours"},
		{"spent telescope", "telescope", "spent"},
		{"cat name", "cat", "name"},
		{"sourdough bread", "sourdough", "bread"},
	}
	for _, c := range cases {
		var s, g float64
		for tm := range analysis.Terms(c.text) {
			switch tm.Surface {
			case c.specific:
				s = Specificity(tm)
			case c.common:
				g = Specificity(tm)
			}
		}
		if g <= 0 || s <= g {
			t.Errorf("%q: specificity of %q = %.2f, of %q = %.2f; want the first higher and both > 0",
				c.text, c.specific, s, c.common, g)
		}
	}
}

func TestStemsShareTheirWordsCounts(t *testing.T) {
	got := specificity("game games gaming")
	if got["game/game"] != got["games/game"] {
		t.Errorf("game and games are one stem but differ: %v", got)
	}
}

func TestWordsThatCannotCarryATopic(t *testing.T) {
	for _, text := range []string{"the", "how", "2019", "3", "最喜"} {
		for tm := range analysis.Terms(text) {
			if tm.Kind == analysis.Unigram {
				continue // 最 and 喜 are words of their own
			}
			if s := Specificity(tm); s != 0 {
				t.Errorf("Specificity(%q of %q) = %.2f, want 0", tm.Text, text, s)
			}
		}
	}
}

func TestUnknownWordsAreAsSpecificAsTheRarest(t *testing.T) {
	var known, unknown float64
	for tm := range analysis.Terms("zymurgy qzxvbiomaterialz") {
		if tm.Surface == "zymurgy" {
			known = Specificity(tm)
		} else {
			unknown = Specificity(tm)
		}
	}
	if unknown < known || math.IsInf(unknown, 0) {
		t.Errorf("unknown word %.2f, a word seen twice %.2f: want the unknown at least as specific, finite", unknown, known)
	}
}

func TestUnitsOfALatinQuery(t *testing.T) {
	units := Units("How many hours did I spend on go-sqlite3 documentaries?", nil)
	var got []string
	for _, u := range units {
		got = append(got, u.Surface+"="+strings.Join(u.Terms, "+"))
		if u.All {
			t.Errorf("unit %q wants all its terms; a Latin word run wants any", u.Surface)
		}
	}
	want := []string{"many=mani", "hours=hour", "spend=spend", "go-sqlite3=go-sqlite3+go+sqlite3", "documentaries=documentari"}
	if !slices.Equal(got, want) {
		t.Errorf("Units = %v, want %v", got, want)
	}
}

// cut is a stand-in for the segmenter: it knows the words it is given, longest first.
func cut(words map[string]float64) func(string) []CJKWord {
	return func(run string) []CJKWord {
		r := []rune(run)
		var out []CJKWord
		for i := 0; i < len(r); {
			n := 1
			for l := min(4, len(r)-i); l >= 1; l-- {
				if _, ok := words[string(r[i:i+l])]; ok {
					n = l
					break
				}
			}
			if s, ok := words[string(r[i:i+n])]; ok {
				out = append(out, CJKWord{Start: i, Len: n, Specificity: s})
			}
			i += n
		}
		return out
	}
}

func TestUnitsOfAChineseQuerySpellTheirWordsInBigrams(t *testing.T) {
	units := Units("听起来老王喜欢魔术师", cut(map[string]float64{"听起来": 9, "老王": 12, "喜欢": 6, "魔术师": 13}))
	var got []string
	for _, u := range units {
		got = append(got, u.Surface+"="+strings.Join(u.Terms, "+"))
		if !u.All {
			t.Errorf("unit %q wants any of its bigrams; a Chinese word is all of them", u.Surface)
		}
	}
	// 起来 and 来老 span no word of the cut, 王喜 and 欢魔 neither.
	want := []string{"听起来=听起+起来", "老王=老王", "喜欢=喜欢", "魔术师=魔术+术师"}
	if !slices.Equal(got, want) {
		t.Errorf("Units = %v, want %v", got, want)
	}
	if units := Units("老王喜欢魔术", nil); len(units) != 0 {
		t.Errorf("without a segmenter Chinese has no units, got %v", units)
	}
}

func TestAOneCharacterWordIsNoUnit(t *testing.T) {
	words := cut(map[string]float64{"猫": 8, "我的": 3})
	if units := Units("猫", words); len(units) != 0 {
		t.Errorf("Units(猫) = %v, want none", units)
	}
	if units := Units("我的猫", words); len(units) != 1 || units[0].Surface != "我的" {
		t.Errorf("Units(我的猫) = %v, want only 我的", units)
	}
}

func TestUnitsAreDistinct(t *testing.T) {
	if units := Units("python python and Python", nil); len(units) != 1 {
		t.Errorf("Units = %v, want one unit for the one word", units)
	}
}

// BenchmarkEnglishTable is the one-time cost of the first English query in a process.
func BenchmarkEnglishTable(b *testing.B) {
	for b.Loop() {
		if _, err := parseEnglish(enStems); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEnglishStemTableIsCurrent: the embedded English table is what internal/genen writes
// from the word counts with today's analyzer. A change to stemming or folding that is not
// followed by a new table would leave every English word's specificity looked up under a
// stem the index no longer makes.
func TestEnglishStemTableIsCurrent(t *testing.T) {
	f, err := os.Open("subtlex-us.tsv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want bytes.Buffer
	if err := WriteEnglishStems(&want, f); err != nil {
		t.Fatal(err)
	}
	if want.String() != enStems {
		t.Fatalf("en-stems.tsv is stale (%d bytes embedded, %d written now): run\n"+
			"  go run ./engine/background/internal/genen < engine/background/subtlex-us.tsv.gz > engine/background/en-stems.tsv", len(enStems), want.Len())
	}
	en, err := parseEnglish(enStems)
	if err != nil {
		t.Fatal(err)
	}
	if len(en.specificity) < 30000 || en.total < 4e7 {
		t.Errorf("the table holds %d stems over %.0f words; SUBTLEX-US has about 45k over 49.7M", len(en.specificity), en.total)
	}
}

func TestParseEnglishRefusesADamagedTable(t *testing.T) {
	for _, table := range []string{"", "word\t12\n", "\t100\nshed\tmany\n", "\t100\nshed\n"} {
		if _, err := parseEnglish(table); err == nil {
			t.Errorf("parseEnglish(%q) took it", table)
		}
	}
}

// FuzzUnits: any text, valid or not, gives units whose terms are index terms of the text.
func FuzzUnits(f *testing.F) {
	for _, s := range []string{"How many hours did I spend?", "听起来老王喜欢魔术师", "go-sqlite3 3.12", "\xff\x00周会", ""} {
		f.Add(s)
	}
	words := cut(map[string]float64{"老王": 12, "喜欢": 6, "魔术": 11, "周会": 13, "听起来": 9})
	f.Fuzz(func(t *testing.T, text string) {
		terms := map[string]bool{}
		for tm := range analysis.Terms(text) {
			terms[tm.Text] = true
		}
		for _, u := range Units(text, words) {
			if len(u.Terms) == 0 || u.Specificity <= 0 || math.IsNaN(u.Specificity) {
				t.Fatalf("Units(%q): unit %+v", text, u)
			}
			for _, term := range u.Terms {
				if !terms[term] {
					t.Fatalf("Units(%q): term %q is no index term of the text", text, term)
				}
			}
		}
	})
}

// TestCommonWord: words of general English are common words; parts of words being typed,
// identifiers, names the subtitles never say, numbers and CJK are not.
func TestCommonWord(t *testing.T) {
	for word, want := range map[string]bool{
		"shed": true, "garden": true, "control": true, "bread": true, "Running": true,
		"postg": false, "sqlite": false, "go-sqlite3": false, "pyhton": false,
		"42": false, "咖啡": false, "two words": false, "": false,
	} {
		if got := CommonWord(word); got != want {
			t.Errorf("CommonWord(%q) = %v, want %v", word, got, want)
		}
	}
}
