package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
)

// Link is one [[wikilink]] a document makes, as written: what it names, not the document
// it leads to, which LinkTargets finds when the link is followed.
type Link struct {
	DocID     int64
	Ordinal   int
	Target    string // the note's name or path as written; "" for the document itself
	Heading   string
	Block     string
	Label     string
	Embed     bool
	ByteStart int // span of the link in the document's text
	ByteEnd   int
	Line      int // 1-based
}

// replaceLinks writes the links and aliases of in as document id's, in place of any it had.
func replaceLinks(ctx context.Context, tx *sql.Tx, id int64, in DocumentInput) error {
	for _, table := range []string{"document_links", "document_aliases"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE doc_id = ?`, id); err != nil {
			return err
		}
	}
	if len(in.Links) > 0 {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO document_links(doc_id, ordinal, target, heading, block, label,
			embed, byte_start, byte_end, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, l := range in.Links {
			if _, err := stmt.ExecContext(ctx, id, i, l.Target, l.Heading, l.Block, l.Label, l.Embed,
				l.ByteStart, l.ByteEnd, l.Line); err != nil {
				return fmt.Errorf("link %d: %w", i, err)
			}
		}
	}
	for _, a := range in.Aliases {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO document_aliases(name, doc_id) VALUES (?, ?)`, a, id); err != nil {
			return fmt.Errorf("alias %q: %w", a, err)
		}
	}
	return nil
}

// Links returns the links document docID makes, in the order they appear in it.
func (s *Store) Links(ctx context.Context, docID int64) ([]Link, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT doc_id, ordinal, target, heading, block, label, embed,
		byte_start, byte_end, line FROM document_links WHERE doc_id = ? ORDER BY ordinal`, docID)
	if err != nil {
		return nil, fmt.Errorf("read links of document %d: %w", docID, err)
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		if err := rows.Scan(&l.DocID, &l.Ordinal, &l.Target, &l.Heading, &l.Block, &l.Label, &l.Embed,
			&l.ByteStart, &l.ByteEnd, &l.Line); err != nil {
			return nil, fmt.Errorf("read links of document %d: %w", docID, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read links of document %d: %w", docID, err)
	}
	return out, nil
}

// LinkTarget is a document a link's name may lead to, at one of its paths.
type LinkTarget struct {
	DocID int64
	Path  string
	Title string
	// Alias is true when the document is found by an alias, not by its file name.
	Alias bool
}

// LinkTargets returns the documents of space that a link naming name may lead to: those
// with a path (their own or a copy's) whose file is called name, with or without an
// extension, and those with alias as one of their aliases. The file name matches without
// regard to case for ASCII letters only (SQLite's LIKE); the caller checks each path
// exactly and picks among them, since which one a link means is a rule of the notes' app,
// not of the store.
func (s *Store) LinkTargets(ctx context.Context, space, name, alias string) ([]LinkTarget, error) {
	sep := string(filepath.Separator)
	escaped := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(name)
	bare, withExt := "%"+sep+escaped, "%"+sep+escaped+".%"
	rows, err := s.db.QueryContext(ctx, `
		SELECT d.id, d.path, d.title, 0 FROM documents d
			WHERE d.space = ?1 AND (d.path LIKE ?2 ESCAPE '\' OR d.path LIKE ?3 ESCAPE '\')
		UNION ALL
		SELECT d.id, p.path, d.title, 0 FROM document_paths p JOIN documents d ON d.id = p.doc_id
			WHERE p.space = ?1 AND (p.path LIKE ?2 ESCAPE '\' OR p.path LIKE ?3 ESCAPE '\')
		UNION ALL
		SELECT d.id, d.path, d.title, 1 FROM document_aliases a JOIN documents d ON d.id = a.doc_id
			WHERE a.name = ?4 AND d.space = ?1
		ORDER BY 2, 1`, space, bare, withExt, alias)
	if err != nil {
		return nil, fmt.Errorf("find documents named %q: %w", name, err)
	}
	defer rows.Close()
	var out []LinkTarget
	for rows.Next() {
		var t LinkTarget
		if err := rows.Scan(&t.DocID, &t.Path, &t.Title, &t.Alias); err != nil {
			return nil, fmt.Errorf("find documents named %q: %w", name, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find documents named %q: %w", name, err)
	}
	return out, nil
}
