package devsync_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/devsynctest"
)

// TestCursorFile: after replaying another device's changes, a device says in its own
// cursor.json how far it has read each other device's log; a replay that reads nothing new
// leaves the file as it was, so the sync engine has nothing to send.
func TestCursorFile(t *testing.T) {
	ctx := context.Background()
	folder := t.TempDir()
	a := devsynctest.Open(ctx, t, "a", t.TempDir(), folder, nil)
	b := devsynctest.Open(ctx, t, "b", t.TempDir(), folder, nil)
	for _, text := range []string{"CI uses Python 3.12", "老王喜欢简约风格"} {
		if _, err := a.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	devsynctest.SyncBoth(ctx, t, b)
	sa, err := a.Engine.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.Engine.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(folder, "memdesk", sb.Device, "cursor.json")
	read := func() (seen map[string]int64, raw []byte) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("device b's cursor file: %v", err)
		}
		var cf struct {
			Device string           `json:"device"`
			Seen   map[string]int64 `json:"seen"`
		}
		if err := json.Unmarshal(raw, &cf); err != nil {
			t.Fatalf("cursor.json: %v\n%s", err, raw)
		}
		if cf.Device != sb.Device {
			t.Errorf("cursor.json of device %s says it is %s", sb.Device, cf.Device)
		}
		return cf.Seen, raw
	}
	seen, _ := read()
	if seen[sa.Device] != 2 || len(seen) != 1 {
		t.Errorf("device b has seen %v, want device %s up to 2 and nothing of itself", seen, sa.Device)
	}
	if _, err := a.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: "周五在家办公"}); err != nil {
		t.Fatal(err)
	}
	devsynctest.SyncBoth(ctx, t, b)
	if seen, _ := read(); seen[sa.Device] != 3 {
		t.Errorf("after a third change device b has seen %v, want %s up to 3", seen, sa.Device)
	}
	_, before := read()
	devsynctest.SyncBoth(ctx, t, b)
	if _, after := read(); string(after) != string(before) {
		t.Errorf("a replay that read nothing rewrote cursor.json:\n%s\nthen\n%s", before, after)
	}
}
