package hotkey

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var parseCases = []struct {
	in        string
	want      Combo
	canonical string
}{
	{"ctrl+alt+space", Combo{Ctrl | Alt, 0x20}, "ctrl+alt+space"},
	{" Ctrl + Alt + Space ", Combo{Ctrl | Alt, 0x20}, "ctrl+alt+space"},
	{"alt+ctrl+SPACE", Combo{Ctrl | Alt, 0x20}, "ctrl+alt+space"},
	{"super+m", Combo{Super, 'm'}, "super+m"},
	{"Win+M", Combo{Super, 'm'}, "super+m"},
	{"control+shift+f5", Combo{Ctrl | Shift, 0xffc2}, "ctrl+shift+f5"},
	{"ctrl+f24", Combo{Ctrl, 0xffd5}, "ctrl+f24"},
	{"mod1+9", Combo{Alt, '9'}, "alt+9"},
	{"ctrl+enter", Combo{Ctrl, 0xff0d}, "ctrl+return"},
	{"ctrl+,", Combo{Ctrl, ','}, "ctrl+comma"},
	{"ctrl++", Combo{Ctrl, '+'}, "ctrl++"},
	{"ctrl+alt+`", Combo{Ctrl | Alt, '`'}, "ctrl+alt+grave"},
}

func TestParse(t *testing.T) {
	for _, tt := range parseCases {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.canonical {
				t.Errorf("String() = %q, want %q", s, tt.canonical)
			}
		})
	}
}

var parseErrors = []string{
	"", "space", "shift+a", "ctrl", "ctrl+alt", "ctrl+alt+", "ctrl+ctrl+a", "ctrl+hyper+a",
	"ctrl+f0", "ctrl+f25", "ctrl+f05", "ctrl+é", "ctrl+ab", "+a", "ctrl++a", "alt+shift",
}

func TestParseRejects(t *testing.T) {
	for _, in := range parseErrors {
		t.Run(in, func(t *testing.T) {
			got, err := Parse(in)
			if !errors.Is(err, ErrBadCombo) {
				t.Fatalf("Parse(%q) = %v, %v; want ErrBadCombo", in, got, err)
			}
		})
	}
}

func TestGrabVariants(t *testing.T) {
	got := grabVariants(uint16(Ctrl|Alt), 2|16) // CapsLock (Lock) and NumLock (Mod2)
	want := []uint16{12, 14, 28, 30}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grabVariants (-want +got):\n%s", diff)
	}
}

// FuzzParse checks that whatever Parse accepts it can spell, and that the spelling parses
// back to the same combination.
func FuzzParse(f *testing.F) {
	for _, tt := range parseCases {
		f.Add(tt.in)
	}
	for _, in := range parseErrors {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrBadCombo) {
				t.Fatalf("Parse(%q) = %v, not an ErrBadCombo", in, err)
			}
			return
		}
		if c.Mods&(Ctrl|Alt|Super) == 0 || c.Keysym == 0 {
			t.Fatalf("Parse(%q) = %+v: no real modifier or no key", in, c)
		}
		again, err := Parse(c.String())
		if err != nil || again != c {
			t.Fatalf("Parse(%q) = %+v, but its spelling %q parses to %+v, %v", in, c, c.String(), again, err)
		}
	})
}
