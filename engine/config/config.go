// Package config owns memdesk's one configuration file: the settings the CLI, the GUI and the
// MCP server share, their defaults and valid ranges, the environment variables and flags that
// override them, and where each effective value came from.
//
// Precedence, lowest first: built-in default, the file, environment variables, flags.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// ErrInvalid marks every error caused by what the user wrote (bad TOML, an unknown key, a value
// of the wrong type or out of range), so front-ends can tell it from I/O failures with errors.Is.
var ErrInvalid = errors.New("invalid config")

// Source says which layer supplied a value.
type Source string

const (
	SourceDefault Source = "default"
	SourceFile    Source = "file"
	SourceEnv     Source = "env"
	SourceFlag    Source = "flag"
)

// rank orders the layers: a value from a higher rank hides one from a lower rank. Unknown
// sources rank -1.
func (s Source) rank() int {
	return slices.Index([]Source{SourceDefault, SourceFile, SourceEnv, SourceFlag}, s)
}

// DefaultPath returns where the file lives given os.UserConfigDir's result; cmd resolves that
// directory so this package never reads the environment.
func DefaultPath(userConfigDir string) string {
	return filepath.Join(userConfigDir, "memdesk", "config.toml")
}

// Entry is one setting as shown by `memdesk config` and the GUI's settings screen.
type Entry struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source Source `json:"source"`
	// Env is the variable that overrides the key; when the value came from the environment it
	// is the variable actually used (ollama.host can come from OLLAMA_HOST).
	Env string `json:"env"`
}

// origin is a Source plus the detail an error message needs: the file path or env var name.
type origin struct {
	src  Source
	name string
}

func (o origin) String() string {
	if o.name == "" {
		return string(o.src)
	}
	return string(o.src) + " " + o.name
}

// Loaded is the effective configuration plus what is needed to explain and save it. Make one
// with Load; the zero value is not usable. A Loaded is not safe for concurrent use.
type Loaded struct {
	Config Config
	Path   string

	origins map[string]origin // per key, where Config's value came from
	// file holds defaults overlaid with only the file's values (and Set(..., SourceFile)), so
	// Save can write them back without leaking env or flag overrides into the file.
	file   Config
	inFile map[string]bool
	// Retired lists the retired keys the file still sets (ignored), each with the key that
	// took over, for the caller to warn about: "old -> new".
	Retired []string
}

// Load reads the file at path (a missing file, or an empty path, means defaults), then applies
// environment overrides found through lookup, which has os.LookupEnv's shape and may be nil.
// An environment variable set to the empty string counts as unset, so `MEMDESK_RECALL_K=` in a
// shell does not turn into a confusing "not an integer" error.
func Load(path string, lookup func(string) (string, bool)) (*Loaded, error) {
	l := &Loaded{
		Config:  Default(),
		Path:    path,
		origins: make(map[string]origin, len(settings)),
		file:    Default(),
		inFile:  make(map[string]bool),
	}
	for _, s := range settings {
		l.origins[s.key] = origin{src: SourceDefault}
	}
	if err := l.readFile(); err != nil {
		return nil, err
	}
	l.Config = l.file
	for key := range l.inFile {
		l.origins[key] = l.fromFile()
	}
	if lookup == nil {
		return l, nil
	}
	for _, s := range settings {
		// Only the winning variable is read, so a stray OLLAMA_HOST meant for the Ollama
		// server cannot fail the load when MEMDESK_OLLAMA_HOST overrides it.
		for i := len(s.envs) - 1; i >= 0; i-- {
			text, ok := lookup(s.envs[i])
			if !ok || text == "" {
				continue
			}
			o := origin{SourceEnv, s.envs[i]}
			if err := s.assign(&l.Config, s.fromText(text), o); err != nil {
				return nil, err
			}
			l.origins[s.key] = o
			break
		}
	}
	if err := validate(l.Config, l.originOf); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Loaded) readFile() error {
	if l.Path == "" {
		return nil
	}
	data, err := os.ReadFile(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	var tree map[string]any
	md, err := toml.Decode(string(data), &tree)
	if err != nil {
		// toml's ParseError message carries the line number.
		return fmt.Errorf("%w: %s: %w", ErrInvalid, l.Path, err)
	}
	// Decoding into a map marks every key as decoded, so MetaData.Undecoded cannot find
	// strays; checking Keys against the settings table does, without a mirror struct to keep
	// in sync with that table.
	var unknown []string
	for _, k := range md.Keys() {
		if _, ok := findSetting(k.String()); ok {
			continue
		}
		if next, ok := retired[k.String()]; ok {
			l.Retired = append(l.Retired, k.String()+" -> "+next)
			continue
		}
		if !slices.ContainsFunc(settings, func(s setting) bool { t, _ := tableOf(s.key); return t == k.String() }) {
			unknown = append(unknown, k.String())
		} else if md.Type(k...) != "Hash" {
			return fmt.Errorf("%w: %s in %s must be a table, not %s", ErrInvalid, k, l.Path, md.Type(k...))
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%w: unknown key %s in %s", ErrInvalid, strings.Join(unknown, ", "), l.Path)
	}
	for _, s := range settings {
		table, name := tableOf(s.key)
		values := tree
		if table != "" {
			values, _ = tree[table].(map[string]any) // reading a nil map is fine
		}
		raw, found := values[name]
		if !found {
			continue
		}
		if err := s.assign(&l.file, raw, l.fromFile()); err != nil {
			return err
		}
		l.inFile[s.key] = true
	}
	return validate(l.file, l.fileOriginOf)
}

func (l *Loaded) originOf(key string) origin { return l.origins[key] }

func (l *Loaded) fromFile() origin { return origin{SourceFile, l.Path} }

func (l *Loaded) fileOriginOf(key string) origin {
	if l.inFile[key] {
		return l.fromFile()
	}
	return origin{src: SourceDefault}
}

// Set changes one key from text, validating it as the file would be. Flags use SourceFlag; the
// GUI uses SourceFile so Save keeps the change. A value from a lower layer than the key's
// current source is recorded for that layer but does not change Config: a file edit made
// while MEMDESK_RECALL_K is set is saved, and the env var still wins until it is unset.
//
// Each call validates the whole result, so when raising both import.chunk_max_runes and
// import.chunk_overlap_runes, set the size first (Entries order does).
func (l *Loaded) Set(key, value string, src Source) error {
	s, ok := findSetting(key)
	if !ok {
		return fmt.Errorf("%w: unknown key %q", ErrInvalid, key)
	}
	if src.rank() <= 0 {
		return fmt.Errorf("set %s: cannot set from source %q", key, src)
	}
	o := origin{src: src}
	if src == SourceFile {
		o = l.fromFile()
	}
	raw := s.fromText(value)
	file, effective := l.file, l.Config
	if src == SourceFile {
		if err := setChecked(&file, s, raw, o, l.fileOriginOf); err != nil {
			return err
		}
	}
	overrides := src.rank() >= l.origins[key].src.rank()
	if overrides {
		if err := setChecked(&effective, s, raw, o, l.originOf); err != nil {
			return err
		}
	}
	if src == SourceFile {
		l.file, l.inFile[key] = file, true
	}
	if overrides {
		l.Config, l.origins[key] = effective, o
	}
	return nil
}

// setChecked assigns one key and re-validates the whole layer, blaming o for the new value.
func setChecked(c *Config, s setting, raw any, o origin, originOf func(string) origin) error {
	if err := s.assign(c, raw, o); err != nil {
		return err
	}
	return validate(*c, func(key string) origin {
		if key == s.key {
			return o
		}
		return originOf(key)
	})
}

// Entries lists every key in a stable order with its effective value and source.
func (l *Loaded) Entries() []Entry {
	entries := make([]Entry, 0, len(settings))
	for _, s := range settings {
		o := l.origins[s.key]
		env := s.envs[len(s.envs)-1]
		if o.src == SourceEnv && o.name != "" {
			env = o.name
		}
		entries = append(entries, Entry{Key: s.key, Value: format(s.get(&l.Config)), Source: o.src, Env: env})
	}
	return entries
}

const fileHeader = `# memdesk configuration, shared by the CLI, the GUI and the MCP server.
#
# Precedence, lowest first: built-in defaults, this file, environment variables (each line
# names its variable), command-line flags. Commented-out keys show their default. memdesk
# rewrites this file when you change settings in the GUI; comments you add are not kept.

`

// Save writes the file-layer values atomically: a temp file in the same directory renamed over
// the old one, so a crash never leaves a half-written config for the next start to reject.
func (l *Loaded) Save() error {
	if l.Path == "" {
		return errors.New("save config: no path")
	}
	var b strings.Builder
	b.WriteString(fileHeader)
	current, def := "", Default()
	for _, s := range settings {
		table, name := tableOf(s.key)
		if table != current {
			current = table
			fmt.Fprintf(&b, "\n[%s]\n", table)
		}
		v, prefix := s.get(&l.file), ""
		if !l.inFile[s.key] {
			v, prefix = s.get(&def), "# "
		}
		if d, ok := v.(time.Duration); ok {
			v = format(d) // "5m", not toml's "5m0s"
		}
		// Marshal does TOML's quoting and keeps floats floats (1.0, not 1).
		line, err := toml.Marshal(map[string]any{name: v})
		if err != nil {
			return fmt.Errorf("save config: %s: %w", s.key, err)
		}
		fmt.Fprintf(&b, "%-44s # env %s\n", prefix+strings.TrimSpace(string(line)), s.envs[len(s.envs)-1])
	}
	return writeAtomic(l.Path, []byte(b.String()))
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	// CreateTemp makes the file 0600, which the rename carries over to path.
	f, err := os.CreateTemp(dir, ".config-*.toml.tmp")
	if err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save config %s: %w", path, err)
	}
	return nil
}
