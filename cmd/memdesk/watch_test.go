//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type recalledDoc struct {
	Hits []struct {
		Doc *struct {
			Path       string   `json:"path"`
			OtherPaths []string `json:"other_paths"`
		} `json:"doc"`
	} `json:"hits"`
}

// eventually polls cond until it holds, failing after a generous deadline.
func eventually(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 60*time.Second {
			t.Fatalf("%s: not so after %v", what, time.Since(start))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// TestCopiesShowOnceWithTheirOtherPaths: five identical READMEs are one hit that says where
// the other four are, kb list shows the copies, and kb rm of one path keeps the document.
func TestCopiesShowOnceWithTheirOtherPaths(t *testing.T) {
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, sub := range []string{"a", "b", "c", "d", "e"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, sub, "README.md")
		writeFile(t, p, []byte("# Build\n\nThe wombat toolchain needs a clean checkout.\n"))
		paths = append(paths, p)
	}
	var added struct {
		Added     int `json:"added"`
		Duplicate int `json:"duplicate"`
	}
	r.mustJSON(t, &added, "kb", "add", dir)
	if added.Added != 1 || added.Duplicate != 4 {
		t.Errorf("kb add: %+v, want 1 added and 4 duplicate", added)
	}
	var rec recalledDoc
	r.mustJSON(t, &rec, "recall", "--source", "knowledge", "wombat")
	if len(rec.Hits) != 1 || rec.Hits[0].Doc == nil || len(rec.Hits[0].Doc.OtherPaths) != 4 {
		t.Fatalf("recall of five copies: %+v, want one hit with four other paths", rec)
	}
	cmd := exec.Command(bin, "--db", r.db, "recall", "wombat")
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("recall: %v\n%s", err, out)
	}
	if want := "also at: " + strings.Join(paths[1:], ", "); !strings.Contains(string(out), want) {
		t.Errorf("recall output:\n%s\nwant a line %q", out, want)
	}
	cmd = exec.Command(bin, "--db", r.db, "kb", "list")
	cmd.Env = r.env
	if out, err = cmd.CombinedOutput(); err != nil {
		t.Fatalf("kb list: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), "copy"); got != 4 {
		t.Errorf("kb list shows %d copies, want 4:\n%s", got, out)
	}

	var rm struct {
		Removed bool `json:"removed"`
	}
	r.mustJSON(t, &rm, "kb", "rm", paths[0])
	if rm.Removed {
		t.Errorf("kb rm of one copy removed the document")
	}
	r.mustJSON(t, &rec, "recall", "--source", "knowledge", "wombat")
	if len(rec.Hits) != 1 || len(rec.Hits[0].Doc.OtherPaths) != 3 {
		t.Errorf("after kb rm of one copy: %+v, want one hit with three other paths", rec)
	}
	r.checkIntegrity(t)
}

// TestKBWatchKeepsAFolderInSync runs `kb watch` as a person would, saves and deletes a file
// while recalls run in other processes, then stops it with Ctrl-C.
func TestKBWatchKeepsAFolderInSync(t *testing.T) {
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	watch, _, stderr := r.command("kb", "watch", dir)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- watch.Wait() }()
	t.Cleanup(func() {
		if watch.ProcessState == nil {
			watch.Process.Kill()
			<-done
		}
	})

	found := func(word string) bool {
		cmd, stdout, _ := r.command("recall", "--source", "knowledge", word)
		if cmd.Run() != nil {
			return false
		}
		var rec recalledDoc
		return json.Unmarshal(stdout.Bytes(), &rec) == nil && len(rec.Hits) == 1
	}
	note := filepath.Join(dir, "note.md")
	writeFile(t, note, []byte("The capybara ledger is due on Friday.\n"))
	took := eventually(t, "saved file found by recall", func() bool { return found("capybara") })
	t.Logf("saved file found after %v", took)

	var list struct {
		Watched []struct {
			Root string `json:"root"`
		} `json:"watched"`
	}
	r.mustJSON(t, &list, "kb", "list")
	if len(list.Watched) != 1 || list.Watched[0].Root != dir {
		t.Errorf("kb list watched = %+v, want %s", list.Watched, dir)
	}

	if err := os.Remove(note); err != nil {
		t.Fatal(err)
	}
	took = eventually(t, "deleted file gone from recall", func() bool { return !found("capybara") })
	t.Logf("deleted file gone after %v", took)

	if err := watch.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("kb watch after Ctrl-C: %v\nstderr: %s", err, stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("kb watch still running 60s after Ctrl-C")
	}
}
