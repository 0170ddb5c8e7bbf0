package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// processRun is one finished memdesk process in the concurrency test.
type processRun struct {
	role   string // "writer 2", "reader 1"
	text   string // the text remembered, for writers
	wall   time.Duration
	err    error
	stdout string
	stderr string
}

// isLockError reports whether a process surfaced SQLite contention to the user, which
// memdesk's busy timeout and immediate transactions exist to prevent.
func isLockError(stderr string) bool {
	s := strings.ToLower(stderr)
	return strings.Contains(s, "database is locked") || strings.Contains(s, "sqlite_busy") ||
		strings.Contains(s, "database table is locked")
}

// percentile returns the p-th percentile (0-100) of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

// TestConcurrentProcesses runs 4 processes that remember in a loop (each its own texts) and 2
// that recall in a loop, all on one database at once, as the CLI, GUI and MCP server do. It
// checks that no process surfaces "database is locked"/SQLITE_BUSY, that every acknowledged
// write is stored with its text, and logs recall latency under that write load next to an
// idle baseline (reported, not asserted: it depends on the machine).
func TestConcurrentProcesses(t *testing.T) {
	const writers, readers = 4, 2
	iterations := 200
	if testing.Short() {
		iterations = 30
	}
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)

	// Seed a few facts so recalls have something to find from the first iteration on.
	for i := range 5 {
		var res struct {
			Status string `json:"status"`
		}
		r.mustJSON(t, &res, "remember", fmt.Sprintf("seed fact %d: the deploy host runs on port %d", i, 8080+i))
	}
	queries := []string{"deploy host port", "writer fact widget", "port 8081", "who owns the deploy host"}
	recall := func(role, q string) processRun {
		cmd, stdout, stderr := r.command("recall", q)
		begin := time.Now()
		err := cmd.Run()
		return processRun{role: role, wall: time.Since(begin), err: err, stdout: stdout.String(), stderr: stderr.String()}
	}

	baseline := make([]time.Duration, 0, iterations)
	for i := range iterations {
		run := recall("idle reader", queries[i%len(queries)])
		if run.err != nil {
			t.Fatalf("idle recall: %v\nstderr: %s", run.err, run.stderr)
		}
		baseline = append(baseline, run.wall)
	}

	start := time.Now()
	results := make(chan processRun, (writers+readers)*iterations)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range iterations {
				text := fmt.Sprintf("writer fact %d from writer %d: widget w%d-%d sits on port %d", i, w, w, i, 9000+i)
				cmd, stdout, stderr := r.command("remember", text)
				begin := time.Now()
				err := cmd.Run()
				results <- processRun{role: fmt.Sprintf("writer %d", w), text: text, wall: time.Since(begin),
					err: err, stdout: stdout.String(), stderr: stderr.String()}
			}
		})
	}
	for rd := range readers {
		wg.Go(func() {
			for i := range iterations {
				results <- recall(fmt.Sprintf("reader %d", rd), queries[(i+rd)%len(queries)])
			}
		})
	}
	wg.Wait()
	close(results)
	elapsed := time.Since(start)

	acked := map[int64]string{}
	var lockErrors, otherErrors int
	var writeWalls, readWalls []time.Duration
	for run := range results {
		if run.err != nil {
			if isLockError(run.stderr) {
				lockErrors++
				t.Errorf("%s surfaced a lock error: %v\nstderr: %s", run.role, run.err, run.stderr)
			} else {
				otherErrors++
				t.Errorf("%s failed: %v\nstderr: %s", run.role, run.err, run.stderr)
			}
			continue
		}
		if run.text == "" {
			readWalls = append(readWalls, run.wall)
			var res struct {
				Hits []json.RawMessage `json:"hits"`
			}
			if err := json.Unmarshal([]byte(run.stdout), &res); err != nil {
				t.Errorf("%s printed %q: %v", run.role, run.stdout, err)
			}
			continue
		}
		writeWalls = append(writeWalls, run.wall)
		var res struct {
			FactID int64  `json:"fact_id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(run.stdout), &res); err != nil || res.Status != "added" {
			t.Errorf("%s remember printed %q (%v); want status added", run.role, run.stdout, err)
			continue
		}
		if prev, dup := acked[res.FactID]; dup {
			t.Errorf("fact id %d acknowledged twice: %q and %q", res.FactID, prev, run.text)
		}
		acked[res.FactID] = run.text
	}

	r.checkIntegrity(t)
	stored := map[int64]string{}
	for _, f := range r.listAll(t) {
		stored[f.ID] = f.Text
	}
	lost := 0
	for id, text := range acked {
		if got, ok := stored[id]; !ok || got != text {
			lost++
			t.Errorf("acknowledged fact %d: stored %q (present %v), want %q", id, got, ok, text)
		}
	}
	if want := writers * iterations; len(acked) != want && lockErrors+otherErrors == 0 {
		t.Errorf("acknowledged writes = %d, want %d", len(acked), want)
	}

	for _, d := range [][]time.Duration{baseline, readWalls, writeWalls} {
		slices.Sort(d)
	}
	t.Logf("concurrent processes: %d writers + %d readers x %d iterations in %s; writes acknowledged %d, lost %d; lock errors %d, other errors %d",
		writers, readers, iterations, elapsed.Round(time.Millisecond), len(acked), lost, lockErrors, otherErrors)
	t.Logf("recall wall time (process start to exit) idle: p50 %s p95 %s; under write load: p50 %s p95 %s max %s",
		percentile(baseline, 50).Round(time.Microsecond*100), percentile(baseline, 95).Round(time.Microsecond*100),
		percentile(readWalls, 50).Round(time.Microsecond*100), percentile(readWalls, 95).Round(time.Microsecond*100),
		percentile(readWalls, 100).Round(time.Microsecond*100))
	t.Logf("remember wall time under load: p50 %s p95 %s max %s",
		percentile(writeWalls, 50).Round(time.Microsecond*100), percentile(writeWalls, 95).Round(time.Microsecond*100),
		percentile(writeWalls, 100).Round(time.Microsecond*100))
}
