package devsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memdesk/memdesk/store"
)

// formatVersion is the "v" of every line this version writes; a line of another version is
// refused (reported, skipped), never guessed at.
const formatVersion = 1

// MaxLine is the longest log line read, newline included. A memory's text is far shorter; a
// longer line is hostile or damaged, and is skipped without being held in memory whole.
const MaxLine = 1 << 20

// DefaultMaxFuture is how far ahead of this device's clock a change's clock may be. Clocks a
// day or two apart are normal (a laptop set by hand, a time zone mistake) and order nothing
// wrongly, since the hybrid clock follows the changes it has seen; a change from years ahead
// would pin every later change's clock to it, so it is refused and reported.
const DefaultMaxFuture = 7 * 24 * time.Hour

// line is one change as the log holds it. Every field is written, so a line reads the
// same to any version of this format.
type line struct {
	V       int    `json:"v"`
	ID      string `json:"id"`
	Device  string `json:"dev"`
	Seq     int64  `json:"seq"`
	Wall    int64  `json:"wall"`
	Ctr     int64  `json:"ctr"`
	Op      string `json:"op"`
	UID     string `json:"uid,omitempty"`
	Base    string `json:"base,omitempty"`
	Space   string `json:"space,omitempty"`
	Text    string `json:"text,omitempty"`
	Status  string `json:"status,omitempty"`
	By      string `json:"by,omitempty"`
	Created int64  `json:"created,omitempty"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
}

// EncodeLine is c as one log line, "\n" included.
func EncodeLine(c store.SyncChange) ([]byte, error) {
	b, err := json.Marshal(line{V: formatVersion, ID: c.ID, Device: c.Device, Seq: c.Seq, Wall: c.Wall, Ctr: c.Ctr, Op: c.Op,
		UID: c.Root, Base: c.Base, Space: c.Space, Text: c.Text, Status: c.Status, By: c.By, Created: c.Created, A: c.A, B: c.B})
	if err != nil {
		return nil, fmt.Errorf("encode change %s: %w", c.ID, err)
	}
	return append(b, '\n'), nil
}

var (
	deviceRe = regexp.MustCompile(`^[0-9a-f]{1,64}$`)
	// A memory's identity: 32 hex digits, then for a fork "~" and the change it forked at.
	uidRe    = regexp.MustCompile(`^[0-9a-f]{32}(~[0-9a-f]{1,64}:[1-9][0-9]{0,18})?$`)
	rootRe   = regexp.MustCompile(`^[0-9a-f]{32}$`)
	changeRe = regexp.MustCompile(`^[0-9a-f]{1,64}:[1-9][0-9]{0,18}$`)
)

// ParseLine reads one log line (without its newline) written by device, the folder it was
// found in. now bounds how far ahead a change's clock may be (maxFuture). Any line that is
// not a well-formed change of this format is an error saying what is wrong with it.
func ParseLine(b []byte, device string, now time.Time, maxFuture time.Duration) (store.SyncChange, error) {
	if len(b) >= MaxLine {
		return store.SyncChange{}, errors.New("line longer than 1 MiB")
	}
	if !utf8.Valid(b) {
		return store.SyncChange{}, errors.New("not valid UTF-8")
	}
	var l line
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&l); err != nil {
		return store.SyncChange{}, fmt.Errorf("not a change: %w", err)
	}
	if dec.More() {
		return store.SyncChange{}, errors.New("not a change: text after the JSON object")
	}
	if l.V != formatVersion {
		return store.SyncChange{}, fmt.Errorf("format version %d, this memdesk reads %d", l.V, formatVersion)
	}
	if !deviceRe.MatchString(l.Device) {
		return store.SyncChange{}, fmt.Errorf("device id %q is not one memdesk makes", l.Device)
	}
	if l.Device != device {
		return store.SyncChange{}, fmt.Errorf("a change of device %q in the folder of device %q: a device writes only its own folder", l.Device, device)
	}
	if l.Seq < 1 || l.ID != l.Device+":"+strconv.FormatInt(l.Seq, 10) {
		return store.SyncChange{}, fmt.Errorf("change id %q does not match device %q and sequence %d", l.ID, l.Device, l.Seq)
	}
	if l.Wall <= 0 || l.Ctr < 0 || l.Ctr > 1<<40 {
		return store.SyncChange{}, fmt.Errorf("clock %d.%d is not a time", l.Wall, l.Ctr)
	}
	if limit := now.Add(maxFuture).UnixMilli(); l.Wall > limit {
		return store.SyncChange{}, fmt.Errorf("an id from the future: its clock %s is more than %s ahead of this device's",
			time.UnixMilli(l.Wall).UTC().Format(time.RFC3339), maxFuture)
	}
	c := store.SyncChange{ID: l.ID, Device: l.Device, Seq: l.Seq, Wall: l.Wall, Ctr: l.Ctr, Op: l.Op, Root: l.UID, Base: l.Base,
		Space: l.Space, Text: l.Text, Status: l.Status, By: l.By, Created: l.Created, A: l.A, B: l.B}
	if err := validChange(c); err != nil {
		return store.SyncChange{}, err
	}
	return c, nil
}

// validChange checks the fields of an operation.
func validChange(c store.SyncChange) error {
	if c.Op == store.OpDismiss {
		if !uidRe.MatchString(c.A) || !uidRe.MatchString(c.B) || c.A == c.B {
			return fmt.Errorf("dismiss of %q and %q: not two memory ids", c.A, c.B)
		}
		return nil
	}
	switch c.Op {
	case store.OpAdd, store.OpEdit, store.OpForget, store.OpRestore, store.OpSupersede, store.OpMove, store.OpRename:
	default:
		return fmt.Errorf("unknown operation %q", c.Op)
	}
	if !rootRe.MatchString(c.Root) {
		return fmt.Errorf("memory id %q is not one memdesk makes", c.Root)
	}
	if c.Base != "" && !changeRe.MatchString(c.Base) {
		return fmt.Errorf("base %q is not a change id", c.Base)
	}
	if c.Base == c.ID {
		return errors.New("a change cannot be made on itself")
	}
	switch c.Status {
	case store.StatusActive, store.StatusDeleted, store.StatusSuperseded:
	default:
		return fmt.Errorf("status %q is not active, deleted or superseded", c.Status)
	}
	if c.By != "" && !uidRe.MatchString(c.By) {
		return fmt.Errorf("superseded by %q: not a memory id", c.By)
	}
	if !validSpace(c.Space) {
		return fmt.Errorf("space %q is not a space name", c.Space)
	}
	if c.Text == "" || len(c.Text) > MaxLine {
		return errors.New("a memory with no text")
	}
	if c.Created < 0 {
		return fmt.Errorf("creation time %d is not a time", c.Created)
	}
	return nil
}

// validSpace is the engine's rule for space names: 1-64 printable characters with no
// surrounding space.
func validSpace(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > 64 {
		return false
	}
	for i, r := range s {
		if !unicode.IsPrint(r) || (unicode.IsSpace(r) && (i == 0 || i+utf8.RuneLen(r) == len(s))) {
			return false
		}
	}
	return true
}
