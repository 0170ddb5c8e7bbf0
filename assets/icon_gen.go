//go:build ignore

// icon_gen draws memdesk's icon: a magnifier over a stack of notes on a rounded square.
// Regenerate with `go run icon_gen.go` in this folder; the PNG is what the app embeds.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

const size = 512

func main() {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	top := color.NRGBA{0x2b, 0x7a, 0x9b, 0xff}
	bottom := color.NRGBA{0x1d, 0x4e, 0x6f, 0xff}
	paper := color.NRGBA{0xf4, 0xf1, 0xe8, 0xff}
	line := color.NRGBA{0x9a, 0xb3, 0xc2, 0xff}
	glass := color.NRGBA{0xff, 0xc8, 0x57, 0xff}

	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			a := roundedRectCoverage(fx, fy, 16, 16, size-16, size-16, 96)
			if a == 0 {
				continue
			}
			c := mix(top, bottom, fy/size)
			// Two notes, the back one offset, with ruled lines.
			if inRect(fx, fy, 150, 110, 390, 380) {
				c = mix(paper, top, 0.35)
			}
			if inRect(fx, fy, 112, 140, 352, 410) {
				c = paper
				if int(fy-140)%44 >= 36 && fy > 180 && fy < 380 && fx > 140 && fx < 324 {
					c = line
				}
			}
			// Magnifier ring and handle.
			d := math.Hypot(fx-318, fy-300)
			if d > 70 && d < 96 {
				c = glass
			}
			if onSegment(fx, fy, 385, 367, 450, 432, 20) {
				c = glass
			}
			c.A = uint8(float64(c.A) * a)
			img.SetNRGBA(x, y, c)
		}
	}
	f, err := os.Create("icon.png")
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func inRect(x, y, x0, y0, x1, y1 float64) bool { return x >= x0 && x < x1 && y >= y0 && y < y1 }

func onSegment(x, y, x0, y0, x1, y1, width float64) bool {
	dx, dy := x1-x0, y1-y0
	t := ((x-x0)*dx + (y-y0)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(x-(x0+t*dx), y-(y0+t*dy)) <= width
}

// roundedRectCoverage is 1 inside, 0 outside, and fades over one pixel at the rounded edge.
func roundedRectCoverage(x, y, x0, y0, x1, y1, r float64) float64 {
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	d := math.Hypot(x-cx, y-cy)
	return math.Max(0, math.Min(1, r-d+0.5))
}

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	l := func(p, q uint8) uint8 { return uint8(float64(p)*(1-t) + float64(q)*t) }
	return color.NRGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), l(a.A, b.A)}
}
