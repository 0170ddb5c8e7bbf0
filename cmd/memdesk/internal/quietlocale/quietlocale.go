// Package quietlocale keeps Fyne quiet about the POSIX locale. Imported for its side effect,
// it must run before Fyne's lang package initializes: Go initializes packages in import-path
// order as soon as their imports are ready, and this one needs only os and strings, so it
// runs before Fyne's translation bundle (which waits for github.com/nicksnyder/go-i18n).
//
// Under LANG=C or C.UTF-8 — the default of containers and CI machines — Fyne logs three
// "Error parsing user locale C" lines on every start, CLI commands included. The C locale
// means "no language preference", so this says so in the form Fyne understands: English.
package quietlocale

import (
	"os"
	"strings"
)

func init() {
	// The same variables, in the same order, as Fyne's locale lookup reads them.
	for _, name := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		base, _, _ := strings.Cut(strings.Split(v, ":")[0], ".")
		base, _, _ = strings.Cut(base, "@")
		if base == "C" || base == "POSIX" {
			os.Setenv("LANGUAGE", "en")
		}
		return
	}
}
