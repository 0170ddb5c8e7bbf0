package ui

import (
	"embed"
	"log/slog"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
)

// translations holds the window's words in English and Simplified Chinese, one JSON file per
// language, keyed by the English text (lang.L) or its plural's English (plural).
//
//go:embed translations/*.json
var translations embed.FS

// prefLanguage holds the language choice: langSystem (the default), langEnglish or langChinese.
const prefLanguage = "appearance.language"

const (
	langSystem  = "system"
	langEnglish = "en"
	langChinese = "zh"
)

// languageChoices are the language choices in the order Settings offers them.
func languageChoices() []string { return []string{langSystem, langEnglish, langChinese} }

// tmpl is the data of a translated message's {{.Name}} fields.
type tmpl = map[string]any

// registerTranslations adds memdesk's words to Fyne's lang package. Fyne keeps one
// localizer for the process and, on every registration, picks its language again from the
// locale the environment names (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, through go-locale):
// there is no call to choose a language at run time, so a choice in Settings is put into
// LANGUAGE by cmd before the window is built (LanguageOverride), and takes effect on the
// next start.
func registerTranslations(log *slog.Logger) {
	if err := lang.AddTranslationsFS(translations, "translations"); err != nil {
		log.Warn("the window's translations did not load; it shows English", "err", err)
	}
}

// uiLanguage is the language Fyne's localizer picked for the window: langEnglish or
// langChinese. The engine writes its plain-language explanations in it too.
func uiLanguage() string {
	if lang.X("memdesk.language", langEnglish) == langChinese {
		return langChinese
	}
	return langEnglish
}

// savedLanguage is the stored language choice; an unknown value is system.
func savedLanguage(prefs fyne.Preferences) string {
	choice := prefs.StringWithFallback(prefLanguage, langSystem)
	if !slices.Contains(languageChoices(), choice) {
		return langSystem
	}
	return choice
}

// LanguageOverride is the value for the LANGUAGE environment variable that puts the window
// in the language chosen in Settings, or "" to follow the system's locale. The caller sets
// it before New, because Fyne reads the language only from the environment. A locale of C
// or POSIX turns LANGUAGE off (gettext's rule, which go-locale follows), so there the
// window stays English.
func LanguageOverride(a fyne.App) string {
	switch savedLanguage(a.Preferences()) {
	case langEnglish:
		return "en"
	case langChinese:
		return "zh_CN"
	}
	return ""
}
