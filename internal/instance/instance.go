// Package instance keeps one memdesk app per database: the app listens on a unix socket
// private to the user, and a later `memdesk quick` or `memdesk gui` hands it a command
// instead of opening a second window on the same file. The protocol is one line: the client
// writes a command from a fixed set ("quick", "show") and the app answers "ok" or "error:
// …". Nothing else is read: a line is at most maxLine bytes and must arrive within
// ioTimeout.
package instance

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is what a client asks of the running app.
type Command string

// The commands the app accepts; any other line is refused.
const (
	Quick Command = "quick" // show the quick window
	Show  Command = "show"  // show the main window
)

func (c Command) valid() bool { return c == Quick || c == Show }

const (
	maxLine   = 32 // bytes a command line may take, newline included
	ioTimeout = 2 * time.Second
)

// ErrRunning means another memdesk app already holds the socket for this database: send
// it a command instead.
var ErrRunning = errors.New("memdesk is already running on this database")

// ErrNotRunning means no app answers on the socket.
var ErrNotRunning = errors.New("memdesk is not running on this database")

// SocketPath is where the app for dbPath listens: dir/<hash of the database's absolute
// path>.sock, so two apps on two databases do not meet. dir is the caller's private
// runtime folder ($XDG_RUNTIME_DIR/memdesk).
func SocketPath(dir, dbPath string) string {
	if abs, err := filepath.Abs(dbPath); err == nil {
		dbPath = abs
	}
	sum := sha256.Sum256([]byte(dbPath))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock")
}

// Listener is the running app's end of the socket.
type Listener struct {
	ln   *net.UnixListener
	path string
}

// Listen takes the socket at path, creating its folder (mode 0700; an existing folder must
// be the user's own and closed to others). When a live app answers there it returns
// ErrRunning; a socket left by an app that died is removed and taken over.
func Listen(path string) (*Listener, error) {
	dir := filepath.Dir(path)
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	// The lock orders two apps starting at once: without it both could find the socket
	// stale, and the second would remove the first's new one.
	// It is held only while the socket is checked and taken.
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	defer unlock()
	if alive(path) {
		return nil, ErrRunning
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(true)
	// The folder already keeps others out; the socket's own mode says so too.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("make %s private: %w", path, err)
	}
	return &Listener{ln: ln, path: path}, nil
}

// alive reports whether an app accepts connections on path.
func alive(path string) bool {
	conn, err := net.DialTimeout("unix", path, ioTimeout)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Serve answers clients, each on a goroutine of its own, calling handle for each valid
// command, until ctx ends or the listener is closed; it closes the listener and waits for
// the clients being served before returning. handle must not block (hand the command to the
// UI goroutine) and may be called from several goroutines at once.
//
// Served one at a time, one connection that sent nothing held every other client for its
// whole timeout, and `memdesk quick` failed with a raw i/o timeout. At most maxClients are
// served at once; the next waits for one of them (each ends within ioTimeout).
func (l *Listener) Serve(ctx context.Context, handle func(Command)) error {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer l.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxClients)
	for {
		conn, err := l.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept on %s: %w", l.path, err)
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			serveOne(conn, handle)
		})
	}
}

// maxClients bounds the clients served at once.
const maxClients = 8

// serveOne reads one bounded command line and answers it.
func serveOne(conn net.Conn, handle func(Command)) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(ioTimeout))
	line, err := bufio.NewReaderSize(io.LimitReader(conn, maxLine), maxLine).ReadString('\n')
	if err != nil {
		io.WriteString(conn, "error: expected one short command line\n")
		return
	}
	cmd := Command(strings.TrimSuffix(line, "\n"))
	if !cmd.valid() {
		io.WriteString(conn, "error: unknown command\n")
		return
	}
	handle(cmd)
	io.WriteString(conn, "ok\n")
}

// Close stops listening and removes the socket; safe to call more than once.
func (l *Listener) Close() error {
	err := l.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Send hands cmd to the app listening at path and waits for its answer. It returns
// ErrNotRunning when nothing listens there.
func Send(ctx context.Context, path string, cmd Command) error {
	if !cmd.valid() {
		return fmt.Errorf("unknown command %q", cmd)
	}
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, ioTimeout)
	defer cancel()
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNotRunning, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if _, err := io.WriteString(conn, string(cmd)+"\n"); err != nil {
		return fmt.Errorf("send %q to the running memdesk: %w", cmd, err)
	}
	answer, err := bufio.NewReader(io.LimitReader(conn, 256)).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the running memdesk did not answer %q: %w", cmd, err)
	}
	if answer = strings.TrimSpace(answer); answer != "ok" {
		return fmt.Errorf("the running memdesk refused %q: %s", cmd, answer)
	}
	return nil
}
