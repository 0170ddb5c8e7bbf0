package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ncruces/go-sqlite3/driver"

	"github.com/memdesk/memdesk/engine/entity"
)

// sharedExtractor loads the extractor once per test binary: it takes seconds.
var sharedExtractor = sync.OnceValues(func() (*entity.Extractor, error) {
	return entity.New(context.Background())
})

func openEntityEngine(t *testing.T) *Engine {
	t.Helper()
	x, err := sharedExtractor()
	if err != nil {
		t.Fatalf("load extractor: %v", err)
	}
	e, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), Options{Entities: x})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestEntityLegRescuesRephrasedQuestion(t *testing.T) {
	e := openEntityEngine(t)
	zhang := remember(t, e, "", "张伟负责支付系统的上线")
	remember(t, e, "", "李娜在杭州负责市场推广")
	remember(t, e, "", "王芳喜欢喝美式咖啡")
	remember(t, e, "", "CI uses Python 3.12")

	res, err := e.Recall(context.Background(), RecallRequest{Query: "张伟负责什么系统"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != zhang {
		t.Fatalf("hits = %+v; want fact %d first", res.Hits, zhang)
	}
	h := res.Hits[0]
	if h.Legs.Entity < DefaultFloors().MinJaccard || len(h.Anchors) == 0 {
		t.Errorf("hit legs %+v anchors %v; want the entity leg over its floor with anchors", h.Legs, h.Anchors)
	}
	if res.Floors.MinJaccard != DefaultFloors().MinJaccard {
		t.Errorf("floor report %+v; want the Jaccard floor", res.Floors)
	}
}

func TestEntitySweepCompletesPendingRows(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t) // no extractor: writes are pending
	id := remember(t, e, "", "张伟负责支付系统的上线")
	if _, err := e.SweepEntities(ctx, 0); err == nil {
		t.Fatal("SweepEntities without an extractor succeeded")
	}
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	e.ents.Store(x)
	rep, err := e.SweepEntities(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(SweepReport{Rebuilt: 1}, rep); diff != "" {
		t.Errorf("first pass (-want +got):\n%s", diff)
	}
	rep, err = e.SweepEntities(ctx, 0)
	if err != nil || rep != (SweepReport{}) {
		t.Errorf("second pass = %+v, %v; want nothing left", rep, err)
	}
	res, err := e.Recall(ctx, RecallRequest{Query: "张伟负责什么系统"})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].ID != id || res.Hits[0].Legs.Entity == 0 {
		t.Errorf("after the sweep: %+v, %v; want fact %d through the entity leg", res.Hits, err, id)
	}

	e.sweeping.Store(true) // another pass holds the guard
	rep, err = e.SweepEntities(ctx, 0)
	e.sweeping.Store(false)
	if err != nil || rep.Skipped != 1 {
		t.Errorf("overlapping pass = %+v, %v; want skipped", rep, err)
	}
}

func TestAdminEntitiesSweepBudget(t *testing.T) {
	ctx := context.Background()
	e := openTestEngine(t)
	texts := []string{"Alice maintains the billing service", "Bob reviews the Kafka cluster", "Carol owns Grafana dashboards"}
	if _, err := e.RememberBatch(ctx, "", texts, nil); err != nil {
		t.Fatal(err)
	}
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	e.ents.Store(x)
	res, err := e.Admin(ctx, AdminRequest{Action: "entities-sweep", Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Statements were extracted at write time (they need no model), so none are stale.
	want := map[string]int{"rebuilt": 2, "deferred": 1, "skipped": 0, "triples_rebuilt": 0, "triples_deferred": 0}
	if diff := cmp.Diff(want, res.Counts); diff != "" || res.OK {
		t.Errorf("one pass of 2 (-want +got):\n%s (ok %v)", diff, res.OK)
	}
	var progress [][2]int
	res, err = e.Admin(ctx, AdminRequest{Action: "entities-sweep", Budget: 2, All: true,
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }})
	if err != nil || !res.OK || res.Counts["rebuilt"] != 1 || res.Counts["deferred"] != 0 {
		t.Errorf("--all = %+v, %v; want the last row rebuilt and nothing left", res, err)
	}
	if diff := cmp.Diff([][2]int{{1, 1}}, progress, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

func TestRememberBatchExtractsEntitiesInParallel(t *testing.T) {
	ctx := context.Background()
	e := openEntityEngine(t)
	var texts []string
	for i := range 50 {
		texts = append(texts, fmt.Sprintf("张伟负责第%d个支付系统的上线", i), fmt.Sprintf("Alice maintains billing service number %d", i))
	}
	if _, err := e.RememberBatch(ctx, "", texts, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := e.SweepEntities(ctx, 0)
	if err != nil || rep != (SweepReport{}) {
		t.Errorf("sweep after a batch written with the extractor loaded = %+v, %v; want nothing pending", rep, err)
	}
	st, err := e.Stats(ctx)
	if err != nil || st.EntityRows < len(texts) {
		t.Errorf("stats = %+v, %v; want at least one entity row per fact", st, err)
	}
}

// TestEntitySweepWaitsOutAnotherWriter: another process holding the write lock past the
// busy timeout (a big import, a burst of writers) delays the background sweep but does not
// make it give rows up: once the lock is free every row is swept.
func TestEntitySweepWaitsOutAnotherWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	const busy = 50 * time.Millisecond
	e, err := Open(ctx, path, Options{BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	var ids []int64
	for i := range 5 {
		ids = append(ids, remember(t, e, "", fmt.Sprintf("Alice Chen reviewed release %d of the billing service", i)))
	}
	x, err := sharedExtractor()
	if err != nil {
		t.Fatal(err)
	}
	e.ents.Store(x)

	// The other process: a connection of its own holding BEGIN IMMEDIATE for several
	// busy timeouts.
	other, err := driver.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() {
		time.Sleep(10 * busy) // the fault: a writer holding the lock this long
		_, err := conn.ExecContext(ctx, `ROLLBACK`)
		released <- err
	}()
	rep, err := e.SweepEntities(ctx, 0)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if err != nil || rep.Rebuilt != len(ids) || rep.Deferred != 0 {
		t.Errorf("sweep while another writer held the lock: %+v, %v; want all %d rows rebuilt, none deferred", rep, err, len(ids))
	}
}
