package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncCommands: two databases set up with one folder exchange their memories through
// sync init and sync now, and sync status says what each holds; sync status before init
// says how to set sync up.
func TestSyncCommands(t *testing.T) {
	bin := memdeskBinary(t)
	a, b := newMemdeskRun(t, bin), newMemdeskRun(t, bin)
	folder := filepath.Join(t.TempDir(), "Sync", "memdesk")
	code, _, stderr := b.human(t, "sync", "status")
	if code != 1 || !strings.Contains(string(stderr), "memdesk sync init") {
		t.Errorf("sync status before init: exit %d, %q; want 1 and how to set it up", code, stderr)
	}
	a.mustJSON(t, &struct{}{}, "remember", "The pelican colony nests on the north pier")
	var status struct {
		Device  string `json:"device"`
		Devices []struct {
			Device  string `json:"device"`
			Changes int    `json:"changes"`
		} `json:"devices"`
		PendingExport int `json:"pending_export"`
	}
	a.mustJSON(t, &status, "sync", "init", folder)
	if status.Device == "" || status.PendingExport != 0 || len(status.Devices) != 1 || status.Devices[0].Changes != 1 {
		t.Errorf("after sync init: %+v, want this device with its one change exported", status)
	}
	b.mustJSON(t, &struct{}{}, "sync", "init", folder)
	b.mustJSON(t, &struct{}{}, "remember", "Standup is at 09:30")
	var rep struct {
		Applied int `json:"applied"`
	}
	a.mustJSON(t, &rep, "sync", "now")
	if rep.Applied != 1 {
		t.Errorf("sync now on a applied %d changes, want b's one", rep.Applied)
	}
	for name, r := range map[string]memdeskRun{"a": a, "b": b} {
		var got []string
		for _, f := range r.listAll(t) {
			got = append(got, f.Text)
		}
		if len(got) != 2 {
			t.Errorf("%s holds %q, want both memories", name, got)
		}
	}
	code, stdout, _ := b.human(t, "sync", "status")
	if code != 0 || !strings.Contains(string(stdout), "(this one)") || !strings.Contains(string(stdout), "conflicts: none") {
		t.Errorf("sync status: exit %d\n%s", code, stdout)
	}
}
