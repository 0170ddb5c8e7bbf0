package ingest

import (
	"bytes"
	"fmt"
	"strings"
	stdunicode "unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/unicode/norm"
)

// UTF8 is the Encoding of a document whose file was UTF-8 (with or without a byte order
// mark); any other name says what the file was decoded from.
const UTF8 = "UTF-8"

const (
	// detectSampleBytes is how much of a file the detector looks at. Its statistics settle
	// long before that, and a 20 MB file would otherwise cost a second of detection.
	detectSampleBytes = 64 << 10
	// metaScanBytes is where an HTML page must have said its charset; the HTML standard's
	// prescan looks at 1024 bytes, and pages with long comments before <meta> are common.
	metaScanBytes = 4 << 10
	// minConfidence is the detector score (1-100) below which its guess is no better than
	// the Windows-1252 fallback, which at least keeps every ASCII letter right.
	minConfidence = 10
)

// byteOrderMarks are the encodings a file announces in its first bytes; the longer UTF-32
// marks come first because the UTF-16LE mark is their prefix.
var byteOrderMarks = []struct {
	mark []byte
	name string
	enc  encoding.Encoding
}{
	{[]byte{0xFF, 0xFE, 0x00, 0x00}, "UTF-32LE", utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)},
	{[]byte{0x00, 0x00, 0xFE, 0xFF}, "UTF-32BE", utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)},
	{[]byte{0xFF, 0xFE}, "UTF-16LE", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
	{[]byte{0xFE, 0xFF}, "UTF-16BE", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)},
}

// DecodeText turns a text file's bytes into the text memdesk keeps: valid UTF-8 without a
// byte order mark, LF line ends, NFC. It returns the encoding the bytes were read as (UTF8,
// or e.g. "GB18030"). The order of evidence is: a byte order mark; valid UTF-8 (a legacy
// file with high bytes is almost never valid UTF-8 by chance, while detectors misread short
// UTF-8 texts); for HTML, the page's own <meta charset>; then the detector's guesses, best
// first, taking the first that decodes without a replacement character or C1 control, or
// Windows-1252 when none does, which decodes any byte and is what "Latin-1" files really are;
// and last, for a text too short for the detector, a reading as GB18030, Big5 or Shift_JIS
// made of common CJK characters replaces a guess that reads as mojibake. Line ends are
// kept, so line numbers in the text are the file's own. A NUL in the decoded text means the
// file is not text after all (ErrBinary).
func DecodeText(data []byte, isHTML bool) (text, encodingName string, err error) {
	text, encodingName = decodeBytes(data, isHTML)
	if strings.IndexByte(text, 0) >= 0 {
		return "", "", errBinary
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return norm.NFC.String(text), encodingName, nil
}

func decodeBytes(data []byte, isHTML bool) (string, string) {
	for _, bom := range byteOrderMarks {
		if bytes.HasPrefix(data, bom.mark) {
			return decodeWith(bom.enc, data[len(bom.mark):]), bom.name
		}
	}
	if enc, name, ok := utf16WithoutBOM(data); ok {
		return decodeWith(enc, data), name
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if utf8.Valid(data) {
		return string(data), UTF8
	}
	if invalid, ok := mostlyUTF8(data); ok {
		// A UTF-8 file with a stray byte (a Latin-1 "é" pasted into it): reading it all as
		// Windows-1252 would garble every other non-ASCII letter to save one.
		return strings.ToValidUTF8(string(data), "\uFFFD"), fmt.Sprintf("UTF-8 (%d invalid %s replaced)", invalid, plural(invalid, "byte", "bytes"))
	}
	if isHTML {
		if enc, name := metaCharset(data); enc != nil {
			return decodeWith(enc, data), name
		}
	}
	sample := data[:min(len(data), detectSampleBytes)]
	if i := bytes.LastIndexByte(sample, '\n'); len(sample) < len(data) && i > 0 {
		// Cut at a line end, so the sample ends on a whole character: no legacy encoding
		// uses 0x0A inside one, and a cut one would fail the replacement check below.
		sample = sample[:i+1]
	}
	detector := chardet.NewTextDetector()
	if isHTML {
		detector = chardet.NewHtmlDetector()
	}
	enc, name, reading, confidence := detectedCharset(detector, sample)
	if cjk, cjkName, ok := preferCJK(sample, reading, name, confidence); ok {
		enc, name = cjk, cjkName
	}
	return decodeWith(enc, data), name
}

// detectedCharset returns the detector's best guess for sample that decodes without a
// replacement character or C1 control, with sample decoded and the guess's confidence; or,
// failing all, Windows-1252 at confidence 0.
func detectedCharset(detector *chardet.Detector, sample []byte) (enc encoding.Encoding, name, reading string, confidence int) {
	guesses, _ := detector.DetectAll(sample) // fails only when nothing matched
	for _, g := range guesses {
		if g.Confidence < minConfidence {
			break // sorted best first
		}
		enc, name := lookupCharset(g.Charset)
		if enc == nil || name == UTF8 {
			continue // UTF-8 was ruled out above; the rest is what x/text cannot decode
		}
		if s := decodeWith(enc, sample); !strings.ContainsRune(s, utf8.RuneError) && !hasC1Controls(s) {
			return enc, name, s, g.Confidence
		}
	}
	enc, name = lookupCharset("windows-1252")
	return enc, name, decodeWith(enc, sample), 0
}

// mostlyUTF8 reports UTF-8 text with a few invalid bytes: at least four valid multi-byte
// characters for each invalid byte. Legacy encodings rarely pass: GBK and Big5 byte pairs
// form a valid UTF-8 sequence only about one time in twelve, and Latin-1 letters between
// ASCII almost never do.
func mostlyUTF8(data []byte) (invalid int, ok bool) {
	multi := 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			invalid++
		case size > 1:
			multi++
		}
		i += size
	}
	return invalid, invalid > 0 && multi >= 4*invalid
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// decodeWith decodes data, replacing what enc cannot map with U+FFFD, so the result is always
// valid UTF-8.
func decodeWith(enc encoding.Encoding, data []byte) string {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		// x/text decoders replace bad input rather than fail; this guards the promise.
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

// hasC1Controls reports U+0080-U+009F, which no real text uses: a single-byte decoding
// that produces them (ISO-8859-x read from Windows-125x bytes) is the wrong one.
func hasC1Controls(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 && r <= 0x9F })
}

// lookupCharset maps a charset label (as the detector or a page says it) to its decoder and
// the name a person knows it by, or nil if x/text has no decoder for it.
func lookupCharset(label string) (encoding.Encoding, string) {
	switch strings.ToLower(label) {
	case "gb-18030", "gb18030", "gbk", "gb2312":
		label = "gb18030" // a superset of GBK and GB2312, so their files decode right too
	}
	// WHATWG labels, as browsers read them: ISO-8859-1 and ASCII are Windows-1252.
	enc, name := charset.Lookup(label)
	switch {
	case enc == nil, name == "replacement", name == "x-user-defined":
		return nil, "" // no decoder, or one that decodes nothing useful
	case name == "big5":
		return enc, "Big5"
	case name == "shift_jis":
		return enc, "Shift_JIS"
	case strings.HasPrefix(name, "windows-"):
		return enc, name
	}
	return enc, strings.ToUpper(name) // "GB18030", "EUC-KR", "UTF-8"
}

// metaCharset finds the charset an HTML page declares near its start, <meta charset="x"> or
// <meta http-equiv="Content-Type" content="text/html; charset=x">, and its decoder.
func metaCharset(data []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(data[:min(len(data), metaScanBytes)]))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var label string
			for {
				key, val, more := z.TagAttr()
				switch strings.ToLower(string(key)) {
				case "charset":
					label = string(val)
				case "content":
					if i := strings.Index(strings.ToLower(string(val)), "charset="); i >= 0 && label == "" {
						label = strings.Trim(string(val[i+len("charset="):]), `"' ;`)
					}
				}
				if !more {
					break
				}
			}
			if label == "" {
				continue
			}
			// A page that says UTF-8 but is not valid UTF-8 (we only get here then) is
			// mislabelled, and one that says UTF-16 without a byte order mark is too (the HTML
			// standard reads that label as UTF-8); the detector does better than trusting them.
			if enc, name := lookupCharset(strings.TrimSpace(label)); enc != nil && name != UTF8 && !strings.HasPrefix(name, "UTF-") {
				return enc, name
			}
		}
	}
}

// utf16WithoutBOM recognises UTF-16 text saved without a byte order mark. Only bytes with a
// NUL among them are considered: 8-bit text never has one, while UTF-16 puts one in every
// ASCII character and line end. A byte order fits when its high bytes hold NULs (at least one
// unit in 64: the line ends and spaces of Chinese prose) and the first 8 KB decode to text a
// person wrote: spaces or line ends, and no unpaired surrogate, private-use or control
// character other than tab and line ends. Binary data fails within a few hundred bytes (one
// random 16-bit unit in 32 is a surrogate). The order with more NULs in its high bytes is
// tried first; Chinese text has NUL low bytes too (一 is U+4E00). A CJK file without a single
// ASCII character or line end has no NUL and is not recognised; it is rare, since Windows
// writes a BOM.
func utf16WithoutBOM(data []byte) (encoding.Encoding, string, bool) {
	sample := data[:min(len(data), 8<<10)&^1]
	if len(sample) < 8 || bytes.IndexByte(sample, 0) < 0 {
		return nil, "", false
	}
	var zeros [2]int // NULs at even and odd offsets: the high bytes of LE and BE units
	for i, b := range sample {
		if b == 0 {
			zeros[i%2]++
		}
	}
	orders := []bool{true, false} // little endian: high bytes at odd offsets
	if zeros[0] > zeros[1] {
		orders = []bool{false, true}
	}
	for _, little := range orders {
		high := zeros[0]
		if little {
			high = zeros[1]
		}
		if high*64 < len(sample)/2 || !plausibleUTF16(sample, little) {
			continue
		}
		if little {
			return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "UTF-16LE (no byte order mark)", true
		}
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "UTF-16BE (no byte order mark)", true
	}
	return nil, "", false
}

// plausibleUTF16 reports whether sample, read as UTF-16 in the given order, is text.
func plausibleUTF16(sample []byte, little bool) bool {
	units := make([]uint16, len(sample)/2)
	for i := range units {
		lo, hi := sample[2*i], sample[2*i+1]
		if !little {
			lo, hi = hi, lo
		}
		units[i] = uint16(lo) | uint16(hi)<<8
	}
	if n := len(units); units[n-1] >= 0xD800 && units[n-1] < 0xDC00 {
		units = units[:n-1] // the sample cut a surrogate pair in two
	}
	spaced := false
	for _, r := range utf16.Decode(units) {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f':
			spaced = true
		case r == utf8.RuneError, !stdunicode.IsPrint(r) && !stdunicode.IsSpace(r):
			return false
		}
	}
	return spaced // "text\x00more" read as UTF-16 has no space or line end
}
