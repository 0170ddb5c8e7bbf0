package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/internal/atomicfile"
)

// memories exports the active memories to Markdown or JSON and imports such a file back.
func (c *cli) memories(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("memories: give a subcommand: export or import")
	}
	switch sub, args := args[0], args[1:]; sub {
	case "export":
		return c.memoriesExport(ctx, args)
	case "import":
		return c.memoriesImport(ctx, args)
	default:
		return usagef("memories: unknown subcommand %q (want export or import)", sub)
	}
}

func (c *cli) memoriesExport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("memories export", flag.ContinueOnError)
	space := fs.String("space", "", "only this space (default: every space)")
	format := fs.String("format", "", "md or json (default: from --to's extension, else md)")
	to := fs.String("to", "", "file to write (default: standard output)")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("memories export: unexpected argument %q (name the file with --to)", pos[0])
	}
	if *format == "" {
		*format = "md"
		if strings.EqualFold(filepath.Ext(*to), ".json") || c.json && *to == "" {
			*format = "json"
		}
	}
	var write func(io.Writer, engine.MemoryExport) error
	switch *format {
	case "md", "markdown":
		write = engine.WriteMemoriesMarkdown
	case "json":
		write = engine.WriteMemoriesJSON
	default:
		return usagef("memories export: --format is md or json, not %q", *format)
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		ex, err := e.ExportMemories(ctx, *space)
		if err != nil {
			return err
		}
		if *to == "" || *to == "-" {
			return write(c.out, ex)
		}
		if err := atomicfile.Write(*to, func(w io.Writer) error { return write(w, ex) }); err != nil {
			return fmt.Errorf("memories export: %w", err)
		}
		fmt.Fprintf(c.err, "wrote %d memories to %s\n", len(ex.Memories), *to)
		return nil
	})
}

func (c *cli) memoriesImport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("memories import", flag.ContinueOnError)
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memories import: name one file written by memories export (or - for standard input)")
	}
	in := io.Reader(os.Stdin)
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("memories import: %w", err)
		}
		defer f.Close()
		in = f
	}
	ex, err := engine.ReadMemories(in)
	if err != nil {
		return fmt.Errorf("memories import %s: %w", pos[0], err)
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.ImportMemories(ctx, ex, nil)
		if err != nil {
			return err
		}
		if perr := c.emit(res, func(w io.Writer) {
			for _, r := range res.Refused {
				fmt.Fprintf(w, "refused %s\n", r)
			}
			fmt.Fprintf(w, "%d added, %d already there, %d refused\n", res.Added, res.Duplicate, len(res.Refused))
		}); perr != nil {
			return perr
		}
		if len(res.Refused) > 0 {
			return errors.New("some memories were refused (listed above); fix them in the file and import it again: the rest are not added twice")
		}
		return nil
	})
}
