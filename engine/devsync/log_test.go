package devsync

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memdesk/memdesk/store"
)

func change(seq int64, text string) store.SyncChange {
	c := goodChange()
	c.Seq, c.ID, c.Text, c.Base = seq, dev+":"+itoa(seq), text, ""
	return c
}

// TestAppendRepairsTornTail: an append after a crash mid-append cuts the torn line off and
// does not append again what the log holds (appended, then a crash before the database
// marked it exported), however long the segment.
func TestAppendRepairsTornTail(t *testing.T) {
	for _, lines := range []int{3, 12000} { // the second is past tailWindow
		t.Run(itoa(int64(lines)), func(t *testing.T) {
			dir := t.TempDir()
			var batch []store.SyncChange
			for i := int64(1); i <= int64(lines); i++ {
				batch = append(batch, change(i, strings.Repeat("x", 200)))
			}
			if err := appendChanges(dir, batch, nil); err != nil {
				t.Fatal(err)
			}
			names, _ := segments(dir)
			path := filepath.Join(dir, names[len(names)-1])
			torn, _ := EncodeLine(change(int64(lines)+1, "torn"))
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.Write(torn[:len(torn)/2])
			f.Close()
			// The export again holds the last whole change and the torn one, then a new one.
			own := func(seq int64) (store.SyncChange, bool) { return batch[seq-1], seq <= int64(len(batch)) }
			if err := appendChanges(dir, []store.SyncChange{change(int64(lines), "again"), change(int64(lines)+1, "torn"), change(int64(lines)+2, "new")}, own); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			res, err := readLog(path, store.SyncFileCursor{Path: "x"}, 1<<30, func(b []byte) (store.SyncChange, error) {
				return ParseLine(b, dev, testNow, DefaultMaxFuture)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.problems) != 0 || len(res.changes) != lines+2 || res.cursor.Offset != int64(len(data)) || !bytes.HasSuffix(data, []byte("\n")) {
				t.Fatalf("log holds %d changes and %d problems (%v), read to %d of %d bytes; want %d whole changes", len(res.changes), len(res.problems), res.problems, res.cursor.Offset, len(data), lines+2)
			}
			for i, c := range res.changes {
				if c.Seq != int64(i+1) {
					t.Fatalf("change %d has sequence %d", i+1, c.Seq)
				}
			}
			if last := res.changes[len(res.changes)-1]; last.Text != "new" || res.changes[lines-1].Text == "again" {
				t.Errorf("the log was appended to wrongly: last %q, change %d %q", last.Text, lines, res.changes[lines-1].Text)
			}
		})
	}
}

// TestAppendRefusesAnotherWriter: a log whose last change this database did not make (a
// copy of the database writing as the same device elsewhere) is not appended to.
func TestAppendRefusesAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	if err := appendChanges(dir, []store.SyncChange{change(1, "mine"), change(2, "theirs")}, nil); err != nil {
		t.Fatal(err)
	}
	own := func(seq int64) (store.SyncChange, bool) {
		if seq == 1 {
			return change(1, "mine"), true
		}
		return change(2, "what this database wrote as 2"), seq == 2
	}
	err := appendChanges(dir, []store.SyncChange{change(3, "next")}, own)
	if !errors.Is(err, ErrDeviceClash) {
		t.Fatalf("append after another writer's change: %v, want ErrDeviceClash", err)
	}
}
