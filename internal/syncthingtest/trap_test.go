package syncthingtest

import (
	"io"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSOCKSTrapRefusesAndRecords dials the trap as a SOCKS5 client would (the requests
// x/net/proxy sends: a domain name as Syncthing's HTTPS clients ask for it, and IP
// addresses) and checks each is refused and written down.
func TestSOCKSTrapRefusesAndRecords(t *testing.T) {
	trap, err := startSOCKSTrap()
	if err != nil {
		t.Fatal(err)
	}
	defer trap.close()

	requests := []struct {
		name    string
		address []byte // address type, address
		port    [2]byte
	}{
		{"domain", append([]byte{3, 19}, "discovery.syncthing"...), [2]byte{1, 187}},
		{"ipv4", []byte{1, 192, 168, 1, 7}, [2]byte{0x55, 0xf0}},
		{"ipv6", append([]byte{4}, net.ParseIP("2001:db8::1")...), [2]byte{0x53, 0xd3}},
	}
	for _, req := range requests {
		t.Run(req.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", trap.ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write([]byte{5, 1, 0}); err != nil {
				t.Fatal(err)
			}
			var method [2]byte
			if _, err := io.ReadFull(conn, method[:]); err != nil {
				t.Fatal(err)
			}
			if method != [2]byte{5, 0} {
				t.Fatalf("method reply %v, want [5 0] (no authentication)", method)
			}
			msg := append([]byte{5, 1, 0}, req.address...)
			if _, err := conn.Write(append(msg, req.port[:]...)); err != nil {
				t.Fatal(err)
			}
			var reply [10]byte
			if _, err := io.ReadFull(conn, reply[:]); err != nil {
				t.Fatal(err)
			}
			if reply[1] != 2 {
				t.Errorf("reply code %d, want 2 (not allowed by ruleset)", reply[1])
			}
		})
	}
	// Close waits for the handlers, so every request has been written down.
	trap.close()
	want := []string{"discovery.syncthing:443", "192.168.1.7:22000", "[2001:db8::1]:21459"}
	if diff := cmp.Diff(want, trap.Seen()); diff != "" {
		t.Errorf("trap saw (-want +got):\n%s", diff)
	}
}
