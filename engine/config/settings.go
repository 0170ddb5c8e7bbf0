package config

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Config is the effective configuration as plain values.
type Config struct {
	// DBPath is empty when the caller should use its default path in the data dir.
	DBPath  string        `json:"db_path"`
	Ollama  OllamaConfig  `json:"ollama"`
	Recall  RecallConfig  `json:"recall"`
	Floors  FloorsConfig  `json:"floors"`
	Weights WeightsConfig `json:"weights"`
	Import  ImportConfig  `json:"import"`
}

type OllamaConfig struct {
	Host      string        `json:"host"`
	Model     string        `json:"model"`
	KeepAlive time.Duration `json:"keep_alive"`
	Enabled   bool          `json:"enabled"`
}

type RecallConfig struct {
	K int `json:"k"`
}

// FloorsConfig holds the minimum evidence a hit needs from each leg to be kept.
type FloorsConfig struct {
	// MinEvidence is the significance a query's best match needs for recall to answer at
	// all: -ln of how many texts of the scope could match as well by chance (-1.4: up to
	// four; -10 answers nearly every query).
	MinEvidence float64 `json:"min_evidence"`
	// HitEvidence is the share of the store's chance level each hit needs (0.5).
	HitEvidence float64 `json:"hit_evidence"`
	// MinCoverage is the share of one sentence of the query, its words weighed by how
	// specific they are in general language, that some text must hold for recall to answer
	// (0.25; 0 disables).
	MinCoverage float64 `json:"min_coverage"`
	// CoverageGrowth is how much that share rises each time the searched scope grows by a
	// factor of e past 1,000 texts (0.05; 0: never).
	CoverageGrowth float64 `json:"coverage_growth"`
	MinJaccard     float64 `json:"min_jaccard"`
	// MinSemanticSimilarity is the lowest semantic floor: each embedding model's measured
	// noise floor raises it (doc/semantic.md); 0 disables the floor.
	MinSemanticSimilarity float64 `json:"min_semantic_similarity"`
}

// WeightsConfig holds each leg's weight in fusion.
type WeightsConfig struct {
	FTS      float64 `json:"fts"`
	Entity   float64 `json:"entity"`
	Semantic float64 `json:"semantic"`
}

type ImportConfig struct {
	MaxFileMB         int `json:"max_file_mb"`
	ChunkMaxRunes     int `json:"chunk_max_runes"`
	ChunkOverlapRunes int `json:"chunk_overlap_runes"`
}

// Default returns the built-in values, used wherever neither file, env nor flag says otherwise.
func Default() Config {
	return Config{
		Ollama:  OllamaConfig{Host: "127.0.0.1:11434", Model: "qwen3-embedding:0.6b", KeepAlive: 5 * time.Minute, Enabled: true},
		Recall:  RecallConfig{K: 10},
		Floors:  FloorsConfig{MinEvidence: -1.4, HitEvidence: 0.5, MinCoverage: 0.25, CoverageGrowth: 0.05, MinJaccard: 0.2, MinSemanticSimilarity: 0.5},
		Weights: WeightsConfig{FTS: 1.0, Entity: 0.3, Semantic: 1.5},
		Import:  ImportConfig{MaxFileMB: 20, ChunkMaxRunes: 800, ChunkOverlapRunes: 80},
	}
}

// setting describes one key. The table below is the single list every other part of the
// package (file, env, Set, Entries, Save) walks, so adding a key is one line here.
type setting struct {
	key  string
	envs []string          // a later variable wins over an earlier one
	ptr  func(*Config) any // the field: *string, *bool, *int, *float64 or *time.Duration
	rule rule
}

// rule reports whether v (already of the field's Go type, or nil after a type mismatch) is
// acceptable, and describes what is. It sees the whole config because the chunk overlap's
// bound depends on the chunk size.
type rule func(v any, c Config) (ok bool, want string)

// settings is read-only; its order is the order of Entries and of the saved file.
var settings = []setting{
	{"db_path", []string{"MEMDESK_DB"}, func(c *Config) any { return &c.DBPath }, anyString},
	// OLLAMA_HOST is honoured so a user's existing Ollama setup just works; the memdesk
	// variable comes later so it can point memdesk elsewhere without disturbing Ollama.
	{"ollama.host", []string{"OLLAMA_HOST", "MEMDESK_OLLAMA_HOST"}, func(c *Config) any { return &c.Ollama.Host }, hostRule},
	{"ollama.model", []string{"MEMDESK_OLLAMA_MODEL"}, func(c *Config) any { return &c.Ollama.Model }, nonEmpty},
	{"ollama.keep_alive", []string{"MEMDESK_OLLAMA_KEEP_ALIVE"}, func(c *Config) any { return &c.Ollama.KeepAlive }, nonNegativeDuration},
	{"ollama.enabled", []string{"MEMDESK_OLLAMA_ENABLED"}, func(c *Config) any { return &c.Ollama.Enabled }, anyBool},
	{"recall.k", []string{"MEMDESK_RECALL_K"}, func(c *Config) any { return &c.Recall.K }, intIn(1, 1000)},
	{"floors.min_evidence", []string{"MEMDESK_MIN_EVIDENCE"}, func(c *Config) any { return &c.Floors.MinEvidence }, floatIn(-10, 10)},
	{"floors.hit_evidence", []string{"MEMDESK_HIT_EVIDENCE"}, func(c *Config) any { return &c.Floors.HitEvidence }, floatIn(0, 10)},
	{"floors.min_coverage", []string{"MEMDESK_MIN_COVERAGE"}, func(c *Config) any { return &c.Floors.MinCoverage }, floatIn(0, 1)},
	{"floors.coverage_growth", []string{"MEMDESK_COVERAGE_GROWTH"}, func(c *Config) any { return &c.Floors.CoverageGrowth }, floatIn(0, 1)},
	{"floors.min_jaccard", []string{"MEMDESK_MIN_JACCARD"}, func(c *Config) any { return &c.Floors.MinJaccard }, floatIn(0, 1)},
	{"floors.min_semantic_similarity", []string{"MEMDESK_MIN_SEMANTIC_SIMILARITY"}, func(c *Config) any { return &c.Floors.MinSemanticSimilarity }, floatIn(0, 1)},
	{"weights.fts", []string{"MEMDESK_WEIGHT_FTS"}, func(c *Config) any { return &c.Weights.FTS }, floatIn(0, 10)},
	{"weights.entity", []string{"MEMDESK_WEIGHT_ENTITY"}, func(c *Config) any { return &c.Weights.Entity }, floatIn(0, 10)},
	{"weights.semantic", []string{"MEMDESK_WEIGHT_SEMANTIC"}, func(c *Config) any { return &c.Weights.Semantic }, floatIn(0, 10)},
	{"import.max_file_mb", []string{"MEMDESK_IMPORT_MAX_FILE_MB"}, func(c *Config) any { return &c.Import.MaxFileMB }, intIn(1, 4096)},
	{"import.chunk_max_runes", []string{"MEMDESK_IMPORT_CHUNK_MAX_RUNES"}, func(c *Config) any { return &c.Import.ChunkMaxRunes }, intIn(100, 20000)},
	{"import.chunk_overlap_runes", []string{"MEMDESK_IMPORT_CHUNK_OVERLAP_RUNES"}, func(c *Config) any { return &c.Import.ChunkOverlapRunes }, overlapRule},
}

// retired are keys earlier versions read and this one ignores, with the key that took over:
// a config file that still has one keeps working, and the CLI says the setting is gone.
var retired = map[string]string{
	"floors.min_fts_terms": "floors.min_evidence",
	"floors.focus_terms":   "floors.min_coverage",
	"floors.focus_share":   "floors.min_coverage",
}

func findSetting(key string) (setting, bool) {
	for _, s := range settings {
		if s.key == key {
			return s, true
		}
	}
	return setting{}, false
}

// tableOf returns the TOML table a key lives in ("" for top-level keys) and its name there.
func tableOf(key string) (table, name string) {
	if table, name, nested := strings.Cut(key, "."); nested {
		return table, name
	}
	return "", key
}

func anyString(v any, _ Config) (bool, string) { _, ok := v.(string); return ok, "a string" }
func anyBool(v any, _ Config) (bool, string)   { _, ok := v.(bool); return ok, "true or false" }

func nonEmpty(v any, _ Config) (bool, string) {
	s, ok := v.(string)
	return ok && s != "", "a non-empty string"
}

func nonNegativeDuration(v any, _ Config) (bool, string) {
	d, ok := v.(time.Duration)
	return ok && d >= 0, `a duration >= 0 such as "5m" or "90s"`
}

func hostRule(v any, _ Config) (bool, string) {
	s, ok := v.(string)
	return ok && validHost(s), `host:port or an http(s) URL, such as "127.0.0.1:11434"`
}

func overlapRule(v any, c Config) (bool, string) {
	n, ok := v.(int)
	half := c.Import.ChunkMaxRunes / 2
	return ok && n >= 0 && n <= half, fmt.Sprintf(
		"an integer in 0..%d (at most half of import.chunk_max_runes = %d)", half, c.Import.ChunkMaxRunes)
}

func intIn(lo, hi int) rule {
	return func(v any, _ Config) (bool, string) {
		n, ok := v.(int)
		return ok && n >= lo && n <= hi, fmt.Sprintf("an integer in %d..%d", lo, hi)
	}
}

func floatIn(lo, hi float64) rule {
	return func(v any, _ Config) (bool, string) {
		f, ok := v.(float64)
		return ok && f >= lo && f <= hi, fmt.Sprintf("a number in %g..%g", lo, hi) // NaN fails both comparisons
	}
}

func validHost(s string) bool {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		u, err := url.Parse(s)
		return err == nil && u.Host != ""
	}
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}

// fromText turns env or flag text into the TOML value the file would hold, so both take the
// same decode and validation path. Text that does not parse stays a string and is reported
// as the wrong type.
func (s setting) fromText(text string) any {
	switch s.ptr(&Config{}).(type) {
	case *bool:
		if b, err := strconv.ParseBool(text); err == nil {
			return b
		}
	case *int:
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n
		}
	case *float64:
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return f
		}
	}
	return text
}

// decode converts a TOML value to the field's Go type; ok is false on a type mismatch.
func (s setting) decode(raw any) (v any, ok bool) {
	switch s.ptr(&Config{}).(type) {
	case *string:
		v, ok = raw.(string)
	case *bool:
		v, ok = raw.(bool)
	case *time.Duration:
		if text, isText := raw.(string); isText {
			d, err := time.ParseDuration(text)
			v, ok = d, err == nil
		}
	case *int:
		if n, isInt := raw.(int64); isInt && n >= math.MinInt && n <= math.MaxInt {
			v, ok = int(n), true
		}
	case *float64:
		switch n := raw.(type) {
		case float64:
			v, ok = n, true
		case int64: // `fts = 1` is an integer in TOML but clearly means 1.0
			v, ok = float64(n), true
		}
	}
	return v, ok
}

// assign decodes raw, checks it against c, and stores it in c. The table lists a key before any
// key whose range depends on it, so within one layer the check sees the right bound; validate
// repeats the checks once a layer is complete to catch bounds changed by a later layer.
func (s setting) assign(c *Config, raw any, from origin) error {
	v, decoded := s.decode(raw)
	if ok, want := s.rule(v, *c); !decoded || !ok {
		return invalidValue(s.key, raw, from, want)
	}
	// decode returned exactly the field's type, so Set cannot panic.
	reflect.ValueOf(s.ptr(c)).Elem().Set(reflect.ValueOf(v))
	return nil
}

func (s setting) get(c *Config) any { return reflect.ValueOf(s.ptr(c)).Elem().Interface() }

// validate checks every key of a complete layer, catching cross-key rules such as an env
// chunk size that leaves the file's overlap too large.
func validate(c Config, originOf func(key string) origin) error {
	for _, s := range settings {
		v := s.get(&c)
		if ok, want := s.rule(v, c); !ok {
			return invalidValue(s.key, v, originOf(s.key), want)
		}
	}
	return nil
}

// invalidValue names the key, the bad value, where it came from and what is accepted. Strings
// are quoted so empty and space-padded values are visible.
func invalidValue(key string, v any, from origin, want string) error {
	shown := fmt.Sprint(v)
	switch v.(type) {
	case string, time.Duration:
		shown = strconv.Quote(format(v))
	}
	return fmt.Errorf("%w: %s = %s (from %s): want %s", ErrInvalid, key, shown, from, want)
}

// format renders a value the way a user would type it in a flag or env var.
func format(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case time.Duration:
		// "5m" rather than "5m0s", matching how the default is documented.
		s := v.String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		return s
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
