package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2/lang"
)

// errNoPageViewer is a PDF viewer that cannot be told a page, or none known.
var errNoPageViewer = errors.New("the PDF viewer cannot be told a page")

// pdfPageOpener opens a PDF at a page in the desktop's default PDF viewer, when that viewer
// takes a page on its command line. The desktop's own "open" (xdg-open) passes only the
// file, and a #page=N fragment on a file URL reaches only browsers, so memdesk asks which
// app opens PDFs and starts it with that app's page option.
type pdfPageOpener struct {
	// defaultApp names the desktop entry that opens a MIME type ("org.gnome.Evince.desktop").
	defaultApp func(ctx context.Context, mime string) (string, error)
	lookPath   func(file string) (string, error)
	// start runs a viewer without waiting for it to exit.
	start func(bin string, args ...string) error
}

// systemPDFPageOpener asks xdg-mime on Linux and BSD desktops; elsewhere there is no way to
// name a page, and the caller opens the file as usual.
func systemPDFPageOpener() pdfPageOpener {
	return pdfPageOpener{
		defaultApp: func(ctx context.Context, mime string) (string, error) {
			if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
				return "", errNoPageViewer
			}
			out, err := exec.CommandContext(ctx, "xdg-mime", "query", "default", mime).Output()
			if err != nil {
				return "", fmt.Errorf("ask xdg-mime for the PDF viewer: %w", err)
			}
			return strings.TrimSpace(string(out)), nil
		},
		lookPath: exec.LookPath,
		start: func(bin string, args ...string) error {
			cmd := exec.Command(bin, args...)
			if err := cmd.Start(); err != nil {
				return err
			}
			go cmd.Wait() // reaps the viewer when it is closed; its exit status is its own
			return nil
		},
	}
}

// openAt starts the default PDF viewer on path at 1-based page, and returns the viewer's
// name as a person knows it. It returns errNoPageViewer when the viewer is not one that
// takes a page, so the caller can open the file without one.
func (o pdfPageOpener) openAt(ctx context.Context, path string, page int) (string, error) {
	if o.defaultApp == nil || page < 1 {
		return "", errNoPageViewer
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second) // a hung xdg-mime must not hold the button
	defer cancel()
	id, err := o.defaultApp(ctx, "application/pdf")
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNoPageViewer, err)
	}
	name, bin, args, ok := pageCommand(id, path, page)
	if !ok {
		return "", errNoPageViewer
	}
	full, err := o.lookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: %s is the PDF viewer but %s is not on PATH", errNoPageViewer, name, bin)
	}
	if err := o.start(full, args...); err != nil {
		// The one error here that reaches the window (docview words the others itself).
		return "", fmt.Errorf("%s: %w", lang.L("could not start {{.Viewer}}", tmpl{"Viewer": name}), err)
	}
	return name, nil
}

// pageCommand is how the viewer of a desktop entry is started at a page: its name, its
// program and its arguments. Entries are matched by their last name component, so
// "org.gnome.Evince.desktop" and "evince.desktop" are both Evince.
func pageCommand(desktopID, path string, page int) (name, bin string, args []string, ok bool) {
	id := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(desktopID), ".desktop"))
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		id = id[i+1:]
	}
	n := strconv.Itoa(page)
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path), Fragment: "page=" + n}).String()
	switch {
	case id == "evince":
		return "Evince", "evince", []string{"--page-index=" + n, path}, true
	case id == "atril":
		return "Atril", "atril", []string{"--page-index=" + n, path}, true
	case id == "xreader":
		return "Xreader", "xreader", []string{"--page-index=" + n, path}, true
	case id == "okular":
		return "Okular", "okular", []string{"--page", n, path}, true
	case strings.HasPrefix(id, "zathura"):
		return "zathura", "zathura", []string{"--page=" + n, path}, true
	case id == "qpdfview":
		return "qpdfview", "qpdfview", []string{path + "#" + n}, true
	case id == "mupdf":
		return "MuPDF", "mupdf", []string{path, n}, true
	case id == "firefox" || id == "firefox-esr" || id == "chromium" || id == "google-chrome" ||
		id == "microsoft-edge" || id == "brave-browser":
		// Browsers' PDF readers take the page from the URL's fragment.
		return id, id, []string{fileURL}, true
	}
	return "", "", nil, false
}
