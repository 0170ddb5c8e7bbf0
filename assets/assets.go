// Package assets holds memdesk's bundled resources, embedded so the binary needs no files
// beside it: the application icon (assets/icon_gen.go draws it) and the built-in bilingual
// gold set the app's eval panel runs. eval/bilingual.json is a copy of
// testdata/eval/bilingual.json, kept identical by a test.
package assets

import _ "embed"

//go:embed icon.png
var iconPNG []byte

//go:embed eval/bilingual.json
var bilingualCases []byte

// IconPNG returns the 512×512 application icon as PNG bytes. Callers must not modify them.
func IconPNG() []byte { return iconPNG }

// BilingualCases returns the built-in gold set, a case file for eval.ParseCases. Callers
// must not modify the bytes.
func BilingualCases() []byte { return bilingualCases }
