package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSalvageAfterPageDamage: random bytes over a page of the facts table. Recall and export
// say the stored text is damaged and name salvage, not rebuild-index (which fails every time
// there); salvage writes out every memory not on the damaged page.
func TestSalvageAfterPageDamage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	e, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	var texts []string
	for i := range n {
		texts = append(texts, fmt.Sprintf("MARKER-%03d the ledger of day %d: %s", i, i, strings.Repeat(fmt.Sprintf("entry%d ", i), 180)))
	}
	if _, err := e.RememberBatch(ctx, "", texts, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("MARKER-150 "))
	if at < 0 {
		t.Fatal("the marker is not in the file")
	}
	const pageSize = 4096
	page := at / pageSize * pageSize
	for i := page; i < page+64; i++ {
		data[i] = 0xA5
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	e, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("open the damaged database: %v", err)
	}
	defer e.Close()
	if _, err := e.Recall(ctx, RecallRequest{Query: "ledger", K: 10}); !errors.Is(err, ErrDamagedStore) || !strings.Contains(err.Error(), "admin salvage") {
		t.Errorf("recall on a damaged facts page: %v, want ErrDamagedStore naming admin salvage", err)
	}
	if _, err := e.ExportMemories(ctx, ""); !errors.Is(err, ErrDamagedStore) {
		t.Errorf("export on a damaged facts page: %v, want ErrDamagedStore", err)
	}
	if _, err := e.List(ctx, ListRequest{}); !errors.Is(err, ErrDamagedStore) {
		t.Errorf("list on a damaged facts page: %v, want ErrDamagedStore", err)
	}
	if _, err := e.Admin(ctx, AdminRequest{Action: "backup", To: filepath.Join(t.TempDir(), "copy.db")}); !errors.Is(err, ErrDamagedStore) {
		t.Errorf("backup on a damaged facts page: %v, want ErrDamagedStore", err)
	}
	out := filepath.Join(t.TempDir(), "memories.md")
	res, err := e.Admin(ctx, AdminRequest{Action: "salvage", To: out})
	if err != nil {
		t.Fatalf("salvage: %v", err)
	}
	lost := n - res.Counts["memories"]
	if lost < 1 || lost > 4 || res.Counts["damaged_rows"] != lost || res.OK {
		t.Errorf("salvage read %d of %d memories, %d damaged rows, ok %v; want all but the few on the damaged page", res.Counts["memories"], n, res.Counts["damaged_rows"], res.OK)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MARKER-000 ", "MARKER-299 "} {
		if !bytes.Contains(written, []byte(want)) {
			t.Errorf("the salvaged file lacks %q", want)
		}
	}
	if bytes.Contains(written, []byte("MARKER-150 ")) {
		t.Error("the salvaged file holds the memory on the damaged page")
	}

	// The file imports into a new database, memory for memory.
	fresh, err := Open(ctx, filepath.Join(t.TempDir(), "new.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	ex, err := ReadMemories(bytes.NewReader(written))
	if err != nil {
		t.Fatal(err)
	}
	imp, err := fresh.ImportMemories(ctx, ex, nil)
	if err != nil || imp.Added != res.Counts["memories"] {
		t.Errorf("import of the salvaged file: %+v, %v; want %d added", imp, err, res.Counts["memories"])
	}
}
