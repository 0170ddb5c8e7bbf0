package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3/driver"
)

// TestRebuildIndexRepairsDamagedIndex: full-text index pages overwritten with garbage (what
// a bad sector or a torn copy does to them) break recall with an error that names the
// repair; integrity reports the damage as findings, not as an error of its own; and
// rebuild-index makes every index anew from the stored text, after which recall and
// integrity are as before and no memory was lost.
func TestRebuildIndexRepairsDamagedIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, path, Options{Entities: x})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	target := remember(t, e, "", "The staging cluster runs Kafka 3.7 on host kafka-stg-02")
	remember(t, e, "", "老王喜欢简约风格")
	remember(t, e, "", "CI uses Python 3.12")

	raw, err := driver.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range []string{"facts_words", "facts_fts"} {
		if _, err := raw.ExecContext(ctx, `UPDATE `+ix+`_data SET block = x'ffffffffffffffffffffffff'`); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	// A fresh engine, as the next process would open it: nothing cached from before.
	e.Close()
	e, err = Open(ctx, path, Options{Entities: x})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Recall(ctx, RecallRequest{Query: "kafka staging cluster"})
	if !errors.Is(err, ErrDamagedIndex) || !strings.Contains(err.Error(), "rebuild-index") {
		t.Fatalf("recall on a damaged index: %v; want ErrDamagedIndex naming rebuild-index", err)
	}
	res, err := e.Admin(ctx, AdminRequest{Action: "integrity"})
	if err != nil {
		t.Fatalf("integrity on a damaged index failed instead of reporting: %v", err)
	}
	if res.OK || !strings.Contains(strings.Join(res.Details, "\n"), "facts_words") {
		t.Errorf("integrity on a damaged index = %+v; want ok false naming facts_words", res)
	}

	rebuilt, err := e.Admin(ctx, AdminRequest{Action: "rebuild-index"})
	if err != nil || !rebuilt.OK || rebuilt.Counts["indexes"] != 4 {
		t.Fatalf("rebuild-index = %+v, %v; want 4 indexes rebuilt, ok", rebuilt, err)
	}
	if res, err := e.Admin(ctx, AdminRequest{Action: "integrity"}); err != nil || !res.OK {
		t.Errorf("integrity after rebuild-index = %+v, %v", res, err)
	}
	got, err := e.Recall(ctx, RecallRequest{Query: "kafka staging cluster"})
	if err != nil || len(got.Hits) == 0 || got.Hits[0].ID != target {
		t.Errorf("recall after rebuild-index = %+v, %v; want fact %d first", got.Hits, err, target)
	}
	if got, err := e.Recall(ctx, RecallRequest{Query: "kafka-stg"}); err != nil || len(got.Hits) == 0 || got.Hits[0].ID != target {
		t.Errorf("substring recall after rebuild-index = %+v, %v; want fact %d (the trigram index)", got.Hits, err, target)
	}
	list, err := e.List(ctx, ListRequest{})
	if err != nil || len(list.Facts) != 3 {
		t.Errorf("after rebuild-index: %d memories listed (%v); want all 3", len(list.Facts), err)
	}
}
