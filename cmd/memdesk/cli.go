package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/config"
	"github.com/memdesk/memdesk/engine/display"
	"github.com/memdesk/memdesk/engine/ingest"
)

type streams struct {
	in       io.Reader
	out, err io.Writer
}

// usageError marks a mistake in how memdesk was called: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

const usageText = `memdesk keeps your memories and documents on this machine and finds them again.

Usage:
  memdesk                         open the desktop app (when a display exists)
  memdesk [--db PATH] [--config FILE] [--json] [-v] <command> [arguments]

App:
  gui                             open the desktop app (or show the one already running)
  quick                           open the quick search-and-remember window, in the running
                                  app or a new one: bind your desktop's shortcut to this
  mcp                             serve AI agents over the Model Context Protocol (stdio)

Memories:
  remember [--space S] [--supersedes ID] TEXT
                                  store a fact; an identical one is reported as duplicate,
                                  similar and contradicting facts are named
  edit ID TEXT                    change a fact's text
  forget ID                       delete a fact (undo with restore)
  restore ID                      bring a forgotten or superseded fact back
  supersede OLD NEW               keep fact NEW, mark OLD superseded (kept as history)
  dismiss A B                     keep both facts of a reported contradiction
  list [--space S] [--all] [--filter T] [--limit N]
                                  list facts, newest first (--all includes forgotten and
                                  superseded ones)
  memories export [--space S] [--format md|json] [--to FILE]
                                  write the active memories with their spaces and times
  memories import FILE            add the memories of an export (those already there are kept once)
  timeline [--space S] [--limit N]
                                  the newest memories, conversations and dated notes by the
                                  day they were written (N entries, 50 unless given)
  move ID SPACE                   put a memory in another space
  spaces                          list the spaces and what each holds
  spaces rename OLD NEW           rename a space, with its memories, documents and watched folders

Sync between your devices (doc/sync.md):
  sync init DIR                   log this database's changes to DIR, a folder your sync tool
                                  (Syncthing, Dropbox, iCloud Drive) shares between devices
  sync status                     this device, the devices seen and their last change,
                                  what is pending, conflicts and skipped log lines
  sync now                        write this device's changes and read the others' now

Recall:
  recall [--space S] [--source all|memory|knowledge] [-k N] [--since WHEN] [--until WHEN]
         [--folder DIR] [--sort relevance|newest] QUERY
                                  WHEN: a day (2026-11-30), a moment, an age (7d, 2w, 12h) or words (yesterday, last week)

Knowledge:
  kb add [--space S] PATH...      import files and folders (any text file, Markdown, HTML, PDF)
  kb list [--space S]             list imported documents
  kb show DOC_ID                  show a document's chunks
  kb links DOC_ID                 list a note's [[links]] and the documents they lead to
  kb reimport DOC_ID              read a document's file again
  kb rm DOC_ID | PATH             remove a document, or one copy of it (the file stays on disk)
  kb watch [--space S] [PATH...]  keep folders in sync until Ctrl-C (no PATH: the watched ones)
  kb unwatch [--space S] PATH     stop keeping a folder in sync

Evaluation:
  eval --beir DIR [--scope none|prefix] [--as memory|knowledge] [-k 10] [--baseline] [--out FILE]
                                  measure recall on a corpus/queries/qrels benchmark
  eval --cases FILE               run a gold case file through the engine
  bench [--facts 10000,100000]    ingest and recall speed on synthetic corpora vs plain FTS5

Maintenance:
  stats                           what the database holds
  admin integrity                 check the database and its indexes
  admin backup [--to FILE]        write a consistent copy of the database
  admin entities-sweep [--all]    extract entities and statements that are pending or from
                                  older rules
  admin contradictions            list pairs of active facts that contradict each other
  admin vectors-diagnose          count vectors missing or made by another embedding model
  admin vectors-fix [--all]       re-embed stale vectors and evict orphaned ones (needs Ollama)
  admin rebuild-index             rebuild the search indexes and entity rows from the stored text
  config                          print the effective settings and where each came from

Global flags:
  --db PATH      database file (default: $MEMDESK_DB, then db_path in the config file,
                 then memdesk.db in your data directory); its folder must exist
  --config FILE  config file (default: memdesk/config.toml in your config directory)
  --json         machine-readable output
  -v             verbose logs on stderr; recall also prints each hit's scores

Exit status: 0 ok, 1 runtime error, 2 usage error.
`

type cli struct {
	streams
	lookup  func(string) (string, bool)
	json    bool
	cfg     *config.Loaded
	log     *slog.Logger
	verbose bool
	// cfgFlag is --config as given ("" when it was not): an app started in the background
	// gets it too.
	cfgFlag string
}

// run is the whole CLI: it returns the exit status.
func run(ctx context.Context, args []string, st streams, lookup func(string) (string, bool)) int {
	c := &cli{streams: st, lookup: lookup}
	err := c.dispatch(ctx, args)
	if err == nil {
		return 0
	}
	return c.report(err)
}

// report prints err for a person (or as JSON with --json) and maps it to an exit status.
func (c *cli) report(err error) int {
	code := 1
	var ue usageError
	switch {
	case errors.As(err, &ue):
		code = 2
	case errors.Is(err, engine.ErrBadRequest), errors.Is(err, engine.ErrInvalidText),
		errors.Is(err, config.ErrInvalid):
		code = 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	if c.json {
		writeJSON(c.err, map[string]any{"error": err.Error(), "exit": code})
	} else {
		// Errors echo user text: queries, spaces, paths.
		fmt.Fprintf(c.err, "memdesk: %s\n", display.Block(err.Error()))
		if code == 2 && errors.As(err, &ue) {
			fmt.Fprintln(c.err, "Run 'memdesk help' for usage.")
		}
	}
	return code
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("memdesk", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dbPath := fs.String("db", "", "database file")
	cfgPath := fs.String("config", "", "config file")
	fs.BoolVar(&c.json, "json", false, "machine-readable output")
	fs.BoolVar(&c.verbose, "v", false, "verbose logs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(c.out, usageText)
			return nil
		}
		return usagef("%v", err)
	}
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelDebug
	}
	c.log = slog.New(slog.NewTextHandler(c.err, &slog.HandlerOptions{Level: level, ReplaceAttr: clipLongValues}))

	c.cfgFlag = *cfgPath
	if err := c.loadConfig(*cfgPath, *dbPath); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		if hasDisplay(c.lookup) {
			return c.gui(ctx, nil, false)
		}
		fmt.Fprint(c.out, usageText)
		fmt.Fprintln(c.out, "\nNo display found, so the desktop app cannot open: use the commands above.")
		return nil
	}
	cmd, cargs := rest[0], rest[1:]
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprint(c.out, usageText)
		return nil
	case "remember", "add":
		return c.remember(ctx, cargs)
	case "edit":
		return c.edit(ctx, cargs)
	case "forget":
		return c.setStatus(ctx, cargs, engine.ActionForget)
	case "restore":
		return c.setStatus(ctx, cargs, engine.ActionRestore)
	case "supersede":
		return c.supersede(ctx, cargs)
	case "dismiss":
		return c.dismiss(ctx, cargs)
	case "list", "ls":
		return c.list(ctx, cargs)
	case "memories":
		return c.memories(ctx, cargs)
	case "timeline":
		return c.timeline(ctx, cargs)
	case "spaces":
		return c.spaces(ctx, cargs)
	case "sync":
		return c.syncCmd(ctx, cargs)
	case "move":
		return c.move(ctx, cargs)
	case "recall", "search":
		return c.recall(ctx, cargs)
	case "kb":
		return c.kb(ctx, cargs)
	case "stats":
		return c.stats(ctx, cargs)
	case "admin":
		return c.admin(ctx, cargs)
	case "config":
		return c.printConfig(cargs)
	case "gui":
		return c.gui(ctx, cargs, false)
	case "quick":
		return c.gui(ctx, cargs, true)
	case "mcp":
		return c.mcp(ctx, cargs)
	case "eval":
		return c.eval(ctx, cargs)
	case "bench":
		return c.bench(ctx, cargs)
	default:
		return usagef("unknown command %q", cmd)
	}
}

// loadConfig reads the config file and environment, then applies the --db flag on top.
func (c *cli) loadConfig(cfgPath, dbFlag string) error {
	if cfgPath == "" {
		if v, ok := c.lookup("MEMDESK_CONFIG"); ok && v != "" {
			cfgPath = v
		} else {
			dir, err := os.UserConfigDir()
			if err != nil {
				return fmt.Errorf("find your config directory: %w; pass --config FILE", err)
			}
			cfgPath = config.DefaultPath(dir)
		}
	}
	cfg, err := config.Load(cfgPath, c.lookup)
	if err != nil {
		return err
	}
	for _, r := range cfg.Retired {
		old, next, _ := strings.Cut(r, " -> ")
		c.log.Warn("a setting in the config file is no longer used and is ignored", "key", old, "use", next, "file", cfgPath)
	}
	if dbFlag != "" {
		if err := cfg.Set("db_path", dbFlag, config.SourceFlag); err != nil {
			return err
		}
	}
	c.cfg = cfg
	return nil
}

// dbPath is the database the CLI works on: the configured one, else the data directory's.
func (c *cli) dbPath() (string, error) {
	if p := c.cfg.Config.DBPath; p != "" {
		return p, nil
	}
	dir, err := dataDir(c.lookup)
	if err != nil {
		return "", fmt.Errorf("find your data directory: %w; pass --db PATH", err)
	}
	return filepath.Join(dir, "memdesk", "memdesk.db"), nil
}

// dataDir follows each platform's convention for application data.
func dataDir(lookup func(string) (string, bool)) (string, error) {
	switch runtime.GOOS {
	case "windows":
		if v, ok := lookup("LocalAppData"); ok && v != "" {
			return v, nil
		}
		return os.UserConfigDir()
	case "darwin":
		return os.UserConfigDir() // ~/Library/Application Support
	default:
		if v, ok := lookup("XDG_DATA_HOME"); ok && filepath.IsAbs(v) {
			return v, nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".local", "share"), nil
	}
}

// cacheDir is memdesk's folder in the platform's cache folder; "" when there is none.
func (c *cli) cacheDir() string {
	var base string
	if v, ok := c.lookup("XDG_CACHE_HOME"); ok && filepath.IsAbs(v) && runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		base = v
	} else if dir, err := os.UserCacheDir(); err == nil {
		base = dir
	} else {
		return ""
	}
	return filepath.Join(base, "memdesk")
}

// pdfCacheDir is where compiled PDFium is kept between runs; "" when there is no cache
// folder, which only makes the first PDF of each run slower.
func (c *cli) pdfCacheDir() string {
	dir := c.cacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "pdfium")
}

func (c *cli) openEngine(ctx context.Context) (*engine.Engine, error) {
	return c.openEngineWith(ctx, c.engineOptions())
}

// openEngineWith opens the configured database with opts (the engine options, with the
// semantic leg's where a command uses it) and says so when it was just created.
func (c *cli) openEngineWith(ctx context.Context, opts engine.Options) (*engine.Engine, error) {
	path, err := c.dbPath()
	if err != nil {
		return nil, err
	}
	e, err := engine.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	c.noteNewDatabase(e)
	return e, nil
}

// noteNewDatabase says on stderr that the database was just created, unless it is the default
// one: a new file at a path the user gave may be a typo of the path that holds their data.
func (c *cli) noteNewDatabase(e *engine.Engine) {
	if !e.Created() || c.cfg.Config.DBPath == "" {
		return
	}
	if c.json {
		writeJSON(c.err, map[string]any{"notice": "created new database", "path": e.Path()})
		return
	}
	fmt.Fprintf(c.err, "memdesk: created new database at %s\n", display.Line(e.Path()))
}

// engineOptions maps the effective configuration onto the engine's options: the user's
// engine and eval's scratch engines rank the same way.
func (c *cli) engineOptions() engine.Options {
	cfg := c.cfg.Config
	return engine.Options{
		Logger: c.log,
		// Only the default path's folders are made: a --db, MEMDESK_DB or db_path naming a
		// folder that does not exist is more likely a typo than a place for a new store.
		CreateDirs:  cfg.DBPath == "",
		PDFCacheDir: c.pdfCacheDir(),
		Import: ingest.Limits{
			MaxFileBytes:      int64(cfg.Import.MaxFileMB) << 20,
			ChunkMaxRunes:     cfg.Import.ChunkMaxRunes,
			ChunkOverlapRunes: cfg.Import.ChunkOverlapRunes,
		},
		Weights: engine.Weights{FTS: cfg.Weights.FTS, Entity: cfg.Weights.Entity, Semantic: cfg.Weights.Semantic},
		Floors: &engine.Floors{
			MinEvidence:           cfg.Floors.MinEvidence,
			HitEvidence:           cfg.Floors.HitEvidence,
			MinCoverage:           cfg.Floors.MinCoverage,
			CoverageGrowth:        cfg.Floors.CoverageGrowth,
			MinJaccard:            cfg.Floors.MinJaccard,
			MinSemanticSimilarity: cfg.Floors.MinSemanticSimilarity,
		},
		DefaultK: cfg.Recall.K,
	}
}

// withEngine opens the engine for one command and closes it after.
func (c *cli) withEngine(ctx context.Context, fn func(*engine.Engine) error) (err error) {
	e, err := c.openEngine(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := e.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(e)
}

// emit prints v as JSON with --json, else runs human.
func (c *cli) emit(v any, human func(w io.Writer)) error {
	if c.json {
		return writeJSON(c.out, v)
	}
	human(c.out)
	return nil
}

// writeJSON writes v to w as one line of JSON that is safe to read in a terminal.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONControls(buf.Bytes()))
	return err
}

// escapeJSONControls rewrites DEL, the C1 controls and the bidirectional overrides, which
// encoding/json leaves raw (it escapes only C0), as \uXXXX: JSON read in a terminal must not
// carry U+009B, which a terminal may take as CSI. JSON's structure is printable ASCII, so
// every such rune is inside a string, and the escape decodes to the same text.
func escapeJSONControls(b []byte) []byte {
	unsafe := func(r rune) bool { return r >= 0x7f && display.Escapes(r) }
	if !bytes.ContainsFunc(b, unsafe) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:]) // encoding/json wrote valid UTF-8
		if unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// parseInterleaved parses flags that may stand before, between or after positional
// arguments ("recall 老王 -k 3"). Everything after "--" is positional, so text that starts
// with a dash can still be remembered.
func (c *cli) parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	// --json after the command works too: people type it wherever they remember it.
	fs.BoolVar(&c.json, "json", c.json, "machine-readable output")
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(positional, tail...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func joinArgs(args []string) string { return strings.Join(args, " ") }
