package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeConfig puts content in a fresh config file and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// envOf returns a lookup over a fixed set of variables, as os.LookupEnv would see them.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// sourcesOf returns the keys whose source is not the default.
func sourcesOf(l *Loaded) map[string]Source {
	got := map[string]Source{}
	for _, e := range l.Entries() {
		if e.Source != SourceDefault {
			got[e.Key] = e.Source
		}
	}
	return got
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name        string
		file        string // "" means no file on disk
		env         map[string]string
		want        func(*Config)
		wantSources map[string]Source
	}{
		{
			name:        "missing file gives defaults",
			want:        func(*Config) {},
			wantSources: map[string]Source{},
		},
		{
			name: "file overrides defaults",
			file: "db_path = '/data/m.db'\n[recall]\nk = 25\n[ollama]\nkeep_alive = '1h30m'\nenabled = false\n" +
				"[weights]\nfts = 2\n",
			want: func(c *Config) {
				c.DBPath, c.Recall.K, c.Ollama.KeepAlive, c.Ollama.Enabled, c.Weights.FTS = "/data/m.db", 25, 90*time.Minute, false, 2
			},
			wantSources: map[string]Source{"db_path": SourceFile, "recall.k": SourceFile, "ollama.keep_alive": SourceFile,
				"ollama.enabled": SourceFile, "weights.fts": SourceFile},
		},
		{
			name:        "dotted keys work like tables",
			file:        "recall.k = 7\nfloors.min_jaccard = 0.5\n",
			want:        func(c *Config) { c.Recall.K, c.Floors.MinJaccard = 7, 0.5 },
			wantSources: map[string]Source{"recall.k": SourceFile, "floors.min_jaccard": SourceFile},
		},
		{
			name: "env overrides file",
			file: "[recall]\nk = 25\n[import]\nchunk_max_runes = 1000\n",
			env:  map[string]string{"MEMDESK_RECALL_K": "3", "MEMDESK_OLLAMA_ENABLED": "false", "MEMDESK_MIN_SEMANTIC_SIMILARITY": "0.75"},
			want: func(c *Config) {
				c.Recall.K, c.Ollama.Enabled, c.Floors.MinSemanticSimilarity, c.Import.ChunkMaxRunes = 3, false, 0.75, 1000
			},
			wantSources: map[string]Source{"recall.k": SourceEnv, "ollama.enabled": SourceEnv,
				"floors.min_semantic_similarity": SourceEnv, "import.chunk_max_runes": SourceFile},
		},
		{
			name:        "OLLAMA_HOST is honoured",
			env:         map[string]string{"OLLAMA_HOST": "http://gpu-box:11434"},
			want:        func(c *Config) { c.Ollama.Host = "http://gpu-box:11434" },
			wantSources: map[string]Source{"ollama.host": SourceEnv},
		},
		{
			name:        "MEMDESK_OLLAMA_HOST beats OLLAMA_HOST",
			env:         map[string]string{"OLLAMA_HOST": "0.0.0.0:11434", "MEMDESK_OLLAMA_HOST": "localhost:9999"},
			want:        func(c *Config) { c.Ollama.Host = "localhost:9999" },
			wantSources: map[string]Source{"ollama.host": SourceEnv},
		},
		{
			name:        "an overridden OLLAMA_HOST is not validated",
			env:         map[string]string{"OLLAMA_HOST": "0.0.0.0", "MEMDESK_OLLAMA_HOST": "localhost:9999"},
			want:        func(c *Config) { c.Ollama.Host = "localhost:9999" },
			wantSources: map[string]Source{"ollama.host": SourceEnv},
		},
		{
			name:        "inline tables",
			file:        "ollama = { model = 'nomic-embed-text', enabled = false }\n",
			want:        func(c *Config) { c.Ollama.Model, c.Ollama.Enabled = "nomic-embed-text", false },
			wantSources: map[string]Source{"ollama.model": SourceFile, "ollama.enabled": SourceFile},
		},
		{
			name:        "empty env var counts as unset",
			file:        "[recall]\nk = 25\n",
			env:         map[string]string{"MEMDESK_RECALL_K": ""},
			want:        func(c *Config) { c.Recall.K = 25 },
			wantSources: map[string]Source{"recall.k": SourceFile},
		},
		{
			name:        "env chunk size is checked against the file's overlap",
			file:        "[import]\nchunk_overlap_runes = 300\n",
			env:         map[string]string{"MEMDESK_IMPORT_CHUNK_MAX_RUNES": "600"},
			want:        func(c *Config) { c.Import.ChunkOverlapRunes, c.Import.ChunkMaxRunes = 300, 600 },
			wantSources: map[string]Source{"import.chunk_overlap_runes": SourceFile, "import.chunk_max_runes": SourceEnv},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "absent.toml")
			if tt.file != "" {
				path = writeConfig(t, tt.file)
			}
			got, err := Load(path, envOf(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := Default()
			tt.want(&want)
			if diff := cmp.Diff(want, got.Config); diff != "" {
				t.Errorf("Config mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSources, sourcesOf(got)); diff != "" {
				t.Errorf("sources mismatch (-want +got):\n%s", diff)
			}
			if got.Path != path {
				t.Errorf("Path = %q, want %q", got.Path, path)
			}
		})
	}
}

func TestSetLayers(t *testing.T) {
	path := writeConfig(t, "[recall]\nk = 25\n")
	l, err := Load(path, envOf(map[string]string{"MEMDESK_RECALL_K": "5"}))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		value      string
		src        Source
		wantK      int
		wantSource Source
	}{
		{"7", SourceFlag, 7, SourceFlag},  // flag overrides env
		{"9", SourceEnv, 7, SourceFlag},   // env no longer shows through a flag
		{"11", SourceFile, 7, SourceFlag}, // recorded for Save, still hidden
		{"13", SourceFlag, 13, SourceFlag},
	}
	for _, step := range steps {
		if err := l.Set("recall.k", step.value, step.src); err != nil {
			t.Fatalf("Set(recall.k, %s, %s): %v", step.value, step.src, err)
		}
		if got := l.Config.Recall.K; got != step.wantK {
			t.Errorf("after Set(%s, %s): Recall.K = %d, want %d", step.value, step.src, got, step.wantK)
		}
		if got := sourcesOf(l)["recall.k"]; got != step.wantSource {
			t.Errorf("after Set(%s, %s): source = %q, want %q", step.value, step.src, got, step.wantSource)
		}
	}
	if err := l.Save(); err != nil {
		t.Fatal(err)
	}
	reloaded, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := reloaded.Config.Recall.K; got != 11 {
		t.Errorf("saved recall.k = %d, want 11 (the SourceFile value)", got)
	}
}

func TestSetRejectsAndKeepsState(t *testing.T) {
	tests := []struct {
		name, key, value string
		src              Source
		wantInvalid      bool
		wantIn           []string
	}{
		{"unknown key", "recall.kk", "3", SourceFlag, true, []string{`"recall.kk"`}},
		{"default is not a layer", "recall.k", "3", SourceDefault, false, []string{"recall.k", `"default"`}},
		{"file layer checks chunk size against overlap", "import.chunk_max_runes", "100", SourceFile, true,
			[]string{"import.chunk_overlap_runes = 80", "0..50", "from default"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Load("", nil)
			if err != nil {
				t.Fatal(err)
			}
			err = l.Set(tt.key, tt.value, tt.src)
			if err == nil {
				t.Fatalf("Set(%q, %q, %q) = nil, want error", tt.key, tt.value, tt.src)
			}
			if got := errors.Is(err, ErrInvalid); got != tt.wantInvalid {
				t.Errorf("errors.Is(%v, ErrInvalid) = %v, want %v", err, got, tt.wantInvalid)
			}
			for _, want := range tt.wantIn {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if diff := cmp.Diff(Default(), l.Config); diff != "" {
				t.Errorf("failed Set changed Config (-want +got):\n%s", diff)
			}
			if got := sourcesOf(l); len(got) != 0 {
				t.Errorf("failed Set changed sources: %v", got)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, file string
		wantIn     []string
	}{
		{"top level", "colour = 'blue'\n", []string{"unknown key colour"}},
		{"misspelt in a table", "[ollama]\nhots = 'x:1'\n", []string{"unknown key ollama.hots"}},
		{"unknown table", "[extra]\nx = 1\n", []string{"unknown key extra, extra.x"}},
		{"value below a leaf", "[recall.k]\nx = 1\n", []string{"recall.k.x"}},
		{"quoted key with a dot", "\"recall.k\" = 5\n", []string{`unknown key "recall.k"`}},
		{"table name given a value", "ollama = 1\n", []string{"ollama", "must be a table"}},
		{"array of tables", "[[recall]]\nk = 1\n", []string{"recall", "must be a table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.file)
			_, err := Load(path, nil)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Load error = %v, want ErrInvalid", err)
			}
			for _, want := range append(tt.wantIn, path) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

// A retired key keeps a config file loading; Loaded says which key took over.
func TestRetiredKeys(t *testing.T) {
	path := writeConfig(t, "[floors]\nmin_fts_terms = 2\nfocus_terms = 3\nmin_jaccard = 0.3\n")
	l, err := Load(path, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if want := []string{"floors.min_fts_terms -> floors.min_evidence", "floors.focus_terms -> floors.min_coverage"}; !slices.Equal(l.Retired, want) {
		t.Errorf("Retired = %v, want %v", l.Retired, want)
	}
	if l.Config.Floors.MinJaccard != 0.3 {
		t.Errorf("the file's other keys: min_jaccard = %v, want 0.3", l.Config.Floors.MinJaccard)
	}
}

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		name  string
		src   Source // where the bad value is put
		key   string
		value string // a TOML literal for SourceFile, the raw text otherwise
		// wantIn are substrings the error must contain besides the source; they name the key,
		// show the bad value and state the valid range.
		wantIn []string
	}{
		{"int below range", SourceFile, "recall.k", "0", []string{"recall.k = 0", "an integer in 1..1000"}},
		{"int above range", SourceFile, "import.max_file_mb", "5000", []string{"import.max_file_mb = 5000", "1..4096"}},
		{"string for int", SourceFile, "recall.k", `"ten"`, []string{`recall.k = "ten"`, "1..1000"}},
		{"float for int", SourceFile, "import.max_file_mb", "1.5", []string{"import.max_file_mb = 1.5", "1..4096"}},
		{"float above range", SourceFile, "floors.min_jaccard", "1.5", []string{"floors.min_jaccard = 1.5", "a number in 0..1"}},
		{"negative weight", SourceFile, "weights.fts", "-1", []string{"weights.fts = -1", "0..10"}},
		{"bool for float", SourceFile, "weights.entity", "true", []string{"weights.entity = true", "0..10"}},
		{"negative duration", SourceFile, "ollama.keep_alive", `"-1s"`, []string{`ollama.keep_alive = "-1s"`, "duration >= 0"}},
		{"unparsable duration", SourceFile, "ollama.keep_alive", `"soon"`, []string{`"soon"`, "duration"}},
		{"int for duration", SourceFile, "ollama.keep_alive", "300", []string{"ollama.keep_alive = 300", "duration"}},
		{"string for bool", SourceFile, "ollama.enabled", `"yes"`, []string{`ollama.enabled = "yes"`, "true or false"}},
		{"empty host", SourceFile, "ollama.host", `""`, []string{`ollama.host = ""`, "host:port"}},
		{"host without port", SourceFile, "ollama.host", `"localhost"`, []string{`"localhost"`, "host:port"}},
		{"host with bad port", SourceFile, "ollama.host", `"localhost:http"`, []string{`"localhost:http"`, "host:port"}},
		{"non-http URL", SourceFile, "ollama.host", `"ftp://box"`, []string{`"ftp://box"`, "http(s) URL"}},
		{"empty model", SourceFile, "ollama.model", `""`, []string{`ollama.model = ""`, "non-empty"}},
		{"int for path", SourceFile, "db_path", "3", []string{"db_path = 3", "a string"}},
		{"overlap above half the chunk", SourceFile, "import.chunk_overlap_runes", "401",
			[]string{"import.chunk_overlap_runes = 401", "0..400", "import.chunk_max_runes = 800"}},
		{"env not an int", SourceEnv, "recall.k", "abc", []string{`recall.k = "abc"`, "1..1000", "env MEMDESK_RECALL_K"}},
		{"env NaN", SourceEnv, "floors.min_jaccard", "NaN", []string{"floors.min_jaccard = NaN", "0..1", "env MEMDESK_MIN_JACCARD"}},
		{"env not a bool", SourceEnv, "ollama.enabled", "maybe", []string{`"maybe"`, "true or false", "env MEMDESK_OLLAMA_ENABLED"}},
		{"env bad host via OLLAMA_HOST", SourceEnv, "ollama.host", "not a host", []string{`"not a host"`, "env OLLAMA_HOST"}},
		{"flag above range", SourceFlag, "recall.k", "2000", []string{"recall.k = 2000", "1..1000", "from flag"}},
		{"flag duration without unit", SourceFlag, "ollama.keep_alive", "5", []string{`ollama.keep_alive = "5"`, "duration"}},
		{"flag above coverage range", SourceFlag, "floors.min_coverage", "1.5", []string{"floors.min_coverage = 1.5", "0..1"}},
		{"flag below evidence range", SourceFlag, "floors.min_evidence", "-11", []string{"floors.min_evidence = -11", "-10..10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := findSetting(tt.key)
			if !ok {
				t.Fatalf("no setting %q", tt.key)
			}
			var (
				err       error
				path      = filepath.Join(t.TempDir(), "absent.toml")
				wantWhere string
			)
			switch tt.src {
			case SourceFile:
				table, name := tableOf(tt.key)
				content := name + " = " + tt.value + "\n"
				if table != "" {
					content = "[" + table + "]\n" + content
				}
				path = writeConfig(t, content)
				_, err = Load(path, nil)
				wantWhere = "from file " + path
			case SourceEnv:
				_, err = Load(path, envOf(map[string]string{s.envs[0]: tt.value}))
				wantWhere = "from env " + s.envs[0]
			case SourceFlag:
				var l *Loaded
				if l, err = Load(path, nil); err != nil {
					t.Fatal(err)
				}
				err = l.Set(tt.key, tt.value, SourceFlag)
				wantWhere = "from flag"
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			for _, want := range append(tt.wantIn, wantWhere) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestSyntaxErrorReportsLine(t *testing.T) {
	tests := []struct{ name, file string }{
		{"double equals", "[recall]\nk = 5\nk = = 6\n"},
		{"unterminated string", "[ollama]\nhost = 'x:1'\nmodel = 'bge\n"},
		{"key without value", "db_path = ''\n[recall]\nk\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.file)
			_, err := Load(path, nil)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Load error = %v, want ErrInvalid", err)
			}
			for _, want := range []string{path, "line 3"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestUnreadableFileIsNotInvalid(t *testing.T) {
	dir := t.TempDir() // a directory where a file is expected cannot be read
	_, err := Load(dir, nil)
	if err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("Load(directory) error = %v, want an I/O error that is not ErrInvalid", err)
	}
}

func TestSaveRoundTrip(t *testing.T) {
	path := writeConfig(t, "db_path = 'C:\\Users\\me\\\"odd\"\\m.db'\n[recall]\nk = 20\n[weights]\nfts = 3.0\n")
	l, err := Load(path, envOf(map[string]string{"MEMDESK_WEIGHT_FTS": "2", "MEMDESK_OLLAMA_MODEL": "nomic"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []struct {
		key, value string
		src        Source
	}{
		{"floors.min_jaccard", "0.3", SourceFlag},
		{"weights.entity", "1", SourceFile},
		{"ollama.keep_alive", "90s", SourceFile},
		{"ollama.enabled", "false", SourceFile},
	} {
		if err := l.Set(set.key, set.value, set.src); err != nil {
			t.Fatalf("Set(%s): %v", set.key, err)
		}
	}
	// Saving somewhere new also checks the directory is created private.
	l.Path = filepath.Join(t.TempDir(), "fresh", "memdesk", "config.toml")
	if err := l.Save(); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if err := l.Save(); err != nil {
		t.Fatalf("second Save over the first: %v", err)
	}

	got, err := Load(l.Path, nil)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	want := Default()
	want.DBPath = `C:\Users\me\"odd"\m.db`
	want.Recall.K = 20
	want.Weights.FTS = 3 // the file's value, not the env's 2
	want.Weights.Entity = 1
	want.Ollama.KeepAlive = 90 * time.Second
	want.Ollama.Enabled = false
	if diff := cmp.Diff(want, got.Config); diff != "" {
		t.Errorf("reloaded Config mismatch (-want +got):\n%s", diff)
	}
	wantSources := map[string]Source{"db_path": SourceFile, "recall.k": SourceFile, "weights.fts": SourceFile,
		"weights.entity": SourceFile, "ollama.keep_alive": SourceFile, "ollama.enabled": SourceFile}
	if diff := cmp.Diff(wantSources, sourcesOf(got)); diff != "" {
		t.Errorf("reloaded sources mismatch (-want +got):\n%s", diff)
	}

	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# memdesk configuration", "keep_alive = \"1m30s\"", "# model = \"qwen3-embedding:0.6b\"", "fts = 3.0", "entity = 1.0"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("saved file does not contain %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "nomic") || strings.Contains(string(data), "0.3") {
		t.Errorf("saved file leaks an env or flag value:\n%s", data)
	}
	entries, err := os.ReadDir(filepath.Dir(l.Path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("config dir holds %d entries, want only config.toml (no temp files left)", len(entries))
	}

	if runtime.GOOS == "windows" {
		return // no Unix permission bits
	}
	for _, check := range []struct {
		path string
		want os.FileMode
	}{{l.Path, 0o600}, {filepath.Dir(l.Path), 0o700}} {
		info, err := os.Stat(check.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != check.want {
			t.Errorf("mode of %s = %o, want %o", check.path, got, check.want)
		}
	}
}

func TestSaveWithoutPath(t *testing.T) {
	l, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Save(); err == nil {
		t.Error("Save with no path = nil, want error")
	}
}

func TestEntries(t *testing.T) {
	path := writeConfig(t, "[recall]\nk = 25\n[floors]\nmin_jaccard = 0.25\n")
	l, err := Load(path, envOf(map[string]string{"OLLAMA_HOST": "http://gpu:11434", "MEMDESK_WEIGHT_FTS": "1.5"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Set("ollama.keep_alive", "2h", SourceFlag); err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{"db_path", "", SourceDefault, "MEMDESK_DB"},
		{"ollama.host", "http://gpu:11434", SourceEnv, "OLLAMA_HOST"},
		{"ollama.model", "qwen3-embedding:0.6b", SourceDefault, "MEMDESK_OLLAMA_MODEL"},
		{"ollama.keep_alive", "2h", SourceFlag, "MEMDESK_OLLAMA_KEEP_ALIVE"},
		{"ollama.enabled", "true", SourceDefault, "MEMDESK_OLLAMA_ENABLED"},
		{"recall.k", "25", SourceFile, "MEMDESK_RECALL_K"},
		{"floors.min_evidence", "-1.4", SourceDefault, "MEMDESK_MIN_EVIDENCE"},
		{"floors.hit_evidence", "0.5", SourceDefault, "MEMDESK_HIT_EVIDENCE"},
		{"floors.min_coverage", "0.25", SourceDefault, "MEMDESK_MIN_COVERAGE"},
		{"floors.coverage_growth", "0.05", SourceDefault, "MEMDESK_COVERAGE_GROWTH"},
		{"floors.min_jaccard", "0.25", SourceFile, "MEMDESK_MIN_JACCARD"},
		{"floors.min_semantic_similarity", "0.5", SourceDefault, "MEMDESK_MIN_SEMANTIC_SIMILARITY"},
		{"weights.fts", "1.5", SourceEnv, "MEMDESK_WEIGHT_FTS"},
		{"weights.entity", "0.3", SourceDefault, "MEMDESK_WEIGHT_ENTITY"},
		{"weights.semantic", "1.5", SourceDefault, "MEMDESK_WEIGHT_SEMANTIC"},
		{"import.max_file_mb", "20", SourceDefault, "MEMDESK_IMPORT_MAX_FILE_MB"},
		{"import.chunk_max_runes", "800", SourceDefault, "MEMDESK_IMPORT_CHUNK_MAX_RUNES"},
		{"import.chunk_overlap_runes", "80", SourceDefault, "MEMDESK_IMPORT_CHUNK_OVERLAP_RUNES"},
	}
	if diff := cmp.Diff(want, l.Entries()); diff != "" {
		t.Errorf("Entries mismatch (-want +got):\n%s", diff)
	}
}

func TestEntriesValuesSetBack(t *testing.T) {
	// Every displayed value must be accepted by Set, or the GUI could not write back what it
	// shows.
	l, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries() {
		if err := l.Set(e.Key, e.Value, SourceFlag); err != nil {
			t.Errorf("Set(%q, %q) from Entries: %v", e.Key, e.Value, err)
		}
	}
	if diff := cmp.Diff(Default(), l.Config); diff != "" {
		t.Errorf("Config changed by setting its own values (-want +got):\n%s", diff)
	}
}

func TestDefaultPath(t *testing.T) {
	got := DefaultPath(filepath.Join("home", "u", ".config"))
	want := filepath.Join("home", "u", ".config", "memdesk", "config.toml")
	if got != want {
		t.Errorf("DefaultPath = %q, want %q", got, want)
	}
}

// FuzzLoadSave checks that any file Load accepts survives Save and a second Load unchanged,
// which is what lets the GUI rewrite a hand-edited file safely.
func FuzzLoadSave(f *testing.F) {
	for _, seed := range []string{
		"",
		"db_path = 'C:\\Users\\me\\m.db'\n[recall]\nk = 25\n",
		"db_path = \"tab\\there\\u0001\"\n",
		"[ollama]\nhost = 'https://x:1'\nkeep_alive = '1h30m5s'\nenabled = false\n",
		"[weights]\nfts = 1e-3\nentity = 10\n[import]\nchunk_max_runes = 20000\nchunk_overlap_runes = 10000\n",
		"recall.k = 0\n",
		"[ollama\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		first, err := Load(path, nil)
		if err != nil {
			return
		}
		first.Path = filepath.Join(dir, "saved.toml")
		if err := first.Save(); err != nil {
			t.Fatalf("Save: %v", err)
		}
		second, err := Load(first.Path, nil)
		if err != nil {
			saved, _ := os.ReadFile(first.Path)
			t.Fatalf("reloading the saved file: %v\n%s", err, saved)
		}
		if diff := cmp.Diff(first.Config, second.Config); diff != "" {
			t.Errorf("Config changed by Save and Load (-first +second):\n%s", diff)
		}
		if diff := cmp.Diff(first.Entries(), second.Entries()); diff != "" {
			t.Errorf("Entries changed by Save and Load (-first +second):\n%s", diff)
		}
	})
}
