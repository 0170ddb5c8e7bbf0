package syncthingtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTwoInstancesSyncOnLoopback runs two real Syncthing instances sharing one folder,
// writes on both sides (one file appended to several times), and checks that both end with
// the same files; that each instance's sockets, looked at after start, after Share and at
// the end, are all on loopback with no UDP among them; that neither dialled off loopback
// (its SOCKS trap saw nothing); and that their logs show no outward service starting.
func TestTwoInstancesSyncOnLoopback(t *testing.T) {
	root := t.TempDir()
	begin := time.Now()
	a := Start(t, filepath.Join(root, "home-a"))
	b := Start(t, filepath.Join(root, "home-b"))
	t.Logf("both started: %v", time.Since(begin).Round(time.Millisecond))
	assertQuiet(t, a, b)

	dirA, dirB := filepath.Join(root, "sync-a"), filepath.Join(root, "sync-b")
	begin = time.Now()
	Share(t, a, b, "memdesk-test", dirA, dirB)
	t.Logf("shared and connected: %v", time.Since(begin).Round(time.Millisecond))
	assertQuiet(t, a, b)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	writeFile(t, filepath.Join(dirA, "from-a.txt"), "written on a\n")
	writeFile(t, filepath.Join(dirB, "nested", "from-b.jsonl"), `{"op":"add","id":1}`+"\n")
	logA := filepath.Join(dirA, "device-a.log")
	for i := range 5 {
		appendLine(t, logA, fmt.Sprintf("change %d from a", i))
	}
	start := time.Now()
	if err := Settle(ctx, a, b, "memdesk-test"); err != nil {
		t.Fatal(err)
	}
	t.Logf("first settle: %v", time.Since(start).Round(time.Millisecond))
	assertSameTree(t, dirA, dirB)

	// A second round, so Settle is seen to wait for changes made after the folder was
	// already in sync, on both sides at once.
	for i := 5; i < 8; i++ {
		appendLine(t, logA, fmt.Sprintf("change %d from a", i))
	}
	writeFile(t, filepath.Join(dirB, "nested", "from-b.jsonl"), `{"op":"add","id":1}`+"\n"+`{"op":"edit","id":1}`+"\n")
	start = time.Now()
	if err := Settle(ctx, a, b, "memdesk-test"); err != nil {
		t.Fatal(err)
	}
	t.Logf("second settle: %v", time.Since(start).Round(time.Millisecond))
	got := assertSameTree(t, dirA, dirB)
	want := map[string]string{
		"from-a.txt":          "written on a\n",
		"nested/from-b.jsonl": `{"op":"add","id":1}` + "\n" + `{"op":"edit","id":1}` + "\n",
		"device-a.log":        "change 0 from a\nchange 1 from a\nchange 2 from a\nchange 3 from a\nchange 4 from a\nchange 5 from a\nchange 6 from a\nchange 7 from a\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("synced files (-want +got):\n%s", diff)
	}
	assertQuiet(t, a, b)
	assertLogQuiet(t, a, b)
}

// assertLogQuiet checks the instances' logs for another witness: their one listener is
// TCP on 127.0.0.1, the SOCKS trap is in use, and none of the services that reach outward
// ever started (each logs a line when it does).
func assertLogQuiet(t *testing.T, instances ...*Instance) {
	t.Helper()
	outward := []string{"QUIC listener", "Relay listener", "detected NAT type", "discovery", "Checking for upgrade", "Automatic upgrade"}
	for _, in := range instances {
		raw, err := os.ReadFile(in.LogPath)
		if err != nil {
			t.Fatal(err)
		}
		log := string(raw)
		if !strings.Contains(log, "TCP listener (127.0.0.1:") {
			t.Errorf("syncthing %s log has no TCP listener on 127.0.0.1:\n%s", shortID(in.DeviceID), in.LogTail(40))
		}
		// Syncthing says so when it takes up ALL_PROXY and ALL_PROXY_NO_FALLBACK: the
		// SOCKS trap is armed.
		if !strings.Contains(log, "Proxy fallback disabled") {
			t.Errorf("syncthing %s log does not show the SOCKS trap in use:\n%s", shortID(in.DeviceID), in.LogTail(40))
		}
		for _, s := range outward {
			if strings.Contains(log, s) {
				t.Errorf("syncthing %s log mentions %q:\n%s", shortID(in.DeviceID), s, in.LogTail(40))
			}
		}
	}
}

// assertQuiet checks every socket of both instances is on loopback, logging them so a
// verbose run shows the evidence, and that neither has a UDP socket: with only a TCP
// listener and discovery off, Syncthing needs none (local discovery would be UDP 21027,
// QUIC and STUN UDP too).
func assertQuiet(t *testing.T, instances ...*Instance) {
	t.Helper()
	for _, in := range instances {
		AssertLoopbackOnly(t, in)
		sockets := Sockets(t, in)
		var lines []string
		for _, s := range sockets {
			lines = append(lines, s.String())
			if s.Netid == "udp" {
				t.Errorf("syncthing %s has a UDP socket: %v", shortID(in.DeviceID), s)
			}
			if s.Port() == 21027 {
				t.Errorf("syncthing %s has the local discovery port open: %v", shortID(in.DeviceID), s)
			}
		}
		t.Logf("syncthing %s (pid %d) sockets:\n  %s", shortID(in.DeviceID), in.PID, strings.Join(lines, "\n  "))
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// assertSameTree fails the test if the two folders hold different files, and returns the
// files (slash paths, contents) of the first. Syncthing's own marker is left out.
func assertSameTree(t *testing.T, dirA, dirB string) map[string]string {
	t.Helper()
	a, b := readTree(t, dirA), readTree(t, dirB)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("folders differ after Settle (-a +b):\n%s", diff)
	}
	return a
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".stfolder" {
				return filepath.SkipDir
			}
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(raw)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return files
}

func TestParseSS(t *testing.T) {
	out := `tcp   LISTEN 0      4096       127.0.0.1:40123      0.0.0.0:*     users:(("syncthing",pid=4242,fd=12))
tcp   ESTAB  0      0          127.0.0.1:40123    127.0.0.1:51234 users:(("syncthing",pid=4242,fd=20))
tcp   LISTEN 0      4096           [::1]:8384          [::]:*     users:(("syncthing",pid=4242,fd=9))
tcp   ESTAB  0      0   [::ffff:127.0.0.1]:22000 [::ffff:127.0.0.1]:4000 users:(("syncthing",pid=4242,fd=21))
udp   UNCONN 0      0            0.0.0.0:21027      0.0.0.0:*     users:(("syncthing",pid=4242,fd=14))
udp   UNCONN 0      0               [::]:21027         *:*        users:(("syncthing",pid=4242,fd=15))
tcp   LISTEN 0      4096               *:22000            *:*     users:(("syncthing",pid=4242,fd=16))
tcp   ESTAB  0      0          10.0.0.5:40000  93.184.216.34:443  users:(("syncthing",pid=4242,fd=17))
tcp   ESTAB  0      0          127.0.0.1:41000   10.0.0.9:22000   users:(("syncthing",pid=4242,fd=18),("other",pid=7,fd=3))
tcp   LISTEN 0      128          0.0.0.0:2024       0.0.0.0:*
udp   UNCONN 0      0       127.0.0.1%lo:5353      0.0.0.0:*     users:(("x",pid=9,fd=1))
`
	type row struct {
		Socket   string
		PIDs     []int
		Loopback bool
		Port     int
	}
	var got []row
	for _, s := range parseSS(out) {
		got = append(got, row{s.String(), s.PIDs, s.OnLoopback(), s.Port()})
	}
	want := []row{
		{"tcp LISTEN 127.0.0.1:40123 -> 0.0.0.0:*", []int{4242}, true, 40123},
		{"tcp ESTAB 127.0.0.1:40123 -> 127.0.0.1:51234", []int{4242}, true, 40123},
		{"tcp LISTEN [::1]:8384 -> [::]:*", []int{4242}, true, 8384},
		{"tcp ESTAB [::ffff:127.0.0.1]:22000 -> [::ffff:127.0.0.1]:4000", []int{4242}, true, 22000},
		{"udp UNCONN 0.0.0.0:21027 -> 0.0.0.0:*", []int{4242}, false, 21027},
		{"udp UNCONN [::]:21027 -> *:*", []int{4242}, false, 21027},
		{"tcp LISTEN *:22000 -> *:*", []int{4242}, false, 22000},
		{"tcp ESTAB 10.0.0.5:40000 -> 93.184.216.34:443", []int{4242}, false, 40000},
		{"tcp ESTAB 127.0.0.1:41000 -> 10.0.0.9:22000", []int{4242, 7}, false, 41000},
		{"tcp LISTEN 0.0.0.0:2024 -> 0.0.0.0:*", nil, false, 2024},
		{"udp UNCONN 127.0.0.1%lo:5353 -> 0.0.0.0:*", []int{9}, true, 5353},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseSS (-want +got):\n%s", diff)
	}
}

func TestSettledWhyNot(t *testing.T) {
	settled := sideView{
		Status: folderStatus{State: "idle", GlobalFiles: 3, GlobalBytes: 100},
		Own:    completion{Completion: 100, Sequence: 7},
		Peer:   completion{Completion: 100, Sequence: 7},
	}
	tests := []struct {
		name   string
		change func(a, b *sideView)
		want   string
	}{
		{"settled", func(a, b *sideView) {}, ""},
		{"scanning", func(a, b *sideView) { b.Status.State = "scanning" }, `b is "scanning" `},
		{"needs items", func(a, b *sideView) { a.Status.NeedTotalItems = 2 }, "a needs 2 items"},
		{"peer incomplete", func(a, b *sideView) { a.Peer.Completion, a.Peer.NeedItems, a.Peer.NeedBytes = 50, 1, 40 },
			"a sees its peer 50.0% complete (needs 1 items, 40 bytes, 0 deletes; 0 folder errors)"},
		{"stale index of peer", func(a, b *sideView) { b.Own.Sequence = 9 }, "a has its peer's index up to sequence 7, the peer is at 9"},
		{"global views differ", func(a, b *sideView) { b.Status.GlobalFiles = 4 },
			"global views differ: a 3 files 0 dirs 0 deleted 100 bytes, b 4 files 0 dirs 0 deleted 100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := settled, settled
			tt.change(&a, &b)
			if got := settledWhyNot(a, b); got != tt.want {
				t.Errorf("settledWhyNot = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLaunchReportsTakenPort holds each of the two ports an instance is given and checks
// launch says so (so Start tries other ports) instead of waiting out its deadline or
// handing back an instance no peer can reach.
func TestLaunchReportsTakenPort(t *testing.T) {
	bin, err := exec.LookPath("syncthing")
	if err != nil {
		t.Fatalf("syncthing is not installed (scripts/deps.sh installs the Debian package): %v", err)
	}
	for _, taken := range []string{"api", "listen"} {
		t.Run(taken, func(t *testing.T) {
			holder, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			free, err := freePorts(1)
			if err != nil {
				t.Fatal(err)
			}
			held := holder.Addr().(*net.TCPAddr).Port
			guiPort, listenPort := held, free[0]
			if taken == "listen" {
				guiPort, listenPort = free[0], held
			}
			trap, err := startSOCKSTrap()
			if err != nil {
				t.Fatal(err)
			}
			defer trap.close()
			dir := t.TempDir()
			env := syncthingEnv(trap.URL(), loopbackNoProxy)
			deviceID, version, err := generate(t.Context(), bin, dir, env)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			in, err := launch(ctx, bin, dir, deviceID, version, env, guiPort, listenPort)
			if err == nil {
				in.stop(t)
				t.Fatalf("launch with the %s port taken succeeded", taken)
			}
			if !errors.Is(err, errPortTaken) {
				t.Fatalf("launch with the %s port taken: %v, want errPortTaken", taken, err)
			}
		})
	}
}

// TestTrapCatchesSyncthingDial checks the net end to end without sending anything off
// loopback: an instance whose NO_PROXY leaves out 127.0.0.2 is given a peer there, and
// its dial must end in the trap, not at 127.0.0.2.
func TestTrapCatchesSyncthingDial(t *testing.T) {
	root := t.TempDir()
	in := start(t, filepath.Join(root, "home"), "127.0.0.1,::1")
	// A real device ID for the peer that is never started.
	bin, err := exec.LookPath("syncthing")
	if err != nil {
		t.Fatal(err)
	}
	peerID, _, err := generate(t.Context(), bin, filepath.Join(root, "peer"), syncthingEnv("socks5://127.0.0.1:9", loopbackNoProxy))
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	target := fmt.Sprintf("127.0.0.2:%d", port[0])
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := addDevice(ctx, in, &Instance{DeviceID: peerID, ListenAddr: "tcp://" + target}); err != nil {
		t.Fatal(err)
	}
	err = poll(ctx, func() (bool, string, error) {
		for _, d := range in.RefusedDials() {
			if d == target {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("a dial of %s in the trap, which has %q", target, in.RefusedDials()), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range in.RefusedDials() {
		if d != target {
			t.Errorf("trap saw %q, want only %s", in.RefusedDials(), target)
			break
		}
	}
}
