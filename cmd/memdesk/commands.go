package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

func (c *cli) remember(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("remember", flag.ContinueOnError)
	space := fs.String("space", "", "space (namespace) of the fact")
	supersedes := fs.Int64("supersedes", 0, "id of an active fact this one replaces (it is kept as history)")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("remember: give the text to remember, e.g. memdesk remember \"CI uses Python 3.12\"")
	}
	if *supersedes < 0 {
		return usagef("remember: --supersedes takes a fact id, as shown by list or recall")
	}
	return c.withWritingEngine(ctx, func(e *engine.Engine, sem *semantic) error {
		res, err := e.Remember(ctx, engine.RememberRequest{Action: engine.ActionAdd, Text: joinArgs(pos),
			Space: *space, Supersedes: *supersedes})
		if err != nil {
			return err
		}
		vecs := c.embedWritten(ctx, e, sem, writtenFact(res))
		return c.emitWrite(rememberOutput{res, vecs}, vecs, func(w io.Writer) { printRemember(w, res) })
	})
}

// writtenFact is the fact a remember or edit wrote, if it wrote one.
func writtenFact(res engine.RememberResult) engine.Written {
	if res.Status != engine.StatusAdded && res.Status != engine.StatusEdited {
		return engine.Written{}
	}
	return engine.Written{Facts: []int64{res.FactID}}
}

// rememberOutput and kbAddOutput are a write's JSON: its result, and "vectors" when the
// model answered the command's look at it.
type rememberOutput struct {
	engine.RememberResult
	Vectors *writeVectors `json:"vectors,omitempty"`
}

type kbAddOutput struct {
	engine.KBAddResult
	Vectors *writeVectors `json:"vectors,omitempty"`
}

// emitWrite is emit for a write's output (out, with vecs in it), and for a person a line
// when some of what was written was left to be embedded later.
func (c *cli) emitWrite(out any, vecs *writeVectors, human func(w io.Writer)) error {
	if c.json {
		return writeJSON(c.out, out)
	}
	human(c.out)
	if vecs != nil && vecs.Note != "" {
		fmt.Fprintf(c.out, "note: %s\n", vecs.Note)
	}
	return nil
}

// printRemember says what a remember or edit did, and what the text restates or contradicts,
// with the command that resolves it.
func printRemember(w io.Writer, res engine.RememberResult) {
	switch res.Status {
	case engine.StatusDuplicate:
		fmt.Fprintf(w, "already remembered as fact %d (nothing written)\n", res.FactID)
	case engine.StatusAdded:
		fmt.Fprintf(w, "remembered as fact %d\n", res.FactID)
	default:
		fmt.Fprintf(w, "fact %d %s\n", res.FactID, res.Status)
	}
	if res.Superseded != 0 {
		fmt.Fprintf(w, "fact %d is now superseded by it (kept as history; undo with memdesk restore %d)\n", res.Superseded, res.Superseded)
	}
	if len(res.SimilarTo) > 0 {
		ids := make([]string, len(res.SimilarTo))
		for i, id := range res.SimilarTo {
			ids[i] = fmt.Sprintf("#%d", id)
		}
		fmt.Fprintf(w, "similar to %s: if it says the same, forget one (memdesk forget ID)\n", strings.Join(ids, ", "))
	}
	for _, c := range res.Contradicts {
		fmt.Fprintf(w, "contradicts #%d %q: %s\n", c.FactID, clip(c.Text, 120), display.Line(c.Reason))
		fmt.Fprintf(w, "  keep the new one: memdesk supersede %d %d · keep both: memdesk dismiss %d %d\n", c.FactID, res.FactID, c.FactID, res.FactID)
	}
}

// supersede resolves a contradiction by keeping NEW and marking OLD superseded by it.
func (c *cli) supersede(ctx context.Context, args []string) error {
	if len(args) != 2 {
		return usagef("supersede: give the old fact's id and the id of the fact that replaces it, e.g. memdesk supersede 12 15")
	}
	old, err := parseID("supersede", args[0])
	if err != nil {
		return err
	}
	by, err := parseID("supersede", args[1])
	if err != nil {
		return err
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.Remember(ctx, engine.RememberRequest{Action: engine.ActionSupersede, ID: old, By: by})
		if err != nil {
			return err
		}
		return c.emit(res, func(w io.Writer) {
			fmt.Fprintf(w, "fact %d is superseded by fact %d (kept as history; undo with memdesk restore %d)\n", old, by, old)
		})
	})
}

// dismiss keeps both facts of a reported contradiction and stops reporting the pair.
func (c *cli) dismiss(ctx context.Context, args []string) error {
	if len(args) != 2 {
		return usagef("dismiss: give the two fact ids of a reported contradiction, e.g. memdesk dismiss 12 15")
	}
	a, err := parseID("dismiss", args[0])
	if err != nil {
		return err
	}
	b, err := parseID("dismiss", args[1])
	if err != nil {
		return err
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if err := e.DismissContradiction(ctx, a, b); err != nil {
			return err
		}
		res := map[string]any{"dismissed": []int64{a, b}}
		return c.emit(res, func(w io.Writer) {
			fmt.Fprintf(w, "facts %d and %d are both kept; the pair will not be reported again\n", a, b)
		})
	})
}

func parseID(what, s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("%s: %q is not an id (a positive number, as shown by list or recall)", what, s)
	}
	return id, nil
}

func (c *cli) edit(ctx context.Context, args []string) error {
	if len(args) < 2 {
		return usagef("edit: give an id and the new text, e.g. memdesk edit 12 \"CI uses Python 3.13\"")
	}
	id, err := parseID("edit", args[0])
	if err != nil {
		return err
	}
	text := joinArgs(args[1:])
	if len(args) > 1 && args[1] == "--" {
		text = joinArgs(args[2:])
	}
	return c.withWritingEngine(ctx, func(e *engine.Engine, sem *semantic) error {
		res, err := e.Remember(ctx, engine.RememberRequest{Action: engine.ActionEdit, ID: id, Text: text})
		if err != nil {
			return err
		}
		vecs := c.embedWritten(ctx, e, sem, writtenFact(res))
		return c.emitWrite(rememberOutput{res, vecs}, vecs, func(w io.Writer) { printRemember(w, res) })
	})
}

func (c *cli) setStatus(ctx context.Context, args []string, action engine.RememberAction) error {
	if len(args) != 1 {
		return usagef("%s: give one fact id", action)
	}
	id, err := parseID(string(action), args[0])
	if err != nil {
		return err
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.Remember(ctx, engine.RememberRequest{Action: action, ID: id})
		if err != nil {
			return err
		}
		return c.emit(res, func(w io.Writer) {
			fmt.Fprintf(w, "fact %d %s\n", res.FactID, res.Status)
			if res.Status == engine.StatusForgotten {
				fmt.Fprintf(w, "undo with: memdesk restore %d\n", res.FactID)
			}
		})
	})
}

func (c *cli) list(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	space := fs.String("space", "", "only this space")
	all := fs.Bool("all", false, "include forgotten and superseded facts")
	filter := fs.String("filter", "", "only facts containing this text")
	limit := fs.Int("limit", 0, "at most this many facts (0: all)")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list: unexpected argument %q (use --filter to search within the list)", pos[0])
	}
	if *limit < 0 {
		return usagef("list: --limit takes a number of facts, 1 or more (0 or no --limit: all), not %d", *limit)
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.List(ctx, engine.ListRequest{Space: *space, All: *all, Filter: *filter, Limit: *limit})
		if err != nil {
			return err
		}
		return c.emit(res, func(w io.Writer) {
			if len(res.Facts) == 0 {
				switch {
				case *filter != "":
					fmt.Fprintf(w, "no memory holds %q\n", clip(*filter, 80))
				case *space != "":
					fmt.Fprintf(w, "no memories in space %q\n", *space)
				default:
					fmt.Fprintln(w, "no facts yet: add one with memdesk remember \"...\"")
				}
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSPACE\tSTATUS\tCREATED\tTEXT")
			for _, f := range res.Facts {
				status := f.Status
				if f.SupersededBy != 0 {
					status = fmt.Sprintf("superseded by #%d", f.SupersededBy)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", f.ID, display.Line(f.Space), display.Line(status),
					f.CreatedAt.Local().Format("2006-01-02 15:04"), display.Line(f.Text))
			}
			tw.Flush()
		})
	})
}

func (c *cli) recall(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	space := fs.String("space", "", "space to search")
	source := fs.String("source", "all", "all, memory or knowledge")
	k := fs.Int("k", 0, "number of hits (default from config)")
	var filters recallFilters
	fs.StringVar(&filters.since, "since", "", "only hits written since: a day (2026-11-30), a moment or an age (7d)")
	fs.StringVar(&filters.until, "until", "", "only hits written before the end of this day, moment or age")
	fs.StringVar(&filters.folder, "folder", "", "only knowledge hits from documents in this folder")
	fs.StringVar(&filters.sort, "sort", "", "relevance (the default) or newest")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("recall: give a query, e.g. memdesk recall \"python version\"")
	}
	req := engine.RecallRequest{Query: joinArgs(pos), Space: *space, Source: engine.Source(*source), K: *k}
	if err := filters.narrow(&req, time.Now()); err != nil {
		return err
	}
	if *k < 0 {
		return usagef("recall: -k takes a number of hits, 1 or more (0 or no -k: %d from the config), not %d", c.cfg.Config.Recall.K, *k)
	}
	// A one-shot recall looks at the model first (bounded): the semantic leg answers when it
	// can, and the result says why not when it cannot.
	return c.withCheckedEngine(ctx, func(e *engine.Engine) error {
		res, err := e.Recall(ctx, req)
		if err != nil {
			return err
		}
		return c.emit(res, func(w io.Writer) { printRecall(w, res, c.verbose) })
	})
}

// printRecall prints each hit with why it was found in plain words; verbose adds the
// ranking stage's account with its numbers (always in --json as "why").
func printRecall(w io.Writer, res engine.RecallResult, verbose bool) {
	// The notes say what the hits alone do not: "nothing was written last week; showing
	// matches from any time" before a hit written today.
	for _, note := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", display.Line(note))
	}
	switch {
	case len(res.Hits) == 0 && res.Filtered > 0:
		fmt.Fprintf(w, "no hit matches the date range or folder; %d without them\n", res.Filtered)
	case len(res.Hits) == 0:
		if why := res.Floors.Unanswered(); why != "" {
			fmt.Fprintf(w, "nothing relevant found: %s\n", display.Line(why))
		} else {
			fmt.Fprintln(w, "nothing relevant found")
		}
		if res.DidYouMean != "" {
			fmt.Fprintf(w, "did you mean: %s\n", display.Line(res.DidYouMean))
		}
	}
	if res.Relaxed {
		fmt.Fprintln(w, "(no strict match; showing looser matches)")
	}
	for i, h := range res.Hits {
		where := fmt.Sprintf("memory #%d", h.ID)
		if h.Doc != nil {
			where = fmt.Sprintf("%s — %s%s", display.Line(h.Doc.Title), display.Line(h.Doc.Path), pageLines(h.Doc.Page, h.Doc.LineStart, h.Doc.LineEnd))
		}
		fmt.Fprintf(w, "%d. [%s] %s\n", i+1, where, display.Line(clip(h.Text, 300)))
		if h.Doc != nil && len(h.Doc.OtherPaths) > 0 {
			fmt.Fprintf(w, "   also at: %s\n", displayPaths(h.Doc.OtherPaths))
		}
		if h.Doc != nil && len(h.Doc.AlsoIn) > 0 {
			fmt.Fprintf(w, "   same passage in: %s\n", displayPlaces(h.Doc.AlsoIn))
		}
		fmt.Fprintf(w, "   %s\n", display.Line(h.WhyPlain))
		if verbose {
			fmt.Fprintf(w, "   score %.3f · %s\n", h.Score, display.Line(h.Why))
		}
		printConflicts(w, h)
	}
	fmt.Fprintf(w, "semantic leg: %s\n", display.Line(res.Semantic))
}

// printConflicts marks a memory that others contradict, and which of them is newer:
// "   newer: conflicts with #3 (…)" or "   older: conflicts with #7 (…)".
func printConflicts(w io.Writer, h engine.Hit) {
	if len(h.Conflicts) == 0 {
		return
	}
	standing := "older"
	if h.Newest() {
		standing = "newer"
	}
	parts := make([]string, len(h.Conflicts))
	for i, c := range h.Conflicts {
		parts[i] = fmt.Sprintf("#%d (%s)", c.FactID, display.Line(c.Reason))
	}
	fmt.Fprintf(w, "   %s: conflicts with %s\n", standing, strings.Join(parts, "; "))
}

// displayPaths joins paths for one terminal line.
func displayPaths(paths []string) string {
	shown := make([]string, len(paths))
	for i, p := range paths {
		shown[i] = display.Line(p)
	}
	return strings.Join(shown, ", ")
}

// displayPlaces lists places in documents for a terminal line: "fs.md:1385-1412, …".
func displayPlaces(places []engine.DocPlace) string {
	shown := make([]string, len(places))
	for i, p := range places {
		shown[i] = display.Line(p.Path) + pageLines(p.Page, p.LineStart, p.LineEnd)
	}
	return strings.Join(shown, ", ")
}

// clip shortens text to n runes for a terminal line. It does not make the text safe to show:
// print it with %q (which escapes every control and format character) or display.Line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func (c *cli) kb(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("kb: give a subcommand: add, list, show, reimport, rm, watch or unwatch")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "add", "import":
		return c.kbAdd(ctx, args)
	case "watch":
		return c.kbWatch(ctx, args)
	case "unwatch":
		return c.kbUnwatch(ctx, args)
	case "list", "ls":
		fs := flag.NewFlagSet("kb list", flag.ContinueOnError)
		space := fs.String("space", "", "only this space")
		if _, err := c.parseInterleaved(fs, args); err != nil {
			return err
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			res, err := e.KBList(ctx, *space)
			if err != nil {
				return err
			}
			return c.emit(res, func(w io.Writer) {
				for _, r := range res.Watched {
					fmt.Fprintf(w, "watched folder %s (space %s)\n", display.Line(r.Root), display.Line(r.Space))
				}
				if len(res.Documents) == 0 {
					fmt.Fprintln(w, "no documents yet: import some with memdesk kb add PATH")
					return
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tCHUNKS\tSPACE\tTITLE\tPATH")
				for _, d := range res.Documents {
					fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\n", d.ID, d.Chunks, display.Line(d.Space), display.Line(d.Title), display.Line(d.Path))
					for _, p := range d.Copies {
						fmt.Fprintf(tw, "\t\t\t  copy\t%s\n", display.Line(p))
					}
				}
				tw.Flush()
			})
		})
	case "show":
		if len(args) != 1 {
			return usagef("kb show: give one document id")
		}
		id, err := parseID("kb show", args[0])
		if err != nil {
			return err
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			chunks, err := e.KBChunks(ctx, id)
			if err != nil {
				return err
			}
			return c.emit(map[string]any{"doc_id": id, "chunks": chunks}, func(w io.Writer) {
				for _, ch := range chunks {
					where := fmt.Sprintf("lines %d-%d", ch.LineStart, ch.LineEnd)
					if ch.Page > 0 {
						where = fmt.Sprintf("p. %d, %s", ch.Page, where)
					}
					fmt.Fprintf(w, "--- chunk %d, %s %s\n%s\n", ch.Ordinal, where, display.Line(ch.Heading), display.Block(ch.Text))
				}
			})
		})
	case "links":
		if len(args) != 1 {
			return usagef("kb links: give one document id")
		}
		id, err := parseID("kb links", args[0])
		if err != nil {
			return err
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			links, err := e.KBLinks(ctx, id)
			if err != nil {
				return err
			}
			return c.emit(map[string]any{"doc_id": id, "links": links}, func(w io.Writer) {
				if len(links) == 0 {
					fmt.Fprintln(w, "no [[links]] in this document")
					return
				}
				for _, l := range links {
					to := "not imported"
					if l.To != nil {
						to = fmt.Sprintf("%s (document %d)", display.Line(l.To.Path), l.To.DocID)
						if l.To.Line > 0 {
							to = fmt.Sprintf("%s:%d (document %d)", display.Line(l.To.Path), l.To.Line, l.To.DocID)
						}
					}
					kind := "link"
					if l.Embed {
						kind = "embed"
					}
					fmt.Fprintf(w, "line %d: %s %s -> %s\n", l.Line, kind, display.Line(l.Text), to)
				}
			})
		})
	case "reimport":
		if len(args) != 1 {
			return usagef("kb reimport: give one document id")
		}
		id, err := parseID("kb reimport", args[0])
		if err != nil {
			return err
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			f, err := e.KBReimport(ctx, id)
			if err != nil {
				return err
			}
			return c.emit(f, func(w io.Writer) { fmt.Fprintf(w, "%s: %s (%d chunks)\n", display.Line(f.Path), f.Outcome, f.Chunks) })
		})
	case "rm", "remove":
		fs := flag.NewFlagSet("kb rm", flag.ContinueOnError)
		space := fs.String("space", "", "space of the path")
		pos, err := c.parseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("kb rm: give one document id (every copy goes) or one path (only that copy goes)")
		}
		id, err := parseID("kb rm", pos[0])
		if err != nil {
			// Not an id: a path, of which only that copy leaves.
			return c.withEngine(ctx, func(e *engine.Engine) error {
				r, err := e.KBRemovePath(ctx, *space, pos[0])
				if err != nil {
					return err
				}
				return c.emit(r, func(w io.Writer) {
					if r.Conversations > 0 {
						fmt.Fprintf(w, "%s removed with its %s (the file on disk is untouched)\n", display.Line(r.Path), plural(r.Conversations, "conversation"))
						return
					}
					if r.Removed {
						fmt.Fprintf(w, "document %d removed with its last path %s (the file on disk is untouched)\n", r.DocID, display.Line(r.Path))
					} else {
						fmt.Fprintf(w, "%s removed; document %d stays at its other paths\n", display.Line(r.Path), r.DocID)
					}
				})
			})
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			if err := e.KBRemove(ctx, id); err != nil {
				return err
			}
			return c.emit(map[string]any{"doc_id": id, "status": "removed"}, func(w io.Writer) {
				fmt.Fprintf(w, "document %d removed (the file on disk is untouched)\n", id)
			})
		})
	default:
		return usagef("kb: unknown subcommand %q (want add, list, show, reimport, rm, watch or unwatch)", sub)
	}
}

func (c *cli) kbAdd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("kb add", flag.ContinueOnError)
	space := fs.String("space", "", "space to import into")
	paths, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("kb add: name files or folders to import, e.g. memdesk kb add ~/notes")
	}
	return c.withWritingEngine(ctx, func(e *engine.Engine, sem *semantic) error {
		var bar *progressbar.ProgressBar
		progress := func(p engine.ImportProgress) {
			if bar == nil {
				bar = c.newBar(p.BytesTotal, "importing")
			}
			if bar != nil {
				bar.Describe(fmt.Sprintf("importing %d/%d", p.FilesDone, p.FilesTotal))
				bar.Set64(p.BytesDone)
			}
		}
		res, err := e.KBAdd(ctx, engine.KBAddRequest{Paths: paths, Space: *space, Progress: progress})
		if bar != nil {
			bar.Finish()
			fmt.Fprintln(c.err)
		}
		if err != nil && len(res.Files) == 0 {
			return err
		}
		vecs := c.embedWritten(ctx, e, sem, writtenDocuments(res))
		if perr := c.emitWrite(kbAddOutput{res, vecs}, vecs, func(w io.Writer) { printImport(w, res) }); perr != nil {
			return perr
		}
		if err == nil && res.Failed > 0 {
			// Skipped files are not documents; a failed one is a document that was not stored.
			err = fmt.Errorf("%d files failed to import (listed above); fix what their reasons say and run the import again", res.Failed)
		}
		return err
	})
}

// writtenDocuments are the documents an import added or changed. A chat export's
// conversations have no one document number here: the app or vectors-fix embeds them.
func writtenDocuments(res engine.KBAddResult) engine.Written {
	var w engine.Written
	for _, f := range res.Files {
		if f.DocID != 0 && (f.Outcome == engine.ImportAdded || f.Outcome == engine.ImportUpdated) {
			w.Documents = append(w.Documents, f.DocID)
		}
	}
	return w
}

// plural counts n of a noun whose plural takes an s: "1 conversation", "12 conversations".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func printImport(w io.Writer, res engine.KBAddResult) {
	for _, f := range res.Files {
		switch f.Outcome {
		case engine.ImportSkipped, engine.ImportFailed:
			fmt.Fprintf(w, "%s %s: %s\n", f.Outcome, display.Line(f.Path), display.Line(f.Reason))
		default:
			// A decoded file is named, so a person can check its text came out right.
			decoded := ""
			if f.Encoding != "" {
				decoded = ", decoded from " + display.Line(f.Encoding)
			}
			if f.Conversations > 0 {
				// A chat export: one document per conversation, so no one document number.
				fmt.Fprintf(w, "%s %s (%s, %d chunks%s)\n", f.Outcome, display.Line(f.Path), plural(f.Conversations, "conversation"), f.Chunks, decoded)
				continue
			}
			fmt.Fprintf(w, "%s %s (document %d, %d chunks%s)\n", f.Outcome, display.Line(f.Path), f.DocID, f.Chunks, decoded)
		}
	}
	copies := ""
	switch {
	case res.Duplicate == 1:
		copies = ", 1 copy of a document already in"
	case res.Duplicate > 1:
		copies = fmt.Sprintf(", %d copies of documents already in", res.Duplicate)
	}
	fmt.Fprintf(w, "%d added, %d updated, %d unchanged%s, %d skipped, %d failed\n",
		res.Added, res.Updated, res.Unchanged, copies, res.Skipped, res.Failed)
	if len(res.Conflicts) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d sentences disagree with or repeat your memories:\n", len(res.Conflicts))
	for _, k := range res.Conflicts {
		fmt.Fprintf(w, "  %s%s %q\n", display.Line(k.Path), pageLine(k.Page, k.LineStart), clip(k.Sentence, 120))
		if k.Kind == engine.ConflictContradicts {
			fmt.Fprintf(w, "    contradicts memory #%d %q: %s\n", k.FactID, clip(k.FactText, 120), display.Line(k.Reason))
		} else {
			fmt.Fprintf(w, "    restates memory #%d %q\n", k.FactID, clip(k.FactText, 120))
		}
	}
}

// newBar returns a byte progress bar on stderr, or nil when stderr is not a terminal (a
// script's log should not fill with carriage returns).
func (c *cli) newBar(total int64, desc string) *progressbar.ProgressBar {
	f, ok := c.err.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || c.json {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(c.err),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func (c *cli) stats(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("stats: takes no arguments")
	}
	return c.withCheckedEngine(ctx, func(e *engine.Engine) error {
		s, err := e.Stats(ctx)
		if err != nil {
			return err
		}
		return c.emit(s, func(w io.Writer) {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "database\t%s (%.1f MB, schema %d)\n", display.Line(s.Path), float64(s.FileBytes)/(1<<20), s.SchemaVersion)
			if worthCompacting(s.FreeBytes, s.FileBytes) {
				fmt.Fprintf(tw, "free space\t%.1f MB of the file holds nothing: `memdesk admin compact` gives it back\n", float64(s.FreeBytes)/(1<<20))
			}
			fmt.Fprintf(tw, "facts\t%d active, %d superseded, %d forgotten\n", s.FactsActive, s.FactsSuperseded, s.FactsDeleted)
			fmt.Fprintf(tw, "knowledge\t%d documents, %d chunks\n", s.Documents, s.Chunks)
			fmt.Fprintf(tw, "spaces\t%d\n", s.Spaces)
			fmt.Fprintf(tw, "semantic leg\t%s\n", display.Line(s.Semantic))
			if s.SemanticRole != "" {
				fmt.Fprintf(tw, "semantic role\t%s: %s\n", s.SemanticRole, display.Line(s.RoleWhy))
			}
			tw.Flush()
		})
	})
}

func (c *cli) admin(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	all := fs.Bool("all", false, "repeat bounded passes until nothing is left")
	budget := fs.Int("budget", 0, "rows per pass (0: the action's default)")
	to := fs.String("to", "", "backup: the file to write (default: beside the database)")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("admin: give one action, e.g. memdesk admin integrity")
	}
	open := c.withEngine
	switch pos[0] {
	case "vectors-fix":
		open = c.withVectorsEngine // it needs the embedding model: start it and wait for it
	case "vectors-diagnose":
		// It counts rows: against the current model when a quick look finds it, else per
		// stored vector space, never after a wait.
		open = c.withCheckedEngine
	}
	return open(ctx, func(e *engine.Engine) error {
		progress, done := c.countProgress(pos[0])
		res, err := e.Admin(ctx, engine.AdminRequest{Action: pos[0], All: *all, Budget: *budget, To: *to,
			Progress: func(n, total int) {
				if progress != nil {
					progress(n, total)
				}
			}})
		done()
		if err != nil {
			return err
		}
		if err := c.emit(res, func(w io.Writer) {
			state := "ok"
			if !res.OK {
				state = "PROBLEMS FOUND"
			}
			fmt.Fprintf(w, "%s: %s\n", display.Line(res.Action), state)
			for _, d := range res.Details {
				fmt.Fprintf(w, "  %s\n", display.Line(d))
			}
			for _, step := range res.Next {
				fmt.Fprintf(w, "  %s\n", display.Line(cliStep(res.Action, step)))
			}
		}); err != nil {
			return err
		}
		if !res.OK && pos[0] == "integrity" {
			return fmt.Errorf("%s found problems; back up the database file before repairing it", res.Action)
		}
		if pos[0] == "vectors-diagnose" && res.Counts["stale"]+res.Counts["orphans"] > 0 {
			// A script checking the vectors needs the exit status to say so. Without the
			// model only orphans can be found: which vectors are stale is not known then.
			return fmt.Errorf("%s found %d texts without a vector in the current model's space and %d orphaned vectors; run `memdesk admin vectors-fix --all` to fix them all",
				res.Action, res.Counts["stale"], res.Counts["orphans"])
		}
		return nil
	})
}

// cliStep words a repair's next step as this CLI's commands.
func cliStep(action string, s engine.AdminStep) string {
	switch s.Kind {
	case engine.StepRun:
		cmd := "memdesk admin " + s.Action
		if s.All {
			cmd += " --all"
		}
		again := ""
		if s.Action == action {
			again = " again"
		}
		return fmt.Sprintf("run `%s`%s %s", cmd, again, s.Why)
	case engine.StepBackupFirst:
		return "copy the database file somewhere safe first (`memdesk admin backup`)"
	case engine.StepSettle:
		return "keep the right one with `memdesk supersede OLD NEW`, or keep both with `memdesk dismiss A B`"
	case engine.StepOpenCopy:
		return "open it with memdesk --db " + s.Path
	case engine.StepWaitForModel:
		return "first, Ollama must answer with the configured model (`memdesk stats` says semantic: ready)"
	case engine.StepSeeWhy:
		return "add -v to see why"
	}
	return string(s.Kind)
}

func (c *cli) printConfig(args []string) error {
	if len(args) > 0 {
		return usagef("config: takes no arguments")
	}
	db, err := c.dbPath()
	if err != nil {
		return err
	}
	entries := c.cfg.Entries()
	return c.emit(map[string]any{"file": c.cfg.Path, "db": db, "settings": entries}, func(w io.Writer) {
		fmt.Fprintf(w, "config file: %s\ndatabase:    %s\n\n", display.Line(c.cfg.Path), display.Line(db))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tVALUE\tFROM\tENV")
		for _, en := range entries {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", display.Line(en.Key), display.Line(en.Value), en.Source, en.Env)
		}
		tw.Flush()
	})
}

// pageLines is where in a document a passage is: ":12-20" after a path, or for a PDF
// ", p. 3, lines 12-20", since a PDF reader finds a place by page first.
func pageLines(page, start, end int) string {
	if page == 0 {
		return fmt.Sprintf(":%d-%d", start, end)
	}
	return fmt.Sprintf(", p. %d, lines %d-%d", page, start, end)
}

// pageLine is pageLines for one line.
func pageLine(page, line int) string {
	if page == 0 {
		return fmt.Sprintf(":%d", line)
	}
	return fmt.Sprintf(", p. %d, line %d", page, line)
}

// worthCompacting says when stats points at admin compact: free space of 8 MB or more that
// is a fifth of the file or more (a store upgraded from an older version, or after large
// removals in one). Less is reused by the next writes anyway.
func worthCompacting(free, file int64) bool { return free >= 8<<20 && free*5 >= file }
