package syncthingtest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// socksTrap is a SOCKS5 server on 127.0.0.1 that connects nothing: it reads where a client
// wants to go, writes it down, and refuses. An instance is started with ALL_PROXY pointing
// at its trap, NO_PROXY covering loopback and ALL_PROXY_NO_FALLBACK set, so any dial that
// Syncthing makes to an address off loopback (a discovery server, a relay, a peer's LAN
// address) ends here instead of on the network, and the test can say which it was.
type socksTrap struct {
	ln   net.Listener
	wg   sync.WaitGroup // the accept loop and one per connection
	mu   sync.Mutex
	seen []string // host:port of every refused request, in arrival order
}

// trapTimeout bounds how long the trap waits for a client's SOCKS request.
const trapTimeout = 10 * time.Second

func startSOCKSTrap() (*socksTrap, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("socks trap: %w", err)
	}
	trap := &socksTrap{ln: ln}
	trap.wg.Add(1)
	go trap.serve()
	return trap, nil
}

// URL is the trap's address as ALL_PROXY takes it.
func (trap *socksTrap) URL() string {
	return "socks5://" + trap.ln.Addr().String()
}

func (trap *socksTrap) serve() {
	defer trap.wg.Done()
	for {
		conn, err := trap.ln.Accept()
		if err != nil {
			return // closed by close()
		}
		trap.wg.Add(1)
		go func() {
			defer trap.wg.Done()
			defer conn.Close()
			target, err := readSOCKSRequest(conn)
			if err != nil {
				target = "unreadable SOCKS request: " + err.Error()
			}
			// Written down before the client hears the refusal, so a check made after a
			// failed dial always finds it.
			trap.mu.Lock()
			trap.seen = append(trap.seen, target)
			trap.mu.Unlock()
			if err == nil {
				// 2: connection not allowed by ruleset; the client sees a failed dial.
				_, _ = conn.Write([]byte{5, 2, 0, 1, 0, 0, 0, 0, 0, 0})
			}
		}()
	}
}

// Seen returns every target a client asked the trap for.
func (trap *socksTrap) Seen() []string {
	trap.mu.Lock()
	defer trap.mu.Unlock()
	return append([]string(nil), trap.seen...)
}

// close stops the trap and waits for its goroutines.
func (trap *socksTrap) close() {
	trap.ln.Close()
	trap.wg.Wait()
}

// readSOCKSRequest speaks the server side of SOCKS5 (RFC 1928) up to the CONNECT request:
// it accepts "no authentication" and reads the target, leaving the answer to the caller.
func readSOCKSRequest(conn net.Conn) (string, error) {
	if err := conn.SetDeadline(time.Now().Add(trapTimeout)); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	var greeting [2]byte // version, number of methods
	if _, err := io.ReadFull(r, greeting[:]); err != nil {
		return "", fmt.Errorf("greeting: %w", err)
	}
	if greeting[0] != 5 {
		return "", fmt.Errorf("SOCKS version %d", greeting[0])
	}
	if _, err := io.CopyN(io.Discard, r, int64(greeting[1])); err != nil {
		return "", fmt.Errorf("methods: %w", err)
	}
	if _, err := conn.Write([]byte{5, 0}); err != nil {
		return "", fmt.Errorf("method reply: %w", err)
	}
	var head [4]byte // version, command, reserved, address type
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return "", fmt.Errorf("request: %w", err)
	}
	var host string
	switch head[3] {
	case 1, 4: // IPv4, IPv6
		ip := make(net.IP, map[byte]int{1: 4, 4: 16}[head[3]])
		if _, err := io.ReadFull(r, ip); err != nil {
			return "", fmt.Errorf("address: %w", err)
		}
		host = ip.String()
	case 3: // domain name
		n, err := r.ReadByte()
		if err != nil {
			return "", fmt.Errorf("name length: %w", err)
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return "", fmt.Errorf("name: %w", err)
		}
		host = string(name)
	default:
		return "", fmt.Errorf("address type %d", head[3])
	}
	var port [2]byte
	if _, err := io.ReadFull(r, port[:]); err != nil {
		return "", fmt.Errorf("port: %w", err)
	}
	return net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:])))), nil
}
