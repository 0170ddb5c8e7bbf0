//go:build linux

package main

// Security basics through the built memdesk binary (issue 8): the files memdesk creates are
// user-only, `memdesk mcp` opens no network listener, user text reaches SQL only as data,
// and logs at info level never carry memory contents. doc/reliability.md records the
// figures.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ncruces/go-sqlite3/driver"

	"github.com/memdesk/memdesk/engine"
)

// isolatedEnv is the environment of a memdesk process with no --db: a fresh HOME and XDG
// directories under dir, no config file, no MEMDESK_* setting from the developer's shell.
func isolatedEnv(dir string) []string {
	home := filepath.Join(dir, "home")
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "MEMDESK_") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "HOME=")
	})
	return append(env, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"MEMDESK_CONFIG="+filepath.Join(dir, "no-config.toml"),
		"MEMDESK_OLLAMA_ENABLED=false")
}

// withUmask runs fn with the process umask set to mask, so the children it starts inherit it.
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

// TestSecurityUserOnlyFilesCLI runs memdesk with no --db on a fresh HOME, under umask 0 so
// that nothing is user-only by accident: the data directory (and every directory memdesk
// made on the way) must be 0700 and every file in it, backups included, 0600.
func TestSecurityUserOnlyFilesCLI(t *testing.T) {
	bin := memdeskBinary(t)
	dir := t.TempDir()
	env := isolatedEnv(dir)
	doc := filepath.Join(dir, "note.md")
	writeFile(t, doc, []byte("# Note\n\nA private note about the storm petrel.\n"))
	withUmask(0, func() {
		for _, args := range [][]string{
			{"remember", "A private fact about the storm petrel"},
			{"kb", "add", doc},
			{"recall", "storm petrel"},
			{"admin", "backup"},
		} {
			cmd := exec.Command(bin, append([]string{"--json"}, args...)...)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("memdesk %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	})
	home := filepath.Join(dir, "home")
	data := filepath.Join(home, ".local", "share", "memdesk")
	if _, err := os.Stat(filepath.Join(data, "memdesk.db")); err != nil {
		t.Fatalf("no database in the data directory: %v", err)
	}
	got := map[string]fs.FileMode{}
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, p)
		if strings.HasPrefix(filepath.Base(p), "memdesk-backup-") {
			rel = filepath.Join(filepath.Dir(rel), "memdesk-backup-*.db")
		}
		got[rel] = info.Mode() & (fs.ModePerm | fs.ModeDir)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		".":                               fs.ModeDir | 0o700,
		".local":                          fs.ModeDir | 0o700,
		".local/share":                    fs.ModeDir | 0o700,
		".local/share/memdesk":            fs.ModeDir | 0o700,
		".local/share/memdesk/memdesk.db": 0o600,
		".local/share/memdesk/memdesk-backup-*.db": 0o600,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files and modes under a fresh HOME after remember, kb add, recall and admin backup under umask 0 (-want +got):\n%s", diff)
	}
}

// TestSecurityWALUserOnly checks the files SQLite makes beside the database while it is
// open (-wal holds the latest writes, memory text included) when the database is placed in
// a shared folder with --db.
func TestSecurityWALUserOnly(t *testing.T) {
	bin := memdeskBinary(t)
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(shared, "memdesk.db")
	var proc *exec.Cmd
	var stdin io.WriteCloser
	withUmask(0o022, func() {
		proc = exec.Command(bin, "--db", db, "mcp")
		proc.Env = isolatedEnv(dir)
		var err error
		if stdin, err = proc.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
	})
	t.Cleanup(func() { proc.Process.Kill(); proc.Wait() })
	defer stdin.Close()
	deadline := time.Now().Add(time.Minute)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		for {
			info, err := os.Stat(db + suffix)
			if err == nil {
				if mode := info.Mode().Perm(); mode != 0o600 {
					t.Errorf("%s has mode %#o, want 0600: it holds the same memories as the database", filepath.Base(db+suffix), mode)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never appeared: %v", db+suffix, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// socketInfo is one socket of a process, from /proc/<pid>/net/*.
type socketInfo struct {
	Proto  string
	Local  string
	Remote string
	State  string // tcp: the kernel's hex state (0A = LISTEN); unix: flags
}

// processSockets maps the socket inodes open in pid's fds onto /proc/<pid>/net tables, and
// returns the fds that are not sockets by what they are (pipe, file, anon inode). A socket
// found in no table is reported as unknown, unless its fd was closed meanwhile (a refused
// outbound connection can come and go between the two reads).
func processSockets(t *testing.T, pid int) (sockets []socketInfo, others map[int]string) {
	t.Helper()
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(fdDir)
	if err != nil {
		t.Fatalf("read %s: %v", fdDir, err)
	}
	inodes := map[string]string{} // inode -> the fd's link name
	others = map[int]string{}
	for _, en := range entries {
		target, err := os.Readlink(filepath.Join(fdDir, en.Name()))
		if err != nil {
			continue // closed between ReadDir and Readlink
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			inodes[strings.TrimSuffix(inode, "]")] = en.Name()
			continue
		}
		var fd int
		fmt.Sscan(en.Name(), &fd)
		others[fd] = target
	}
	// The inode's column in each table, counted from 0.
	tables := []struct {
		proto string
		inode int
	}{{"tcp", 9}, {"tcp6", 9}, {"udp", 9}, {"udp6", 9}, {"raw", 9}, {"raw6", 9}, {"unix", 6}, {"netlink", 9}, {"packet", 8}}
	for _, tb := range tables {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, tb.proto))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) <= tb.inode || inodes[fields[tb.inode]] == "" {
				continue
			}
			s := socketInfo{Proto: tb.proto}
			switch tb.proto {
			case "unix": // Num RefCount Protocol Flags Type St Inode [Path]
				s.State = "flags " + fields[3]
				if len(fields) > 7 {
					s.Local = fields[7]
				}
			case "netlink": // sk Eth Pid Groups ...
				s.Local = "family " + fields[1]
			case "packet":
			default: // sl local_address rem_address st ...
				s.Local, s.Remote, s.State = fields[1], fields[2], fields[3]
			}
			sockets = append(sockets, s)
			delete(inodes, fields[tb.inode])
		}
		f.Close()
	}
	for inode, fd := range inodes {
		if target, err := os.Readlink(filepath.Join(fdDir, fd)); err == nil && target == "socket:["+inode+"]" {
			sockets = append(sockets, socketInfo{Proto: "unknown", Local: "inode " + inode})
		}
	}
	return sockets, others
}

// isListener reports a socket that accepts connections or datagrams from others: a TCP
// socket in LISTEN, any UDP, raw or packet socket, a unix socket with __SO_ACCEPTCON, and
// (to be safe) a socket found in no table. Netlink sockets talk to the kernel only. A
// socket found in no table is also what an outbound dial holds between socket() and
// connect(), so the caller judges those by whether they last (see unknownLasting).
func isListener(s socketInfo) bool {
	switch s.Proto {
	case "tcp", "tcp6":
		return s.State == "0A"
	case "unix":
		var flags uint64
		fmt.Sscanf(strings.TrimPrefix(s.State, "flags "), "%x", &flags)
		return flags&0x10000 != 0
	case "netlink":
		return false
	}
	return true
}

// TestSecurityMCPNoListener starts `memdesk mcp` with its Ollama bootstrap on (pointed at a
// closed local port, so it keeps trying), talks to it over stdio, and looks at every fd it
// holds, several times over a second: stdio must be pipes, and no socket may listen (no TCP
// LISTEN, no UDP or raw socket, no accepting unix socket). Outbound attempts to Ollama are
// allowed and reported.
func TestSecurityMCPNoListener(t *testing.T) {
	// The probe itself must see a listener where there is one: this test process's own.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	own, _ := processSockets(t, os.Getpid())
	ln.Close()
	if !slices.ContainsFunc(own, isListener) {
		t.Fatalf("the probe missed this process's own listener on %s: %+v", ln.Addr(), own)
	}

	bin := memdeskBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--db", filepath.Join(dir, "memdesk.db"), "mcp")
	cmd.Env = append(isolatedEnv(dir), "MEMDESK_OLLAMA_ENABLED=true", "MEMDESK_OLLAMA_HOST=127.0.0.1:1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // a pipe, as a client gives it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The process is killed, not closed: its clean exit waits for the entity extractor,
	// which TestMCPCommand covers.
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	answers := bufio.NewScanner(stdout)
	answers.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"text":"The probe fact about the gannet"}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"query":"gannet"}}}`)
	for want := 1; want <= 3; want++ {
		if !answers.Scan() {
			t.Fatalf("no answer %d from memdesk mcp: %v\nstderr: %s", want, answers.Err(), stderr.String())
		}
	}

	seen := map[socketInfo]bool{}
	// A socket in no table is judged by how long it lasts: a dial to the closed Ollama port
	// holds one for the microseconds between socket() and connect(), which a sample can
	// catch (CI did, once); a listener of a kind the tables miss is there sample after sample.
	const unknownLasting = 3
	unknownRun := map[socketInfo]int{}
	for range 10 {
		sockets, others := processSockets(t, cmd.Process.Pid)
		for fd := range 3 {
			if !strings.HasPrefix(others[fd], "pipe:") {
				t.Errorf("fd %d is %q, want a pipe: stdio only", fd, others[fd])
			}
		}
		run := map[socketInfo]int{}
		for _, s := range sockets {
			if s.Proto == "unknown" {
				run[s] = unknownRun[s] + 1
				if run[s] == unknownLasting {
					t.Errorf("memdesk mcp holds a socket found in no table for %d samples: %+v", unknownLasting, s)
				}
			} else if isListener(s) && !seen[s] {
				t.Errorf("memdesk mcp holds a listening socket: %+v", s)
			}
			seen[s] = true
		}
		unknownRun = run
		time.Sleep(100 * time.Millisecond)
	}
	var outbound []string
	for s := range seen {
		outbound = append(outbound, fmt.Sprintf("%s %s->%s st %s", s.Proto, s.Local, s.Remote, s.State))
	}
	slices.Sort(outbound)
	t.Logf("memdesk mcp: 10 samples of /proc/%d/fd over 1 s; stdio are pipes; sockets seen: %d %q (none listening)", cmd.Process.Pid, len(outbound), outbound)
}

// sqliteTables lists the database's tables through a read-only connection of its own.
func sqliteTables(t *testing.T, path string) []string {
	t.Helper()
	db, err := driver.Open("file:" + path + "?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT type || ' ' || name FROM sqlite_master ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if !slices.Contains(out, "table facts") {
		t.Fatalf("the facts table is gone: %q", out)
	}
	return out
}

// TestSecurityInjectionCLI sends each injection string through the CLI as remember text,
// recall query, space name, file name and path argument. Each is stored and shown as data:
// the schema is unchanged, every text round-trips exactly, and `admin integrity` is ok.
func TestSecurityInjectionCLI(t *testing.T) {
	t.Parallel() // one of the package's slowest, on its own store: it overlaps the others
	bin := memdeskBinary(t)
	r := newMemdeskRun(t, bin)
	keep := seedHostileRun(t, r)
	schema := sqliteTables(t, r.db)
	docsBefore := r.kbList(t)
	docDir := filepath.Join(t.TempDir(), "docs")
	if err := os.Mkdir(docDir, 0o700); err != nil {
		t.Fatal(err)
	}
	injections := readHostileList(t, "injection.list")
	wantTexts := map[int64]string{}
	wantPaths := map[string]string{} // path -> space
	for i, s := range injections {
		var added engine.RememberResult
		r.mustJSON(t, &added, "remember", "--", s)
		norm, _ := engine.NormalizeFact(s)
		wantTexts[added.FactID] = norm
		spaced := fmt.Sprintf("kittiwake nest count %d", i)
		var inSpace engine.RememberResult
		r.mustJSON(t, &inSpace, "remember", "--space="+s, "--", spaced)
		wantTexts[inSpace.FactID] = spaced
		var rr engine.RecallResult
		r.mustJSON(t, &rr, "recall", "--", s)
		r.mustJSON(t, &rr, "recall", "--space="+s, "--", "kittiwake nest")
		if len(rr.Hits) != 1 || rr.Hits[0].ID != inSpace.FactID {
			t.Errorf("recall in space %q = %+v; want fact %d alone", s, rr.Hits, inSpace.FactID)
		}
		var list engine.ListResult
		r.mustJSON(t, &list, "list", "--filter="+s)
		if !slices.ContainsFunc(list.Facts, func(f engine.FactView) bool { return f.ID == added.FactID }) {
			t.Errorf("list --filter=%q = %+v; want fact %d", s, list.Facts, added.FactID)
		}
		path := filepath.Join(docDir, strings.ReplaceAll(s, "/", "\u2215")+".md")
		writeFile(t, path, []byte(fmt.Sprintf("Injection document %d about the guillemot.\n", i)))
		var kres engine.KBAddResult
		r.mustJSON(t, &kres, "kb", "add", "--space="+s, "--", path)
		if kres.Added != 1 {
			t.Errorf("kb add %q = %+v, want added", path, kres)
		}
		wantPaths[path] = strings.TrimSpace(s)
		// As a path argument: it does not exist here (exit 1 with a clear error), or it names
		// a real file, which is imported as the person wrote it ("../../../../etc/passwd" is
		// text, and every text file is a document): then only that very file.
		cmd, stdout, stderr := r.command("kb", "add", "--", s)
		if err := cmd.Run(); err == nil {
			var res engine.KBAddResult
			if json.Unmarshal(stdout.Bytes(), &res) != nil {
				t.Errorf("kb add %q printed %s, want JSON", s, stdout)
			}
			named, _ := filepath.Abs(filepath.Join(cmd.Dir, s))
			named, _ = filepath.EvalSymlinks(named)
			for _, f := range res.Files {
				if f.Outcome != engine.ImportAdded && f.Outcome != engine.ImportUpdated {
					continue
				}
				if f.Path != named {
					t.Errorf("kb add %q imported %s, which the path does not name", s, f.Path)
				}
				wantPaths[f.Path] = "default"
			}
		} else if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "does not exist") {
			t.Errorf("kb add %q: exit %d, stderr %s; want 1 and a does-not-exist error", s, code, stderr)
		}
	}
	r.checkIntegrity(t)
	if diff := cmp.Diff(schema, sqliteTables(t, r.db)); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
	got := map[int64]string{}
	for _, f := range r.listAll(t) {
		if f.ID != keep {
			got[f.ID] = f.Text
		} else if f.Text != keptFactText {
			t.Errorf("fact %d = %q, want %q", keep, f.Text, keptFactText)
		}
	}
	if diff := cmp.Diff(wantTexts, got); diff != "" {
		t.Errorf("fact texts (-sent +stored):\n%s", diff)
	}
	var docs struct {
		Documents []engine.DocumentView `json:"documents"`
	}
	r.mustJSON(t, &docs, "kb", "list")
	gotPaths := map[string]string{}
	for _, d := range docs.Documents {
		gotPaths[d.Path] = d.Space
	}
	for _, d := range docsBefore {
		delete(gotPaths, d.Path)
	}
	if diff := cmp.Diff(wantPaths, gotPaths); diff != "" {
		t.Errorf("documents by path -> space (-sent +stored):\n%s", diff)
	}
}

// TestSecurityLogsKeepContentsOut runs memdesk with a canary in every text, query, space and
// document, capturing stderr: at the default level (warnings; the CLI has no info level,
// only -v for debug) and in an MCP session logged at info, the canary must not appear. With
// -v it may; the test reports whether. Nothing may write a log file under HOME.
func TestSecurityLogsKeepContentsOut(t *testing.T) {
	const canary = "CanaryQx7Zebu"
	bin := memdeskBinary(t)
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(docs, "note.md"), []byte("# Note\n\nThe "+canary+" lives in the document.\n"))
	writeFile(t, filepath.Join(docs, "latin1.md"), []byte("The "+canary+" caf\xe9.\n"))
	writeFile(t, filepath.Join(docs, "binary.md"), []byte("\x00\x01"+canary))
	writeFile(t, filepath.Join(docs, "utf16.txt"), []byte{0xFF, 0xFE, 'C', 0, 'a', 0})
	commands := [][]string{
		{"remember", "The " + canary + " fact"},
		{"remember", "The " + canary + " fact"}, // duplicate
		{"remember", "--space", canary + "-space", "Another " + canary + " fact"},
		{"remember", "bad " + canary + " \xff"}, // refused: not UTF-8
		{"recall", canary},
		{"recall", "--space", canary + "-space", canary},
		{"recall", "--source", "knowledge", canary + " document"},
		{"kb", "add", docs},
		{"kb", "show", "1"},
		{"list", "--filter", canary},
		{"edit", "1", "The " + canary + " fact, edited"},
		{"edit", "999", canary + " into nothing"}, // refused: no such fact
	}
	if !testing.Short() {
		// Loads the entity extractor: seconds per run.
		commands = append(commands, []string{"admin", "entities-sweep", "--all"})
	}
	runAll := func(t *testing.T, verbose bool) (stderr string) {
		t.Helper()
		sub := t.TempDir()
		env := isolatedEnv(sub)
		db := filepath.Join(sub, "memdesk.db")
		var all bytes.Buffer
		for _, args := range commands {
			full := append([]string{"--db", db}, args...)
			if verbose {
				full = append([]string{"-v"}, full...)
			}
			cmd := exec.Command(bin, full...)
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			cmd.Run() // two commands are meant to fail; their messages are checked like the rest
			all.Write(stderr.Bytes())
		}
		var files []string
		filepath.WalkDir(filepath.Join(sub, "home"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) > 0 {
			t.Errorf("memdesk wrote files under HOME (a log file?): %q", files)
		}
		return all.String()
	}
	t.Run("default level", func(t *testing.T) {
		stderr := runAll(t, false)
		if strings.Contains(stderr, canary) {
			t.Errorf("stderr at the default level carries memory contents:\n%s", stderr)
		}
		if !strings.Contains(stderr, "not valid UTF-8") || !strings.Contains(stderr, "not found") {
			t.Errorf("stderr = %q; want the two refusals' messages, so the check saw real output", stderr)
		}
	})
	t.Run("mcp at info level", func(t *testing.T) {
		e := openMCPTestEngine(t, filepath.Join(t.TempDir(), "m.db"))
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
		s := newMCPSession()
		s.call(t, "remember", map[string]any{"text": "The " + canary + " fact", "space": canary})
		s.call(t, "remember", map[string]any{"text": "bad " + canary + "\x00"})
		s.call(t, "recall", map[string]any{"query": canary})
		s.call(t, "kb_search", map[string]any{"query": canary})
		s.call(t, "list_memories", map[string]any{"filter": canary})
		s.call(t, "forget", map[string]any{"id": 999})
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var out bytes.Buffer
		if err := serveMCP(ctx, newMCPServer(e, log), bytes.NewReader(s.buf.Bytes()), &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), canary) {
			t.Fatalf("the MCP answers do not carry the canary; the session did not run: %s", out.String())
		}
		if strings.Contains(logs.String(), canary) {
			t.Errorf("MCP logs at info level carry memory contents:\n%s", logs.String())
		}
		if logs.Len() == 0 {
			t.Error("no info-level MCP log at all; the check would be empty")
		}
	})
	t.Run("debug level (-v)", func(t *testing.T) {
		if testing.Short() {
			t.Skip("a second run of every command; run without -short")
		}
		stderr := runAll(t, true)
		if !strings.Contains(stderr, "level=DEBUG") {
			t.Errorf("-v wrote no debug log: %q", stderr)
		}
		t.Logf("-v (debug) stderr carries the canary: %v (allowed)", strings.Contains(stderr, canary))
	})
}
