package enginearm

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/engine/eval"
	"github.com/memdesk/memdesk/engine/eval/evaltest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/eval")

func openEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), filepath.Join(t.TempDir(), "eval.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

var corpus = []eval.Doc{
	{ID: "alice/1", Text: "Alice drinks green tea every morning"},
	{ID: "alice/2", Text: "老王喜欢简约风格的设计"},
	{ID: "bob/1", Text: "Bob drinks green tea after lunch"},
	{ID: "bob/2", Text: "bob drinks GREEN tea after lunch"}, // the same fact as bob/1 once case-folded
	{ID: "bob/3", Text: "   "},                              // no text: skipped
	{ID: "carol/1", Text: "The deployment pipeline runs on GitHub Actions"},
}

func TestLoadAndRetrieve(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      LoadOptions
		wantUnits int
		queries   map[eval.Query][]string
	}{
		{
			name:      "memory, pooled",
			opts:      LoadOptions{As: AsMemory, Scope: eval.ScopeNone},
			wantUnits: 4, // bob/1 and bob/2 share a fact
			queries: map[eval.Query][]string{
				{ID: "q1", Text: "lunch"}:              {"bob/1", "bob/2"},
				{ID: "q2", Text: "老王喜欢什么风格"}:           {"alice/2"},
				{ID: "q3", Text: "deployment Actions"}: {"carol/1"},
				{ID: "q4", Text: "   "}:                {},
			},
		},
		{
			name:      "memory, per-user spaces",
			opts:      LoadOptions{As: AsMemory, Scope: eval.ScopePrefix},
			wantUnits: 4,
			queries: map[eval.Query][]string{
				{ID: "alice/q", Text: "green tea"}: {"alice/1"},
				{ID: "bob/q", Text: "green tea"}:   {"bob/1", "bob/2"},
				{ID: "carol/q", Text: "green tea"}: {},
			},
		},
		{
			name:      "knowledge, per-user spaces",
			opts:      LoadOptions{As: AsKnowledge, Scope: eval.ScopePrefix},
			wantUnits: 5, // knowledge does not deduplicate across files
			queries: map[eval.Query][]string{
				{ID: "alice/q", Text: "green tea"}:     {"alice/1"},
				{ID: "bob/q", Text: "lunch"}:           {"bob/1", "bob/2"},
				{ID: "alice/q2", Text: "老王喜欢什么风格"}:     {"alice/2"},
				{ID: "carol/q", Text: "pipeline runs"}: {"carol/1"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			opts := tc.opts
			opts.FilesDir = t.TempDir()
			var progress []int
			opts.Progress = func(done, total int) error {
				progress = append(progress, done)
				if total <= 0 || done > total {
					t.Errorf("progress(%d, %d): done beyond total", done, total)
				}
				return nil
			}
			r, stats, err := Load(ctx, openEngine(t), corpus, opts)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got, want := stats, (eval.LoadStats{Docs: 6, Units: tc.wantUnits, Skipped: 1}); !cmp.Equal(got, want, cmpopts.IgnoreFields(eval.LoadStats{}, "Seconds")) {
				t.Errorf("Load stats = %+v, want %+v", got, want)
			}
			if len(progress) == 0 {
				t.Errorf("Load never reported progress")
			}
			for q, want := range tc.queries {
				got, err := r.Retrieve(ctx, q, 10)
				if err != nil {
					t.Fatalf("Retrieve(%+v): %v", q, err)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("Retrieve(%+v) mismatch (-want +got):\n%s", q, diff)
				}
			}
		})
	}
}

func TestRetrieveKnowledgeCollapsesChunks(t *testing.T) {
	// A long document becomes several chunks that all match; it must count once.
	long := strings.Repeat("The kettle boils water for green tea. ", 80)
	docs := []eval.Doc{{ID: "long", Text: long}, {ID: "short", Text: "green tea leaves"}}
	r, stats, err := Load(context.Background(), openEngine(t), docs, LoadOptions{As: AsKnowledge, FilesDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Units < 3 {
		t.Fatalf("long document gave %d chunks in all, want several", stats.Units)
	}
	got, err := r.Retrieve(context.Background(), eval.Query{ID: "q", Text: "green tea"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"long", "short"}, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("Retrieve mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadStops(t *testing.T) {
	stop := errors.New("stop")
	for _, as := range []As{AsMemory, AsKnowledge} {
		t.Run(string(as), func(t *testing.T) {
			_, _, err := Load(context.Background(), openEngine(t), corpus, LoadOptions{As: as, FilesDir: t.TempDir(),
				Progress: func(done, _ int) error {
					if done >= 2 {
						return stop
					}
					return nil
				}})
			if !errors.Is(err, stop) {
				t.Errorf("Load error = %v, want %v", err, stop)
			}
		})
	}
}

func TestLoadBadOptions(t *testing.T) {
	for _, opts := range []LoadOptions{{As: "vectors"}, {As: AsKnowledge}} {
		if _, _, err := Load(context.Background(), openEngine(t), corpus, opts); err == nil {
			t.Errorf("Load(%+v) succeeded, want an error", opts)
		}
	}
}

func TestSpaceName(t *testing.T) {
	for _, tc := range []struct{ prefix, want string }{
		{"", ""},
		{"user7", "user7"},
		{"用户甲", "用户甲"},
		{" padded", "eval-" + "a"}, // replaced below: only the shape matters
		{strings.Repeat("x", 65), "eval-"},
		{"tab\there", "eval-"},
	} {
		got := SpaceName(tc.prefix)
		if strings.HasPrefix(tc.want, "eval-") {
			if !strings.HasPrefix(got, "eval-") || len(got) != len("eval-")+12 || got != SpaceName(tc.prefix) {
				t.Errorf("SpaceName(%q) = %q, want a stable eval-<12 hex> name", tc.prefix, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("SpaceName(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
}

func TestCasesRetrieve(t *testing.T) {
	ctx := context.Background()
	c := NewCases(openEngine(t))
	first := []string{"CI uses Python 3.12", "ci uses python 3.12", "老王喜欢简约风格"}
	second := []string{"Python is not used here"}
	got, err := c.Retrieve(ctx, "python", 10, first)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0, 1}, got); diff != "" {
		t.Errorf("identical facts must answer together (-want +got):\n%s", diff)
	}
	got, err = c.Retrieve(ctx, "python", 10, second)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0}, got); diff != "" {
		t.Errorf("a second case must not see the first's facts (-want +got):\n%s", diff)
	}
	if got, err := c.Retrieve(ctx, "python", 1, first); err != nil || len(got) != 1 {
		t.Errorf("Retrieve with k 1 = %v, %v; want one index", got, err)
	}
	if n := len(c.spaces); n != 2 {
		t.Errorf("loaded %d case spaces, want 2: a fact list is remembered once", n)
	}
}

// sharedExtractor loads the entity extractor once per test binary (it takes seconds): the
// golden reports run with every leg the app has, as memdesk eval --cases does.
var sharedExtractor = sync.OnceValues(func() (*entity.Extractor, error) {
	return entity.New(context.Background())
})

// TestBilingualRealGolden runs the bilingual case file and the regression cases derived from
// it through the real engine, with the entity leg. A ranking change shows as a diff of the
// golden reports; go test -update rewrites them.
func TestBilingualRealGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "eval")
	cf, err := eval.LoadCases(filepath.Join(dir, "bilingual.json"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), filepath.Join(t.TempDir(), "eval.db"), engine.Options{Entities: x})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	// One retriever for both: the derived negative controls reuse the gold cases' spaces.
	retrieve := NewCases(e).Retrieve

	t.Run("gold", func(t *testing.T) {
		rep, err := eval.RunCases(context.Background(), cf, retrieve, eval.CaseRunOptions{Arm: "real"})
		if err != nil {
			t.Fatal(err)
		}
		evaltest.Golden(t, filepath.Join(dir, "bilingual.real.golden.json"), rep, *update)
	})
	t.Run("derived", func(t *testing.T) {
		// Facts are written as the test runs, so the time words are read against now too.
		rep, err := eval.RunDerived(context.Background(), eval.Derive(cf, time.Now()), retrieve, eval.CaseRunOptions{Arm: "real"})
		if err != nil {
			t.Fatal(err)
		}
		evaltest.Golden(t, filepath.Join(dir, "bilingual.derived.real.golden.json"), rep, *update)
	})
}

// BenchmarkLoadMemory measures the memory load path (one Remember per document), the
// rate that bounds how large a benchmark corpus the harness can take.
func BenchmarkLoadMemory(b *testing.B) {
	docs := make([]eval.Doc, 500)
	for i := range docs {
		docs[i] = eval.Doc{ID: strconv.Itoa(i), Text: fmt.Sprintf("fact %d: 用户%d 喜欢 project-%d 的简约风格 and green tea", i, i%37, i%101)}
	}
	b.ReportAllocs()
	var loaded int
	for b.Loop() {
		b.StopTimer()
		e, err := engine.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, _, err := Load(context.Background(), e, docs, LoadOptions{As: AsMemory}); err != nil {
			b.Fatal(err)
		}
		loaded += len(docs)
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(loaded)/b.Elapsed().Seconds(), "facts/s")
}
