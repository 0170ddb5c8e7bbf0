package devsync

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/memdesk/memdesk/store"
)

// appName is the folder memdesk keeps its logs in, inside the sync folder, so the folder
// can be shared with other things.
const appName = "memdesk"

// segmentMax is the size past which the next append starts a new segment file: a file
// sync engine copies a changed file whole or in blocks, and a smaller last file is less to
// send after each write.
const segmentMax = 8 << 20

// segmentRe matches a log file's name: the first sequence number it holds, 20 digits.
var segmentRe = regexp.MustCompile(`^[0-9]{20}\.jsonl$`)

// deviceDir is the folder of one device's files.
func deviceDir(root, device string) string { return filepath.Join(root, appName, device) }

// segments lists a device folder's log files in order (their names are the first sequence
// number they hold, zero-padded).
func segments(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		// Only names this package writes: a sync tool's temporary files (".syncthing.*.tmp")
		// and conflict copies ("*.sync-conflict-*.jsonl") are not logs.
		if e.Type().IsRegular() && segmentRe.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// appendChanges appends changes (this device's, in sequence order) to its log in dir and
// syncs the file to disk. A torn last line left by a crash mid-append is cut off first, so
// the next line starts on a line of its own; changes the log already holds (appended, then
// a crash before the database marked them exported) are not appended twice.
//
// own returns this database's change with a sequence number, if it has one: the log's last
// line must be one of them, else another database writes here too (ErrDeviceClash).
func appendChanges(dir string, changes []store.SyncChange, own func(seq int64) (store.SyncChange, bool)) error {
	if len(changes) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the log folder: %w", err)
	}
	names, err := segments(dir)
	if err != nil {
		return fmt.Errorf("list the log folder: %w", err)
	}
	var last int64
	if len(names) > 0 {
		var line []byte
		if last, line, err = repairTailLine(filepath.Join(dir, names[len(names)-1])); err != nil {
			return err
		}
		if last > 0 && own != nil {
			mine, ok := own(last)
			encoded, _ := EncodeLine(mine)
			if !ok || !bytes.Equal(bytes.TrimSuffix(encoded, []byte("\n")), line) {
				return fmt.Errorf("change %d of %s: %w", last, dir, ErrDeviceClash)
			}
		}
	}
	for len(changes) > 0 && changes[0].Seq <= last {
		changes = changes[1:]
	}
	if len(changes) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, c := range changes {
		b, err := EncodeLine(c)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	name := ""
	if len(names) > 0 {
		name = names[len(names)-1]
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() >= segmentMax {
			name = ""
		}
	}
	created := name == ""
	if created {
		name = fmt.Sprintf("%020d.jsonl", changes[0].Seq)
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the log: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("append to the log %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync the log %s to disk: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close the log %s: %w", path, err)
	}
	if created {
		syncDir(dir)
	}
	return nil
}

// syncDir makes a new file's name durable. Not every system can sync a folder (Windows),
// and the file's contents are synced either way, so failure is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// repairTail cuts a torn last line off this device's own segment and returns the sequence
// number of its last whole line (0 when it has none).
func repairTail(path string) (lastSeq int64, err error) {
	lastSeq, _, err = repairTailLine(path)
	return lastSeq, err
}

// repairTailLine is repairTail that also returns the last whole line (without "\n").
func repairTailLine(path string) (lastSeq int64, last []byte, err error) {
	data, start, err := readTail(path)
	if err != nil {
		return 0, nil, fmt.Errorf("read the log %s: %w", path, err)
	}
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole < len(data) {
		if err := os.Truncate(path, start+int64(whole)); err != nil {
			return 0, nil, fmt.Errorf("cut the torn last line of %s: %w", path, err)
		}
	}
	data = data[:whole]
	for len(data) > 0 {
		end := len(data) - 1
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		var l struct {
			Seq int64 `json:"seq"`
		}
		if json.Unmarshal(data[start:end], &l) == nil && l.Seq > 0 {
			return l.Seq, data[start:end], nil
		}
		data = data[:start]
	}
	return 0, nil, nil
}

// ErrDeviceClash: this device's log in the folder holds a change this database did not
// make. Another database writes as this device: most often a copy of this database file
// on another computer. Appending would give the other devices two different changes under
// one id, so nothing is appended.
var ErrDeviceClash = errors.New("another database writes to this device's log in the sync folder (was this database file copied to another computer?); " +
	"give that computer a database of its own: move its file aside, then run memdesk sync init there")

// tailWindow is how much of its end repairTail reads: a torn line and the whole line before
// it, each shorter than MaxLine, so appends do not read a whole segment each time.
const tailWindow = 2*MaxLine + 2

// readTail returns the last tailWindow bytes of the file at path and where they start; the
// whole file when no newline is in them (only a damaged file has such a long last line).
func readTail(path string) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	start := max(fi.Size()-tailWindow, 0)
	data := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(data, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	if start > 0 && bytes.IndexByte(data, '\n') < 0 {
		all, err := os.ReadFile(path)
		return all, 0, err
	}
	return data, start, nil
}

// readResult is what one read of a log file found.
type readResult struct {
	changes  []store.SyncChange
	problems []store.SyncProblem
	cursor   store.SyncFileCursor
}

// readLog reads the whole lines of the file at path from cur on, at most maxLines, each
// through parse. A last line without its newline is still being written (or was torn by a
// crash, or is mid-copy by the sync engine): it is left unread, and the cursor stays before
// it. A line that does not parse, or is longer than MaxLine, is a problem with its file and
// line number, and reading goes on after it.
func readLog(path string, cur store.SyncFileCursor, maxLines int, parse func([]byte) (store.SyncChange, error)) (readResult, error) {
	res := readResult{cursor: cur}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return res, err
	}
	if fi.Size() < cur.Offset {
		// The file is shorter than what was read of it: it was replaced. Changes are
		// applied idempotently, so reading it again from the start is safe.
		res.cursor.Offset, res.cursor.Line = 0, 0
	}
	if _, err := f.Seek(res.cursor.Offset, io.SeekStart); err != nil {
		return res, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var buf []byte
	var size int64
	tooLong := false
	for n := 0; n < maxLines; {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if !tooLong && len(buf)+len(chunk) <= MaxLine {
			buf = append(buf, chunk...)
		} else {
			tooLong, buf = true, buf[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break // a line without its newline: not written whole yet
		}
		if err != nil {
			return res, fmt.Errorf("read %s: %w", path, err)
		}
		res.cursor.Line++
		res.cursor.Offset += size
		n++
		switch {
		case tooLong:
			res.problems = append(res.problems, store.SyncProblem{Path: cur.Path, Line: res.cursor.Line, Reason: "line longer than 1 MiB"})
		case len(bytes.TrimSpace(buf)) == 0:
			// an empty line is not a change, and harms nothing
		default:
			c, err := parse(buf[:len(buf)-1])
			if err != nil {
				res.problems = append(res.problems, store.SyncProblem{Path: cur.Path, Line: res.cursor.Line, Reason: err.Error()})
			} else {
				res.changes = append(res.changes, c)
			}
		}
		buf, size, tooLong = buf[:0], 0, false
	}
	return res, nil
}

// logFile is one log file of another device.
type logFile struct {
	device string
	rel    string // path inside the sync folder, slash-separated: the cursor's key
	path   string
	size   int64
	mod    time.Time
}

// otherLogs lists the log files of every device but self under root.
func otherLogs(root, self string) ([]logFile, error) {
	base := filepath.Join(root, appName)
	devices, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the sync folder %s: %w", base, err)
	}
	var out []logFile
	for _, d := range devices {
		if !d.IsDir() || d.Name() == self || !deviceRe.MatchString(d.Name()) {
			continue
		}
		dir := filepath.Join(base, d.Name())
		names, err := segments(dir)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, n := range names {
			fi, err := os.Stat(filepath.Join(dir, n))
			if err != nil {
				continue // removed meanwhile (a sync engine's rename)
			}
			out = append(out, logFile{device: d.Name(), rel: appName + "/" + d.Name() + "/" + n, path: filepath.Join(dir, n), size: fi.Size(), mod: fi.ModTime()})
		}
	}
	return out, nil
}

// lastLogged is the sequence number of the last whole line of this device's log in dir, 0
// when there is none.
func lastLogged(dir string) (int64, error) {
	names, err := segments(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(names) == 0) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return repairTail(filepath.Join(dir, names[len(names)-1]))
}
