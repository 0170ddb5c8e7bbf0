package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// shownBackground is the background colour the app's theme gives for the variant the
// settings report: what a window would paint.
func shownBackground(a fyne.App) any {
	s := a.Settings()
	return s.Theme().Color(theme.ColorNameBackground, s.ThemeVariant())
}

func TestThemeChoiceAppliesAtOnceAndPersists(t *testing.T) {
	h := newHarness(t, Options{}, nil).start()
	a := h.u.fa
	dark := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark)
	light := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantLight)

	radio := h.u.appearance.theme
	if got := radio.Selected; got != "Follow the system" {
		t.Errorf("theme choice on a fresh start = %q, want Follow the system", got)
	}
	radio.SetSelected("Dark")
	if got := shownBackground(a); got != dark {
		t.Errorf("background after choosing Dark = %v, want the dark variant's %v", got, dark)
	}
	radio.SetSelected("Light")
	if got := shownBackground(a); got != light {
		t.Errorf("background after choosing Light = %v, want the light variant's %v", got, light)
	}
	radio.SetSelected("Dark")
	if got := a.Preferences().String(prefTheme); got != themeDark {
		t.Errorf("stored theme = %q, want %q", got, themeDark)
	}

	// The next start (a new window over the same preferences) opens dark.
	a.Settings().SetTheme(theme.DefaultTheme())
	next := newApp(a, Options{Backend: h.eng}, h.q.post)
	t.Cleanup(next.Close)
	if got := shownBackground(a); got != dark {
		t.Errorf("background on the next start = %v, want the dark variant's %v", got, dark)
	}
	if got := next.appearance.theme.Selected; got != "Dark" {
		t.Errorf("theme choice shown on the next start = %q, want Dark", got)
	}

	// Following the system again hands the variant back to the desktop.
	next.appearance.theme.SetSelected("Follow the system")
	th := a.Settings().Theme()
	if th.Color(theme.ColorNameBackground, theme.VariantDark) != dark || th.Color(theme.ColorNameBackground, theme.VariantLight) != light {
		t.Error("with Follow the system, the theme does not take the variant the desktop asks for")
	}
	if got := a.Preferences().String(prefTheme); got != themeSystem {
		t.Errorf("stored theme = %q, want %q", got, themeSystem)
	}
}

func TestSavedThemeIgnoresUnknownValues(t *testing.T) {
	h := newHarness(t, Options{}, nil)
	prefs := h.u.fa.Preferences()
	for _, c := range []struct{ stored, want string }{
		{"", themeSystem}, {"dark", themeDark}, {"light", themeLight}, {"solarized", themeSystem},
	} {
		prefs.SetString(prefTheme, c.stored)
		if got := savedTheme(prefs); got != c.want {
			t.Errorf("savedTheme with %q stored = %q, want %q", c.stored, got, c.want)
		}
	}
}

// TestChipTextIsReadable (issue 28): a badge's text has a contrast ratio of at least 4.5
// (WCAG AA) with its colour in both variants of the theme; the theme's own "on" colours
// (white) gave the light theme's green and orange badges less.
func TestChipTextIsReadable(t *testing.T) {
	th := theme.DefaultTheme()
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		for _, bg := range []fyne.ThemeColorName{theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNamePrimary} {
			back := th.Color(bg, v)
			if c := contrast(readableOn(back), back); c < 4.5 {
				t.Errorf("variant %d, %s badge: contrast %.2f, want 4.5 or more", v, bg, c)
			}
		}
	}
	// chip itself draws its text in that colour, on the current theme.
	test.NewTempApp(t)
	for _, bg := range []fyne.ThemeColorName{theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNamePrimary} {
		var label *canvas.Text
		walk(chip("memory", bg), func(o fyne.CanvasObject) {
			if t, ok := o.(*canvas.Text); ok {
				label = t
			}
		})
		if want := readableOn(theme.Color(bg)); label == nil || label.Color != want {
			t.Errorf("%s chip's text: %v, want %v", bg, label, want)
		}
	}
	light := theme.VariantLight
	on := th.Color(theme.ColorNameForegroundOnSuccess, light)
	t.Logf("the theme's own text on the light green badge: contrast %.2f; chosen: %.2f",
		contrast(on, th.Color(theme.ColorNameSuccess, light)), contrast(readableOn(th.Color(theme.ColorNameSuccess, light)), th.Color(theme.ColorNameSuccess, light)))
}
