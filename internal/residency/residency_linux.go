//go:build linux

package residency

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ReleaseExecutableData asks the kernel to reclaim the resident pages of the executable's
// read-only data mappings (MADV_PAGEOUT, Linux 5.4+). The pages are clean copies of the file:
// a later read faults them back in from the file, so this changes what is resident, never
// what the program sees. Writable mappings and the code are left alone, and so is a read-only
// mapping that holds pages the process changed (the RELRO part after relocation): paging
// those out would be correct too, but would only push them to swap.
func ReleaseExecutableData() (ExecutableData, error) {
	var r ExecutableData
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return r, fmt.Errorf("find the executable: %w", err)
	}
	maps, err := readMappings(exe)
	if err != nil {
		return r, err
	}
	for _, m := range maps {
		if m.perms != "r--p" || m.anonymous > 0 {
			continue
		}
		r.Mapped += int64(m.end - m.start)
		r.ResidentBefore += m.rss
		// A raw call: the range is the kernel's business, and turning the address into
		// a Go pointer to build the []byte unix.Madvise wants would be an invalid pointer.
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_PAGEOUT); errno != 0 {
			return r, fmt.Errorf("release the executable's data pages: %w", errno)
		}
	}
	after, err := readMappings(exe)
	if err != nil {
		return r, err
	}
	for _, m := range after {
		if m.perms == "r--p" && m.anonymous == 0 {
			r.ResidentAfter += m.rss
		}
	}
	return r, nil
}

// mapping is one line of /proc/self/smaps for the executable, with the sizes that matter.
type mapping struct {
	start, end     uintptr
	perms          string
	rss, anonymous int64 // bytes
}

// readMappings reads the executable's mappings from /proc/self/smaps.
func readMappings(exe string) ([]mapping, error) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return nil, fmt.Errorf("read the process's memory map: %w", err)
	}
	var (
		out []mapping
		cur *mapping
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && len(fields) >= 5 && !strings.HasSuffix(fields[0], ":") {
			cur = nil
			if len(fields) < 6 || strings.Join(fields[5:], " ") != exe {
				continue
			}
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			out = append(out, mapping{start: uintptr(start), end: uintptr(end), perms: fields[1]})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil || len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "Rss:":
			cur.rss = kb << 10
		case "Anonymous:":
			cur.anonymous = kb << 10
		}
	}
	return out, sc.Err()
}
