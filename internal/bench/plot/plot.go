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
	f := c.frame()
	img := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	c.drawAxes(img, f)
	for si, s := range c.Series {
		c.drawSeries(img, f, si, s)
	}
	return img
}

// frame is where the data lands on the picture: its size and the data
// ranges its axes span.
type frame struct {
	w, h                   int
	xmin, xmax, ymin, ymax float64
	logY                   bool
}

// frame sizes the picture and spans the axes over every series' data.
func (c *Chart) frame() frame {
	f := frame{w: c.W, h: c.H, logY: c.LogY}
	if f.w == 0 {
		f.w = 800
	}
	if f.h == 0 {
		f.h = 480
	}
	f.xmin, f.xmax = math.Inf(1), math.Inf(-1)
	f.ymin, f.ymax = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			f.xmin, f.xmax = math.Min(f.xmin, s.X[i]), math.Max(f.xmax, s.X[i])
			y := s.Y[i]
			if c.LogY && y <= 0 {
				continue
			}
			f.ymin, f.ymax = math.Min(f.ymin, y), math.Max(f.ymax, y)
		}
	}
	if math.IsInf(f.xmin, 1) {
		f.xmin, f.xmax, f.ymin, f.ymax = 0, 1, 1, 10
	}
	if c.Bars && len(c.Series) > 0 && len(c.Series[0].X) > 1 {
		f.xmax += c.Series[0].X[1] - c.Series[0].X[0] // the last bucket's width
	}
	if f.xmax == f.xmin {
		f.xmin, f.xmax = f.xmin-1, f.xmax+1
	}
	if c.LogY {
		if c.YMin != nil {
			f.ymin = *c.YMin
		}
		f.ymin = math.Pow(10, math.Floor(math.Log10(f.ymin)))
		f.ymax = math.Pow(10, math.Ceil(math.Log10(f.ymax*1.01)))
	} else {
		f.ymin = 0
		if c.YMin != nil {
			f.ymin = *c.YMin
		}
		f.ymax = niceCeil(f.ymax * 1.05)
	}
	if f.ymax <= f.ymin {
		f.ymax = f.ymin + 1
	}
	return f
}

// plotW and plotH are the plot area's size inside the margins.
func (f frame) plotW() float64 { return float64(f.w - left - right) }
func (f frame) plotH() float64 { return float64(f.h - top - bottom) }

// px is the picture column of data x.
func (f frame) px(x float64) int {
	return left + int((x-f.xmin)/(f.xmax-f.xmin)*f.plotW()+0.5)
}

// py is the picture row of data y (clamped to the bottom on a log axis).
func (f frame) py(y float64) int {
	var r float64
	if f.logY {
		if y <= f.ymin {
			y = f.ymin
		}
		r = (math.Log10(y) - math.Log10(f.ymin)) / (math.Log10(f.ymax) - math.Log10(f.ymin))
	} else {
		r = (y - f.ymin) / (f.ymax - f.ymin)
	}
	return top + int((1-r)*f.plotH()+0.5)
}

var (
	grey  = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	black = color.RGBA{0, 0, 0, 0xff}
)

// drawAxes draws the grid, the tick labels, the axes and the titles.
func (c *Chart) drawAxes(img *image.RGBA, f frame) {
	w, h := f.w, f.h
	for _, t := range c.yTicks(f.ymin, f.ymax) {
		y := f.py(t)
		line(img, left, y, w-right, y, grey, false)
		label := fmtNum(t)
		text(img, left-8-7*len(label), y+4, label, black)
	}
	xt := c.XTicks
	if xt == nil {
		xt = ticks(f.xmin, f.xmax, 8)
	}
	for _, t := range xt {
		x := f.px(t)
		line(img, x, top, x, h-bottom, grey, false)
		label := fmtNum(t)
		text(img, x-7*len(label)/2, h-bottom+16, label, black)
	}
	line(img, left, top, left, h-bottom, black, false)
	line(img, left, h-bottom, w-right, h-bottom, black, false)
	text(img, left, 20, c.Title, black)
	text(img, left+int(f.plotW())/2-7*len(c.XLabel)/2, h-bottom+40, c.XLabel, black)
	text(img, 8, top-12, c.YLabel, black)
}

// drawSeries draws series si, as bars or as a line with points, and its
// legend entry (top right).
func (c *Chart) drawSeries(img *image.RGBA, f frame, si int, s Series) {
	col := s.Color
	if col.A == 0 {
		col = Palette[si%len(Palette)]
	}
	if c.Bars {
		width := 1.0
		if len(s.X) > 1 {
			width = s.X[1] - s.X[0]
		}
		prevY := f.py(f.ymin)
		for i := range s.X {
			x0, x1, y := f.px(s.X[i]), f.px(s.X[i]+width), f.py(s.Y[i])
			line(img, x0, prevY, x0, y, col, s.Dashed)
			line(img, x0, y, x1, y, col, s.Dashed)
			prevY = y
		}
		if len(s.X) > 0 {
			x := f.px(s.X[len(s.X)-1] + width)
			line(img, x, prevY, x, f.py(f.ymin), col, s.Dashed)
		}
	} else {
		for i := range s.X {
			x, y := f.px(s.X[i]), f.py(s.Y[i])
			if i > 0 {
				thick(img, f.px(s.X[i-1]), f.py(s.Y[i-1]), x, y, col, s.Dashed)
			}
			fillRect(img, x-3, y-3, x+3, y+3, col)
		}
	}
	ly := top + 8 + 16*si
	lx := f.w - right - 10 - 7*maxLen(c.Series) - 30
	thick(img, lx, ly, lx+22, ly, col, s.Dashed)
	text(img, lx+28, ly+4, s.Name, black)
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
