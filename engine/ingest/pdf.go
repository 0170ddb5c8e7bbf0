package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/text/unicode/norm"
)

// pdfMemoryPages caps the WebAssembly memory of one PDFium instance, in 64 KiB pages: 1 GiB.
// A hostile file can make PDFium allocate without end; with the cap it fails instead, and a
// failed allocation is an unreadable PDF rather than a process that eats the machine.
const pdfMemoryPages = 1 << 14

// pdfiumWASM is go-pdfium's PDFium module (internal/pdfium_wasm/pdfium.wasm of the version in
// go.mod), gzipped: 2.6 MB in the binary instead of 5.8. go-pdfium embeds the module itself
// only when its Init is linked; InitWithWASM takes ours. TestPDFiumModuleIsGoPDFiums checks
// that the two are the same bytes, and says how to renew this one after an upgrade.
//
//go:embed pdfium.wasm.gz
var pdfiumWASM []byte

// pdfiumModule inflates pdfiumWASM (about 30 ms).
func pdfiumModule() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(pdfiumWASM))
	if err != nil {
		return nil, fmt.Errorf("read the embedded PDFium module: %w", err)
	}
	module, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read the embedded PDFium module: %w", err)
	}
	return module, nil
}

// PDFium runs PDFium, compiled to WebAssembly, to read the text layer of PDFs. Compiling the
// module to native code costs 2-5 s and lifts the process to about 340 MB resident at its
// peak (measured on a shared 2-core amd64), so it happens once, when the first PDF is met,
// and the compiled module is kept until Close; with CacheDir a later process loads it in
// about 0.1 s and stays near 60 MB. Each PDF then runs in a fresh module instance (1-5 ms),
// so the memory one file made PDFium claim (WebAssembly memory never shrinks) is given back
// when it is done.
//
// The zero value is ready to use; it is safe for concurrent use.
type PDFium struct {
	// CacheDir, when set, keeps the compiled module on disk between processes, which cuts
	// the start from seconds to a tenth of one. Set it before the first PDF.
	CacheDir string

	mu     sync.Mutex
	pool   pdfium.Pool
	cache  wazero.CompilationCache
	closed bool
}

// Close releases the PDFium runtime, if it was started. Reading a PDF after Close fails.
func (p *PDFium) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	if p.pool != nil {
		errs = append(errs, p.pool.Close())
		p.pool = nil
	}
	if p.cache != nil {
		errs = append(errs, p.cache.Close(context.Background()))
		p.cache = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close PDFium: %w", err)
	}
	return nil
}

// sharedCompilation is the in-memory compilation cache of every PDFium without a CacheDir
// in this process: several engines in one process (tests, an app with two stores) compile
// PDFium once between them, not once each. It is made on first use and never closed; what it
// holds is immutable compiled code, about the size of the module, for the process's life.
var sharedCompilation = sync.OnceValue(func() wazero.CompilationCache { return wazero.NewCompilationCache() })

// start returns the pool, compiling the module on first use.
func (p *PDFium) start() (pdfium.Pool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the PDF reader is closed")
	}
	if p.pool != nil {
		return p.pool, nil
	}
	// The features are go-pdfium's defaults: its PDFium build lowers setjmp/longjmp to
	// WebAssembly exceptions.
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithMemoryLimitPages(pdfMemoryPages).
		// Lets Kill stop a call that is stuck inside PDFium.
		WithCloseOnContextDone(true)
	if p.CacheDir != "" && p.cache == nil {
		// The cache holds native code that this process will run, so only its owner may
		// write there. A cache that cannot be made only costs time: compile without it.
		if err := os.MkdirAll(p.CacheDir, 0o700); err == nil {
			p.cache, _ = wazero.NewCompilationCacheWithDir(p.CacheDir)
		}
	}
	if p.cache != nil {
		rc = rc.WithCompilationCache(p.cache)
	} else {
		rc = rc.WithCompilationCache(sharedCompilation())
	}
	module, err := pdfiumModule()
	if err != nil {
		return nil, fmt.Errorf("start PDFium: %w", err)
	}
	pool, err := webassembly.InitWithWASM(webassembly.Config{
		WASM:    module,
		MinIdle: 0, MaxIdle: 1, MaxTotal: 2,
		// PDFs are handed over as bytes, so PDFium needs no files at all: mount nothing, so a
		// file that exploits PDFium still cannot read the disk.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("start PDFium: %w", err)
	}
	p.pool = pool
	return pool, nil
}

// pdfText returns the text layer of a PDF, one string per page (empty for a page without
// text), and its Title metadata. It gives up when ctx ends or after maxTime, whichever comes
// first, by killing the PDFium instance mid-call.
func (p *PDFium) pdfText(ctx context.Context, data []byte, maxTime time.Duration) (pages []string, title string, err error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("was not read: %w", err)
	}
	// Starting PDFium is the process's cost, not this file's, so it is outside maxTime.
	pool, err := p.start()
	if err != nil {
		return nil, "", fmt.Errorf("was not read: %w", err)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, maxTime)
	defer cancel()
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if parent.Err() != nil {
			return nil, "", fmt.Errorf("was not read: %w", parent.Err())
		}
		return nil, "", fmt.Errorf("was not read: start PDFium: %w", err)
	}
	killed := make(chan struct{})
	stopKill := context.AfterFunc(ctx, func() {
		defer close(killed)
		inst.Kill()
	})
	defer func() {
		if stopKill() {
			inst.Close()
			return
		}
		<-killed // the kill has run; the instance is gone either way
		pages, title = nil, ""
		if parent.Err() != nil { // the caller gave up, not the file
			err = fmt.Errorf("was not read: %w", parent.Err())
			return
		}
		err = fmt.Errorf("took over %s to read, so it may be damaged or made to hang PDF readers; if it opens in a PDF viewer, print it to a new PDF and import that: %w", maxTime, errors.Join(ErrNoText, ctx.Err()))
	}()
	defer func() {
		// go-pdfium turns most PDFium failures into errors; a panic that still escapes is the
		// file's fault, not a reason to take the import down.
		if r := recover(); r != nil {
			pages, title, err = nil, "", unreadablePDF(fmt.Errorf("%v", r))
		}
	}()
	return readPDF(ctx, inst, data)
}

// readPDF reads every page of data with inst. Once ctx ends the instance is being killed,
// so the pages left are not asked for.
func readPDF(ctx context.Context, inst pdfium.Pdfium, data []byte) ([]string, string, error) {
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if errors.Is(err, pdfiumerrors.ErrPassword) || errors.Is(err, pdfiumerrors.ErrSecurity) {
			return nil, "", fmt.Errorf("is encrypted: needs a password; save a copy without the password and import that: %w", ErrNoText)
		}
		return nil, "", unreadablePDF(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, "", unreadablePDF(err)
	}
	pages := make([]string, count.PageCount)
	hasText := false
	for i := range pages {
		if ctx.Err() != nil {
			return nil, "", ctx.Err() // pdfText words the error
		}
		t, err := pageText(inst, doc.Document, i)
		if err != nil {
			continue // one broken page should not cost the others
		}
		pages[i] = t
		hasText = hasText || t != ""
	}
	if !hasText {
		return nil, "", fmt.Errorf("has no text layer (a scan?): nothing to search; run OCR on it first: %w", ErrNoText)
	}
	var title string
	if meta, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: "Title"}); err == nil {
		title = strings.Join(strings.Fields(pdfPlain(meta.Value)), " ")
	}
	return pages, title, nil
}

// pageText is the text of page i (0-based) in PDFium's reading order, with the spaces and
// line breaks PDFium infers from the glyph positions.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (string, error) {
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return "", err
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return "", err
	}
	t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: n.Count})
	if err != nil {
		return "", err
	}
	return pdfPlain(t.Text), nil
}

// ligatures are the Latin presentation forms (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) that fonts use for letter
// pairs. Left in, "ﬁle" would never match a search for "file".
const ligatures = "\uFB00\uFB01\uFB02\uFB03\uFB04\uFB05\uFB06"

// pdfPlain cleans PDFium's text: ligatures folded into their letters, PDFium's markers for
// hyphens it knows to be soft (U+0002, U+FFFE) dropped together with the line break after
// them, so a word split across lines is whole again, and lines trimmed as plainLines does.
func pdfPlain(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, soft := range []string{"\u0002\n", "\uFFFE\n", "\u0002", "\uFFFE"} {
		s = strings.ReplaceAll(s, soft, "")
	}
	return plainLines(foldLigatures(s), true)
}

// foldLigatures applies NFKC to the ligature code points only: NFKC on the whole text would
// also rewrite superscripts, fractions and full-width CJK punctuation that mean something.
func foldLigatures(s string) string {
	if !strings.ContainsAny(s, ligatures) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(ligatures, r) {
			b.WriteString(norm.NFKC.String(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unreadablePDF(cause error) error {
	return fmt.Errorf("is a PDF memdesk cannot read (%v); if it opens in a PDF viewer, print it to a new PDF and import that: %w", cause, ErrNoText)
}

// pdfLayout joins the pages' text with blank lines and makes every page a section of its
// own, so no chunk crosses a page boundary. pageStarts[i] is where page i+1 begins in text;
// pages without text take no room but keep their number.
func pdfLayout(pages []string) (text string, lay layout, pageStarts []int) {
	var b strings.Builder
	pageStarts = make([]int, len(pages))
	for i, p := range pages {
		if p != "" && b.Len() > 0 {
			b.WriteString("\n\n")
		}
		pageStarts[i] = b.Len()
		b.WriteString(p)
		lay.sections = append(lay.sections, section{start: pageStarts[i], end: b.Len()})
	}
	return b.String(), lay, pageStarts
}

// placeOnPages gives each chunk its page and turns its lines into lines of that page.
func placeOnPages(text string, chunks []Chunk, pageStarts []int) {
	for i := range chunks {
		c := &chunks[i]
		// The last page starting at or before the chunk; pages without text start where the
		// next one does, so the search must prefer the later, non-empty one.
		page := sort.Search(len(pageStarts), func(j int) bool { return pageStarts[j] > c.ByteStart })
		c.Page = page
		start := pageStarts[page-1]
		c.LineStart = 1 + strings.Count(text[start:c.ByteStart], "\n")
		c.LineEnd = c.LineStart + strings.Count(text[c.ByteStart:c.ByteEnd], "\n")
	}
}
