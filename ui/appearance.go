package ui

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// prefTheme holds the theme choice: themeSystem (the default), themeLight or themeDark.
const prefTheme = "appearance.theme"

const (
	themeSystem = "system"
	themeLight  = "light"
	themeDark   = "dark"
)

// themeChoices are the theme choices in the order Settings offers them.
func themeChoices() []string { return []string{themeSystem, themeLight, themeDark} }

// fixedVariant is Fyne's default theme held to one variant, whatever the desktop asks for.
type fixedVariant struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (t fixedVariant) Color(name fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(name, t.variant)
}

// themeFor is the theme a choice stands for. "system" is Fyne's default theme as it is,
// which takes the variant the desktop reports (and follows it when it changes).
func themeFor(choice string) fyne.Theme {
	switch choice {
	case themeLight:
		return fixedVariant{theme.DefaultTheme(), theme.VariantLight}
	case themeDark:
		return fixedVariant{theme.DefaultTheme(), theme.VariantDark}
	}
	return theme.DefaultTheme()
}

// savedTheme is the stored theme choice; an unknown value (a newer version's) is system.
func savedTheme(prefs fyne.Preferences) string {
	choice := prefs.StringWithFallback(prefTheme, themeSystem)
	if !slices.Contains(themeChoices(), choice) {
		return themeSystem
	}
	return choice
}

// appearance is Settings' Appearance section: the theme, applied as it is picked and kept
// in the app's preferences for the next start.
type appearance struct {
	fa      fyne.App
	theme   *widget.RadioGroup
	content fyne.CanvasObject
}

func newAppearance(a fyne.App) *appearance {
	p := &appearance{fa: a}
	labels := map[string]string{themeSystem: "Follow the system", themeLight: "Light", themeDark: "Dark"}
	var options []string
	for _, c := range themeChoices() {
		options = append(options, labels[c])
	}
	p.theme = widget.NewRadioGroup(options, nil)
	p.theme.Horizontal = true
	p.theme.Required = true
	p.theme.SetSelected(labels[savedTheme(a.Preferences())])
	p.theme.OnChanged = func(label string) {
		for c, l := range labels {
			if l == label {
				p.setTheme(c)
			}
		}
	}
	p.content = container.NewVBox(
		heading("Appearance"),
		container.NewBorder(nil, nil, widget.NewLabel("Theme"), nil, p.theme),
	)
	return p
}

// applySavedTheme puts the stored theme on the app; the window calls it as it opens.
func applySavedTheme(a fyne.App) {
	a.Settings().SetTheme(themeFor(savedTheme(a.Preferences())))
}

// setTheme applies choice at once and keeps it.
func (p *appearance) setTheme(choice string) {
	p.fa.Preferences().SetString(prefTheme, choice)
	p.fa.Settings().SetTheme(themeFor(choice))
}
