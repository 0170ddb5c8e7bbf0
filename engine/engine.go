// Package engine is memdesk's one API: remembering facts, importing knowledge, recalling
// both, and the maintenance actions behind the settings page. The CLI, the GUI and the MCP
// server all hold an *Engine and exchange the plain request and result structs defined here,
// so every surface behaves the same way.
//
// Recall orchestrates: it reads the query once (leg.PlanQuery), gathers candidates and their
// raw evidence from each source through the three legs of package leg (lexical over the two
// full-text indexes, entity over extracted entities, semantic over embeddings), hands them to
// package rank, the one place that applies floors, fuses and orders, and makes the hits.
// What the legs search is kept here: the vector index and its catch-up (vecindex.go), the
// embedding client and the model's calibration (semantic.go, calibration.go), the entity
// extractor and its sweep (entities.go); the word index's in-memory copy is package lexicon.
// Pure pieces live in sub-packages (query, rank, ingest). Sync between a person's devices
// is package devsync; the engine exports after each write, replays in Run, and offers
// SyncInit, SyncNow and SyncStatus (sync.go).
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/memdesk/memdesk/engine/analysis"
	"github.com/memdesk/memdesk/engine/devsync"
	"github.com/memdesk/memdesk/engine/entity"
	"github.com/memdesk/memdesk/engine/ingest"
	"github.com/memdesk/memdesk/engine/leg"
	"github.com/memdesk/memdesk/engine/lexicon"
	"github.com/memdesk/memdesk/engine/rank"
	"github.com/memdesk/memdesk/store"
)

// Sentinel errors at the engine's boundary; every surface maps them to its medium.
var (
	// ErrNotFound: the fact or document id does not exist.
	ErrNotFound = store.ErrNotFound
	// ErrDuplicate: the change would make two active facts of one space say the same thing.
	ErrDuplicate = errors.New("duplicate")
	// ErrBadRequest: the request itself is wrong (empty query, unknown action, bad source).
	ErrBadRequest = errors.New("bad request")
	// ErrDamagedIndex: a full-text index is damaged; the stored text is not, and
	// `memdesk admin rebuild-index` makes the index anew from it.
	ErrDamagedIndex = errors.New("the search index is damaged")
	// ErrDamagedStore: a page of the stored memories or documents themselves is damaged;
	// `memdesk admin salvage` writes out every memory that can still be read.
	ErrDamagedStore = errors.New("part of the database file is damaged")
)

// damaged words an SQLite corruption error: what broke and the repair that works. Only when
// the stored text reads whole is it an index, which rebuild-index makes anew; damage in the
// tables themselves left rebuild-index failing every time after advice that said nothing
// was lost.
func (e *Engine) damaged(ctx context.Context, err error) error {
	if !store.IsCorrupt(err) {
		return err
	}
	readable, rerr := e.st.TablesReadable(context.WithoutCancel(ctx))
	if rerr == nil && readable {
		return fmt.Errorf("%w (%v): run `memdesk admin rebuild-index` to rebuild it from your stored text; nothing you stored is lost", ErrDamagedIndex, err)
	}
	return damagedStore(err)
}

// damagedStore words damage in the stored text itself, with the command that reads out what
// is left.
func damagedStore(err error) error {
	return fmt.Errorf("%w (%v): run `memdesk admin salvage --to memories.md` to write out every memory that can still be read, then `memdesk --db NEW.db memories import memories.md` into a new database", ErrDamagedStore, err)
}

// Weights scale each leg's score in fusion (see package rank).
type Weights = rank.Weights

// LexicalMix weighs the two full-text indexes inside the lexical leg.
type LexicalMix = rank.LexicalMix

// Floors are the absolute per-leg bars a candidate must reach on its raw score; 0 disables
// one (see package rank).
type Floors = rank.Floors

// DefaultFloors are the strict floors recall applies when Options.Floors is nil.
func DefaultFloors() Floors { return rank.DefaultFloors() }

// Options configure an Engine. The zero value works: defaults fill what is unset.
type Options struct {
	Logger  *slog.Logger
	Import  ingest.Limits
	Weights Weights
	// LexicalMix: zero means the measured default (see doc/retrieval.md).
	LexicalMix LexicalMix
	// Floors are the strict per-leg floors; nil means DefaultFloors.
	Floors *Floors
	// DefaultK is the number of hits a recall returns when the request does not say.
	DefaultK int
	// Entities is an already loaded extractor to share (tests, several engines in one
	// process); nil means LoadEntities loads one.
	Entities *entity.Extractor
	// Now is the clock relative time words ("yesterday", "上周") are read against.
	Now func() time.Time
	// SemanticState reports the semantic leg's state for results ("off" when nil).
	SemanticState func() string
	// Embedder is the semantic leg's backend; nil switches the leg off. Recall never waits
	// for it: until it is Ready, the lexical and entity legs answer alone.
	Embedder Embedder
	// SemanticBudget bounds what one recall of a process without Run (a one-shot command)
	// waits for the embedding model in all: the model's measurement when none is stored yet,
	// then the query's embedding. Zero means queryEmbedTimeout (1 s). Under Run a recall
	// never waits for the measurement, and its query embedding has its own bound.
	SemanticBudget time.Duration
	// TraceSQL, when set, is told every SQL statement the store runs (diagnostics, tests).
	TraceSQL func(sql string)
	// BusyTimeout is how long a write waits for another process's write lock before it
	// reports "database is locked"; zero means the store's default (10 s).
	BusyTimeout time.Duration
	// CreateDirs lets Open create the database's missing folders; off, a missing folder
	// is store.ErrNoDirectory (see store.Options.CreateDirs).
	CreateDirs bool
	// SyncClock is the physical clock of device sync (its hybrid logical clock and the
	// bound on changes from the future); nil means time.Now. Tests of devices with skewed
	// clocks, or offline for a week, set it.
	SyncClock func() time.Time
	// SyncPoll is how often Run looks at the sync folder for other devices' changes;
	// zero means 2 s.
	SyncPoll time.Duration
	// PDFCacheDir keeps PDFium compiled between runs, so a process's first PDF does not wait
	// seconds for the compiler; "" compiles it anew in each process.
	PDFCacheDir string
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Weights == (Weights{}) {
		o.Weights = Weights{FTS: 1, Entity: 0.3, Semantic: 1.5}
	}
	if o.LexicalMix == (LexicalMix{}) {
		o.LexicalMix = LexicalMix{Trigram: 0.25, Words: 1}
	}
	if o.Floors == nil {
		f := DefaultFloors()
		o.Floors = &f
	}
	if o.DefaultK <= 0 {
		o.DefaultK = 10
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SyncClock == nil {
		o.SyncClock = time.Now
	}
	if o.SyncPoll <= 0 {
		o.SyncPoll = syncPollDefault
	}
	if o.SemanticBudget <= 0 {
		o.SemanticBudget = queryEmbedTimeout
	}
	if o.SemanticState == nil {
		o.SemanticState = func() string { return "off" }
	}
	return o
}

// Engine is an open memdesk database with its retrieval machinery. It is safe for
// concurrent use.
type Engine struct {
	st    *store.Store
	opts  Options
	log   *slog.Logger
	admin map[string]adminAction

	ents     atomic.Pointer[entity.Extractor] // nil until loaded
	sweeping atomic.Bool                      // an entity sweep pass is running
	work     atomic.Pointer[Work]             // what Run is doing; nil when idle
	// entitiesWanted wakes Run's entity sweep when a fact was stored pending.
	entitiesWanted chan struct{}
	// compactWanted wakes Run's compaction of the search indexes after writes.
	compactWanted chan struct{}
	// embedWanted wakes Run's vector catch-up when a write stored texts to embed.
	embedWanted chan struct{}
	// vecProgress is the last count of the current space's vectors (vectorProgress), for
	// a state that says "ready" only when every text has its vector.
	vecProgress atomic.Pointer[vectorProgress]
	vectors     vectorIndex    // the semantic leg's in-memory index
	lex         *lexicon.Index // the lexical leg's in-memory copy of the word index
	vocab       vocabulary     // which terms the word index holds, for spelling suggestions
	// parser reads imported files; it starts PDFium on the first PDF and keeps it for the
	// rest of the process, since starting it costs seconds.
	parser *ingest.Parser
	// slowModel is when (UnixNano) a query embedding last missed its bound; 0 when the
	// last one was on time. See slowEmbedTimeout.
	slowModel atomic.Int64
	// calib holds what was measured of each vector space's model (calibration.go);
	// semanticRunning says Run keeps the semantic leg's work going in the background.
	calib           calibrations
	semanticRunning atomic.Bool
	// embedPage is how many texts one catch-up page embeds and stores: embedPageSize, less
	// in tests that need several pages of a few rows.
	embedPage int
	// sync exports and replays the sync log between devices (package devsync).
	sync *devsync.Syncer
}

// Open opens the database at path, creating and migrating it as needed.
func Open(ctx context.Context, path string, opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	st, err := store.Open(ctx, path, store.Options{Words: leg.IndexWords, WordCount: analysis.Length,
		WordsVersion: analysis.Version, Substrings: leg.IndexSubstrings, SubstringsVersion: leg.SubstringsVersion, TraceSQL: opts.TraceSQL, BusyTimeout: opts.BusyTimeout,
		OnUpgrade: func(from, to int) {
			// Warn: the CLI shows warnings only, and a person waiting on a large store should know why.
			opts.Logger.Warn("upgrading the database for this version of memdesk; this runs once and takes a few seconds on a large store",
				"path", path, "from_schema", from, "to_schema", to)
		},
		CreateDirs: opts.CreateDirs, SyncClock: opts.SyncClock})
	if err != nil {
		return nil, err
	}
	e := &Engine{st: st, opts: opts, log: opts.Logger, lex: lexicon.NewWithCopy(st, st), entitiesWanted: make(chan struct{}, 1),
		compactWanted: make(chan struct{}, 1), embedWanted: make(chan struct{}, 1),
		parser: ingest.NewParser(opts.PDFCacheDir), embedPage: embedPageSize}
	e.vectors.log = e.log
	e.sync = e.newSyncer()
	if st.ReadOnly() {
		// Warn: the CLI shows warnings only, and a person whose change is refused later
		// should have been told why at the start.
		e.log.Warn("this user cannot write the database, so it is open read-only: memories can be searched, listed and exported, not changed", "path", st.Path())
	} else if err := st.PruneChanges(ctx); err != nil {
		e.log.Warn("change log not pruned", "err", err)
	}
	if opts.Entities != nil {
		e.ents.Store(opts.Entities)
	}
	e.admin = e.adminActions()
	return e, nil
}

// Close releases the database.
func (e *Engine) Close() error {
	// The semantic index may be catching up in the background, and a model being measured:
	// both read the store, and a measurement writes it.
	e.vectors.close()
	e.calib.close()
	// A process that loaded a large store's owners whole leaves their copy for the next one
	// (a CLI recall starts from it in 10 ms instead of 260). Bounded: a writer holding the
	// database only costs the next process that load.
	ctx, cancel := context.WithTimeout(context.Background(), lexiconCopyWait)
	e.saveLexiconCopy(ctx)
	cancel()
	// PDFium holds no data of the user's, so failing to close it is only logged: the
	// database's error is the one that matters.
	if err := e.parser.Close(); err != nil {
		e.log.Warn("close PDF reader", "err", err)
	}
	if err := e.st.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// lexiconCopyWait bounds how long Close waits to save the word index's owner tables.
const lexiconCopyWait = 2 * time.Second

// saveLexiconCopy saves the word index's copy of its owner tables when it holds a state
// worth saving (lexicon.Index.CopyWanted). A failure is logged: the copy is a cache.
func (e *Engine) saveLexiconCopy(ctx context.Context) {
	if e.st.ReadOnly() || !e.lex.CopyWanted() {
		return
	}
	if err := e.lex.SaveCopy(ctx); err != nil {
		e.log.Debug("the word index's owner tables were not saved; the next process reads them whole", "err", err)
	}
}

// Path is the database file the engine works on.
func (e *Engine) Path() string { return e.st.Path() }

// Created reports whether Open created the database file.
func (e *Engine) Created() bool { return e.st.Created() }

// Stats summarizes what the database holds.
type Stats struct {
	Path            string `json:"path"`
	FactsActive     int    `json:"facts_active"`
	FactsSuperseded int    `json:"facts_superseded"`
	FactsDeleted    int    `json:"facts_deleted"`
	Documents       int    `json:"documents"`
	Chunks          int    `json:"chunks"`
	EntityRows      int    `json:"entity_rows"`
	Vectors         int    `json:"vectors"`
	Spaces          int    `json:"spaces"`
	FileBytes       int64  `json:"file_bytes"`
	// FreeBytes is the space inside the file that holds nothing: admin compact gives it back.
	FreeBytes     int64  `json:"free_bytes"`
	SchemaVersion int    `json:"schema_version"`
	Semantic      string `json:"semantic"`
	// SemanticRole is the role the current model earned when it was measured ("leading",
	// "supporting", "no say"; "" when it is off or not measured yet), and RoleWhy says why
	// in plain words (calibration.go).
	SemanticRole string `json:"semantic_role,omitempty"`
	RoleWhy      string `json:"semantic_role_why,omitempty"`
}

// Stats counts facts, documents and index rows.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	s, err := e.st.Stats(ctx)
	if err != nil {
		return Stats{}, err
	}
	role, why := e.SemanticRole(ctx)
	return Stats{
		Path:            e.st.Path(),
		FactsActive:     s.FactsActive,
		FactsSuperseded: s.FactsSuperseded,
		FactsDeleted:    s.FactsDeleted,
		Documents:       s.Documents,
		Chunks:          s.Chunks,
		EntityRows:      s.Entities,
		Vectors:         s.Vectors,
		Spaces:          s.Spaces,
		FileBytes:       s.FileBytes,
		FreeBytes:       s.FreeBytes,
		SchemaVersion:   s.SchemaVersion,
		Semantic:        e.SemanticState(),
		SemanticRole:    role,
		RoleWhy:         why,
	}, nil
}

// spaceOrDefault maps an unset space to the default namespace.
func spaceOrDefault(space string) string {
	if space == "" {
		return "default"
	}
	return space
}
