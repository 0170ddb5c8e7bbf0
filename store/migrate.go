package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
)

// migration moves the schema from version index to index+1. Each one runs in its own
// transaction together with its user_version bump, so a crash leaves the file at a whole
// version.
type migration struct {
	name string
	sql  string
	// then, when set, runs after sql in the same transaction: a step SQL alone cannot say.
	then func(ctx context.Context, tx *sql.Tx) error
}

// migrations is the schema history; append only. SchemaVersion is its length.
var migrations = []migration{
	{name: "facts, documents, chunks and their trigram indexes", sql: schemaV1},
	{name: "entity and vector tables", sql: schemaV2},
	{name: "word-level indexes", sql: schemaV3},
	{name: "entity counts per owner", sql: schemaV4},
	{name: "vector upkeep triggers", sql: schemaV5},
	{name: "triples, supersession links and dismissed contradictions", sql: schemaV6},
	{name: "word indexes of the engine's own terms, text lengths and the change log", sql: schemaV7},
	{name: "entity names stored once, trigram index without positions", sql: schemaV8, then: internEntities},
	{name: "integer dedupe keys, full-text indexes without positions or row sizes, statements in the fact row", sql: schemaV9, then: packStatements},
	{name: "document copies, watched folders and their file stamps", sql: schemaDocumentCopies},
	{name: "page of each PDF chunk", sql: schemaPages},
	{name: "vector change log", sql: schemaVectorChanges},
	{name: "term counts of the word indexes", sql: schemaTermCounts},
	{name: "facts by the time they were written", sql: schemaTimeline},
	{name: "timeline index of active facts only", sql: schemaActiveTimeline},
	{name: "statements as pieces of their fact's text", then: statementsAsPieces},
	{name: "trigram indexes of what only a substring search finds", sql: schemaSubstrings},
	{name: "entity names keyed by name alone", sql: schemaNamesByName},
	{name: "dedupe keys that hold their space", sql: schemaSpacedDedupe},
	{name: "the time a fact last changed, as the time since it was written", sql: schemaUpdatedAfter},
	{name: "statement keys of 32 bits", then: narrowStatementKeys},
	{name: "knowledge chunks without entities", sql: schemaChunksNoEntities, then: dropUnusedEntityNames},
	{name: "wikilinks and aliases of Markdown documents", sql: schemaDocumentLinks},
	{name: "the time a document was written, from its own content", sql: schemaDocumentsWritten},
	{name: "documents by the time they were written", sql: schemaDocumentsTimeline},
	{name: "memory identities across devices and the sync change log", sql: schemaSync},
	{name: "vectors in a rowid table, counted from an index", sql: schemaVectorRows},
	{name: "entity counts of active facts in an index", sql: schemaActiveEntityCounts},
	{name: "a copy of the word index's owner tables", sql: schemaLexiconCopy},
}

// SchemaVersion is the user_version of a fully migrated database.
func SchemaVersion() int { return len(migrations) }

// The FTS tables are contentless with delete support: the text lives once, in facts and
// chunks, and triggers keep the index in step inside the writer's transaction. Only active
// facts are indexed, so soft-deleted ones never skew bm25 statistics or match.
const schemaV1 = `
CREATE TABLE facts (
	id         INTEGER PRIMARY KEY,
	space      TEXT    NOT NULL DEFAULT 'default',
	content    TEXT    NOT NULL,
	hash       TEXT    NOT NULL,
	status     TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'deleted')),
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX facts_active_hash ON facts(space, hash) WHERE status = 'active';
CREATE INDEX facts_space_status ON facts(space, status, id);

CREATE VIRTUAL TABLE facts_fts USING fts5(content, content='', contentless_delete=1, tokenize='trigram');

CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, status ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
	INSERT INTO facts_fts(rowid, content) SELECT new.id, new.content WHERE new.status = 'active';
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
END;

CREATE TABLE documents (
	id          INTEGER PRIMARY KEY,
	space       TEXT    NOT NULL DEFAULT 'default',
	path        TEXT    NOT NULL,
	title       TEXT    NOT NULL,
	format      TEXT    NOT NULL,
	hash        TEXT    NOT NULL,
	bytes       INTEGER NOT NULL,
	imported_at INTEGER NOT NULL,
	UNIQUE (space, path)
);

CREATE TABLE chunks (
	id         INTEGER PRIMARY KEY,
	doc_id     INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	ordinal    INTEGER NOT NULL,
	text       TEXT    NOT NULL,
	heading    TEXT    NOT NULL DEFAULT '',
	byte_start INTEGER NOT NULL,
	byte_end   INTEGER NOT NULL,
	line_start INTEGER NOT NULL,
	line_end   INTEGER NOT NULL,
	UNIQUE (doc_id, ordinal)
);

CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='', contentless_delete=1, tokenize='trigram');

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
	DELETE FROM chunks_fts WHERE rowid = old.id;
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_fts WHERE rowid = old.id;
END;
`

// Entity rows carry the extraction-rules version that produced them, and each owner records
// the version it was last extracted with (0: pending), so a rules change can be swept.
// Vectors record the vector-space fingerprint they were made in, so two spaces never mix.
const schemaV2 = `
ALTER TABLE facts  ADD COLUMN entity_rules INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN entity_rules INTEGER NOT NULL DEFAULT 0;

CREATE TABLE entities (
	owner_kind    TEXT    NOT NULL CHECK (owner_kind IN ('fact', 'chunk')),
	owner_id      INTEGER NOT NULL,
	entity        TEXT    NOT NULL,
	rules_version INTEGER NOT NULL,
	PRIMARY KEY (owner_kind, owner_id, entity)
) WITHOUT ROWID;
CREATE INDEX entities_by_entity ON entities(entity, owner_kind, owner_id);

CREATE TABLE vectors (
	owner_kind  TEXT    NOT NULL CHECK (owner_kind IN ('fact', 'chunk')),
	owner_id    INTEGER NOT NULL,
	fingerprint TEXT    NOT NULL,
	dims        INTEGER NOT NULL,
	vec         BLOB    NOT NULL,
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (owner_kind, owner_id)
) WITHOUT ROWID;
CREATE INDEX vectors_by_fingerprint ON vectors(fingerprint);
`

// The word-level indexes are filled by Store.ensureWords, which also rebuilds them whenever
// the analysis version changes. They hold each text as rewritten by memdesk_words(), a Go function every
// connection registers (see Options.Words): CJK as character bigrams, Latin words stemmed by
// the porter tokenizer. The triggers call it, so the index stays in step with the row inside
// the writer's transaction like the trigram index does.
const schemaV3 = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

CREATE VIRTUAL TABLE facts_words USING fts5(words, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER facts_words_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_words(rowid, words) VALUES (new.id, memdesk_words(new.content));
END;
CREATE TRIGGER facts_words_update AFTER UPDATE OF content, status ON facts BEGIN
	DELETE FROM facts_words WHERE rowid = old.id;
	INSERT INTO facts_words(rowid, words) SELECT new.id, memdesk_words(new.content) WHERE new.status = 'active';
END;
CREATE TRIGGER facts_words_delete AFTER DELETE ON facts BEGIN
	DELETE FROM facts_words WHERE rowid = old.id;
END;

CREATE VIRTUAL TABLE chunks_words USING fts5(words, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER chunks_words_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_words(rowid, words) VALUES (new.id, memdesk_words(new.text));
END;
CREATE TRIGGER chunks_words_update AFTER UPDATE OF text ON chunks BEGIN
	DELETE FROM chunks_words WHERE rowid = old.id;
	INSERT INTO chunks_words(rowid, words) VALUES (new.id, memdesk_words(new.text));
END;
CREATE TRIGGER chunks_words_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_words WHERE rowid = old.id;
END;
`

// Each owner keeps its number of entities, so the entity leg scores a candidate from the
// anchor postings alone (|A∩F| by aggregation, |F| from the row) instead of reading every
// candidate's whole entity set.
const schemaV4 = `
ALTER TABLE facts  ADD COLUMN entity_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN entity_count INTEGER NOT NULL DEFAULT 0;
UPDATE facts  SET entity_count = (SELECT count(*) FROM entities WHERE owner_kind = 'fact'  AND owner_id = facts.id);
UPDATE chunks SET entity_count = (SELECT count(*) FROM entities WHERE owner_kind = 'chunk' AND owner_id = chunks.id);
`

// migrate applies the missing migrations, each in its own transaction. The version is read
// again inside the transaction because another process may have migrated meanwhile.
func (s *Store) migrate(ctx context.Context, ms []migration) error {
	// Most opens find the schema current: a plain read says so without taking the write
	// lock, so a recall never waits behind another process's writes just to open.
	v, err := s.Version(ctx)
	if err == nil && v == len(ms) {
		return nil
	}
	if err == nil && v > 0 && v < len(ms) && s.opts.OnUpgrade != nil {
		s.opts.OnUpgrade(v, len(ms))
	}
	for {
		done, err := s.migrateOne(ctx, ms)
		if err != nil || done {
			return err
		}
	}
}

func (s *Store) migrateOne(ctx context.Context, ms []migration) (done bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		var version int
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > len(ms) {
			return fmt.Errorf("database schema version %d is newer than this memdesk understands (%d): upgrade memdesk", version, len(ms))
		}
		if version == len(ms) {
			done = true
			return nil
		}
		if version == 0 {
			if err := notAnotherProgramsDatabase(ctx, tx, s.path); err != nil {
				return err
			}
		}
		m := ms[version]
		if m.sql != "" {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migrate to version %d (%s): %w", version+1, m.name, err)
			}
		}
		if m.then != nil {
			if err := m.then(ctx, tx); err != nil {
				return fmt.Errorf("migrate to version %d (%s): %w", version+1, m.name, err)
			}
		}
		// PRAGMA takes no bound parameters; version is an int we computed.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, version+1)); err != nil {
			return fmt.Errorf("set schema version %d: %w", version+1, err)
		}
		return nil
	})
	return done, err
}

// notAnotherProgramsDatabase refuses a file at schema version 0 that already holds tables:
// a SQLite database of another program, given to --db by mistake. Migrating it added ~40
// tables to it, or failed with a raw "table facts already exists".
func notAnotherProgramsDatabase(ctx context.Context, tx *sql.Tx, path string) error {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 4`)
	if err != nil {
		return fmt.Errorf("read the tables of %s: %w", path, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not a memdesk database: it holds another program's tables (%s); nothing was changed. Choose another file with --db", path, strings.Join(names, ", "))
}

// Version reports the database's schema version.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// A vector is only good for the text it was made from, and only active facts are searched:
// editing a fact or chunk, or moving a fact out of 'active', drops its vector in the same
// transaction (the catch-up embeds it again if it comes back). Every insert or delete of a
// vector bumps a per-kind generation in meta, so an in-memory vector index can tell with one
// row read whether it is current. Vectors left behind by owners deleted before these
// triggers existed are evicted here once.
const schemaV5 = `
DELETE FROM vectors WHERE owner_kind = 'fact' AND owner_id NOT IN (SELECT id FROM facts WHERE status = 'active');
DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id NOT IN (SELECT id FROM chunks);

CREATE TRIGGER facts_vectors_update AFTER UPDATE OF content, status ON facts
WHEN new.content != old.content OR new.status != 'active' BEGIN
	DELETE FROM vectors WHERE owner_kind = 'fact' AND owner_id = old.id;
END;
CREATE TRIGGER facts_vectors_delete AFTER DELETE ON facts BEGIN
	DELETE FROM vectors WHERE owner_kind = 'fact' AND owner_id = old.id;
END;
CREATE TRIGGER chunks_vectors_update AFTER UPDATE OF text ON chunks
WHEN new.text != old.text BEGIN
	DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
END;
CREATE TRIGGER chunks_vectors_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
END;

CREATE TRIGGER vectors_generation_insert AFTER INSERT ON vectors BEGIN
	INSERT INTO meta(key, value) VALUES ('vectors_generation_' || new.owner_kind, '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER vectors_generation_delete AFTER DELETE ON vectors BEGIN
	INSERT INTO meta(key, value) VALUES ('vectors_generation_' || old.owner_kind, '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
`

// Facts carry their (subject, predicate, object) statements so contradictions are found by
// an index lookup on subject and predicate, not by comparing every pair of facts. Like
// entities, each fact records the triple-rules version it was extracted with (0: pending),
// so a rules change is swept. A superseded fact keeps a link to the fact that replaced it:
// history is never deleted. A pair a person has looked at and kept both of is remembered
// (a < b) so the check stops reporting it.
const schemaV6 = `
ALTER TABLE facts ADD COLUMN superseded_by INTEGER;
ALTER TABLE facts ADD COLUMN triple_rules INTEGER NOT NULL DEFAULT 0;

CREATE TABLE triples (
	fact_id   INTEGER NOT NULL,
	ordinal   INTEGER NOT NULL,
	subject   TEXT    NOT NULL,
	predicate TEXT    NOT NULL,
	object    TEXT    NOT NULL,
	negated   INTEGER NOT NULL,
	PRIMARY KEY (fact_id, ordinal)
) WITHOUT ROWID;
CREATE INDEX triples_by_subject ON triples(subject, predicate, fact_id);

CREATE TRIGGER facts_triples_delete AFTER DELETE ON facts BEGIN
	DELETE FROM triples WHERE fact_id = old.id;
END;

CREATE TABLE dismissed_pairs (
	a          INTEGER NOT NULL,
	b          INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (a, b)
) WITHOUT ROWID;
`

// The word indexes hold the engine's own analysis (engine/analysis): memdesk_words() returns
// a text's terms, already folded and stemmed, separated by spaces, and FTS5's ascii tokenizer
// with '-', '.' and '_' as token characters splits them on the spaces and nowhere else, so an
// index term is exactly an engine term (go-sqlite3, 3.12, a CJK bigram) and the engine can ask
// for one term's postings. The engine scores them itself (bm25 with each space's own
// statistics), so every owner records its length in terms (wlen, from memdesk_wlen()).
//
// The change log tells a process holding an in-memory copy of the indexes what other
// processes (or its own other connections) changed: one row per fact, chunk or document
// written, read from the last seq the copy saw. It is pruned from the oldest end; a copy that
// finds its last seq pruned reloads whole.
const schemaV7 = `
DROP TRIGGER facts_words_insert;
DROP TRIGGER facts_words_update;
DROP TRIGGER facts_words_delete;
DROP TRIGGER chunks_words_insert;
DROP TRIGGER chunks_words_update;
DROP TRIGGER chunks_words_delete;
DROP TABLE facts_words;
DROP TABLE chunks_words;

CREATE VIRTUAL TABLE facts_words USING fts5(words, content='', contentless_delete=1, tokenize="ascii tokenchars '-._'");
CREATE TRIGGER facts_words_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_words(rowid, words) VALUES (new.id, memdesk_words(new.content));
END;
CREATE TRIGGER facts_words_update AFTER UPDATE OF content, status ON facts BEGIN
	DELETE FROM facts_words WHERE rowid = old.id;
	INSERT INTO facts_words(rowid, words) SELECT new.id, memdesk_words(new.content) WHERE new.status = 'active';
END;
CREATE TRIGGER facts_words_delete AFTER DELETE ON facts BEGIN
	DELETE FROM facts_words WHERE rowid = old.id;
END;

CREATE VIRTUAL TABLE chunks_words USING fts5(words, content='', contentless_delete=1, tokenize="ascii tokenchars '-._'");
CREATE TRIGGER chunks_words_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_words(rowid, words) VALUES (new.id, memdesk_words(new.text));
END;
CREATE TRIGGER chunks_words_update AFTER UPDATE OF text ON chunks BEGIN
	DELETE FROM chunks_words WHERE rowid = old.id;
	INSERT INTO chunks_words(rowid, words) VALUES (new.id, memdesk_words(new.text));
END;
CREATE TRIGGER chunks_words_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_words WHERE rowid = old.id;
END;

ALTER TABLE facts  ADD COLUMN wlen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN wlen INTEGER NOT NULL DEFAULT 0;
UPDATE facts  SET wlen = memdesk_wlen(content);
UPDATE chunks SET wlen = memdesk_wlen(text);
CREATE TRIGGER facts_wlen_insert AFTER INSERT ON facts BEGIN
	UPDATE facts SET wlen = memdesk_wlen(new.content) WHERE id = new.id;
END;
CREATE TRIGGER facts_wlen_update AFTER UPDATE OF content ON facts BEGIN
	UPDATE facts SET wlen = memdesk_wlen(new.content) WHERE id = new.id;
END;
CREATE TRIGGER chunks_wlen_insert AFTER INSERT ON chunks BEGIN
	UPDATE chunks SET wlen = memdesk_wlen(new.text) WHERE id = new.id;
END;
CREATE TRIGGER chunks_wlen_update AFTER UPDATE OF text ON chunks BEGIN
	UPDATE chunks SET wlen = memdesk_wlen(new.text) WHERE id = new.id;
END;

CREATE TABLE changes (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	kind     TEXT    NOT NULL CHECK (kind IN ('fact', 'chunk', 'document')),
	owner_id INTEGER NOT NULL
);
CREATE TRIGGER facts_changes_insert AFTER INSERT ON facts BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('fact', new.id);
END;
CREATE TRIGGER facts_changes_update AFTER UPDATE OF content, status, space, entity_rules ON facts BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('fact', new.id);
END;
CREATE TRIGGER facts_changes_delete AFTER DELETE ON facts BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('fact', old.id);
END;
CREATE TRIGGER chunks_changes_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('chunk', new.id);
END;
CREATE TRIGGER chunks_changes_update AFTER UPDATE OF text, entity_rules ON chunks BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('chunk', new.id);
END;
CREATE TRIGGER chunks_changes_delete AFTER DELETE ON chunks BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('chunk', old.id);
END;
CREATE TRIGGER documents_changes_update AFTER UPDATE OF space ON documents BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('document', new.id);
END;

CREATE VIRTUAL TABLE facts_words_instance USING fts5vocab(facts_words, instance);
CREATE VIRTUAL TABLE chunks_words_instance USING fts5vocab(chunks_words, instance);
`

// Entity names are stored once, in entity_names, and each owner keeps the ids of its
// entities in one blob (entity_ids, uvarints in extraction order): the entities table stored
// every name again per owner, twice (table and index), 4.4x the text it came from. Nothing
// searches entities in SQL any more: the engine holds their postings in memory, built from the
// blobs and kept in step through the change log (which now also follows entity_ids).
//
// The writes that store a text set its length (wlen) themselves, in the same row write; the
// triggers that did it with a second write per row are dropped.
//
// The trigram index keeps no positions (detail=none): it only answers substring fallbacks,
// which the engine checks against the text, and without positions it is a third of the size.
const schemaV8 = `
CREATE TABLE entity_names (
	id   INTEGER PRIMARY KEY,
	name TEXT    NOT NULL UNIQUE
);
ALTER TABLE facts  ADD COLUMN entity_ids BLOB;
ALTER TABLE chunks ADD COLUMN entity_ids BLOB;

DROP TRIGGER facts_wlen_insert;
DROP TRIGGER facts_wlen_update;
DROP TRIGGER chunks_wlen_insert;
DROP TRIGGER chunks_wlen_update;

DROP TRIGGER facts_changes_update;
CREATE TRIGGER facts_changes_update AFTER UPDATE OF content, status, space, entity_rules, entity_ids ON facts BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('fact', new.id);
END;
DROP TRIGGER chunks_changes_update;
CREATE TRIGGER chunks_changes_update AFTER UPDATE OF text, entity_rules, entity_ids ON chunks BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('chunk', new.id);
END;

DROP TRIGGER facts_fts_insert;
DROP TRIGGER facts_fts_update;
DROP TRIGGER facts_fts_delete;
DROP TABLE facts_fts;
CREATE VIRTUAL TABLE facts_fts USING fts5(content, content='', contentless_delete=1, tokenize='trigram', detail=none);
INSERT INTO facts_fts(rowid, content) SELECT id, content FROM facts WHERE status = 'active';
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, status ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
	INSERT INTO facts_fts(rowid, content) SELECT new.id, new.content WHERE new.status = 'active';
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
END;

DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_update;
DROP TRIGGER chunks_fts_delete;
DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='', contentless_delete=1, tokenize='trigram', detail=none);
INSERT INTO chunks_fts(rowid, text) SELECT id, text FROM chunks;
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
	DELETE FROM chunks_fts WHERE rowid = old.id;
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_fts WHERE rowid = old.id;
END;
`

// internEntities moves the entities table's rows into entity_names and the owners' blobs,
// then drops the table.
func internEntities(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT owner_kind, owner_id, entity FROM entities ORDER BY owner_kind, owner_id, entity`)
	if err != nil {
		return err
	}
	type owner struct {
		kind string
		id   int64
	}
	byOwner := map[owner][]string{}
	var order []owner
	for rows.Next() {
		var o owner
		var name string
		if err := rows.Scan(&o.kind, &o.id, &name); err != nil {
			rows.Close()
			return err
		}
		if _, ok := byOwner[o]; !ok {
			order = append(order, o)
		}
		byOwner[o] = append(byOwner[o], name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// The interner numbers new names from meta's counter (schema v18 made it its own); the
	// table was made empty just now.
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('entity_next_id', 1)`); err != nil {
		return err
	}
	in := newInterner(tx)
	defer in.close()
	for _, o := range order {
		ids, err := in.ids(ctx, byOwner[o])
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+ownerTable(o.kind)+` SET entity_ids = ?, entity_count = ? WHERE id = ?`,
			EncodeIDs(ids), len(ids), o.id); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE entities`)
	return err
}

// A fact's dedupe key is 64 bits of its content hash (dedupe, from memdesk_dedupe()), not the
// 64 hex characters stored in the row and again in the unique index (15% of the file). Two
// different memories of one space would have to agree on 64 bits to be taken for one: at a
// million facts the odds are below one in 30 million.
//
// The (space, status, id) index goes: counts per space are kept in memory now and a list
// reads newest first, which needs no index.
//
// Neither full-text index keeps positions or row sizes (detail=none, columnsize=0): the
// engine computes bm25 itself, from its own lengths (wlen) and from how often a term occurs,
// which the word index now records as terms of their own (the analyzer writes a term once
// per text, then term⁺2 .. term⁺5 for its 2nd to 5th occurrence): the word index shrinks
// to a third. Without row sizes FTS5 cannot delete by rowid alone, so the triggers give it
// the old text (through memdesk_words for the word index) to delete.
//
// A fact's statements move into its row (statements, a blob: encodeStatementsV9), and the index
// contradictions are looked up by keeps 64 bits of (subject, predicate) and the fact id
// (statement_keys), not the texts twice. A key is never deleted: a lookup reads the
// candidate's statements and keeps only the exact ones, so a key left by an edit costs a
// row, not a wrong answer.
const schemaV9 = `
DROP INDEX facts_active_hash;
DROP INDEX facts_space_status;
ALTER TABLE facts ADD COLUMN dedupe INTEGER NOT NULL DEFAULT 0;
UPDATE facts SET dedupe = memdesk_dedupe(hash);
ALTER TABLE facts DROP COLUMN hash;
CREATE UNIQUE INDEX facts_active_dedupe ON facts(space, dedupe) WHERE status = 'active';

DROP TRIGGER facts_fts_insert;
DROP TRIGGER facts_fts_update;
DROP TRIGGER facts_fts_delete;
DROP TABLE facts_fts;
CREATE VIRTUAL TABLE facts_fts USING fts5(content, content='', columnsize=0, tokenize='trigram', detail=none);
INSERT INTO facts_fts(rowid, content) SELECT id, content FROM facts WHERE status = 'active';
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, status ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, content) SELECT 'delete', old.id, old.content WHERE old.status = 'active';
	INSERT INTO facts_fts(rowid, content) SELECT new.id, new.content WHERE new.status = 'active';
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts WHEN old.status = 'active' BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;

DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_update;
DROP TRIGGER chunks_fts_delete;
DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='', columnsize=0, tokenize='trigram', detail=none);
INSERT INTO chunks_fts(rowid, text) SELECT id, text FROM chunks;
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

DROP TABLE facts_words_instance;
DROP TABLE chunks_words_instance;
DROP TRIGGER facts_words_insert;
DROP TRIGGER facts_words_update;
DROP TRIGGER facts_words_delete;
DROP TRIGGER chunks_words_insert;
DROP TRIGGER chunks_words_update;
DROP TRIGGER chunks_words_delete;
DROP TABLE facts_words;
DROP TABLE chunks_words;
DELETE FROM meta WHERE key = 'words_version';

CREATE VIRTUAL TABLE facts_words USING fts5(words, content='', columnsize=0, detail=none, tokenize="ascii tokenchars '-._'");
CREATE TRIGGER facts_words_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_words(rowid, words) VALUES (new.id, memdesk_words(new.content));
END;
CREATE TRIGGER facts_words_update AFTER UPDATE OF content, status ON facts BEGIN
	INSERT INTO facts_words(facts_words, rowid, words) SELECT 'delete', old.id, memdesk_words(old.content) WHERE old.status = 'active';
	INSERT INTO facts_words(rowid, words) SELECT new.id, memdesk_words(new.content) WHERE new.status = 'active';
END;
CREATE TRIGGER facts_words_delete AFTER DELETE ON facts WHEN old.status = 'active' BEGIN
	INSERT INTO facts_words(facts_words, rowid, words) VALUES ('delete', old.id, memdesk_words(old.content));
END;

CREATE VIRTUAL TABLE chunks_words USING fts5(words, content='', columnsize=0, detail=none, tokenize="ascii tokenchars '-._'");
CREATE TRIGGER chunks_words_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_words(rowid, words) VALUES (new.id, memdesk_words(new.text));
END;
CREATE TRIGGER chunks_words_update AFTER UPDATE OF text ON chunks BEGIN
	INSERT INTO chunks_words(chunks_words, rowid, words) VALUES ('delete', old.id, memdesk_words(old.text));
	INSERT INTO chunks_words(rowid, words) VALUES (new.id, memdesk_words(new.text));
END;
CREATE TRIGGER chunks_words_delete AFTER DELETE ON chunks BEGIN
	INSERT INTO chunks_words(chunks_words, rowid, words) VALUES ('delete', old.id, memdesk_words(old.text));
END;

CREATE VIRTUAL TABLE facts_words_instance USING fts5vocab(facts_words, instance);
CREATE VIRTUAL TABLE chunks_words_instance USING fts5vocab(chunks_words, instance);

ALTER TABLE facts ADD COLUMN statements BLOB;
CREATE TABLE statement_keys (
	key     INTEGER NOT NULL,
	fact_id INTEGER NOT NULL,
	PRIMARY KEY (key, fact_id)
) WITHOUT ROWID;
`

// packStatements moves the triples table's rows into the facts' blobs and keys, then drops it.
func packStatements(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT fact_id, subject, predicate, object, negated FROM triples ORDER BY fact_id, ordinal`)
	if err != nil {
		return err
	}
	byFact := map[int64][]Triple{}
	var order []int64
	for rows.Next() {
		var id int64
		var t Triple
		if err := rows.Scan(&id, &t.Subject, &t.Predicate, &t.Object, &t.Negated); err != nil {
			rows.Close()
			return err
		}
		if _, ok := byFact[id]; !ok {
			order = append(order, id)
		}
		byFact[id] = append(byFact[id], t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range order {
		if err := writeStatementsV9(ctx, tx, id, byFact[id]); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE triples`)
	return err
}

// Identical files are stored once: a document keeps its first path in its own row, and every
// other path whose file has the same bytes (the same hash, in the same space) is a row of
// document_paths pointing at it, so five copies of one README are one document, one set of
// chunks and one hit that names the other four places. Documents imported twice before this
// version are folded here: the oldest keeps its row, the others become its copies.
//
// A watched folder is a row of watched_roots. file_stamps keeps the size and modification
// time each watched file had when it was last synced, so the rescan on start reads only the
// files that changed while nothing was watching; a stamp is a hint, never trusted alone (a
// path no document holds is read whatever its stamp says).
const schemaDocumentCopies = `
CREATE TABLE document_paths (
	space    TEXT    NOT NULL,
	path     TEXT    NOT NULL,
	doc_id   INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	added_at INTEGER NOT NULL,
	PRIMARY KEY (space, path)
) WITHOUT ROWID;
CREATE INDEX document_paths_by_doc ON document_paths(doc_id, path);
CREATE INDEX documents_by_hash ON documents(space, hash);

INSERT INTO document_paths(space, path, doc_id, added_at)
SELECT d.space, d.path, k.keep, d.imported_at FROM documents d
JOIN (SELECT space, hash, min(id) AS keep FROM documents WHERE substr(space, 1, 1) != char(1)
	GROUP BY space, hash HAVING count(*) > 1) k ON k.space = d.space AND k.hash = d.hash AND d.id != k.keep;
DELETE FROM chunks WHERE doc_id IN (SELECT d.id FROM documents d JOIN document_paths p ON p.space = d.space AND p.path = d.path);
DELETE FROM documents WHERE id IN (SELECT d.id FROM documents d JOIN document_paths p ON p.space = d.space AND p.path = d.path);

CREATE TABLE watched_roots (
	space    TEXT    NOT NULL,
	root     TEXT    NOT NULL,
	added_at INTEGER NOT NULL,
	PRIMARY KEY (space, root)
) WITHOUT ROWID;

CREATE TABLE file_stamps (
	space    TEXT    NOT NULL,
	path     TEXT    NOT NULL,
	size     INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	PRIMARY KEY (space, path)
) WITHOUT ROWID;
`

// schemaPages (version 11) gives chunks the PDF page they are on (1-based; 0 for every other format). PDFs
// imported before it were read without word spaces or pages; forgetting their hash makes the
// next import of the same file re-read it instead of calling it unchanged.
const schemaPages = `
ALTER TABLE chunks ADD COLUMN page INTEGER NOT NULL DEFAULT 0;
UPDATE documents SET hash = '' WHERE format = 'pdf';
`

// schemaVectorChanges (version 12) logs every vector written or removed, so an in-memory
// vector index reads only what changed since it last looked (VectorChangesSince) instead of
// its whole space again: at 100k vectors of 1024 dimensions a whole reload costs seconds.
// The generation counters stay: one meta row tells cheaply whether anything changed. Like
// the change log it is pruned from the oldest end (PruneChanges); an index that finds its
// last seq pruned reloads whole. Vectors already stored need no row: an index loads them
// whole the first time.
const schemaVectorChanges = `
CREATE TABLE vector_changes (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	owner_kind TEXT    NOT NULL,
	owner_id   INTEGER NOT NULL
);
CREATE TRIGGER vector_changes_insert AFTER INSERT ON vectors BEGIN
	INSERT INTO vector_changes(owner_kind, owner_id) VALUES (new.owner_kind, new.owner_id);
END;
CREATE TRIGGER vector_changes_delete AFTER DELETE ON vectors BEGIN
	INSERT INTO vector_changes(owner_kind, owner_id) VALUES (old.owner_kind, old.owner_id);
END;
`

// schemaTermCounts (version 13) reads each word index's terms with the number of owners
// holding them, so a process about to answer queries can read the postings of the most common
// terms before anyone types (CommonTerms). Virtual tables over the indexes: nothing is stored.
const schemaTermCounts = `
CREATE VIRTUAL TABLE facts_words_row USING fts5vocab(facts_words, row);
CREATE VIRTUAL TABLE chunks_words_row USING fts5vocab(chunks_words, row);
`

// schemaTimeline (version 14) lets the timeline page through the active facts by the time
// they were written, newest first, from a cursor: an import keeps a memory's own time, so
// ids are not in that order, and without the index each page sorts every fact.
const schemaTimeline = `
CREATE INDEX facts_timeline ON facts(status, created_at, id);
`

// schemaActiveTimeline (version 15): the timeline reads active facts only, so its index holds
// only them, keyed by created_at alone: the rowid every index entry ends with is already the
// id tie-break. The status and id no longer repeat in each entry (2.9 MB at 100k facts).
const schemaActiveTimeline = `
DROP INDEX facts_timeline;
CREATE INDEX facts_timeline ON facts(created_at) WHERE status = 'active';
`

// writeStatementsV9 is writeStatements as schema v9 to v15 stored statements: the strings
// whole (encodeStatementsV9). The v9 migration keeps writing that form, which the v16
// migration reads.
func writeStatementsV9(ctx context.Context, tx *sql.Tx, factID int64, list []Triple) error {
	var blob []byte
	if len(list) > 0 {
		blob = encodeStatementsV9(list)
	}
	return writeStatementsColumn(ctx, tx, factID, blob, list)
}

// encodeStatementsV9 is the statements column of schema v9 to v15: for each statement its
// subject, predicate and object as uvarint-prefixed strings, then 1 for a negated one, else 0.
func encodeStatementsV9(list []Triple) []byte {
	var b []byte
	for _, t := range list {
		for _, s := range []string{t.Subject, t.Predicate, t.Object} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		neg := byte(0)
		if t.Negated {
			neg = 1
		}
		b = append(b, neg)
	}
	return b
}

// decodeStatementsV9 reads a column written by encodeStatementsV9; a damaged tail is dropped.
func decodeStatementsV9(b []byte) []Triple {
	var out []Triple
	for len(b) > 0 {
		var parts [3]string
		for i := range parts {
			n, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < n {
				return out
			}
			parts[i] = string(b[k : k+int(n)])
			b = b[k+int(n):]
		}
		if len(b) == 0 {
			return out
		}
		out = append(out, Triple{Subject: parts[0], Predicate: parts[1], Object: parts[2], Negated: b[0] == 1})
		b = b[1:]
	}
	return out
}

// statementsAsPieces rewrites every fact's statements column from whole strings to pieces
// of the fact's text (encodeStatements): the same statements in a quarter of the bytes.
func statementsAsPieces(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, content, statements FROM facts WHERE statements IS NOT NULL`)
	if err != nil {
		return err
	}
	type packed struct {
		id   int64
		blob []byte
	}
	var out []packed
	for rows.Next() {
		var id int64
		var content string
		var blob []byte
		if err := rows.Scan(&id, &content, &blob); err != nil {
			rows.Close()
			return err
		}
		var pieces []byte
		if list := decodeStatementsV9(blob); len(list) > 0 {
			pieces = encodeStatements(list, content)
		}
		out = append(out, packed{id, pieces})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE facts SET statements = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, p := range out {
		if _, err := stmt.ExecContext(ctx, p.blob, p.id); err != nil {
			return err
		}
	}
	return nil
}

// The trigram indexes keep only what a substring search alone can find (the engine's
// query.SubstringText, through memdesk_substrings): identifiers, numbers and rarer words,
// not CJK runs or common words, which the word indexes answer. The triggers give FTS5 the
// same rewrite of the old text to delete. Open refills both indexes under the rules'
// version (ensureSubstrings) right after this migration, as the words index is.
const schemaSubstrings = `
DROP TRIGGER facts_fts_insert;
DROP TRIGGER facts_fts_update;
DROP TRIGGER facts_fts_delete;
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
	INSERT INTO facts_fts(rowid, content) VALUES (new.id, memdesk_substrings(new.content));
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, status ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, content) SELECT 'delete', old.id, memdesk_substrings(old.content) WHERE old.status = 'active';
	INSERT INTO facts_fts(rowid, content) SELECT new.id, memdesk_substrings(new.content) WHERE new.status = 'active';
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts WHEN old.status = 'active' BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, content) VALUES ('delete', old.id, memdesk_substrings(old.content));
END;

DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_update;
DROP TRIGGER chunks_fts_delete;
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, memdesk_substrings(new.text));
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, memdesk_substrings(old.text));
	INSERT INTO chunks_fts(rowid, text) VALUES (new.id, memdesk_substrings(new.text));
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, memdesk_substrings(old.text));
END;

DELETE FROM meta WHERE key = 'substrings_version';
`

// Entity names are looked up by name only (a query's entities, an owner's new ones): keyed
// by name, the table is its own index, where a rowid table kept every name twice (1.5 of 3.1
// MB at 100k facts). New ids come from a counter in meta. The trigger that cleared the triples
// table outlived it (v9 dropped the table); a rename re-reads every trigger, so it goes now.
const schemaNamesByName = `
DROP TRIGGER IF EXISTS facts_triples_delete;
CREATE TABLE entity_names_by_name (
	name TEXT    PRIMARY KEY,
	id   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO entity_names_by_name(name, id) SELECT name, id FROM entity_names;
INSERT OR REPLACE INTO meta(key, value) SELECT 'entity_next_id', coalesce(max(id), 0) + 1 FROM entity_names;
DROP TABLE entity_names;
ALTER TABLE entity_names_by_name RENAME TO entity_names;
`

// A fact's dedupe key holds its space (spacedKey), so the unique index of active facts is
// of the key alone: the (space, dedupe) index stored every fact's space name again (2.66 MB
// at 100k facts).
const schemaSpacedDedupe = `
DROP INDEX facts_active_dedupe;
UPDATE facts SET dedupe = memdesk_spaced(dedupe, space);
CREATE UNIQUE INDEX facts_active_dedupe ON facts(dedupe) WHERE status = 'active';
`

// A fact keeps the time it last changed as the time since it was written (updated_after,
// ms): most facts never change, and SQLite stores a 0 in no bytes where the time took 6
// (0.6 MB at 100k facts).
const schemaUpdatedAfter = `
ALTER TABLE facts RENAME COLUMN updated_at TO updated_after;
UPDATE facts SET updated_after = max(updated_after - created_at, 0);
`

// narrowStatementKeys rewrites statement_keys with keys of 32 bits (statementKey): the
// lookup checks every candidate's statements anyway, and the index takes 4 bytes a key
// less (0.35 MB at 100k facts).
func narrowStatementKeys(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE statement_keys_narrow (
		key     INTEGER NOT NULL,
		fact_id INTEGER NOT NULL,
		PRIMARY KEY (key, fact_id)
	) WITHOUT ROWID`)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT key, fact_id FROM statement_keys`)
	if err != nil {
		return err
	}
	type row struct{ key, fact int64 }
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key, &r.fact); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO statement_keys_narrow(key, fact_id) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range all {
		if _, err := stmt.ExecContext(ctx, int64(int32(r.key)), r.fact); err != nil {
			return err
		}
	}
	for _, q := range []string{`DROP TABLE statement_keys`, `ALTER TABLE statement_keys_narrow RENAME TO statement_keys`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Knowledge chunks carry no entities. Measured on the dev sets with the entity leg on and
// off, it added nothing to knowledge (SciFact imported as knowledge: recall@10 -0.009,
// nDCG@10 -0.004; the other sets within +-0.002), while extracting made imports 1.1-2.8x
// slower and left the first open after a large CLI import minutes of background extraction
// (26 names a chunk, 1.6 million at 63k chunks). Facts keep theirs.
const schemaChunksNoEntities = `
DROP TRIGGER chunks_changes_update;
CREATE TRIGGER chunks_changes_update AFTER UPDATE OF text ON chunks BEGIN
	INSERT INTO changes(kind, owner_id) VALUES ('chunk', new.id);
END;
ALTER TABLE chunks DROP COLUMN entity_ids;
ALTER TABLE chunks DROP COLUMN entity_count;
ALTER TABLE chunks DROP COLUMN entity_rules;
`

// dropUnusedEntityNames deletes the entity names no fact carries: the names only chunks had.
// Ids are handed out from meta's counter and never reused, so no later name can be mistaken
// for a deleted one.
func dropUnusedEntityNames(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT entity_ids FROM facts WHERE entity_ids IS NOT NULL`)
	if err != nil {
		return err
	}
	seen := map[int64]bool{}
	var used []int64
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return err
		}
		for _, id := range DecodeIDs(b) {
			if !seen[id] {
				seen[id] = true
				used = append(used, id)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM entity_names WHERE id NOT IN (SELECT value FROM json_each(?))`, int64sJSON(used))
	return err
}

// schemaDocumentLinks keeps the [[wikilinks]] each Markdown document makes and the aliases
// its properties give it. A link stores what it names, not the document it leads to: the
// target is looked up when the link is followed (LinkTargets), so a link is right whatever
// order notes were imported in and as notes come and go, with nothing to keep in step.
// Markdown imported before this version was read without its links; forgetting its hash
// and file stamps makes the next import, or a watch's rescan, read it again.
const schemaDocumentLinks = `
CREATE TABLE document_links (
	doc_id     INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	ordinal    INTEGER NOT NULL,
	target     TEXT    NOT NULL,
	heading    TEXT    NOT NULL DEFAULT '',
	block      TEXT    NOT NULL DEFAULT '',
	label      TEXT    NOT NULL DEFAULT '',
	embed      INTEGER NOT NULL DEFAULT 0,
	byte_start INTEGER NOT NULL,
	byte_end   INTEGER NOT NULL,
	line       INTEGER NOT NULL,
	PRIMARY KEY (doc_id, ordinal)
) WITHOUT ROWID;

CREATE TABLE document_aliases (
	name   TEXT    NOT NULL,
	doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	PRIMARY KEY (name, doc_id)
) WITHOUT ROWID;
CREATE INDEX document_aliases_by_doc ON document_aliases(doc_id);

DELETE FROM file_stamps WHERE EXISTS (SELECT 1 FROM documents d
	WHERE d.format = 'markdown' AND d.space = file_stamps.space AND d.path = file_stamps.path)
	OR EXISTS (SELECT 1 FROM document_paths p JOIN documents d ON d.id = p.doc_id
	WHERE d.format = 'markdown' AND p.space = file_stamps.space AND p.path = file_stamps.path);
UPDATE documents SET hash = '' WHERE format = 'markdown';
`

// schemaDocumentsWritten gives a document the time its text was written when the text itself
// says so (a chat export's conversation, a note's front matter), in Unix milliseconds; NULL
// when it does not. Date filters read it before the import time, which only says when the
// file reached memdesk.
const schemaDocumentsWritten = `
ALTER TABLE documents ADD COLUMN written_at INTEGER;
`

// schemaDocumentsTimeline lets the timeline page through the documents that say when they
// were written, newest first, from a cursor, as facts_timeline does the facts: without it
// each page sorts every dated document (a chat export holds thousands of conversations).
// Only dated documents are in it; the rowid every entry ends with is the id tie-break.
const schemaDocumentsTimeline = `
CREATE INDEX documents_timeline ON documents(written_at) WHERE written_at IS NOT NULL;
`

// schemaSync gives every fact an identity that is the same on every device (uid: 128
// random bits, hex) and the version of it the row shows (sync_version: the id of the change
// that made it, the base of the next local change), and adds the tables of device sync
// (doc/sync.md): every change known here, local or replayed, in sync_changes (a local one
// with exported = 0 until it is in this device's log file); how far each log file was read
// (sync_files); the log lines that were refused (sync_problems); and the conflicts replay
// found (sync_conflicts).
const schemaSync = `
ALTER TABLE facts ADD COLUMN uid TEXT;
ALTER TABLE facts ADD COLUMN sync_version TEXT NOT NULL DEFAULT '';
UPDATE facts SET uid = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX facts_uid ON facts(uid);

CREATE TABLE sync_changes (
	id       TEXT    PRIMARY KEY,
	device   TEXT    NOT NULL,
	seq      INTEGER NOT NULL,
	wall     INTEGER NOT NULL,
	ctr      INTEGER NOT NULL,
	op       TEXT    NOT NULL,
	root     TEXT    NOT NULL,
	base     TEXT    NOT NULL DEFAULT '',
	space    TEXT    NOT NULL DEFAULT '',
	text     TEXT    NOT NULL DEFAULT '',
	status   TEXT    NOT NULL DEFAULT '',
	by_uid   TEXT    NOT NULL DEFAULT '',
	created  INTEGER NOT NULL DEFAULT 0,
	a        TEXT    NOT NULL DEFAULT '',
	b        TEXT    NOT NULL DEFAULT '',
	exported INTEGER NOT NULL DEFAULT 1
) WITHOUT ROWID;
CREATE INDEX sync_changes_root ON sync_changes(root);
CREATE INDEX sync_changes_device ON sync_changes(device, seq);
CREATE INDEX sync_changes_outbox ON sync_changes(seq) WHERE exported = 0;
CREATE INDEX sync_changes_dismissals ON sync_changes(a, b) WHERE op = 'dismiss';

CREATE TABLE sync_files (
	path   TEXT    PRIMARY KEY,
	offset INTEGER NOT NULL,
	line   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE sync_problems (
	path   TEXT    NOT NULL,
	line   INTEGER NOT NULL,
	reason TEXT    NOT NULL,
	seen   INTEGER NOT NULL,
	PRIMARY KEY (path, line)
) WITHOUT ROWID;

CREATE TABLE sync_conflicts (
	uid    TEXT    NOT NULL,
	other  TEXT    NOT NULL,
	kind   TEXT    NOT NULL,
	detail TEXT    NOT NULL,
	seen   INTEGER NOT NULL,
	PRIMARY KEY (uid, other)
) WITHOUT ROWID;
`

// schemaVectorRows moves the vectors into a rowid table. As a WITHOUT ROWID table, whose
// b-tree holds whole rows even in its interior pages, a 4 KB vector left about four rows to a
// page: a lookup by owner walked some nine levels of overflowing cells, and counting the
// vectors of 100k facts against their owners (DiagnoseVectors, run by every checked CLI
// command) took 14.4 s. Now the owner index is small and vectors_by_owner answers every count
// by itself, which needs every row to have the width its dims say: a row of another width
// (which only a bug could write) is not copied and never written again (its owner is then
// missing a vector, and embedded anew). A stored generated column for the width check was
// tried first: SQLite does not use an index holding one as covering, and every count read
// the rows. The triggers that name the table are made again as they were.
const schemaVectorRows = `
CREATE TABLE vectors_next (
	owner_kind  TEXT    NOT NULL CHECK (owner_kind IN ('fact', 'chunk')),
	owner_id    INTEGER NOT NULL,
	fingerprint TEXT    NOT NULL,
	dims        INTEGER NOT NULL,
	created_at  INTEGER NOT NULL,
	vec         BLOB    NOT NULL,
	PRIMARY KEY (owner_kind, owner_id)
);
INSERT INTO vectors_next(owner_kind, owner_id, fingerprint, dims, created_at, vec)
	SELECT owner_kind, owner_id, fingerprint, dims, created_at, vec FROM vectors WHERE length(vec) = 4 * dims ORDER BY owner_kind, owner_id;

DROP TRIGGER facts_vectors_update;
DROP TRIGGER facts_vectors_delete;
DROP TRIGGER chunks_vectors_update;
DROP TRIGGER chunks_vectors_delete;
DROP TABLE vectors;
ALTER TABLE vectors_next RENAME TO vectors;
CREATE INDEX vectors_by_fingerprint ON vectors(fingerprint);
CREATE INDEX vectors_by_owner ON vectors(owner_kind, owner_id, fingerprint, dims);
CREATE TRIGGER vectors_width BEFORE INSERT ON vectors WHEN length(new.vec) != 4 * new.dims BEGIN
	SELECT RAISE(IGNORE);
END;

CREATE TRIGGER facts_vectors_update AFTER UPDATE OF content, status ON facts
WHEN new.content != old.content OR new.status != 'active' BEGIN
	DELETE FROM vectors WHERE owner_kind = 'fact' AND owner_id = old.id;
END;
CREATE TRIGGER facts_vectors_delete AFTER DELETE ON facts BEGIN
	DELETE FROM vectors WHERE owner_kind = 'fact' AND owner_id = old.id;
END;
CREATE TRIGGER chunks_vectors_update AFTER UPDATE OF text ON chunks
WHEN new.text != old.text BEGIN
	DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
END;
CREATE TRIGGER chunks_vectors_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
END;
CREATE TRIGGER vectors_generation_insert AFTER INSERT ON vectors BEGIN
	INSERT INTO meta(key, value) VALUES ('vectors_generation_' || new.owner_kind, '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER vectors_generation_delete AFTER DELETE ON vectors BEGIN
	INSERT INTO meta(key, value) VALUES ('vectors_generation_' || old.owner_kind, '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER vector_changes_insert AFTER INSERT ON vectors BEGIN
	INSERT INTO vector_changes(owner_kind, owner_id) VALUES (new.owner_kind, new.owner_id);
END;
CREATE TRIGGER vector_changes_delete AFTER DELETE ON vectors BEGIN
	INSERT INTO vector_changes(owner_kind, owner_id) VALUES (old.owner_kind, old.owner_id);
END;
`

// schemaActiveEntityCounts lets stats sum the entity counts of the active facts from an
// index instead of reading every fact's row: 1.19 s at 100k facts (a one-shot `stats` is to
// answer in 300 ms). The index holds only active facts, one small integer each.
const schemaActiveEntityCounts = `
CREATE INDEX facts_active_entity_counts ON facts(entity_count) WHERE status = 'active';
`

// schemaLexiconCopy holds the word index's copy of its owner tables (engine/lexicon,
// copy.go): one row, a cache a process may start from instead of reading every live owner
// (260 ms of a one-shot recall at 100k facts). It lives in the database so that it moves
// with the change log it is consistent with.
const schemaLexiconCopy = `
CREATE TABLE lexicon_copy (
	id   INTEGER PRIMARY KEY CHECK (id = 1),
	body BLOB NOT NULL
);
`
