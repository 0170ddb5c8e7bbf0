package ui

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
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
	fa       fyne.App
	theme    *widget.RadioGroup
	language *widget.RadioGroup
	// restart says a language change waits for the next start, shown once one is picked.
	restart *widget.Label
	content fyne.CanvasObject
}

func newAppearance(a fyne.App) *appearance {
	p := &appearance{fa: a}
	prefs := a.Preferences()
	p.theme = choiceGroup(themeChoices(), map[string]string{
		themeSystem: lang.L("Follow the system"), themeLight: lang.L("Light"), themeDark: lang.L("Dark"),
	}, savedTheme(prefs), p.setTheme)
	// Each language is named in itself, so a person who cannot read the other finds theirs.
	p.language = choiceGroup(languageChoices(), map[string]string{
		langSystem: lang.L("Follow the system"), langEnglish: "English", langChinese: "中文",
	}, savedLanguage(prefs), p.setLanguage)
	p.restart = hint(lang.L("Takes effect when memdesk next starts."))
	p.restart.Importance = widget.WarningImportance
	p.restart.Hide()
	label := func(text string) fyne.CanvasObject { return widget.NewLabel(text) }
	p.content = container.NewVBox(
		heading(lang.L("Appearance")),
		container.New(layout.NewFormLayout(),
			label(lang.L("Theme")), p.theme,
			label(lang.L("Language")), container.NewHBox(p.language, p.restart)),
	)
	return p
}

// choiceGroup is a row of radio buttons, one per choice, labelled by labels, with selected
// picked; picking one calls pick with its choice.
func choiceGroup(choices []string, labels map[string]string, selected string, pick func(string)) *widget.RadioGroup {
	options := make([]string, len(choices))
	for i, c := range choices {
		options[i] = labels[c]
	}
	g := widget.NewRadioGroup(options, nil)
	g.Horizontal = true
	g.Required = true
	g.SetSelected(labels[selected])
	g.OnChanged = func(label string) {
		if i := slices.Index(options, label); i >= 0 {
			pick(choices[i])
		}
	}
	return g
}

// setLanguage keeps the language choice for the next start; Fyne takes the language from
// the environment as the app starts (LanguageOverride), so the window says so.
func (p *appearance) setLanguage(choice string) {
	p.fa.Preferences().SetString(prefLanguage, choice)
	p.restart.Show()
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
