package devsync

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/memdesk/memdesk/store"
)

var testNow = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)

const (
	dev  = "c0ffee"
	root = "0123456789abcdef0123456789abcdef"
)

func goodChange() store.SyncChange {
	return store.SyncChange{ID: dev + ":3", Device: dev, Seq: 3, Wall: testNow.UnixMilli(), Ctr: 2, Op: store.OpEdit,
		Root: root, Base: "aa:2", Space: "work", Text: "Alice lives in Paris", Status: store.StatusActive, Created: testNow.UnixMilli() - 5000}
}

func goodLine(t testing.TB) string {
	b, err := EncodeLine(goodChange())
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// lineCases are the table of ParseLine, and the fuzzer's seeds.
var lineCases = []struct {
	name, line string
	wantErr    string // a part of the error; "" means the line parses
}{
	{"good", "", ""},
	{"not JSON", `{"v":1,"id":`, "not a change"},
	{"an array", `[1,2,3]`, "not a change"},
	{"two objects", `{"v":1} {"v":1}`, "text after"},
	{"wrong type", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":"three"}`, "not a change"},
	{"wrong version", `{"v":2,"id":"c0ffee:3","dev":"c0ffee","seq":3}`, "format version 2"},
	{"invalid UTF-8", "{\"v\":1,\"text\":\"\xff\xfe\"}", "UTF-8"},
	{"another device's change", strings.Replace(`{"v":1,"id":"beef:3","dev":"beef","seq":3,"wall":1796472000000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"active"}`, "", "", 1), "a device writes only its own folder"},
	{"id and sequence disagree", `{"v":1,"id":"c0ffee:4","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"active"}`, "does not match"},
	{"an id from the future", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":4102444800000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"active"}`, "from the future"},
	{"a day ahead is fine", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1797030000000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"active"}`, ""},
	{"negative clock", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":-5,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"active"}`, "not a time"},
	{"unknown operation", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"drop table","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"active"}`, "unknown operation"},
	{"bad memory id", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"add","uid":"'; DROP TABLE facts","space":"s","text":"t","status":"active"}`, "memory id"},
	{"bad status", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","text":"t","status":"purged"}`, "status"},
	{"bad space", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"a\u0000b","text":"t","status":"active"}`, "space"},
	{"no text", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"add","uid":"0123456789abcdef0123456789abcdef","space":"s","status":"active"}`, "no text"},
	{"made on itself", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"edit","uid":"0123456789abcdef0123456789abcdef","base":"c0ffee:3","space":"s","text":"t","status":"active"}`, "on itself"},
	{"dismiss of one memory", `{"v":1,"id":"c0ffee:3","dev":"c0ffee","seq":3,"wall":1796472000000,"ctr":0,"op":"dismiss","a":"0123456789abcdef0123456789abcdef","b":"0123456789abcdef0123456789abcdef"}`, "not two memory ids"},
	{"huge", strings.Repeat("x", MaxLine), "longer than 1 MiB"},
}

func TestParseLine(t *testing.T) {
	for _, tc := range lineCases {
		t.Run(tc.name, func(t *testing.T) {
			line := tc.line
			if line == "" {
				line = goodLine(t)
			}
			got, err := ParseLine([]byte(line), dev, testNow, DefaultMaxFuture)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("ParseLine: %v, want a change", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("ParseLine: error %v, want one saying %q", err, tc.wantErr)
			}
			if tc.name == "good" {
				if d := cmp.Diff(goodChange(), got); d != "" {
					t.Errorf("ParseLine(EncodeLine(c)) differs from c (-want +got):\n%s", d)
				}
			}
		})
	}
}

// FuzzParseLine: no line panics the parser, and every line it accepts is a change that
// writes back to a line that parses to the same change.
func FuzzParseLine(f *testing.F) {
	f.Add(goodLine(f))
	for _, tc := range lineCases {
		if len(tc.line) < 4096 {
			f.Add(tc.line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseLine([]byte(line), dev, testNow, DefaultMaxFuture)
		if err != nil {
			return
		}
		b, err := EncodeLine(c)
		if err != nil {
			t.Fatalf("EncodeLine of an accepted change: %v", err)
		}
		again, err := ParseLine(b[:len(b)-1], dev, testNow, DefaultMaxFuture)
		if err != nil {
			t.Fatalf("the line written for an accepted change does not parse: %v\n%s", err, b)
		}
		if again != c {
			t.Fatalf("round trip changed the change:\n%+v\n%+v", c, again)
		}
	})
}
