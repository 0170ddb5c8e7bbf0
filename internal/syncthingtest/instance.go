package syncthingtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
	"time"
)

// startDeadline bounds how long Start waits for REST to answer. Syncthing is up in about a
// second; the rest is for a CI machine whose two cores are busy with race-detector builds.
const startDeadline = 90 * time.Second

// stopGrace is how long an instance has to exit after SIGTERM before it is killed.
const stopGrace = 10 * time.Second

// startAttempts: the ports are found free and then released for Syncthing to bind, so
// another process can take one in between; Start then tries again with fresh ports.
const startAttempts = 3

// Instance is one running Syncthing.
type Instance struct {
	Home       string // config, keys and database; Start's dir
	DeviceID   string
	APIURL     string // http://127.0.0.1:PORT, the GUI and REST API
	APIKey     string // sent as X-API-Key
	ListenAddr string // tcp://127.0.0.1:PORT, the sync protocol's only listener
	LogPath    string // Syncthing's stdout and stderr
	PID        int

	guiPort int
	trap    *socksTrap
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has been waited for
	waitErr error         // the process's exit, valid once exited is closed
	client  *http.Client
}

// Start launches syncthing with its home in dir (created if missing) and waits until its
// REST API answers and its listener is up. The instance is stopped, and its log tail shown
// if the test failed, on t.Cleanup. It fails the test if syncthing is not installed:
// scripts/deps.sh installs it.
//
// A home used before (an instance stopped by an earlier cleanup) keeps its key, so its
// device ID, and its database, but gets a fresh config.xml on new ports: Share it again.
func Start(t testing.TB, dir string) *Instance {
	t.Helper()
	return start(t, dir, loopbackNoProxy)
}

// loopbackNoProxy is NO_PROXY for an instance: every loopback address is dialled
// directly, anything else goes to the SOCKS trap.
const loopbackNoProxy = "127.0.0.0/8,::1"

// start is Start with NO_PROXY given, so a test can send a loopback address through the
// trap to see that the trap catches Syncthing's dials.
func start(t testing.TB, dir, noProxy string) *Instance {
	t.Helper()
	bin, err := exec.LookPath("syncthing")
	if err != nil {
		t.Fatalf("syncthing is not installed (scripts/deps.sh installs the Debian package): %v", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatalf("syncthing home: %v", err)
	}
	trap, err := startSOCKSTrap()
	if err != nil {
		t.Fatal(err)
	}
	// Registered before the instance's stop, so it runs after it: the trap outlives every
	// dial the instance makes.
	t.Cleanup(trap.close)
	env := syncthingEnv(trap.URL(), noProxy)
	deviceID, version, err := generate(t.Context(), bin, dir, env)
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 1; ; attempt++ {
		ports, err := freePorts(2)
		if err != nil {
			t.Fatal(err)
		}
		in, err := launch(t.Context(), bin, dir, deviceID, version, env, ports[0], ports[1])
		if err == nil {
			in.trap = trap
			t.Cleanup(func() { in.stop(t) })
			return in
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			t.Fatal(err)
		}
		t.Logf("syncthing in %s: %v; trying other ports", dir, err)
	}
}

// errPortTaken marks a start that failed because a chosen port was bound by someone else.
var errPortTaken = errors.New("port taken")

// generate makes the instance's key, certificate and a first config.xml, and reads back the
// device ID and the config version this syncthing writes.
func generate(ctx context.Context, bin, dir string, env []string) (deviceID string, version int, err error) {
	cmd := exec.CommandContext(ctx, bin, "generate", "--home", dir, "--no-default-folder", "--skip-port-probing")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", 0, fmt.Errorf("syncthing generate in %s: %s: %w", dir, bytes.TrimSpace(out), err)
	}
	// Its output names the device, also when the home was used before and its config
	// already lists the peers.
	_, after, found := strings.Cut(string(out), "Device ID: ")
	deviceID, _, _ = strings.Cut(after, "\n")
	deviceID = strings.TrimSpace(deviceID)
	if !found || deviceID == "" {
		return "", 0, fmt.Errorf("syncthing generate in %s named no device: %s", dir, bytes.TrimSpace(out))
	}
	raw, err := os.ReadFile(filepath.Join(dir, "config.xml"))
	if err != nil {
		return "", 0, fmt.Errorf("read generated config: %w", err)
	}
	var generated struct {
		Version int `xml:"version,attr"`
	}
	if err := xml.Unmarshal(raw, &generated); err != nil {
		return "", 0, fmt.Errorf("parse generated config in %s: %w", dir, err)
	}
	if generated.Version == 0 {
		return "", 0, fmt.Errorf("generated config in %s has no version", dir)
	}
	return deviceID, generated.Version, nil
}

// configTemplate is the whole config.xml an instance starts with; anything it leaves out
// takes Syncthing's default. The package doc says why each setting is here.
var configTemplate = template.Must(template.New("config.xml").Parse(`<configuration version="{{.Version}}">
    <device id="{{.DeviceID}}" name="{{.Name}}" compression="metadata" introducer="false">
        <address>dynamic</address>
    </device>
    <gui enabled="true" tls="false" debugging="false">
        <address>127.0.0.1:{{.GUIPort}}</address>
        <apikey>{{.APIKey}}</apikey>
        <theme>default</theme>
    </gui>
    <options>
        <listenAddress>tcp://127.0.0.1:{{.ListenPort}}</listenAddress>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <urAccepted>-1</urAccepted>
        <urSeen>3</urSeen>
        <crashReportingEnabled>false</crashReportingEnabled>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <announceLANAddresses>false</announceLANAddresses>
        <startBrowser>false</startBrowser>
        <restartOnWakeup>false</restartOnWakeup>
        <setLowPriority>false</setLowPriority>
    </options>
</configuration>
`))

// launch writes config.xml for the two ports and starts `syncthing serve`, returning once
// it is ready; if a port was taken the error wraps errPortTaken.
func launch(ctx context.Context, bin, dir, deviceID string, version int, env []string, guiPort, listenPort int) (*Instance, error) {
	apiKey, err := randomKey()
	if err != nil {
		return nil, err
	}
	var cfg bytes.Buffer
	err = configTemplate.Execute(&cfg, map[string]any{
		"Version":    version,
		"DeviceID":   deviceID,
		"Name":       shortID(deviceID),
		"GUIPort":    guiPort,
		"ListenPort": listenPort,
		"APIKey":     apiKey,
	})
	if err != nil {
		return nil, fmt.Errorf("config.xml: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), cfg.Bytes(), 0o600); err != nil {
		return nil, fmt.Errorf("write config.xml: %w", err)
	}

	logPath := filepath.Join(dir, "syncthing.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("syncthing log: %w", err)
	}
	// The child has its own copy of the descriptor once started.
	defer logFile.Close()
	cmd := exec.Command(bin, "serve", "--home", dir, "--no-browser", "--no-restart",
		"--no-default-folder", "--no-upgrade", "--logflags=3")
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start syncthing: %w", err)
	}
	in := &Instance{
		Home:       dir,
		DeviceID:   deviceID,
		APIURL:     fmt.Sprintf("http://127.0.0.1:%d", guiPort),
		APIKey:     apiKey,
		ListenAddr: fmt.Sprintf("tcp://127.0.0.1:%d", listenPort),
		LogPath:    logPath,
		PID:        cmd.Process.Pid,
		guiPort:    guiPort,
		cmd:        cmd,
		exited:     make(chan struct{}),
		// No proxy: REST is on loopback and must be reached directly. The timeout only
		// guards a caller whose ctx has no deadline; a scan of a test folder takes
		// milliseconds.
		client: &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 2 * time.Minute},
	}
	go func() {
		in.waitErr = cmd.Wait()
		close(in.exited)
	}()
	if err := in.waitReady(ctx); err != nil {
		in.kill()
		return nil, fmt.Errorf("%w\nsyncthing log (%s):\n%s", err, logPath, in.LogTail(40))
	}
	return in, nil
}

// waitReady polls the REST API until it answers and reports the sync listener up, the
// process exits or the deadline passes. The listener is checked too because Syncthing
// keeps running, retrying, when its listening port is taken: peers would then fail to
// reach it with nothing to say why.
func (in *Instance) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startDeadline)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var waitingFor error
	for {
		// Syncthing keeps retrying a port it cannot bind, and a taken API port may belong
		// to a server that accepts a request and never answers: its log says it first.
		if strings.Contains(in.LogTail(20), "address already in use") {
			return fmt.Errorf("%w: %s or %s", errPortTaken, in.APIURL, in.ListenAddr)
		}
		// Short: a slow answer is asked again, and a port held by a server that never
		// answers is found in the log on the next round.
		callCtx, cancelCall := context.WithTimeout(ctx, time.Second)
		var status struct {
			Listeners map[string]struct {
				Error        *string  `json:"error"`
				LANAddresses []string `json:"lanAddresses"`
			} `json:"connectionServiceStatus"`
		}
		waitingFor = in.Do(callCtx, http.MethodGet, "/rest/system/status", nil, &status)
		cancelCall()
		if waitingFor == nil {
			switch l, ok := status.Listeners[in.ListenAddr]; {
			case ok && l.Error != nil && strings.Contains(*l.Error, "address already in use"):
				return fmt.Errorf("%w: listener %s: %s", errPortTaken, in.ListenAddr, *l.Error)
			case ok && l.Error == nil && len(l.LANAddresses) > 0:
				return nil
			default:
				waitingFor = fmt.Errorf("listener %s not up: %+v", in.ListenAddr, status.Listeners)
			}
		}
		select {
		case <-in.exited:
			return fmt.Errorf("syncthing in %s exited before it was ready: %w", in.Home, in.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("syncthing in %s not ready within %v: %w", in.Home, startDeadline, waitingFor)
		case <-tick.C:
		}
	}
}

// stop ends the process (SIGTERM, then SIGKILL after stopGrace) and waits for it, so the
// test's temp dir can be removed; it shows the log's tail if the test failed.
func (in *Instance) stop(t testing.TB) {
	in.client.CloseIdleConnections()
	if err := terminate(in.cmd.Process); err != nil {
		in.kill()
	}
	select {
	case <-in.exited:
	case <-time.After(stopGrace):
		t.Logf("syncthing %s did not exit within %v of SIGTERM; killing it", shortID(in.DeviceID), stopGrace)
		in.kill()
	}
	if t.Failed() {
		t.Logf("syncthing %s log (%s), last lines:\n%s", shortID(in.DeviceID), in.LogPath, in.LogTail(40))
	}
}

// kill ends the process at once and waits for it.
func (in *Instance) kill() {
	_ = in.cmd.Process.Kill() // fails only if it has already exited, which is the goal
	<-in.exited
}

// LogTail returns the last n lines of the instance's log, for failure messages.
func (in *Instance) LogTail(n int) string {
	raw, err := os.ReadFile(in.LogPath)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Do calls the REST API: body (if not nil) is sent as JSON and the answer decoded into out
// (if not nil). A status other than 2xx is an error carrying the answer's text.
func (in *Instance) Do(ctx context.Context, method, path string, body, out any) error {
	var reqBody io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encode: %w", method, path, err)
		}
		reqBody = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, in.APIURL+path, reqBody)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("X-API-Key", in.APIKey)
	// Every call the tests make may be made twice (a rescan; a folder or device put by its
	// ID): so marked, net/http sends it again on a fresh connection when the one it reused
	// was closed by Syncthing meanwhile, which beside six CPU loops ended a run with
	// "POST /rest/db/scan: EOF".
	req.Header["Idempotency-Key"] = nil // marks it without sending the header
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := in.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(raw))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// syncthingEnv is the test's environment for syncthing, with its own proxy settings (the
// package doc says why) and the switches the package doc lists.
func syncthingEnv(trapURL, noProxy string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(name) {
		case "all_proxy", "http_proxy", "https_proxy", "no_proxy", "all_proxy_no_fallback",
			"stnodefaultfolder", "stnoupgrade", "stnorestart", "stmonitored", "sthashing", "sttrace":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "ALL_PROXY="+trapURL, "NO_PROXY="+noProxy, "ALL_PROXY_NO_FALLBACK=1")
	// STMONITORED=yes is what Syncthing's monitor process sets for the child it starts;
	// set here, it makes `serve` do the work itself instead of starting a monitor that
	// starts the real syncthing. One process: its PID is the one whose sockets ss shows, and
	// the parent-death signal (childAttr) reaches the process that syncs.
	// STHASHING=standard skips the start-up benchmark that picks a SHA-256 implementation,
	// most of a second of a loaded machine's time, for files of a few bytes.
	return append(env, "STNODEFAULTFOLDER=1", "STNOUPGRADE=1", "STNORESTART=1", "STMONITORED=yes", "STHASHING=standard")
}

// freePorts returns n distinct TCP ports on 127.0.0.1 that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// randomKey returns an API key of 32 letters and digits.
func randomKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("api key: %w", err)
	}
	for i, b := range raw {
		raw[i] = alphabet[int(b)%len(alphabet)]
	}
	return string(raw), nil
}

// shortID is the first group of a device ID, as Syncthing itself abbreviates it.
func shortID(deviceID string) string {
	first, _, _ := strings.Cut(deviceID, "-")
	return first
}
