package ui

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2/lang"

	"github.com/memdesk/memdesk/engine"
)

// sentence turns an engine error into one short sentence for a banner or dialog. This is
// the GUI's one place that maps errors to its medium, as exit codes are for the CLI.
func sentence(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		// The engine's cancel messages say what was kept; keep those, else be brief.
		if msg := err.Error(); strings.Contains(msg, "cancelled after") {
			return capitalize(strings.TrimSuffix(msg, ": "+context.Canceled.Error())) + "."
		}
		return lang.L("Cancelled.")
	case errors.Is(err, context.DeadlineExceeded):
		return lang.L("That took too long and was stopped; try again.")
	case errors.Is(err, engine.ErrNotFound):
		return lang.L("That item no longer exists; the list has been refreshed.")
	case errors.Is(err, engine.ErrDamagedIndex):
		// The engine's words name the CLI's repair; the window has its own button for it.
		return lang.L("The search index is damaged; nothing you stored is lost. Settings › Repairs › Rebuild search makes it anew from your stored text.")
	case errors.Is(err, engine.ErrDamagedStore):
		return lang.L("Part of the database file is damaged. Settings › Repairs › Rescue memories writes every memory that can still be read to a file, to import into a new database.")
	}
	msg := err.Error()
	// The sentinel's own words ("bad request: ", "invalid text: ") are for logs, not people.
	for _, sentinel := range []error{engine.ErrBadRequest, engine.ErrInvalidText, engine.ErrDuplicate} {
		if errors.Is(err, sentinel) {
			msg = strings.TrimPrefix(msg, sentinel.Error()+": ")
			return capitalize(strings.TrimSuffix(msg, ".")) + "."
		}
	}
	return lang.L("Something went wrong: {{.Error}}.", tmpl{"Error": strings.TrimSuffix(msg, ".")})
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
