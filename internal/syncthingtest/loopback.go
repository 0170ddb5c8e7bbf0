package syncthingtest

import (
	"fmt"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Socket is one line of `ss -tunap`: a TCP or UDP socket and the process that has it open.
type Socket struct {
	Netid string // tcp or udp
	State string // LISTEN, ESTAB, UNCONN, …
	Local string // address:port as ss prints it
	Peer  string // address:port, or *:* / 0.0.0.0:* for no peer
	PIDs  []int  // the processes that hold it
}

func (s Socket) String() string {
	return fmt.Sprintf("%s %s %s -> %s", s.Netid, s.State, s.Local, s.Peer)
}

// OnLoopback reports whether the socket is bound to a loopback address and either has no
// peer (a listener, an unconnected UDP socket) or is connected to a loopback address.
func (s Socket) OnLoopback() bool {
	local, ok := hostOf(s.Local)
	if !ok || !local.IsLoopback() {
		return false
	}
	peer, ok := hostOf(s.Peer)
	if !ok {
		return s.Peer == "*:*" || strings.HasPrefix(s.Peer, "*:")
	}
	return peer.IsLoopback() || peer.IsUnspecified()
}

// Port is the socket's local port, or 0 if ss printed none.
func (s Socket) Port() int {
	i := strings.LastIndexByte(s.Local, ':')
	port, err := strconv.Atoi(s.Local[i+1:])
	if err != nil {
		return 0
	}
	return port
}

// Sockets lists, with `ss -tunap`, the TCP and UDP sockets in.PID has open. It fails the
// test if ss cannot be run (scripts/deps.sh installs iproute2) or does not show the
// instance's API listener among them.
func Sockets(t testing.TB, in *Instance) []Socket {
	t.Helper()
	all, err := listSockets()
	if err != nil {
		t.Fatal(err)
	}
	var own []Socket
	servesAPI := false
	for _, s := range all {
		for _, pid := range s.PIDs {
			if pid == in.PID {
				own = append(own, s)
				servesAPI = servesAPI || (s.State == "LISTEN" && s.Port() == in.guiPort)
				break
			}
		}
	}
	// A check of no sockets would pass whatever Syncthing did: make sure these are the
	// sockets of the process that serves the API, not of a parent that only watches it.
	if !servesAPI {
		t.Fatalf("ss shows no listener on the API port %d for syncthing pid %d; its sockets: %v", in.guiPort, in.PID, own)
	}
	return own
}

// AssertLoopbackOnly fails the test, listing them, if any socket the instance has open is
// bound or connected to an address other than 127.0.0.0/8 or ::1 (listeners and
// connections alike), or if the instance ever tried to dial an address off loopback (its
// SOCKS trap refused it; see the package doc).
func AssertLoopbackOnly(t testing.TB, in *Instance) {
	t.Helper()
	var outside []string
	for _, s := range Sockets(t, in) {
		if !s.OnLoopback() {
			outside = append(outside, s.String())
		}
	}
	if len(outside) > 0 {
		t.Errorf("syncthing %s (pid %d) has sockets off loopback:\n%s", shortID(in.DeviceID), in.PID, strings.Join(outside, "\n"))
	}
	if dials := in.RefusedDials(); len(dials) > 0 {
		t.Errorf("syncthing %s (pid %d) tried to dial off loopback: %s", shortID(in.DeviceID), in.PID, strings.Join(dials, ", "))
	}
}

// RefusedDials lists the addresses off loopback that the instance has tried to dial so far
// (each was refused, so nothing was sent there).
func (in *Instance) RefusedDials() []string {
	return in.trap.Seen()
}

// listSockets runs ss and parses its lines.
func listSockets() ([]Socket, error) {
	// -t tcp, -u udp, -n numeric (no DNS lookups), -a listeners too, -p owning processes,
	// -H no header.
	out, err := exec.Command("ss", "-tunapH").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("ss -tunapH (iproute2; scripts/deps.sh installs it): %s: %w", strings.TrimSpace(string(out)), err)
	}
	return parseSS(string(out)), nil
}

// parseSS reads `ss -tunapH` output: Netid State Recv-Q Send-Q Local Peer [Process], the
// process column like users:(("syncthing",pid=123,fd=9),("x",pid=124,fd=3)). A line too
// short to be a socket is skipped.
func parseSS(out string) []Socket {
	var sockets []Socket
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		s := Socket{Netid: f[0], State: f[1], Local: f[4], Peer: f[5]}
		if len(f) > 6 {
			s.PIDs = pidsOf(strings.Join(f[6:], " "))
		}
		sockets = append(sockets, s)
	}
	return sockets
}

// pidsOf finds every pid=N in ss's process column.
func pidsOf(process string) []int {
	var pids []int
	for rest := process; ; {
		_, after, found := strings.Cut(rest, "pid=")
		if !found {
			return pids
		}
		end := strings.IndexFunc(after, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(after)
		}
		if pid, err := strconv.Atoi(after[:end]); err == nil {
			pids = append(pids, pid)
		}
		rest = after[end:]
	}
}

// hostOf parses the address part of ss's address:port: 127.0.0.1, [::1], [::ffff:127.0.0.1],
// 127.0.0.1%lo (an interface-bound socket). "*" is not an address.
func hostOf(addrPort string) (netip.Addr, bool) {
	i := strings.LastIndexByte(addrPort, ':')
	if i < 0 {
		return netip.Addr{}, false
	}
	host := strings.TrimSuffix(strings.TrimPrefix(addrPort[:i], "["), "]")
	host, _, _ = strings.Cut(host, "%")
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return addr.Unmap(), true
}
