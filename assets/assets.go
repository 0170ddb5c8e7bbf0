// Package assets holds memdesk's bundled resources: the application icon, embedded so the
// binary needs no files beside it. assets/icon_gen.go draws the icon.
package assets

import _ "embed"

//go:embed icon.png
var iconPNG []byte

// IconPNG returns the 512×512 application icon as PNG bytes. Callers must not modify them.
func IconPNG() []byte { return iconPNG }
