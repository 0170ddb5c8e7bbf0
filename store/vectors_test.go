package store

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	fpA = "v1/ollama/a@1/3/mean/l2/512"
	fpB = "v1/ollama/b@2/3/mean/l2/512"
)

func TestVectorsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	f1, _, _ := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "h1"})
	f2, _, _ := s.AddFact(ctx, "default", NewFact{Content: "beta", Hash: "h2"})
	f3, _, _ := s.AddFact(ctx, "work", NewFact{Content: "gamma", Hash: "h3"})
	doc, _, err := s.PutDocument(ctx, DocumentInput{Space: "default", Path: "/d.md", Title: "d", Format: "markdown", Hash: "x", Bytes: 1,
		Chunks: []Chunk{{Ordinal: 0, Text: "chunk text"}}})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := s.Chunks(ctx, doc)
	if err != nil || len(chunks) != 1 {
		t.Fatalf("Chunks = %v, %v", chunks, err)
	}

	missing, total, err := s.MissingVectors(ctx, KindFact, fpA, 0, 10)
	if err != nil || total != 3 || len(missing) != 3 {
		t.Fatalf("MissingVectors before = %v, %d, %v; want 3", missing, total, err)
	}
	n, err := s.PutVectors(ctx, fpA, []Vector{
		{Kind: KindFact, ID: f1, Text: "alpha", Vec: []float32{1, 0, 0}},
		{Kind: KindFact, ID: f2, Text: "beta", Vec: nil}, // zero marker
		{Kind: KindFact, ID: f3, Text: "changed meanwhile", Vec: []float32{0, 1, 0}},
		{Kind: KindChunk, ID: chunks[0].ID, Text: "chunk text", Vec: []float32{0, 0, 1}},
	})
	if err != nil || n != 3 {
		t.Fatalf("PutVectors = %d, %v; want 3 written (the edited one skipped)", n, err)
	}
	missing, total, err = s.MissingVectors(ctx, KindFact, fpA, 0, 10)
	if err != nil || total != 1 || len(missing) != 1 || missing[0].ID != f3 {
		t.Fatalf("MissingVectors after = %v, %d, %v; want only fact %d", missing, total, err, f3)
	}
	if missing, _, _ := s.MissingVectors(ctx, KindFact, fpA, f3, 10); len(missing) != 0 {
		t.Errorf("MissingVectors after id %d = %v, want none", f3, missing)
	}
	got, err := s.VectorsForSpace(ctx, KindFact, "default", fpA)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(SpaceVectors{IDs: []int64{f1}, Vecs: [][]float32{{1, 0, 0}}}, got); diff != "" {
		t.Errorf("VectorsForSpace(default) (-want +got):\n%s", diff)
	}
	if got, _ := s.VectorsForSpace(ctx, KindFact, "default", fpB); len(got.IDs) != 0 {
		t.Errorf("VectorsForSpace in another fingerprint = %v, want none", got)
	}
	if got, _ := s.VectorsForSpace(ctx, KindChunk, "default", fpA); len(got.IDs) != 1 {
		t.Errorf("VectorsForSpace(chunks) = %v, want the chunk", got)
	}

	d, err := s.DiagnoseVectors(ctx, fpA)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(VectorDiagnosis{Current: 3, Zero: 1, Stale: 1}, d); diff != "" {
		t.Errorf("DiagnoseVectors(A) (-want +got):\n%s", diff)
	}
	d, _ = s.DiagnoseVectors(ctx, fpB)
	if diff := cmp.Diff(VectorDiagnosis{Stale: 4, SpaceStale: 3}, d); diff != "" {
		t.Errorf("DiagnoseVectors(B) (-want +got):\n%s", diff)
	}
}

func TestVectorsFollowOwners(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	f1, _, _ := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "h1"})
	f2, _, _ := s.AddFact(ctx, "default", NewFact{Content: "beta", Hash: "h2"})
	if _, err := s.PutVectors(ctx, fpA, []Vector{
		{Kind: KindFact, ID: f1, Text: "alpha", Vec: []float32{1, 0, 0}},
		{Kind: KindFact, ID: f2, Text: "beta", Vec: []float32{0, 1, 0}},
	}); err != nil {
		t.Fatal(err)
	}
	gen0, err := s.VectorGeneration(ctx, KindFact)
	if err != nil || gen0 == 0 {
		t.Fatalf("VectorGeneration = %d, %v; want > 0", gen0, err)
	}
	// Editing drops the vector (it described the old text); forgetting drops it too.
	if _, err := s.EditFact(ctx, f1, NewFact{Content: "alpha two", Hash: "h1b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetFactStatus(ctx, f2, StatusDeleted); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.VectorsForSpace(ctx, KindFact, "default", fpA); len(got.IDs) != 0 {
		t.Errorf("VectorsForSpace after edit and forget = %v, want none", got)
	}
	if gen, _ := s.VectorGeneration(ctx, KindFact); gen == gen0 {
		t.Errorf("VectorGeneration unchanged (%d) after vectors were dropped", gen)
	}

	// Vectors written before the triggers existed (or by hand) are evicted in one batch.
	if _, err := s.db.Exec(`INSERT INTO vectors(owner_kind, owner_id, fingerprint, dims, vec, created_at) VALUES
		('fact', ?, ?, 3, x'000000000000000000000000', 1), ('chunk', 999, '', 3, x'000000000000000000000000', 1)`, f2, fpA); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.DiagnoseVectors(ctx, fpA); d.Orphans != 2 {
		t.Errorf("Orphans = %d, want 2", d.Orphans)
	}
	n, err := s.EvictVectors(ctx)
	if err != nil || n != 2 {
		t.Fatalf("EvictVectors = %d, %v; want 2", n, err)
	}
	if d, _ := s.DiagnoseVectors(ctx, fpA); d.Orphans != 0 {
		t.Errorf("Orphans after evict = %d, want 0", d.Orphans)
	}
}

func TestDiagnoseLegacyAndWrongWidth(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	f1, _, _ := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "h1"})
	f2, _, _ := s.AddFact(ctx, "default", NewFact{Content: "beta", Hash: "h2"})
	f3, _, _ := s.AddFact(ctx, "default", NewFact{Content: "gamma", Hash: "h3"})
	if _, err := s.db.Exec(`INSERT INTO vectors(owner_kind, owner_id, fingerprint, dims, vec, created_at) VALUES
		('fact', ?, '', 3, x'000000000000000000000000', 1),
		('fact', ?, 'ollama/old@1/3', 3, x'000000000000000000000000', 1),
		('fact', ?, ?, 3, x'00000000', 1)`, f1, f2, f3, fpA); err != nil {
		t.Fatal(err)
	}
	d, err := s.DiagnoseVectors(ctx, fpA)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(VectorDiagnosis{Stale: 3, SpaceStale: 2, Legacy: 2}, d); diff != "" {
		t.Errorf("DiagnoseVectors (-want +got):\n%s", diff)
	}
	if _, total, _ := s.MissingVectors(ctx, KindFact, fpA, 0, 10); total != 3 {
		t.Errorf("MissingVectors total = %d, want 3 (the short blob is wrong width)", total)
	}
}

func TestEncodeVectorRoundTrip(t *testing.T) {
	v := []float32{0, -1.5, 3.25e-7, 1}
	if diff := cmp.Diff(v, DecodeVector(nil, EncodeVector(v))); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestVectorChangesSince: an index at a mark reads only what changed after it, in pages,
// with each owner's vector as it is now in the asked space (nil when it has none there), and
// is told to reload whole once the log no longer reaches back to it.
func TestVectorChangesSince(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	f1, _, _ := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "h1"})
	f2, _, _ := s.AddFact(ctx, "default", NewFact{Content: "beta", Hash: "h2"})
	f3, _, _ := s.AddFact(ctx, "work", NewFact{Content: "gamma", Hash: "h3"})
	m0, err := s.ScanVectorsForSpace(ctx, KindFact, "default", fpA, func(int64, []float32) { t.Error("a vector before any was written") })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutVectors(ctx, fpA, []Vector{
		{Kind: KindFact, ID: f1, Text: "alpha", Vec: []float32{1, 0, 0}},
		{Kind: KindFact, ID: f2, Text: "beta", Vec: nil}, // zero marker: not searchable
		{Kind: KindFact, ID: f3, Text: "gamma", Vec: []float32{0, 1, 0}},
	}); err != nil {
		t.Fatal(err)
	}
	gen, err := s.VectorGeneration(ctx, KindFact)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.VectorChangesSince(ctx, KindFact, "default", fpA, m0.Seq, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := VectorDelta{Mark: VectorMark{Generation: gen, Seq: m0.Seq + 3}, IDs: []int64{f1, f2, f3}, Vecs: [][]float32{{1, 0, 0}, nil, nil}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("VectorChangesSince (-want +got):\n%s", diff)
	}
	if d, _ := s.VectorChangesSince(ctx, KindFact, "work", fpA, m0.Seq, 100); !cmp.Equal(d.Vecs, [][]float32{nil, nil, {0, 1, 0}}) {
		t.Errorf("VectorChangesSince(work) vectors = %v, want only gamma's", d.Vecs)
	}
	if d, _ := s.VectorChangesSince(ctx, KindFact, "default", fpB, m0.Seq, 100); !cmp.Equal(d.Vecs, [][]float32{nil, nil, nil}) {
		t.Errorf("VectorChangesSince in another fingerprint = %v, want no vectors", d.Vecs)
	}
	page, err := s.VectorChangesSince(ctx, KindFact, "default", fpA, m0.Seq, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(VectorDelta{Mark: VectorMark{Seq: m0.Seq + 2}, More: true, IDs: []int64{f1, f2}, Vecs: [][]float32{{1, 0, 0}, nil}}, page); diff != "" {
		t.Errorf("VectorChangesSince, a page of 2 (-want +got):\n%s", diff)
	}
	if d, _ := s.VectorChangesSince(ctx, KindChunk, "default", fpA, m0.Seq, 100); len(d.IDs) != 0 || d.More {
		t.Errorf("VectorChangesSince(chunks) = %+v, want no change", d)
	}

	// Editing the fact drops its vector: the delta says it is gone.
	if _, err := s.EditFact(ctx, f1, NewFact{Content: "alpha two", Hash: "h1b"}); err != nil {
		t.Fatal(err)
	}
	d, err = s.VectorChangesSince(ctx, KindFact, "default", fpA, d.Mark.Seq, 100)
	if err != nil || !cmp.Equal(d.IDs, []int64{f1}) || d.Vecs[0] != nil {
		t.Errorf("VectorChangesSince after an edit = %+v, %v; want fact %d with no vector", d, err, f1)
	}

	// Past changesKept newer changes, the log no longer reaches back to d.Mark.
	if _, err := s.db.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO vector_changes(owner_kind, owner_id) SELECT 'fact', i FROM n`, changesKept+1); err != nil {
		t.Fatal(err)
	}
	if err := s.PruneChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VectorChangesSince(ctx, KindFact, "default", fpA, d.Mark.Seq, 100); !errors.Is(err, ErrChangesPruned) {
		t.Errorf("VectorChangesSince from a pruned seq: err = %v, want ErrChangesPruned", err)
	}
}

// TestMigrateLogsVectorChanges: vectors stored before the vector change log are loaded whole
// (the log has nothing about them), and every write after the migration is logged.
func TestMigrateLogsVectorChanges(t *testing.T) {
	ctx := context.Background()
	path, db := storeAt(t, versionBefore(schemaVectorChanges), wordsForTest)
	for _, q := range []string{
		`INSERT INTO facts(id, space, content, dedupe, created_at, updated_at) VALUES (1, 'default', 'alpha', 1, 1, 1), (2, 'default', 'beta', 2, 1, 1)`,
		`INSERT INTO vectors(owner_kind, owner_id, fingerprint, dims, vec, created_at) VALUES ('fact', 1, '` + fpA + `', 1, x'0000803f', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{Words: wordsForTest})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []int64
	mark, err := s.ScanVectorsForSpace(ctx, KindFact, "default", fpA, func(id int64, _ []float32) { ids = append(ids, id) })
	if err != nil || !cmp.Equal(ids, []int64{1}) {
		t.Fatalf("ScanVectorsForSpace after migrating = %v, %v; want fact 1", ids, err)
	}
	if _, err := s.PutVectors(ctx, fpA, []Vector{{Kind: KindFact, ID: 2, Text: "beta", Vec: []float32{1}}}); err != nil {
		t.Fatal(err)
	}
	d, err := s.VectorChangesSince(ctx, KindFact, "default", fpA, mark.Seq, 100)
	if err != nil || !cmp.Equal(d.IDs, []int64{2}) || !cmp.Equal(d.Vecs, [][]float32{{1}}) {
		t.Errorf("VectorChangesSince after migrating = %+v, %v; want fact 2's new vector", d, err)
	}
}

// TestVectorCoverageCountsWhatDiagnoseDoes: the counts a one-shot recall reads are
// DiagnoseVectors' (current + stale owners, and stale) through every change that moves them:
// vectors in this space and another, a zero marker, a forgotten fact, a document being
// staged, an edit; and a count kept from before a change is not read back after it.
func TestVectorCoverageCountsWhatDiagnoseDoes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	f1, _, _ := s.AddFact(ctx, "default", NewFact{Content: "alpha", Hash: "h1"})
	f2, _, _ := s.AddFact(ctx, "default", NewFact{Content: "beta", Hash: "h2"})
	f3, _, _ := s.AddFact(ctx, "work", NewFact{Content: "gamma", Hash: "h3"})
	put := func(in DocumentInput) []Chunk {
		t.Helper()
		doc, _, err := s.PutDocument(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := s.Chunks(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		return chunks
	}
	shown := put(DocumentInput{Space: "default", Path: "/d.md", Title: "d", Format: "markdown", Hash: "x", Bytes: 1,
		Chunks: []Chunk{{Ordinal: 0, Text: "chunk one"}, {Ordinal: 1, Text: "chunk two"}}})
	staged := put(DocumentInput{Space: "default", Path: "/e.md", Title: "e", Format: "markdown", Hash: "y", Bytes: 1,
		Chunks: []Chunk{{Ordinal: 0, Text: "staged chunk"}}})
	check := func(when string) {
		t.Helper()
		d, err := s.DiagnoseVectors(ctx, fpA)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // counted, then read back from meta
			owners, missing, err := s.VectorCoverage(ctx, fpA)
			if err != nil {
				t.Fatal(err)
			}
			if owners != d.Current+d.Stale || missing != d.Stale {
				t.Fatalf("%s: coverage %d owners, %d missing; DiagnoseVectors says %d and %d (%+v)",
					when, owners, missing, d.Current+d.Stale, d.Stale, d)
			}
		}
	}
	check("no vectors")
	if _, err := s.PutVectors(ctx, fpA, []Vector{
		{Kind: KindFact, ID: f1, Text: "alpha", Vec: []float32{1, 0, 0}},
		{Kind: KindFact, ID: f2, Text: "beta"}, // zero marker
		{Kind: KindChunk, ID: shown[0].ID, Text: "chunk one", Vec: []float32{0, 0, 1}},
		{Kind: KindChunk, ID: staged[0].ID, Text: "staged chunk", Vec: []float32{0, 1, 0}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutVectors(ctx, fpB, []Vector{{Kind: KindFact, ID: f3, Text: "gamma", Vec: []float32{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	check("vectors in two spaces")
	if _, err := s.db.ExecContext(ctx, `UPDATE documents SET space = char(1) || 'import' WHERE path = '/e.md'`); err != nil {
		t.Fatal(err)
	}
	check("a document being staged")
	if _, err := s.SetFactStatus(ctx, f1, "deleted"); err != nil {
		t.Fatal(err)
	}
	check("a forgotten fact")
	if _, err := s.EditFact(ctx, f2, NewFact{Content: "beta, edited", Hash: "h2b"}); err != nil {
		t.Fatal(err)
	}
	check("an edit")
	if _, err := s.PutVectors(ctx, fpA, []Vector{{Kind: KindFact, ID: f3, Text: "gamma", Vec: []float32{1, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	check("a vector written")
	if owners, missing, _ := s.VectorCoverage(ctx, fpA); owners != 4 || missing != 2 {
		t.Fatalf("at the end %d owners, %d missing; want 4 (facts 2 and 3, the shown chunks) and 2 (fact %d edited, chunk two)", owners, missing, f2)
	}
}
