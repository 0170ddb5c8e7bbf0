package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/display"
)

// defaultTimelineEntries is how many entries `timeline` prints without --limit: a screenful
// or two, not the 200 of a GUI page.
const defaultTimelineEntries = 50

// timeline prints the newest entries of the timeline under a line per day: memories, and
// the documents whose text says when it was written (chat conversations, dated notes).
func (c *cli) timeline(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("timeline", flag.ContinueOnError)
	space := fs.String("space", "", "only this space")
	limit := fs.Int("limit", defaultTimelineEntries, "at most this many entries")
	pos, err := c.parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("timeline: unexpected argument %q", pos[0])
	}
	if *limit < 1 {
		return usagef("timeline: --limit takes a number of entries, 1 or more, not %d", *limit)
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		page, err := e.Timeline(ctx, engine.TimelineRequest{Space: *space, Limit: *limit})
		if err != nil {
			return err
		}
		return c.emit(page, func(w io.Writer) { printTimeline(w, page, *space, *limit) })
	})
}

func printTimeline(w io.Writer, page engine.TimelinePage, space string, limit int) {
	if len(page.Days) == 0 {
		if space != "" {
			fmt.Fprintf(w, "nothing written in space %q\n", space)
			return
		}
		fmt.Fprintln(w, "no memories or dated documents yet: add one with memdesk remember \"...\"")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, d := range page.Days {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, d.Day.Format("Mon 2006-01-02"))
		for _, en := range d.Entries {
			at := en.At().Local().Format("15:04")
			if f := en.Fact; f != nil {
				fmt.Fprintf(tw, "  %s\tmemory #%d\t%s\n", at, f.ID, display.Line(f.Text))
				continue
			}
			doc := en.Document
			kind := "note"
			if doc.Conversation() {
				kind = "conversation"
			}
			fmt.Fprintf(tw, "  %s\t%s #%d\t%s  (%s, %s)\n", at, kind, doc.ID, display.Line(doc.Title),
				display.Line(doc.Format), display.Line(doc.Path))
		}
	}
	tw.Flush()
	if page.Next != nil {
		fmt.Fprintf(w, "\n%d entries shown; older ones with a larger --limit\n", limit)
	}
}
