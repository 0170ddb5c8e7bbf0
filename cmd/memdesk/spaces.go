package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/memdesk/memdesk/engine"
)

// spaces lists the spaces, or renames one.
func (c *cli) spaces(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "rename" {
		fs := flag.NewFlagSet("spaces rename", flag.ContinueOnError)
		pos, err := c.parseInterleaved(fs, args[1:])
		if err != nil {
			return err
		}
		if len(pos) != 2 {
			return usagef("spaces rename: give the space's name and its new one, e.g. memdesk spaces rename work job")
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			sv, err := e.RenameSpace(ctx, pos[0], pos[1])
			if err != nil {
				return err
			}
			return c.emit(sv, func(w io.Writer) {
				fmt.Fprintf(w, "renamed %q to %q: %d memories, %d documents\n", pos[0], sv.Name, sv.Memories, sv.Documents)
			})
		})
	}
	if len(args) > 0 {
		return usagef("spaces: unexpected %q (memdesk spaces lists them; memdesk spaces rename OLD NEW renames one)", args[0])
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		list, err := e.Spaces(ctx)
		if err != nil {
			return err
		}
		return c.emit(struct {
			Spaces []engine.SpaceView `json:"spaces"`
		}{list}, func(w io.Writer) {
			if len(list) == 0 {
				fmt.Fprintln(w, "no spaces yet: everything goes to \"default\" until you name another with --space")
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SPACE\tMEMORIES\tDOCUMENTS")
			for _, s := range list {
				fmt.Fprintf(tw, "%s\t%d\t%d\n", s.Name, s.Memories, s.Documents)
			}
			tw.Flush()
		})
	})
}

// move puts a memory in another space.
func (c *cli) move(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("move", flag.ContinueOnError)
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("move: give a memory's id and the space to put it in, e.g. memdesk move 12 work")
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return usagef("move: %q is not a memory id (a number from memdesk list)", pos[0])
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		f, err := e.MoveMemory(ctx, id, pos[1])
		if err != nil {
			return err
		}
		return c.emit(f, func(w io.Writer) { fmt.Fprintf(w, "moved #%d to %s\n", f.ID, f.Space) })
	})
}
