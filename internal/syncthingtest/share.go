package syncthingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"
)

// shareDeadline bounds how long Share waits for the two instances to connect; each dial
// follows the config change that causes it within milliseconds, so this is for a loaded
// CI machine.
const shareDeadline = 90 * time.Second

// pollInterval is how often Share and Settle ask the instances how they are doing.
const pollInterval = 100 * time.Millisecond

// Folder settings Share gives both sides: a change is picked up by the watcher a second
// after it happens, and a full rescan every few seconds catches what a watcher can miss
// (an overflowed inotify queue on a busy machine).
const (
	watcherDelayS   = 1
	rescanIntervalS = 5
)

type deviceConfig struct {
	DeviceID          string   `json:"deviceID"`
	Name              string   `json:"name"`
	Addresses         []string `json:"addresses"`
	Compression       string   `json:"compression"`
	Introducer        bool     `json:"introducer"`
	AutoAcceptFolders bool     `json:"autoAcceptFolders"`
}

type folderDevice struct {
	DeviceID string `json:"deviceID"`
}

type folderConfig struct {
	ID               string         `json:"id"`
	Label            string         `json:"label"`
	Path             string         `json:"path"`
	Type             string         `json:"type"`
	Devices          []folderDevice `json:"devices"`
	RescanIntervalS  int            `json:"rescanIntervalS"`
	FSWatcherEnabled bool           `json:"fsWatcherEnabled"`
	FSWatcherDelayS  int            `json:"fsWatcherDelayS"`
}

// Share makes folder folderID shared between a (at dirA) and b (at dirB), send-receive on
// both, and waits until the two are connected. Each device is added to the other with its
// static tcp://127.0.0.1 address, so neither needs discovery; both sides are configured
// over REST, so no folder or device waits to be accepted.
//
// The devices are introduced one way at a time: Syncthing 1.19 handles new connections one
// after another, exchanging Hello messages on each before the next, so when two devices
// dial each other at the same instant each waits for the other's Hello on the connection
// the other has not reached yet, and both give up only after 20 s. So b learns of a first,
// dials it and is turned away (a records b as a pending device); only then does a learn of
// b and dial it, while b's next dial of a is a reconnection interval (60 s) away.
func Share(t testing.TB, a, b *Instance, folderID, dirA, dirB string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), shareDeadline)
	defer cancel()
	if err := share(ctx, a, b, folderID, dirA, dirB); err != nil {
		t.Fatalf("share folder %q: %v", folderID, err)
	}
}

func share(ctx context.Context, a, b *Instance, folderID, dirA, dirB string) error {
	if err := addDevice(ctx, b, a); err != nil {
		return err
	}
	err := poll(ctx, func() (bool, string, error) {
		var pending map[string]json.RawMessage
		if err := a.Do(ctx, http.MethodGet, "/rest/cluster/pending/devices", nil, &pending); err != nil {
			return false, "", err
		}
		if _, seen := pending[b.DeviceID]; seen {
			return true, "", nil
		}
		// a may know b already (a home Shared before, started again): then b's dial was
		// taken, not turned away.
		up, err := connected(ctx, a, b)
		return up, fmt.Sprintf("%s to have been dialled by %s", shortID(a.DeviceID), shortID(b.DeviceID)), err
	})
	if err != nil {
		return err
	}
	if err := addDevice(ctx, a, b); err != nil {
		return err
	}

	sides := []struct {
		self, peer *Instance
		dir        string
	}{{a, b, dirA}, {b, a, dirB}}
	for _, s := range sides {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return fmt.Errorf("folder path: %w", err)
		}
		folder := folderConfig{
			ID:               folderID,
			Label:            folderID,
			Path:             s.dir,
			Type:             "sendreceive",
			Devices:          []folderDevice{{a.DeviceID}, {b.DeviceID}},
			RescanIntervalS:  rescanIntervalS,
			FSWatcherEnabled: true,
			FSWatcherDelayS:  watcherDelayS,
		}
		if err := s.self.Do(ctx, http.MethodPost, "/rest/config/folders", folder, nil); err != nil {
			return fmt.Errorf("add folder to %s: %w", shortID(s.self.DeviceID), err)
		}
	}
	return poll(ctx, func() (bool, string, error) {
		for _, s := range sides {
			up, err := connected(ctx, s.self, s.peer)
			if err != nil || !up {
				return false, fmt.Sprintf("%s to connect to %s", shortID(s.self.DeviceID), shortID(s.peer.DeviceID)), err
			}
		}
		return true, "", nil
	})
}

// connected reports whether self has a connection to peer.
func connected(ctx context.Context, self, peer *Instance) (bool, error) {
	var conns struct {
		Connections map[string]struct {
			Connected bool `json:"connected"`
		} `json:"connections"`
	}
	if err := self.Do(ctx, http.MethodGet, "/rest/system/connections", nil, &conns); err != nil {
		return false, err
	}
	return conns.Connections[peer.DeviceID].Connected, nil
}

// addDevice adds peer to self's devices, reachable at its static listen address only.
func addDevice(ctx context.Context, self, peer *Instance) error {
	dev := deviceConfig{
		DeviceID:    peer.DeviceID,
		Name:        shortID(peer.DeviceID),
		Addresses:   []string{peer.ListenAddr},
		Compression: "metadata",
	}
	if err := self.Do(ctx, http.MethodPost, "/rest/config/devices", dev, nil); err != nil {
		return fmt.Errorf("add device %s to %s: %w", dev.Name, shortID(self.DeviceID), err)
	}
	return nil
}

// folderStatus is what Settle reads of /rest/db/status.
type folderStatus struct {
	State             string `json:"state"`
	Error             string `json:"error"`
	Errors            int    `json:"errors"`
	NeedTotalItems    int    `json:"needTotalItems"`
	GlobalFiles       int    `json:"globalFiles"`
	GlobalDirectories int    `json:"globalDirectories"`
	GlobalSymlinks    int    `json:"globalSymlinks"`
	GlobalDeleted     int    `json:"globalDeleted"`
	GlobalBytes       int64  `json:"globalBytes"`
}

// completion is /rest/db/completion for one device: how far it is from the global state,
// as the asking instance sees it, and its sequence (the last index change it announced).
type completion struct {
	Completion  float64 `json:"completion"`
	NeedBytes   int64   `json:"needBytes"`
	NeedItems   int     `json:"needItems"`
	NeedDeletes int     `json:"needDeletes"`
	Sequence    int64   `json:"sequence"`
}

// sideView is one instance's view of the folder in one poll.
type sideView struct {
	Status folderStatus
	Own    completion // itself: its own sequence
	Peer   completion // the other device, as this instance knows it
}

// Settle returns when every file written so far on either side is on the other: it scans
// the folder on both sides, then waits until, twice in a row with nothing changed, both are
// idle and need nothing, each sees the other 100% complete, each has the other's latest
// index (its view of the other's sequence is the other's own), and their global views
// agree. It returns an error saying what was still missing when ctx ends.
func Settle(ctx context.Context, a, b *Instance, folderID string) error {
	for _, in := range []*Instance{a, b} {
		// The scan answers once it is done, so the index holds every file written so far
		// without waiting for the watcher's delay.
		if err := in.Do(ctx, http.MethodPost, "/rest/db/scan?folder="+url.QueryEscape(folderID), nil, nil); err != nil {
			return fmt.Errorf("settle %q: scan on %s: %w", folderID, shortID(in.DeviceID), err)
		}
	}
	var prev *[2]sideView
	err := poll(ctx, func() (bool, string, error) {
		var now [2]sideView
		for i, pair := range [][2]*Instance{{a, b}, {b, a}} {
			view, err := observe(ctx, pair[0], pair[1], folderID)
			if err != nil {
				prev = nil
				return false, "", err
			}
			now[i] = view
		}
		why := settledWhyNot(now[0], now[1])
		if why == "" && prev != nil && *prev == now {
			return true, "", nil
		}
		if why == "" {
			why = "settled once; checking it holds"
		}
		prev = &now
		return false, why, nil
	})
	if err != nil {
		return fmt.Errorf("settle %q: %w", folderID, err)
	}
	return nil
}

// observe reads self's status of the folder, its own completion and its view of peer's.
func observe(ctx context.Context, self, peer *Instance, folderID string) (sideView, error) {
	var v sideView
	q := "?folder=" + url.QueryEscape(folderID)
	if err := self.Do(ctx, http.MethodGet, "/rest/db/status"+q, nil, &v.Status); err != nil {
		return v, err
	}
	if err := self.Do(ctx, http.MethodGet, "/rest/db/completion"+q+"&device="+self.DeviceID, nil, &v.Own); err != nil {
		return v, err
	}
	if err := self.Do(ctx, http.MethodGet, "/rest/db/completion"+q+"&device="+peer.DeviceID, nil, &v.Peer); err != nil {
		return v, err
	}
	return v, nil
}

// settledWhyNot says why a and b (a's and b's views) are not yet settled, or "" if they
// are.
func settledWhyNot(a, b sideView) string {
	for _, s := range []struct {
		name       string
		self, peer sideView
	}{{"a", a, b}, {"b", b, a}} {
		st := s.self.Status
		switch {
		case st.State != "idle":
			return fmt.Sprintf("%s is %q %s", s.name, st.State, st.Error)
		case st.NeedTotalItems != 0:
			return fmt.Sprintf("%s needs %d items", s.name, st.NeedTotalItems)
		case s.self.Peer.Completion != 100 || s.self.Peer.NeedBytes != 0 || s.self.Peer.NeedItems != 0 || s.self.Peer.NeedDeletes != 0:
			return fmt.Sprintf("%s sees its peer %.1f%% complete (needs %d items, %d bytes, %d deletes; %d folder errors)",
				s.name, s.self.Peer.Completion, s.self.Peer.NeedItems, s.self.Peer.NeedBytes, s.self.Peer.NeedDeletes, st.Errors)
		case s.self.Peer.Sequence != s.peer.Own.Sequence:
			return fmt.Sprintf("%s has its peer's index up to sequence %d, the peer is at %d", s.name, s.self.Peer.Sequence, s.peer.Own.Sequence)
		}
	}
	ga, gb := a.Status, b.Status
	if ga.GlobalFiles != gb.GlobalFiles || ga.GlobalDirectories != gb.GlobalDirectories || ga.GlobalSymlinks != gb.GlobalSymlinks ||
		ga.GlobalDeleted != gb.GlobalDeleted || ga.GlobalBytes != gb.GlobalBytes {
		return fmt.Sprintf("global views differ: a %d files %d dirs %d deleted %d bytes, b %d files %d dirs %d deleted %d bytes",
			ga.GlobalFiles, ga.GlobalDirectories, ga.GlobalDeleted, ga.GlobalBytes, gb.GlobalFiles, gb.GlobalDirectories, gb.GlobalDeleted, gb.GlobalBytes)
	}
	return ""
}

// poll calls check every pollInterval until it reports done or ctx ends; the error for an
// ended ctx carries check's last word on what it was waiting for. A failed REST call is
// waited out like any other state: a folder restarting after a config change answers 500
// for a moment.
func poll(ctx context.Context, check func() (done bool, waitingFor string, err error)) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		done, waitingFor, err := check()
		if err != nil {
			waitingFor = err.Error()
		} else if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; still waiting: %s", ctx.Err(), waitingFor)
		case <-tick.C:
		}
	}
}
