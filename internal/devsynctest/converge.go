// Package devsynctest is the convergence scenario of device sync, for any transport: the
// copy-folder transport of devsync's own tests and two real Syncthing instances run it
// alike. Two real engine databases each sync through their own folder; the transport moves
// what each device wrote to the other's folder.
//
// Converge replays on each device itself (Engine.SyncNow) after every Settle: a transport
// only moves files. It calls Settle about Writes/Round + 2 times, so a slow transport (a
// file sync engine that waits for its watcher) sets a larger Round; races between the
// devices happen within a round either way.
package devsynctest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/store"
)

// Transport moves the files one device wrote in its sync folder to the other's.
type Transport interface {
	Folders() (a, b string) // the sync folder of device A and of device B
	// Settle returns when what was written so far is visible on both sides.
	Settle(ctx context.Context) error
}

// Midway is a Transport that can also leave the folders half-copied: some files cut short
// mid-line, as a sync engine copying a file while it is appended to shows them. Converge
// replays on both devices in that state now and then.
type Midway interface {
	Partial(ctx context.Context) error
}

// Options shape the scenario.
type Options struct {
	Writes int    // acknowledged-or-refused writes over both devices; 0 means 1,000
	Seed   uint64 // the random sequence; the same seed makes the same writes
	// Round is how many writes are made between two Settle calls; 0 means 25. Within a
	// round the devices do not see each other's writes: that is where races happen.
	Round int
	// ClockA and ClockB are the devices' wall clocks (nil: time.Now).
	ClockA, ClockB func() time.Time
	// Timeout bounds the whole scenario; 0 means 10 minutes.
	Timeout time.Duration
}

// Device is one side of the scenario: an engine and its sync folder.
type Device struct {
	Name   string
	Engine *engine.Engine
	Folder string
}

// Open opens a new engine database in dir with sync set up in folder.
func Open(ctx context.Context, t testing.TB, name, dir, folder string, clock func() time.Time) *Device {
	t.Helper()
	e, err := engine.Open(ctx, filepath.Join(dir, name+".db"), engine.Options{SyncClock: clock})
	if err != nil {
		t.Fatalf("open device %s: %v", name, err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.SyncInit(ctx, folder); err != nil {
		t.Fatalf("device %s: sync init %s: %v", name, folder, err)
	}
	return &Device{Name: name, Engine: e, Folder: folder}
}

// ack is one acknowledged write.
type ack struct {
	device string
	op     string
	text   string // the text an add or edit wrote
}

// Converge runs the scenario over tr and fails t unless both devices end with the same
// active memories, every acknowledged write is in both devices' change sets, every latest
// version of a memory that is active is an active memory on both, and every fork (two
// changes made concurrently on one version) is reported as a conflict on both.
func Converge(t testing.TB, tr Transport, opts Options) {
	t.Helper()
	if opts.Writes <= 0 {
		opts.Writes = 1000
	}
	if opts.Round <= 0 {
		opts.Round = 25
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	fa, fb := tr.Folders()
	a := Open(ctx, t, "a", t.TempDir(), fa, opts.ClockA)
	b := Open(ctx, t, "b", t.TempDir(), fb, opts.ClockB)
	devs := []*Device{a, b}
	w := &writer{t: t, ctx: ctx, rnd: rand.New(rand.NewPCG(opts.Seed, 30)), devs: devs}
	mid, _ := tr.(Midway)
	start := time.Now()
	for w.n < opts.Writes {
		for i := 0; i < opts.Round && w.n < opts.Writes; i++ {
			w.step()
		}
		if mid != nil && w.rnd.IntN(3) == 0 {
			if err := mid.Partial(ctx); err != nil {
				t.Fatalf("transport, half-way copy: %v", err)
			}
			SyncBoth(ctx, t, devs...)
		}
		if err := tr.Settle(ctx); err != nil {
			t.Fatalf("transport: settle: %v", err)
		}
		SyncBoth(ctx, t, devs...)
	}
	// Replay writes nothing to the logs, so one more exchange carries the last writes.
	for range 2 {
		if err := tr.Settle(ctx); err != nil {
			t.Fatalf("transport: settle: %v", err)
		}
		SyncBoth(ctx, t, devs...)
	}
	ops := map[string]int{}
	for _, k := range w.acks {
		ops[k.op]++
	}
	t.Logf("%d writes (%d acknowledged, %d refused) over two devices in %v; acknowledged: %v", w.n, len(w.acks), w.refused, time.Since(start).Round(time.Millisecond), ops)
	check(ctx, t, a, b, w.acks)
}

// SyncBoth runs sync now on each device.
func SyncBoth(ctx context.Context, t testing.TB, devs ...*Device) {
	t.Helper()
	for _, d := range devs {
		if _, err := d.Engine.SyncNow(ctx); err != nil {
			t.Fatalf("device %s: sync now: %v", d.Name, err)
		}
	}
}

// ActiveMemories returns a device's active memories as "space\x00text", sorted.
func ActiveMemories(ctx context.Context, t testing.TB, d *Device) []string {
	t.Helper()
	res, err := d.Engine.List(ctx, engine.ListRequest{})
	if err != nil {
		t.Fatalf("device %s: list: %v", d.Name, err)
	}
	out := make([]string, 0, len(res.Facts))
	for _, f := range res.Facts {
		out = append(out, f.Space+"\x00"+f.Text)
	}
	sort.Strings(out)
	return out
}

// CheckConverged asserts what Converge promises of devices that have exchanged everything:
// the same active memories and change sets, every latest active version an active memory,
// every fork reported, no log line skipped.
func CheckConverged(ctx context.Context, t testing.TB, a, b *Device) {
	t.Helper()
	check(ctx, t, a, b, nil)
}

func check(ctx context.Context, t testing.TB, a, b *Device, acks []ack) {
	t.Helper()
	ma, mb := ActiveMemories(ctx, t, a), ActiveMemories(ctx, t, b)
	ca, cb := changes(ctx, t, a), changes(ctx, t, b)
	if !slices.Equal(ma, mb) {
		t.Errorf("active memories differ: %d on a, %d on b\n%s", len(ma), len(mb), diff(ma, mb))
		explain(ctx, t, a, b, ca, diffTexts(ma, mb))
	}
	if !slices.EqualFunc(ca, cb, func(x, y store.SyncChange) bool { return x == y }) {
		t.Errorf("change sets differ: %d changes on a, %d on b", len(ca), len(cb))
	}
	// Each device's changes are numbered 1..n with nothing missing.
	seqs := map[string][]int64{}
	texts := map[string]bool{}
	for _, c := range ca {
		seqs[c.Device] = append(seqs[c.Device], c.Seq)
		texts[c.Text] = true
	}
	for dev, s := range seqs {
		slices.Sort(s)
		if s[0] != 1 || s[len(s)-1] != int64(len(s)) {
			t.Errorf("device %s: its changes are not numbered 1..%d without gaps (%d..%d)", dev, len(s), s[0], s[len(s)-1])
		}
	}
	perDevice := map[string]int{}
	for _, k := range acks {
		perDevice[k.device]++
		if k.text != "" && !texts[k.text] {
			t.Errorf("acknowledged %s on %s of %q: not in the change set", k.op, k.device, k.text)
		}
	}
	// Every acknowledged write made one change or more (an add that supersedes makes two,
	// a space rename one per memory of the space).
	for _, d := range []*Device{a, b} {
		st, err := d.Engine.SyncStatus(ctx)
		if err != nil {
			t.Fatalf("device %s: sync status: %v", d.Name, err)
		}
		if n := len(seqs[st.Device]); n < perDevice[d.Name] {
			t.Errorf("device %s: %d acknowledged writes, and only %d changes of it in the change set", d.Name, perDevice[d.Name], n)
		}
	}
	// Every latest version (a change no other change was made on) that is active is an
	// active memory on both devices: nothing written is lost, whatever raced with it.
	based := map[string]bool{}
	for _, c := range ca {
		based[c.Base] = true
	}
	active := map[string]bool{}
	for _, m := range ma {
		active[m] = true
	}
	// A change that made the same state as a newer one made on the same version is that
	// one (Resolve keeps them as one memory).
	twin := map[string]bool{}
	siblings := map[string][]store.SyncChange{}
	for _, c := range ca {
		if c.Base != "" {
			siblings[c.Base] = append(siblings[c.Base], c)
		}
	}
	for _, ks := range siblings {
		for _, x := range ks {
			for _, y := range ks {
				if x.Before(y) && x.Space == y.Space && x.Text == y.Text && x.Status == y.Status && x.By == y.By {
					twin[x.ID] = true
				}
			}
		}
	}
	lost := 0
	for _, c := range ca {
		if c.Op == store.OpDismiss || based[c.ID] || twin[c.ID] || c.Status != store.StatusActive {
			continue
		}
		if !active[c.Space+"\x00"+c.Text] {
			lost++
			if lost <= 10 {
				explain(ctx, t, a, b, ca, []string{c.Space + "\x00" + c.Text})
				t.Errorf("latest version %s (%s) of memory %s, %q in %q, is not an active memory", c.ID, c.Op, c.Root, c.Text, c.Space)
			}
		}
	}
	// Every fork is a conflict on both devices.
	kids := map[string][]store.SyncChange{}
	for _, c := range ca {
		if c.Base != "" {
			kids[c.Base] = append(kids[c.Base], c)
		}
	}
	forks := 0
	for _, d := range []*Device{a, b} {
		st, err := d.Engine.SyncStatus(ctx)
		if err != nil {
			t.Fatalf("device %s: sync status: %v", d.Name, err)
		}
		reported := map[string]bool{}
		for _, c := range st.Conflicts {
			reported[c.Other] = true
		}
		forks = 0
		for _, ks := range kids {
			if len(ks) < 2 {
				continue
			}
			sort.Slice(ks, func(i, j int) bool { return ks[j].Before(ks[i]) })
			for _, k := range ks[1:] {
				same := k.Space == ks[0].Space && k.Text == ks[0].Text && k.Status == ks[0].Status && k.By == ks[0].By
				if same && len(kids[k.ID]) == 0 {
					continue
				}
				forks++
				if !reported[k.Root+"~"+k.ID] {
					t.Errorf("device %s: changes %s and %s were made concurrently on %s, and no conflict reports it", d.Name, ks[0].ID, k.ID, k.Base)
				}
			}
		}
		if len(st.Problems) > 0 {
			t.Errorf("device %s: %d log lines skipped, first: %s line %d: %s", d.Name, len(st.Problems), st.Problems[0].File, st.Problems[0].Line, st.Problems[0].Reason)
		}
	}
	t.Logf("converged: %d active memories, %d changes, %d concurrent changes forked", len(ma), len(ca), forks)
}

func changes(ctx context.Context, t testing.TB, d *Device) []store.SyncChange {
	t.Helper()
	cs, err := d.Engine.SyncChanges(ctx)
	if err != nil {
		t.Fatalf("device %s: %v", d.Name, err)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	return cs
}

func diffTexts(a, b []string) []string {
	var out []string
	in := func(s []string, x string) bool { _, ok := slices.BinarySearch(s, x); return ok }
	for _, x := range a {
		if !in(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !in(a, x) {
			out = append(out, x)
		}
	}
	return out
}

func diff(a, b []string) string {
	var sb strings.Builder
	in := func(s []string, x string) bool { _, ok := slices.BinarySearch(s, x); return ok }
	n := 0
	for _, x := range a {
		if !in(b, x) && n < 10 {
			fmt.Fprintf(&sb, "  only on a: %q\n", x)
			n++
		}
	}
	for _, x := range b {
		if !in(a, x) && n < 20 {
			fmt.Fprintf(&sb, "  only on b: %q\n", x)
			n++
		}
	}
	return sb.String()
}

// writer makes the random writes.
type writer struct {
	t       testing.TB
	ctx     context.Context
	rnd     *rand.Rand
	devs    []*Device
	n       int
	refused int
	acks    []ack
	texts   int
	spaces  int
}

var words = []string{"tea", "paris", "budget", "garden", "meeting", "piano", "bike", "invoice", "river", "lamp"}

func (w *writer) text() string {
	w.texts++
	return fmt.Sprintf("note %d about the %s and the %s", w.texts, words[w.rnd.IntN(len(words))], words[w.rnd.IntN(len(words))])
}

func (w *writer) list(d *Device, all bool) []engine.FactView {
	res, err := d.Engine.List(w.ctx, engine.ListRequest{All: all})
	if err != nil {
		w.t.Fatalf("device %s: list: %v", d.Name, err)
	}
	return res.Facts
}

func (w *writer) pick(fs []engine.FactView, status string) (engine.FactView, bool) {
	var c []engine.FactView
	for _, f := range fs {
		if f.Status == status {
			c = append(c, f)
		}
	}
	if len(c) == 0 {
		return engine.FactView{}, false
	}
	return c[w.rnd.IntN(len(c))], true
}

// done records the outcome of one write: refusals a person could meet (a duplicate, a
// memory no longer active) are fine, any other error fails the test.
func (w *writer) done(d *Device, op, text string, err error) {
	w.n++
	if err != nil {
		if errors.Is(err, engine.ErrDuplicate) || errors.Is(err, engine.ErrBadRequest) || errors.Is(err, engine.ErrNotFound) {
			w.refused++
			return
		}
		w.t.Fatalf("device %s: %s: %v", d.Name, op, err)
	}
	w.acks = append(w.acks, ack{device: d.Name, op: op, text: text})
}

func (w *writer) step() {
	d := w.devs[w.rnd.IntN(2)]
	ctx := w.ctx
	r := w.rnd.IntN(100)
	switch {
	case r < 28: // add
		space := []string{"default", "work", "home"}[w.rnd.IntN(3)]
		if w.rnd.IntN(4) == 0 {
			if sp, ok := w.someSpace(d); ok {
				space = sp
			}
		}
		t := w.text()
		_, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: t, Space: space})
		w.done(d, "add", t, err)
	case r < 46: // edit
		f, ok := w.pick(w.list(d, false), store.StatusActive)
		if !ok {
			return
		}
		t := w.text()
		_, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: f.ID, Text: t})
		w.done(d, "edit", t, err)
	case r < 58: // the same memory changed on both devices before they meet
		w.race()
	case r < 68: // forget
		if f, ok := w.pick(w.list(d, false), store.StatusActive); ok {
			_, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionForget, ID: f.ID})
			w.done(d, "forget", "", err)
		}
	case r < 75: // restore
		if f, ok := w.pick(w.list(d, true), store.StatusDeleted); ok {
			_, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionRestore, ID: f.ID})
			w.done(d, "restore", "", err)
		}
	case r < 82: // supersede, or an add that supersedes
		fs := w.list(d, false)
		old, ok := w.pick(fs, store.StatusActive)
		if !ok {
			return
		}
		if w.rnd.IntN(2) == 0 {
			t := w.text()
			_, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: t, Space: old.Space, Supersedes: old.ID})
			w.done(d, "add-supersede", t, err)
			return
		}
		for _, by := range fs {
			if by.Space == old.Space && by.ID != old.ID {
				_, err := d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionSupersede, ID: old.ID, By: by.ID})
				w.done(d, "supersede", "", err)
				return
			}
		}
	case r < 92: // move
		f, ok := w.pick(w.list(d, false), store.StatusActive)
		if !ok {
			return
		}
		space := []string{"default", "work", "home", "travel"}[w.rnd.IntN(4)]
		_, err := d.Engine.MoveMemory(ctx, f.ID, space)
		w.done(d, "move", "", err)
	case r < 96: // space rename
		from, ok := w.someSpace(d)
		if !ok {
			return
		}
		w.spaces++
		to := fmt.Sprintf("space-%d", w.spaces)
		_, err := d.Engine.RenameSpace(ctx, from, to)
		w.done(d, "rename", "", err)
	default: // resolve a reported pair: keep both, or keep the newer
		res, err := d.Engine.Contradictions(ctx, engine.ContradictionsRequest{})
		if err != nil {
			w.t.Fatalf("device %s: contradictions: %v", d.Name, err)
		}
		if len(res.Pairs) == 0 {
			return
		}
		p := res.Pairs[w.rnd.IntN(len(res.Pairs))]
		if w.rnd.IntN(2) == 0 {
			w.done(d, "dismiss", "", d.Engine.DismissContradiction(ctx, p.A.ID, p.B.ID))
			return
		}
		_, err = d.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionSupersede, ID: p.A.ID, By: p.B.ID})
		w.done(d, "keep-new", "", err)
	}
}

func (w *writer) someSpace(d *Device) (string, bool) {
	sp, err := d.Engine.Spaces(w.ctx)
	if err != nil {
		w.t.Fatalf("device %s: spaces: %v", d.Name, err)
	}
	if len(sp) == 0 {
		return "", false
	}
	return sp[w.rnd.IntN(len(sp))].Name, true
}

// race changes one memory both devices hold, on each, before they exchange: two edits, or
// a forget on one and an edit on the other.
func (w *writer) race() {
	a, b := w.devs[0], w.devs[1]
	if w.rnd.IntN(2) == 0 {
		a, b = b, a
	}
	onB := map[string]int64{}
	for _, f := range w.list(b, false) {
		onB[f.Space+"\x00"+f.Text] = f.ID
	}
	var shared [][2]int64
	for _, f := range w.list(a, false) {
		if id, ok := onB[f.Space+"\x00"+f.Text]; ok {
			shared = append(shared, [2]int64{f.ID, id})
		}
	}
	if len(shared) == 0 {
		return
	}
	p := shared[w.rnd.IntN(len(shared))]
	ctx := w.ctx
	if w.rnd.IntN(3) == 0 {
		_, err := a.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionForget, ID: p[0]})
		w.done(a, "forget (race)", "", err)
	} else {
		t := w.text()
		_, err := a.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: p[0], Text: t})
		w.done(a, "edit (race)", t, err)
	}
	t := w.text()
	_, err := b.Engine.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: p[1], Text: t})
	w.done(b, "edit (race)", t, err)
}

// explain logs, for each memory text ("space\x00text") that differs or is missing, the
// changes of its memory and the rows each device holds of it: what it takes to see why.
func explain(ctx context.Context, t testing.TB, a, b *Device, cs []store.SyncChange, texts []string) {
	t.Helper()
	{
		for _, x := range texts {
			_, text, _ := strings.Cut(x, "\x00")
			roots := map[string]bool{}
			for _, c := range cs {
				if c.Text == text {
					roots[c.Root] = true
				}
			}
			for r := range roots {
				t.Logf("--- root %s", r)
				for _, c := range cs {
					if c.Root == r {
						t.Logf("  %s base=%s wall=%d.%d op=%s space=%q status=%s by=%s text=%q", c.ID, c.Base, c.Wall, c.Ctr, c.Op, c.Space, c.Status, c.By, c.Text)
					}
				}
				for _, d := range []*Device{a, b} {
					res, _ := d.Engine.List(ctx, engine.ListRequest{All: true})
					for _, f := range res.Facts {
						for _, c := range cs {
							if c.Root == r && c.Text == f.Text {
								t.Logf("  on %s: #%d %q %s %s by=%d", d.Name, f.ID, f.Space, f.Status, f.Text, f.SupersededBy)
								break
							}
						}
					}
				}
			}
		}
	}
}
