package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFNodes bounds the walk over a PDF's page tree. The tree comes from the file, and a
// damaged or hostile one can loop back on itself.
const maxPDFNodes = 1 << 16

// pdfText returns the text layer of a PDF, one paragraph per page, and its Title metadata.
// The pdf library panics on some malformed files; that becomes an error here.
func pdfText(data []byte) (text, title string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, title = "", ""
			err = unreadablePDF(r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return "", "", fmt.Errorf("is password-protected; save a copy without the password and import that: %w", ErrNoText)
		}
		return "", "", unreadablePDF(err)
	}
	var pages []string
	for _, p := range pdfPages(r) {
		// Each page resolves its own fonts: resource names such as /F1 mean different fonts
		// on different pages, so sharing a cache across pages would garble text.
		t, err := p.GetPlainText(nil)
		if err != nil {
			continue // one broken page should not cost the others
		}
		if t = plainLines(t, true); t != "" {
			pages = append(pages, t)
		}
	}
	if len(pages) == 0 {
		return "", "", fmt.Errorf("has no text layer (it may be a scanned image); run OCR on it first: %w", ErrNoText)
	}
	title = plainLines(r.Trailer().Key("Info").Key("Title").Text(), true)
	return strings.Join(pages, "\n\n"), strings.Join(strings.Fields(title), " "), nil
}

func unreadablePDF(cause any) error {
	return fmt.Errorf("is a PDF memdesk cannot read (%v); if it opens in a PDF viewer, print it to a new PDF and import that: %w", cause, ErrNoText)
}

// pdfPages lists the pages in document order. It walks the page tree itself, iteratively and
// within maxPDFNodes, because the library's Reader.Page loops forever on a cyclic tree and
// rescans the tree for every page.
func pdfPages(r *pdf.Reader) []pdf.Page {
	var pages []pdf.Page
	stack := []pdf.Value{r.Trailer().Key("Root").Key("Pages")}
	for visited := 0; len(stack) > 0 && visited < maxPDFNodes; visited++ {
		node := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch node.Key("Type").Name() {
		case "Page":
			pages = append(pages, pdf.Page{V: node})
		case "Pages":
			kids := node.Key("Kids")
			for i := kids.Len() - 1; i >= 0; i-- {
				stack = append(stack, kids.Index(i))
			}
		}
	}
	return pages
}
