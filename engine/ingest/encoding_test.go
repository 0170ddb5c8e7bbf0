package ingest

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/unicode/norm"
)

// encode saves s the way an old editor would have, in enc.
func encode(t testing.TB, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

var (
	latinText = "Café au lait\nLe garçon a mangé une crème brûlée à la fête de Noël.\n"
	gbkText   = "中文文档\n\n这是一个用简体中文写的说明文件，里面记录了安装步骤和常见问题。\n"
	big5Text  = "繁體中文\n\n這是一個用繁體中文寫的說明檔案，裡面記錄了安裝步驟和常見問題。\n"
	sjisText  = "日本語の文書\n\nこれは日本語で書かれた説明書です。インストールの手順とよくある質問を記録しています。\n"
	eucKRText = "한국어 문서\n\n이것은 한국어로 작성된 설명 파일입니다. 설치 단계와 자주 묻는 질문을 기록합니다.\n"
)

func TestDecodeText(t *testing.T) {
	cases := []struct {
		name     string
		data     []byte
		html     bool
		want     string
		wantEnc  string
		wantLine int // line of want's first rune, so line numbers survive the decoding
	}{
		{name: "utf-8", data: []byte("plain ascii\nand ünïcode\n"), want: "ünïcode", wantEnc: UTF8, wantLine: 2},
		{name: "utf-8 with byte order mark and crlf", data: []byte("\uFEFFone\r\ntwo\r\n"), want: "two", wantEnc: UTF8, wantLine: 2},
		{name: "latin-1", data: encode(t, charmap.ISO8859_1, latinText), want: "brûlée", wantEnc: "windows-1252", wantLine: 2},
		{name: "windows-1252 quotes", data: encode(t, charmap.Windows1252, "He said “hello” — twice.\n"), want: "“hello”", wantEnc: "windows-1252", wantLine: 1},
		{name: "short latin-1 falls back to windows-1252", data: []byte("Caf\xe9"), want: "Café", wantEnc: "windows-1252", wantLine: 1},
		{name: "utf-8 with a stray latin-1 byte", data: []byte("中文笔记 one\nCaf\xe9 два\n"), want: "Caf\uFFFD два", wantEnc: "UTF-8 (1 invalid byte replaced)", wantLine: 2},
		{name: "gbk", data: encode(t, simplifiedchinese.GBK, gbkText), want: "简体中文", wantEnc: "GB18030", wantLine: 3},
		{name: "gb18030", data: encode(t, simplifiedchinese.GB18030, gbkText), want: "安装步骤", wantEnc: "GB18030", wantLine: 3},
		{name: "big5", data: encode(t, traditionalchinese.Big5, big5Text), want: "繁體中文寫的", wantEnc: "Big5", wantLine: 3},
		{name: "shift-jis", data: encode(t, japanese.ShiftJIS, sjisText), want: "日本語で書かれた", wantEnc: "Shift_JIS", wantLine: 3},
		{name: "euc-kr", data: encode(t, korean.EUCKR, eucKRText), want: "한국어로", wantEnc: "EUC-KR", wantLine: 3},
		{name: "utf-16le with byte order mark", data: encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "first\nsecond 中文\n"), want: "second 中文", wantEnc: "UTF-16LE", wantLine: 2},
		{name: "utf-16be with byte order mark", data: encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), "first\nsecond\n"), want: "second", wantEnc: "UTF-16BE", wantLine: 2},
		{name: "utf-16le without byte order mark", data: encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "first line\nsecond 中文 line\n"), want: "second 中文", wantEnc: "UTF-16LE (no byte order mark)", wantLine: 2},
		{name: "utf-16be without byte order mark", data: encode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "first\nsecond\n"), want: "second", wantEnc: "UTF-16BE (no byte order mark)", wantLine: 2},
		{name: "chinese utf-16le without byte order mark", data: encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), strings.Repeat("老王喜欢简约风格，一直如此。\n", 40)), want: "简约风格", wantEnc: "UTF-16LE (no byte order mark)", wantLine: 1},
		{name: "html meta charset", html: true,
			data: encode(t, charmap.Windows1252, `<html><head><meta charset="windows-1252"><title>Menu</title></head><body><p>Crème brûlée</p></body></html>`),
			want: "Crème brûlée", wantEnc: "windows-1252", wantLine: 1},
		{name: "html http-equiv charset", html: true,
			data: encode(t, simplifiedchinese.GBK, `<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body><p>你好</p></body></html>`),
			want: "你好", wantEnc: "GB18030", wantLine: 1},
		{name: "html meta that says utf-8 for latin-1 bytes", html: true,
			data: encode(t, charmap.ISO8859_1, "<meta charset=utf-8><p>"+latinText+"</p>"),
			want: "garçon", wantEnc: "windows-1252", wantLine: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, enc, err := DecodeText(tc.data, tc.html)
			if err != nil {
				t.Fatalf("DecodeText: %v", err)
			}
			if enc != tc.wantEnc {
				t.Errorf("DecodeText encoding = %q, want %q (text %q)", enc, tc.wantEnc, text)
			}
			i := strings.Index(text, tc.want)
			if i < 0 {
				t.Fatalf("DecodeText = %q, want it to hold %q", text, tc.want)
			}
			if line := 1 + strings.Count(text[:i], "\n"); line != tc.wantLine {
				t.Errorf("%q is on line %d of the decoded text, want %d", tc.want, line, tc.wantLine)
			}
		})
	}
}

// TestDecodeTextShortLines checks texts of a line, too short for the detector's statistics:
// CJK in its legacy encodings is read as what it is, and Western text in single-byte
// encodings decodes as it did before CJK readings were tried (the last cases are lines that
// measurement found read as CJK by a looser rule).
func TestDecodeTextShortLines(t *testing.T) {
	cases := []struct {
		name    string
		enc     encoding.Encoding
		text    string
		wantEnc string
	}{
		{"gbk", simplifiedchinese.GBK, "南京的大熊猫很可爱\n", "GB18030"},
		{"gbk without a line end", simplifiedchinese.GBK, "南京的大熊猫很可爱", "GB18030"},
		{"gbk two characters", simplifiedchinese.GBK, "你好\n", "GB18030"},
		{"gbk with punctuation and digits", simplifiedchinese.GBK, "会议：明天下午3点开会。\n", "GB18030"},
		{"big5", traditionalchinese.Big5, "臺北的天氣很好\n", "Big5"},
		{"big5 with fullwidth punctuation", traditionalchinese.Big5, "（注：前\n", "Big5"},
		{"shift-jis", japanese.ShiftJIS, "東京の天気はいいです\n", "Shift_JIS"},
		{"windows-1252 french", charmap.Windows1252, "café crème à la carte\n", "windows-1252"},
		{"windows-1252 german", charmap.Windows1252, "Grüße aus München\n", "windows-1252"},
		{"windows-1252 capitals", charmap.Windows1252, "Ärger über Öl\n", "windows-1252"},
		{"koi8-r", charmap.KOI8R, "Привет, как дела?\n", "KOI8-R"},
		{"windows-1251", charmap.Windows1251, "Добро пожаловать в Москву\n", "windows-1251"},
		{"windows-1252 doubled curly quotes", charmap.Windows1252, "the ‘‘Software’’ without restriction\n", "windows-1252"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, enc, err := DecodeText(encode(t, tc.enc, tc.text), false)
			if err != nil {
				t.Fatalf("DecodeText: %v", err)
			}
			if text != tc.text || enc != tc.wantEnc {
				t.Errorf("DecodeText = %q as %s, want %q as %s", text, enc, tc.text, tc.wantEnc)
			}
		})
	}
	// A name in ISO-8859-2 is not Big5 (Franti鈹k Kren頡lok): the accented letters and the
	// letters after them make common hanzi, but inside Latin words. It decodes as it did
	// before, as Windows-1252, since the detector has no ISO-8859-2 guess for it.
	data := encode(t, charmap.ISO8859_2, "František Krenželok <krenzelok.frantisek at gmail.com>\n")
	if text, enc, err := DecodeText(data, false); err != nil || enc != "windows-1252" {
		t.Errorf("DecodeText(ISO-8859-2 name) = %q as %s, %v; want windows-1252", text, enc, err)
	}
}

func TestReadsAsWords(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Grüße aus München", true},
		{"Привет, как дела?", true},
		{"Москва", true},
		{"Καλημέρα κόσμε", true},
		{"« Oui », dit-il à Zoë", true},
		{"¡]ª`¡G«e", false},           // （注：前 (Big5) as Windows-1252: mostly symbols
		{"до╬╘╣д╢Спэц╗╨э©и╟╝", false}, // 南京的大熊猫很可爱 (GBK) as KOI8-R: box drawing
		{"ÄãºÃ", false},               // 你好 (GBK) as Windows-1252: lower then upper case
		{"ÖÐÎÄ", false},               // 中文 (GBK) as Windows-1252: a Latin word without ASCII
		{"“Œ‹ž‚Ì“V‹C", false},         // 東京の天気 (Shift_JIS) as Windows-1252: symbols
	} {
		if got := readsAsWords(tc.text); got != tc.want {
			t.Errorf("readsAsWords(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestDecodeTextLongFile checks a file longer than the detector's sample, whose cut must not
// split a character and so fail the right guess.
func TestDecodeTextLongFile(t *testing.T) {
	for _, odd := range []string{"", "x", "xx"} { // shift where 64 KB falls in a character
		data := encode(t, simplifiedchinese.GBK, odd+strings.Repeat(gbkText, 3*detectSampleBytes/len(gbkText)))
		if _, enc, err := DecodeText(data, false); err != nil || enc != "GB18030" {
			t.Errorf("DecodeText(%d bytes of GBK) encoding = %q, %v; want GB18030", len(data), enc, err)
		}
	}
}

func TestDecodeTextRefusesNUL(t *testing.T) {
	elf, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06\x00\x00\x00\x5c\x72\xa8\x66")
	for name, data := range map[string][]byte{"text with a NUL": []byte("text\x00more"), "spaced text with a NUL": []byte("some text\x00and more of it"),
		"an executable": elf[:64<<10], "a png header": png} {
		if text, enc, err := DecodeText(data, false); err == nil {
			t.Errorf("DecodeText(%s) = %q as %s, want ErrBinary", name, text[:min(len(text), 40)], enc)
		}
		if _, _, ok := utf16WithoutBOM(data); ok {
			t.Errorf("%s taken for UTF-16", name)
		}
	}
}

// FuzzDecodeText checks DecodeText's promise for any bytes: no panic, and on success valid
// NFC UTF-8 without NUL or CR LF, and a named encoding.
func FuzzDecodeText(f *testing.F) {
	for _, s := range []string{latinText, gbkText, big5Text, sjisText} {
		f.Add([]byte(s), false)
	}
	f.Add(encode(f, simplifiedchinese.GBK, gbkText), false)
	f.Add(encode(f, traditionalchinese.Big5, big5Text), false)
	f.Add(encode(f, japanese.ShiftJIS, sjisText), false)
	f.Add(encode(f, charmap.ISO8859_1, latinText), true)
	// Short lines, where CJK readings are tried and scored.
	f.Add(encode(f, simplifiedchinese.GBK, "南京的大熊猫很可爱\n"), false)
	f.Add(encode(f, traditionalchinese.Big5, "臺北的天氣很好\n"), false)
	f.Add(encode(f, japanese.ShiftJIS, "東京の天気はいいです\n"), false)
	f.Add(encode(f, charmap.KOI8R, "Привет, как дела?\n"), false)
	f.Add(encode(f, charmap.Windows1252, "the ‘‘Software’’\n"), false)
	f.Add([]byte("\xb0C \xa4\xa4\xff\x81\x40\x8e"), false)
	f.Add(encode(f, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "a\r\nb"), false)
	f.Add([]byte("\xff\xfe\x00\x00a\x00\x00\x00"), false)
	f.Add([]byte(`<meta charset="big5"><p>`+"\xa4\xa4"), true)
	f.Fuzz(func(t *testing.T, data []byte, html bool) {
		text, enc, err := DecodeText(data, html)
		if err != nil {
			return
		}
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || strings.Contains(text, "\r\n") || !norm.NFC.IsNormalString(text) {
			t.Errorf("DecodeText(%q) = %q, want valid NFC UTF-8 without NUL or CRLF", data, text)
		}
		if enc == "" {
			t.Errorf("DecodeText(%q) named no encoding", data)
		}
	})
}

// BenchmarkDecodeText measures decoding 1 MB: UTF-8 (the common case, a validity check),
// GBK (detection on a 64 KB sample, then decoding) and Latin-1 (the detector's guesses
// tried in order, then Windows-1252).
func BenchmarkDecodeText(b *testing.B) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"utf-8", []byte(strings.Repeat(gbkText, 1<<20/len(gbkText)))},
		{"gbk", encode(b, simplifiedchinese.GBK, strings.Repeat(gbkText, 1<<20/len(gbkText)))},
		{"latin-1", encode(b, charmap.ISO8859_1, strings.Repeat(latinText, 1<<20/len(latinText)))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if _, _, err := DecodeText(tc.data, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
