package instance

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// serve runs l.Serve until the test ends and returns the commands it received.
func serve(t *testing.T, l *Listener) *received {
	t.Helper()
	got := &received{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, got.add) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return got
}

type received struct {
	mu   sync.Mutex
	cmds []Command
}

func (r *received) add(c Command) { r.mu.Lock(); r.cmds = append(r.cmds, c); r.mu.Unlock() }
func (r *received) list() []Command {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Command(nil), r.cmds...)
}

func socketIn(t *testing.T) string {
	// A short folder: a unix socket's path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "mdi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return SocketPath(filepath.Join(dir, "memdesk"), "/home/someone/memdesk.db")
}

func TestSecondInstanceForwardsAndExits(t *testing.T) {
	path := socketIn(t)
	first, err := Listen(path)
	if err != nil {
		t.Fatalf("first Listen: %v", err)
	}
	got := serve(t, first)
	for _, perm := range []struct {
		path string
		want os.FileMode
	}{{filepath.Dir(path), 0o700}, {path, 0o600}} {
		fi, err := os.Stat(perm.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != perm.want {
			t.Errorf("%s has mode %v, want %v", perm.path, fi.Mode().Perm(), perm.want)
		}
	}

	// The second app finds the first running and hands it the command.
	if _, err := Listen(path); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Listen = %v, want ErrRunning", err)
	}
	if err := Send(context.Background(), path, Quick); err != nil {
		t.Fatalf("Send quick: %v", err)
	}
	if err := Send(context.Background(), path, Show); err != nil {
		t.Fatalf("Send show: %v", err)
	}
	if got := got.list(); len(got) != 2 || got[0] != Quick || got[1] != Show {
		t.Errorf("the first app received %q, want [quick show]", got)
	}
}

func TestStaleSocketIsTakenOver(t *testing.T) {
	path := socketIn(t)
	if err := privateDir(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	// An app that died leaves its socket file behind with no one listening.
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the dead app's socket is gone already: %v", err)
	}
	if err := Send(context.Background(), path, Quick); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Send to a dead socket = %v, want ErrNotRunning", err)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	got := serve(t, l)
	if err := Send(context.Background(), path, Quick); err != nil {
		t.Fatalf("Send after takeover: %v", err)
	}
	if got := got.list(); len(got) != 1 {
		t.Errorf("received %q, want one quick", got)
	}
}

func TestOnlyTheFixedCommandsAreAccepted(t *testing.T) {
	path := socketIn(t)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	got := serve(t, l)
	for _, line := range []string{"quit\n", "quick extra\n", "QUICK\n", strings.Repeat("q", 4096) + "\n", "quick"} {
		conn, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(time.Minute))
		conn.Write([]byte(line))
		if line == "quick" { // no newline: the app gives up at its deadline or when we stop writing
			conn.(*net.UnixConn).CloseWrite()
		}
		answer, _ := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if !strings.HasPrefix(answer, "error:") {
			t.Errorf("line %.20q answered %q, want an error", line, answer)
		}
	}
	if err := Send(context.Background(), path, Command("forget everything")); err == nil {
		t.Error("Send of an unknown command succeeded")
	}
	if cmds := got.list(); len(cmds) != 0 {
		t.Errorf("the app acted on %q", cmds)
	}
}

func TestListenRefusesAnOpenFolder(t *testing.T) {
	path := socketIn(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if l, err := Listen(path); err == nil {
		l.Close()
		t.Fatal("Listen used a folder other users may enter")
	}
}

func TestSocketPathDependsOnTheDatabase(t *testing.T) {
	a, b := SocketPath("/run/user/1/memdesk", "/x/a.db"), SocketPath("/run/user/1/memdesk", "/x/b.db")
	if a == b || filepath.Dir(a) != "/run/user/1/memdesk" || !strings.HasSuffix(a, ".sock") {
		t.Errorf("SocketPath gave %q and %q", a, b)
	}
}

// BenchmarkSend is what `memdesk quick` costs once an app runs: one connection, one line
// each way.
func BenchmarkSend(b *testing.B) {
	dir, err := os.MkdirTemp("", "mdb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := SocketPath(filepath.Join(dir, "memdesk"), "/bench.db")
	l, err := Listen(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, func(Command) {}) }()
	b.ReportAllocs()
	for b.Loop() {
		if err := Send(ctx, path, Quick); err != nil {
			b.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// TestSilentClientDoesNotHoldOthers: a connection that sends nothing does not hold the next
// client for its timeout; `memdesk quick` is answered at once.
func TestSilentClientDoesNotHoldOthers(t *testing.T) {
	path := socketIn(t)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	got := serve(t, l)
	silent, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// Send's own deadline is ioTimeout: served behind the silent one, it timed out.
	if err := Send(context.Background(), path, Quick); err != nil {
		t.Fatalf("Send beside a silent connection: %v", err)
	}
	if cmds := got.list(); len(cmds) != 1 || cmds[0] != Quick {
		t.Errorf("received %v, want [quick]", cmds)
	}
}
