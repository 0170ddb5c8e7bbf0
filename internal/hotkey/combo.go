// Package hotkey owns the desktop-wide key combination that brings memdesk's quick window
// up: the combination's spelling ("ctrl+alt+space") and, on X11, a passive grab of it on the
// root window. It knows nothing of Fyne or the engine; the app asks it for presses through
// a small interface of its own.
package hotkey

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Modifiers is a set of modifier keys, as the X11 core protocol numbers them (so a grab
// needs no translation; other platforms would map them).
type Modifiers uint16

// The modifiers a combination may hold. NumLock and CapsLock are not among them: a grab
// ignores them (see grabVariants).
const (
	Shift Modifiers = 1 << 0
	Ctrl  Modifiers = 1 << 2
	Alt   Modifiers = 1 << 3 // Mod1
	Super Modifiers = 1 << 6 // Mod4
)

// Combo is a parsed key combination: modifiers and one key, named by its X11 keysym.
type Combo struct {
	Mods   Modifiers
	Keysym uint32
}

// DefaultCombo is the combination used until the person picks another.
const DefaultCombo = "ctrl+alt+space"

// ErrBadCombo marks a combination that cannot be parsed.
var ErrBadCombo = errors.New("not a key combination")

// modifierNames are the spellings accepted for each modifier, first one canonical.
var modifierNames = []struct {
	mod   Modifiers
	names []string
}{
	{Ctrl, []string{"ctrl", "control"}},
	{Alt, []string{"alt", "mod1", "option"}},
	{Shift, []string{"shift"}},
	{Super, []string{"super", "win", "meta", "mod4", "cmd"}},
}

// namedKeys are the non-character keys a combination may end in, by X11 keysym. Letters and
// digits are their own keysyms (their ASCII codes) and are not listed.
var namedKeys = map[string]uint32{
	"space": 0x0020, "return": 0xff0d, "enter": 0xff0d, "tab": 0xff09, "escape": 0xff1b,
	"esc": 0xff1b, "backspace": 0xff08, "insert": 0xff63, "delete": 0xffff, "home": 0xff50,
	"end": 0xff57, "pageup": 0xff55, "pagedown": 0xff56, "left": 0xff51, "up": 0xff52,
	"right": 0xff53, "down": 0xff54, "pause": 0xff13, "print": 0xff61,
	"grave": 0x0060, "`": 0x0060, "minus": 0x002d, "-": 0x002d, "equal": 0x003d, "=": 0x003d,
	"comma": 0x002c, ",": 0x002c, "period": 0x002e, ".": 0x002e, "slash": 0x002f, "/": 0x002f,
	"semicolon": 0x003b, ";": 0x003b, "apostrophe": 0x0027, "'": 0x0027,
	"backslash": 0x005c, "\\": 0x005c, "bracketleft": 0x005b, "[": 0x005b,
	"bracketright": 0x005d, "]": 0x005d,
}

// firstFunctionKey is F1's keysym; F2..F24 follow it.
const firstFunctionKey = 0xffbe

// Parse reads a combination like "ctrl+alt+space", "Super+M" or "ctrl+shift+f5": any
// number of modifiers and exactly one key, joined by "+", case and spaces ignored. At
// least one of ctrl, alt and super is required, so the grab cannot take a key people type.
func Parse(s string) (Combo, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "+")
	// "ctrl++" names the plus key: the last empty part after a "+" is the key "+".
	if n := len(parts); n >= 2 && parts[n-1] == "" && parts[n-2] == "" {
		parts = append(parts[:n-2], "+")
	}
	var c Combo
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return Combo{}, fmt.Errorf("%q: an empty part between the '+' signs: %w", s, ErrBadCombo)
		}
		if i < len(parts)-1 {
			m, ok := modifierByName(p)
			if !ok {
				return Combo{}, fmt.Errorf("%q: %q is not a modifier (ctrl, alt, shift, super): %w", s, p, ErrBadCombo)
			}
			if c.Mods&m != 0 {
				return Combo{}, fmt.Errorf("%q: %s is named twice: %w", s, p, ErrBadCombo)
			}
			c.Mods |= m
			continue
		}
		if _, ok := modifierByName(p); ok {
			return Combo{}, fmt.Errorf("%q: ends in a modifier; add a key, e.g. %s+space: %w", s, p, ErrBadCombo)
		}
		sym, ok := keysymByName(p)
		if !ok {
			return Combo{}, fmt.Errorf("%q: %q is not a key memdesk knows (a letter, a digit, f1-f24, space, enter, tab, …): %w", s, p, ErrBadCombo)
		}
		c.Keysym = sym
	}
	if c.Mods&(Ctrl|Alt|Super) == 0 {
		return Combo{}, fmt.Errorf("%q: needs ctrl, alt or super, or it would take a key you type: %w", s, ErrBadCombo)
	}
	return c, nil
}

func modifierByName(name string) (Modifiers, bool) {
	for _, m := range modifierNames {
		if slices.Contains(m.names, name) {
			return m.mod, true
		}
	}
	return 0, false
}

func keysymByName(name string) (uint32, bool) {
	if sym, ok := namedKeys[name]; ok {
		return sym, true
	}
	if len(name) == 1 && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= '0' && name[0] <= '9' || name[0] == '+') {
		return uint32(name[0]), true
	}
	var n int
	if _, err := fmt.Sscanf(name, "f%d", &n); err == nil && fmt.Sprintf("f%d", n) == name && n >= 1 && n <= 24 {
		return uint32(firstFunctionKey + n - 1), true
	}
	return 0, false
}

// String spells c the way Parse reads it, canonically: "ctrl+alt+space".
func (c Combo) String() string {
	var parts []string
	for _, m := range modifierNames {
		if c.Mods&m.mod != 0 {
			parts = append(parts, m.names[0])
		}
	}
	return strings.Join(append(parts, keyName(c.Keysym)), "+")
}

// keyName is the canonical name of a keysym Parse accepts: the longest word spelling, so
// "comma" rather than ",".
func keyName(sym uint32) string {
	switch {
	case sym >= firstFunctionKey && sym < firstFunctionKey+24:
		return fmt.Sprintf("f%d", sym-firstFunctionKey+1)
	case sym >= 'a' && sym <= 'z', sym >= '0' && sym <= '9', sym == '+':
		return string(rune(sym))
	}
	best := ""
	for name, s := range namedKeys {
		if s == sym && (len(name) > len(best) || len(name) == len(best) && name < best) {
			best = name
		}
	}
	if best == "" {
		return fmt.Sprintf("keysym-%#x", sym)
	}
	return best
}
