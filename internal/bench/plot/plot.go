// Package plot draws the few charts `gometal bench` needs — lines over a
// numeric x axis and a histogram — as PNG images, in pure Go (image/png,
// with golang.org/x/image's fixed 7×13 font for labels).
package plot

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Series is one line (or one set of bars).
type Series struct {
	Name   string
	X, Y   []float64
	Color  color.RGBA
	Dashed bool
}

// Chart is a line chart or, with Bars set, a histogram whose series share
// the x positions (bucket starts) and are drawn as outlined steps.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	LogY                  bool      // log10 y axis (values ≤ 0 drawn at the bottom)
	Bars                  bool      // step histogram instead of lines with markers
	XTicks                []float64 // optional explicit x ticks
	YMin                  *float64  // default: 0 (linear) or the smallest positive value (log)
	W, H                  int
}

// Palette holds distinguishable colours.
var Palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
}

const (
	left, right, top, bottom = 80, 20, 40, 60
)

// Save draws the chart and writes it as a PNG file.
func (c *Chart) Save(path string) error {
	img := c.Draw()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Draw renders the chart.
func (c *Chart) Draw() *image.RGBA {
	w, h := c.W, c.H
	if w == 0 {
		w = 800
	}
	if h == 0 {
		h = 480
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)

	// Data ranges.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			y := s.Y[i]
			if c.LogY && y <= 0 {
				continue
			}
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymin, ymax = 0, 1, 1, 10
	}
	if c.Bars && len(c.Series) > 0 && len(c.Series[0].X) > 1 {
		xmax += c.Series[0].X[1] - c.Series[0].X[0] // the last bucket's width
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	if c.LogY {
		if c.YMin != nil {
			ymin = *c.YMin
		}
		ymin = math.Pow(10, math.Floor(math.Log10(ymin)))
		ymax = math.Pow(10, math.Ceil(math.Log10(ymax*1.01)))
	} else {
		ymin = 0
		if c.YMin != nil {
			ymin = *c.YMin
		}
		ymax = niceCeil(ymax * 1.05)
	}
	if ymax <= ymin {
		ymax = ymin + 1
	}
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	px := func(x float64) int { return left + int((x-xmin)/(xmax-xmin)*pw+0.5) }
	py := func(y float64) int {
		var f float64
		if c.LogY {
			if y <= ymin {
				y = ymin
			}
			f = (math.Log10(y) - math.Log10(ymin)) / (math.Log10(ymax) - math.Log10(ymin))
		} else {
			f = (y - ymin) / (ymax - ymin)
		}
		return top + int((1-f)*ph+0.5)
	}

	grey := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	black := color.RGBA{0, 0, 0, 0xff}
	// Y grid and labels.
	for _, t := range c.yTicks(ymin, ymax) {
		y := py(t)
		line(img, left, y, w-right, y, grey, false)
		label := fmtNum(t)
		text(img, left-8-7*len(label), y+4, label, black)
	}
	// X grid and labels.
	xt := c.XTicks
	if xt == nil {
		xt = ticks(xmin, xmax, 8)
	}
	for _, t := range xt {
		x := px(t)
		line(img, x, top, x, h-bottom, grey, false)
		label := fmtNum(t)
		text(img, x-7*len(label)/2, h-bottom+16, label, black)
	}
	// Axes.
	line(img, left, top, left, h-bottom, black, false)
	line(img, left, h-bottom, w-right, h-bottom, black, false)
	text(img, left, 20, c.Title, black)
	text(img, left+int(pw)/2-7*len(c.XLabel)/2, h-bottom+40, c.XLabel, black)
	text(img, 8, top-12, c.YLabel, black)

	for si, s := range c.Series {
		col := s.Color
		if col.A == 0 {
			col = Palette[si%len(Palette)]
		}
		if c.Bars {
			width := 1.0
			if len(s.X) > 1 {
				width = s.X[1] - s.X[0]
			}
			prevY := py(ymin)
			for i := range s.X {
				x0, x1, y := px(s.X[i]), px(s.X[i]+width), py(s.Y[i])
				line(img, x0, prevY, x0, y, col, s.Dashed)
				line(img, x0, y, x1, y, col, s.Dashed)
				prevY = y
			}
			if len(s.X) > 0 {
				x := px(s.X[len(s.X)-1] + width)
				line(img, x, prevY, x, py(ymin), col, s.Dashed)
			}
		} else {
			for i := range s.X {
				x, y := px(s.X[i]), py(s.Y[i])
				if i > 0 {
					thick(img, px(s.X[i-1]), py(s.Y[i-1]), x, y, col, s.Dashed)
				}
				fillRect(img, x-3, y-3, x+3, y+3, col)
			}
		}
		// Legend, top right.
		ly := top + 8 + 16*si
		lx := w - right - 10 - 7*maxLen(c.Series) - 30
		thick(img, lx, ly, lx+22, ly, col, s.Dashed)
		text(img, lx+28, ly+4, s.Name, black)
	}
	return img
}

func (c *Chart) yTicks(ymin, ymax float64) []float64 {
	if !c.LogY {
		return ticks(ymin, ymax, 6)
	}
	var t []float64
	for v := ymin; v <= ymax*1.0001; v *= 10 {
		t = append(t, v)
	}
	return t
}

func maxLen(ss []Series) int {
	n := 0
	for _, s := range ss {
		n = max(n, len(s.Name))
	}
	return n
}

// ticks returns round values covering [lo, hi], about n of them.
func ticks(lo, hi float64, n int) []float64 {
	step := niceStep((hi - lo) / float64(n))
	var t []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		t = append(t, v)
	}
	return t
}

func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	s := niceStep(v / 6)
	return math.Ceil(v/s) * s
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1e6:
		return fmt.Sprintf("%.0fM", v/1e6)
	case math.Abs(v) >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}

func text(img *image.RGBA, x, y int, s string, col color.Color) {
	d := &font.Drawer{Dst: img, Src: image.NewUniform(col), Face: basicfont.Face7x13,
		Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func fillRect(img *image.RGBA, x0, y0, x1, y1 int, col color.RGBA) {
	draw.Draw(img, image.Rect(x0, y0, x1+1, y1+1), image.NewUniform(col), image.Point{}, draw.Src)
}

// line draws a 1-pixel line (Bresenham); dashed skips every other 6 pixels.
func line(img *image.RGBA, x0, y0, x1, y1 int, col color.RGBA, dashed bool) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for n := 0; ; n++ {
		if !dashed || (n/6)%2 == 0 {
			img.SetRGBA(x0, y0, col)
		}
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func thick(img *image.RGBA, x0, y0, x1, y1 int, col color.RGBA, dashed bool) {
	for _, o := range [][2]int{{0, 0}, {1, 0}, {0, 1}} {
		line(img, x0+o[0], y0+o[1], x1+o[0], y1+o[1], col, dashed)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
