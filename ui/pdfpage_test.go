package ui

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPageCommand(t *testing.T) {
	for _, tc := range []struct {
		id, name, bin string
		args          []string
	}{
		{"org.gnome.Evince.desktop", "Evince", "evince", []string{"--page-index=12", "/d/r.pdf"}},
		{"evince.desktop\n", "Evince", "evince", []string{"--page-index=12", "/d/r.pdf"}},
		{"org.kde.okular.desktop", "Okular", "okular", []string{"--page", "12", "/d/r.pdf"}},
		{"org.pwmt.zathura-pdf-mupdf.desktop", "zathura", "zathura", []string{"--page=12", "/d/r.pdf"}},
		{"atril.desktop", "Atril", "atril", []string{"--page-index=12", "/d/r.pdf"}},
		{"qpdfview.desktop", "qpdfview", "qpdfview", []string{"/d/r.pdf#12"}},
		{"mupdf.desktop", "MuPDF", "mupdf", []string{"/d/r.pdf", "12"}},
		{"firefox-esr.desktop", "firefox-esr", "firefox-esr", []string{"file:///d/r.pdf#page=12"}},
	} {
		name, bin, args, ok := pageCommand(tc.id, "/d/r.pdf", 12)
		if !ok || name != tc.name || bin != tc.bin || !slices.Equal(args, tc.args) {
			t.Errorf("pageCommand(%q) = %q, %q, %q, %v; want %q, %q, %q", tc.id, name, bin, args, ok, tc.name, tc.bin, tc.args)
		}
	}
	for _, id := range []string{"", "org.inkscape.Inkscape.desktop", "gimp.desktop"} {
		if _, _, _, ok := pageCommand(id, "/d/r.pdf", 3); ok {
			t.Errorf("pageCommand(%q) claims to know a page option", id)
		}
	}
}

// fakePDFViewer is the desktop seen by pdfPageOpener: the default PDF app's entry, which
// programs are installed, and the commands started.
type fakePDFViewer struct {
	entry     string
	installed []string
	started   [][]string
}

func (f *fakePDFViewer) opener() pdfPageOpener {
	return pdfPageOpener{
		defaultApp: func(ctx context.Context, mime string) (string, error) {
			if mime != "application/pdf" {
				return "", errors.New("asked for " + mime)
			}
			return f.entry, nil
		},
		lookPath: func(bin string) (string, error) {
			if slices.Contains(f.installed, bin) {
				return "/usr/bin/" + bin, nil
			}
			return "", errors.New("not found")
		},
		start: func(bin string, args ...string) error {
			f.started = append(f.started, append([]string{bin}, args...))
			return nil
		},
	}
}

// TestOpenPDFHitAtItsPage opens a hit on page 2 of a PDF: with Evince as the default viewer
// it is started at page 2; with a viewer that takes no page, or Evince not installed, the file
// opens as before and the status names the page.
func TestOpenPDFHitAtItsPage(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	pdf := filepath.Join(t.TempDir(), "report.pdf")
	data, err := os.ReadFile(filepath.Join("..", "engine", "ingest", "testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pdf, data, 0o600); err != nil {
		t.Fatal(err)
	}
	hit := h.importAndFind(pdf, "costs fell")
	if hit.Doc.Page != 2 {
		t.Fatalf("hit on page %d, want 2 (the fixture's second page)", hit.Doc.Page)
	}
	var opened []string
	h.u.docs.openURL = func(u *url.URL) error { opened = append(opened, u.String()); return nil }

	for _, tc := range []struct {
		name        string
		desk        fakePDFViewer
		wantStarted string
		wantOpened  int
		wantStatus  string
	}{
		{"evince", fakePDFViewer{entry: "org.gnome.Evince.desktop", installed: []string{"evince"}}, "/usr/bin/evince --page-index=2 " + pdf, 0, "at p. 2 in Evince"},
		{"a viewer without pages", fakePDFViewer{entry: "org.inkscape.Inkscape.desktop"}, "", 1, "Its viewer cannot be told a page: the passage is on p. 2."},
		{"evince missing", fakePDFViewer{entry: "org.gnome.Evince.desktop"}, "", 1, "the passage is on p. 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened = nil
			h.u.docs.pdf = tc.desk.opener()
			h.u.openHit(hit)
			h.waitFor("the document view", func() bool { return h.overlay() != nil && h.u.docs.isOpen() })
			h.u.docs.status.SetText("")
			pressButton(t, h, "Open in its app")
			h.waitFor("the open to finish", func() bool { return strings.HasPrefix(h.u.docs.status.Text, "Opened") })
			started := ""
			if len(tc.desk.started) > 0 {
				started = strings.Join(tc.desk.started[0], " ")
			}
			if started != tc.wantStarted || len(opened) != tc.wantOpened || !strings.Contains(h.u.docs.status.Text, tc.wantStatus) {
				t.Errorf("started %q, opened %q, status %q; want started %q, %d opened, status holding %q",
					started, opened, h.u.docs.status.Text, tc.wantStarted, tc.wantOpened, tc.wantStatus)
			}
			h.u.docs.close()
		})
	}
}

func pressButton(t *testing.T, h *harness, label string) {
	t.Helper()
	b := button(h.overlay(), label)
	if b == nil {
		t.Fatalf("no %q button", label)
	}
	b.OnTapped()
}
