package devsync_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/devsynctest"
)

// The kill tests run a real memdesk engine in a child process (this test binary, run again
// with childMode set) and kill it with SIGKILL at random moments.
const (
	childMode = "MEMDESK_DEVSYNC_CHILD" // "write" or "replay"
	childDB   = "MEMDESK_DEVSYNC_DB"
	childRun  = "MEMDESK_DEVSYNC_RUN"
)

// TestKillChild is the child's body; it does nothing in a normal test run.
func TestKillChild(t *testing.T) {
	mode := os.Getenv(childMode)
	if mode == "" {
		t.Skip("the child process of the kill tests")
	}
	ctx := context.Background()
	e, err := engine.Open(ctx, os.Getenv(childDB), engine.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		switch mode {
		case "write":
			text := fmt.Sprintf("run %s write %d", os.Getenv(childRun), i)
			if _, err := e.Remember(ctx, engine.RememberRequest{Text: text}); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println("ack", text) // only after Remember returned: an acknowledged write
		case "replay":
			rep, err := e.SyncNow(ctx)
			if err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println("replayed", rep.Applied)
		}
	}
}

// runAndKill starts the child in mode on db, waits until it is ready and has acknowledged
// acks writes, lets it work for a random while and kills it. It returns the lines the child
// printed. Waiting for acknowledgements, not for time, is what makes some kills land after
// a write has been acknowledged on a loaded machine too: beside six CPU-bound loops a write
// took longer than the whole random while, and 20 kills left nothing acknowledged.
func runAndKill(t *testing.T, rnd *rand.Rand, mode, db string, run, acks int, maxWork time.Duration) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
	cmd.Env = append(os.Environ(), childMode+"="+mode, childDB+"="+db, fmt.Sprint(childRun, "=", run))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var got []string
	timeout := time.After(60 * time.Second)
	for ready, acked := false, 0; !ready || acked < acks; {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("child %s ended before it was ready and had acknowledged %d: %q", mode, acks, got)
			}
			got = append(got, l)
			ready = ready || l == "ready"
			if strings.HasPrefix(l, "ack ") {
				acked++
			}
		case <-timeout:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child %s not ready with %d acknowledged after 60 s: %q", mode, acks, got)
		}
	}
	time.Sleep(time.Duration(rnd.Int64N(int64(maxWork))))
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		got = append(got, l)
	}
	cmd.Wait()
	for _, l := range got {
		if strings.HasPrefix(l, "error") {
			t.Fatalf("child %s: %s", mode, l)
		}
	}
	return got
}

// TestKillDuringWrite kills device A 20 times while it writes memories (each committed,
// then appended to its log and synced to disk): its log stays readable, and after a restart
// every acknowledged write reaches device B.
func TestKillDuringWrite(t *testing.T) {
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(30, 9))
	folder := t.TempDir()
	dbA := filepath.Join(t.TempDir(), "a.db")
	a := devsynctest.Open(ctx, t, "a", filepath.Dir(dbA), folder, nil)
	a.Engine.Close()
	b := devsynctest.Open(ctx, t, "b", t.TempDir(), folder, nil)
	var acked []string
	torn := 0
	for run := range 20 {
		// A third of the kills come before any write is acknowledged, the others after one
		// or two: each somewhere in the write that follows.
		for _, l := range runAndKill(t, rnd, "write", dbA, run, run%3, 150*time.Millisecond) {
			if text, ok := strings.CutPrefix(l, "ack "); ok {
				acked = append(acked, text)
			}
		}
		logs, _ := filepath.Glob(filepath.Join(folder, "memdesk", "*", "*.jsonl"))
		for _, p := range logs {
			if data, _ := os.ReadFile(p); len(data) > 0 && data[len(data)-1] != '\n' {
				torn++
			}
		}
		// B reads A's log as the kill left it: perhaps with a torn last line.
		if _, err := b.Engine.SyncNow(ctx); err != nil {
			t.Fatalf("run %d: device b, sync now after a kill of a: %v", run, err)
		}
	}
	e, err := engine.Open(ctx, dbA, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a = &devsynctest.Device{Name: "a", Engine: e, Folder: folder}
	devsynctest.SyncBoth(ctx, t, a, b)
	devsynctest.SyncBoth(ctx, t, a, b)
	devsynctest.CheckConverged(ctx, t, a, b)
	have := map[string]bool{}
	for _, m := range devsynctest.ActiveMemories(ctx, t, b) {
		have[strings.TrimPrefix(m, "default\x00")] = true
	}
	for _, text := range acked {
		if !have[text] {
			t.Errorf("acknowledged write %q is not on device b", text)
		}
	}
	t.Logf("%d acknowledged writes over 20 kills (%d left a torn last line), all on both devices", len(acked), torn)
	if len(acked) == 0 {
		t.Error("no write was acknowledged before any kill: the test tested nothing")
	}
}

// TestKillDuringReplay kills device B 20 times while it replays A's changes; after a
// restart both stores converge.
func TestKillDuringReplay(t *testing.T) {
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(31, 9))
	folder := t.TempDir()
	a := devsynctest.Open(ctx, t, "a", t.TempDir(), folder, nil)
	dbB := filepath.Join(t.TempDir(), "b.db")
	b := devsynctest.Open(ctx, t, "b", filepath.Dir(dbB), folder, nil)
	b.Engine.Close()
	var latest []int64
	interrupted := 0
	for run := range 20 {
		// New work for B's replay each time: a batch of adds and some edits.
		texts := make([]string, 40)
		for i := range texts {
			texts[i] = fmt.Sprintf("run %d memory %d", run, i)
		}
		res, err := a.Engine.RememberBatch(ctx, "default", texts, nil)
		if err != nil {
			t.Fatal(err)
		}
		latest = latest[:0]
		for _, r := range res {
			latest = append(latest, r.FactID)
		}
		for i := range 3 {
			id := latest[rnd.IntN(len(latest))]
			if _, err := a.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: id, Text: fmt.Sprintf("run %d edit %d", run, i)}); err != nil {
				t.Fatal(err)
			}
		}
		lines := runAndKill(t, rnd, "replay", dbB, run, 0, 200*time.Millisecond)
		if !strings.HasPrefix(lines[len(lines)-1], "replayed") {
			interrupted++ // killed before its first replay ended
		}
	}
	e, err := engine.Open(ctx, dbB, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	b = &devsynctest.Device{Name: "b", Engine: e, Folder: folder}
	devsynctest.SyncBoth(ctx, t, a, b)
	devsynctest.CheckConverged(ctx, t, a, b)
	if res, err := e.Admin(ctx, engine.AdminRequest{Action: "integrity"}); err != nil || !res.OK {
		t.Errorf("integrity of b after 20 kills: %+v, %v", res, err)
	}
	t.Logf("%d of 20 kills came before the replay they interrupted ended", interrupted)
}
