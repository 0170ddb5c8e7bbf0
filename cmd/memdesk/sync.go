package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/memdesk/memdesk/engine"
)

// syncCmd is `memdesk sync init DIR | status | now`.
func (c *cli) syncCmd(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("sync: give init DIR, status or now")
	}
	fs := flag.NewFlagSet("sync "+args[0], flag.ContinueOnError)
	pos, err := c.parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "init":
		if len(pos) != 1 {
			return usagef("sync init: give the folder your sync tool shares between your devices, e.g. memdesk sync init ~/Sync/memdesk")
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			rep, err := e.SyncInit(ctx, pos[0])
			if err != nil {
				return err
			}
			st, err := e.SyncStatus(ctx)
			if err != nil {
				return err
			}
			return c.emit(st, func(w io.Writer) {
				fmt.Fprintf(w, "sync set up in %s as device %s: %d changes written to the folder, %d read from other devices\n",
					st.Dir, st.Device, rep.Exported, rep.Applied)
			})
		})
	case "now":
		if len(pos) != 0 {
			return usagef("sync now: unexpected %q", pos[0])
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			rep, err := e.SyncNow(ctx)
			if err != nil {
				return syncOff(err)
			}
			return c.emit(rep, func(w io.Writer) {
				fmt.Fprintf(w, "wrote %d changes to the sync folder; read %d lines from other devices, %d of them new\n", rep.Exported, rep.Read, rep.Applied)
				for _, p := range rep.Problems {
					fmt.Fprintf(w, "skipped %s line %d: %s\n", p.File, p.Line, p.Reason)
				}
			})
		})
	case "status":
		if len(pos) != 0 {
			return usagef("sync status: unexpected %q", pos[0])
		}
		return c.withEngine(ctx, func(e *engine.Engine) error {
			st, err := e.SyncStatus(ctx)
			if err != nil {
				return syncOff(err)
			}
			return c.emit(st, func(w io.Writer) { printSyncStatus(w, st) })
		})
	default:
		return usagef("sync: unknown %q (give init DIR, status or now)", args[0])
	}
}

// syncOff words "sync is not set up" with the command that sets it up.
func syncOff(err error) error {
	if errors.Is(err, engine.ErrSyncOff) {
		return fmt.Errorf("%w: run memdesk sync init DIR with the folder your sync tool shares between your devices", err)
	}
	return err
}

func printSyncStatus(w io.Writer, st engine.SyncStatus) {
	fmt.Fprintf(w, "this device: %s\nsync folder: %s\n", st.Device, st.Dir)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tCHANGES\tLAST CHANGE")
	for _, d := range st.Devices {
		name := d.Device
		if d.This {
			name += " (this one)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", name, d.Changes, d.LastWrite.Local().Format(time.DateTime))
	}
	tw.Flush()
	fmt.Fprintf(w, "pending: %d changes to write to the folder, %d bytes of other devices' logs to read\n", st.PendingExport, st.PendingApply)
	if len(st.Conflicts) == 0 {
		fmt.Fprintln(w, "conflicts: none")
	} else {
		fmt.Fprintf(w, "conflicts: %d (resolve edit conflicts with memdesk admin contradictions, supersede or dismiss)\n", len(st.Conflicts))
		for _, c := range st.Conflicts {
			fmt.Fprintf(w, "  #%d and #%d (%s): %s\n", c.FactID, c.OtherID, c.Kind, c.Detail)
		}
	}
	if len(st.Problems) > 0 {
		fmt.Fprintf(w, "problems: %d log lines skipped\n", len(st.Problems))
		for _, p := range st.Problems {
			fmt.Fprintf(w, "  %s line %d: %s\n", p.File, p.Line, p.Reason)
		}
	}
}
