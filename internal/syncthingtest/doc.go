// Package syncthingtest runs real Syncthing instances for tests, on 127.0.0.1 only. It is
// test support: only _test.go files import it, but it is a normal package so the tests of
// any package (the sync log's, the CLI's) can share it.
//
// A test starts two instances with [Start], shares one folder between them with [Share],
// writes files on either side, and calls [Settle] before it compares the two folders.
// [AssertLoopbackOnly] checks with ss(8) that an instance's sockets are all on loopback.
// Syncthing (1.19, Debian 12) and ss (iproute2) come from scripts/deps.sh.
//
//	root := t.TempDir()
//	a := syncthingtest.Start(t, filepath.Join(root, "home-a"))
//	b := syncthingtest.Start(t, filepath.Join(root, "home-b"))
//	dirA, dirB := filepath.Join(root, "sync-a"), filepath.Join(root, "sync-b")
//	syncthingtest.Share(t, a, b, "memdesk", dirA, dirB)
//	// … write under dirA and dirB …
//	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
//	defer cancel()
//	if err := syncthingtest.Settle(ctx, a, b, "memdesk"); err != nil {
//		t.Fatal(err)
//	}
//	syncthingtest.AssertLoopbackOnly(t, a)
//	syncthingtest.AssertLoopbackOnly(t, b)
//
// Anything else is one REST call away with [Instance.Do].
//
// # Nothing leaves 127.0.0.1
//
// The test machines have no network beyond loopback, and a test must send nothing elsewhere.
// Syncthing's defaults reach out in many ways, so Start writes each instance's config.xml
// before its first start (no setting is changed later over REST, which would leave a window
// with the defaults on). Each setting and why:
//
//   - listenAddress tcp://127.0.0.1:PORT only: the default, "default", listens on TCP and
//     QUIC on every interface, and adds a dynamic relay address.
//   - globalAnnounceEnabled false: global discovery announces the device to and queries the
//     public discovery servers over HTTPS.
//   - localAnnounceEnabled false: local discovery broadcasts on UDP port 21027 (IPv4
//     broadcast and IPv6 multicast) to every LAN the machine is on.
//   - relaysEnabled false: the relay pool is fetched over HTTPS and a relay joined.
//   - natEnabled false: UPnP and NAT-PMP probe the gateway; it also switches STUN off, which
//     Syncthing runs only while NAT traversal is on.
//   - urAccepted -1 (and urSeen 3, so the GUI does not ask): no usage reports.
//   - crashReportingEnabled false: no crash reports are uploaded.
//   - autoUpgradeIntervalH 0, plus STNOUPGRADE=1 and --no-upgrade: no release checks.
//   - announceLANAddresses false: nothing to announce to, and it keeps the addresses of the
//     machine's other interfaces out of everything Syncthing says.
//   - GUI/REST on 127.0.0.1:PORT with a random API key, no browser.
//   - --no-default-folder and STNODEFAULTFOLDER=1: no ~/Sync folder in the user's home.
//   - STMONITORED=yes (what Syncthing's monitor sets for the child it starts) and
//     --no-restart: one process, no monitor parent, so the PID that ss reports is the one
//     that does the syncing, the monitor's crash upload never runs, and a crash is not
//     retried in a loop.
//
// Peers are introduced to each other by a static tcp://127.0.0.1:PORT address, never
// "dynamic", so no lookup of any kind is needed to connect.
//
// Behind those settings is a net that fails closed, for TCP. Syncthing makes its TCP dials
// (peers, global discovery, relays, usage and failure reports, upgrade checks, and with a
// proxy set its default HTTP transport too) through golang.org/x/net/proxy, configured
// from the environment. Each instance gets ALL_PROXY=socks5://127.0.0.1:PORT, a SOCKS
// server of the test's own that refuses every request and writes down where it was asked
// to go, NO_PROXY=127.0.0.0/8,::1 so loopback peers are dialled directly, and
// ALL_PROXY_NO_FALLBACK=1 so a refused dial is not retried without the proxy. A dial off
// loopback that some setting missed therefore ends on 127.0.0.1 and is reported by
// [AssertLoopbackOnly] (the user's own proxy variables are dropped). It also stops
// Syncthing dialling from its listening port (it does that only without a proxy), which on
// loopback can join two devices' simultaneous dials into one TCP connection that both sides
// treat as their own client end. UDP does not go through the proxy: local discovery, QUIC,
// STUN, UPnP and NAT-PMP are off by the settings above, and the package's test checks that
// an instance has no UDP socket at all.
//
// Two further settings are for the tests, not for the network: restartOnWakeup false (under
// a heavily loaded CI machine a stalled timer looks like a wake from sleep, and the restart
// it asks for ends a --no-restart process) and setLowPriority false (a niced Syncthing
// starved by the race-detector test binaries next to it would make every wait longer).
//
// # Reading a synced file
//
// Syncthing writes a received file to a temporary file (.syncthing.NAME.tmp) and renames it
// into place, so a reader never sees a half-written copy of a version Syncthing scanned.
// But a file being appended to on the sender while Syncthing scans it can be sent as it was
// at that instant, ending in a torn last line; the rest follows in a later version. A reader
// of an append-only log in a synced folder must ignore a last line without "\n" (and read it
// again once it is complete). The folder also holds Syncthing's own names: the .stfolder
// marker, .syncthing.*.tmp files and, if two devices wrote one file, *.sync-conflict-*
// copies; a reader skips those.
//
// # Two devices dialling at once stall for 20 s
//
// Syncthing 1.19 takes new connections one at a time and exchanges Hello messages on each
// before the next. When two devices dial each other at the same moment, each waits for
// the Hello the other has queued behind its own dial, until a 20 s timeout; then they
// connect. Share introduces the devices one way at a time, and took at most 0.35 s in 68
// runs. The stall does happen when a connection drops and comes back at once: pausing b on
// a (/rest/system/pause?device=) and resuming it moments later stalled 20 to 34 s in 4 of
// 10 runs, because b redials the moment the connection closes while a dials on resume.
// Pausing b's folder instead keeps the connection, but when it was unpaused at once, a
// got b's next index update while it still saw the folder paused, dropped the connection
// as a protocol error, and the same stall followed (1 run in 45). A test that needs a
// device offline does better to simulate it above Syncthing (stop reading or writing the
// folder), or to allow for that stall.
package syncthingtest
