// Command mandelbrot is the InfOS scaling benchmark: G goroutines render a
// W×H Mandelbrot picture from a shared work list. A single counter,
// next_pixel, is advanced with an atomic add; each goroutine takes the next
// pixel, computes its escape count, and comes back for another, until the
// picture is done. The arithmetic is either fixed point (Q4.28 in int64) or
// float64. Every (mode, G) pair is timed with the guest clock and reported
// as a BENCH line, then the machine powers off.
//
// Each mode has its own picture (float arithmetic is much slower under
// QEMU's TCG than integer arithmetic), given as WIDTHxHEIGHTxITERATIONS.
//
//	mandelbrot [-fixed 2048x1536x1024] [-float 320x240x1024] [-g 1,2,4,8,16,32] [-modes fixed,float]
package main

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

// The picture spans [-2, 1] × [-1.2, 1.2] of the complex plane.
const (
	x0, x1 = -2.0, 1.0
	y0, y1 = -1.2, 1.2
)

const fracBits = 28 // Q4.28: |values| < 8 keep products inside int64

func fixedEscape(cr, ci int64, maxIter int) int {
	var zr, zi int64
	const four = 4 << fracBits
	for i := 0; i < maxIter; i++ {
		zr2 := (zr * zr) >> fracBits
		zi2 := (zi * zi) >> fracBits
		if zr2+zi2 > four {
			return i
		}
		zi = ((2 * zr * zi) >> fracBits) + ci
		zr = zr2 - zi2 + cr
	}
	return maxIter
}

func floatEscape(cr, ci float64, maxIter int) int {
	var zr, zi float64
	for i := 0; i < maxIter; i++ {
		zr2, zi2 := zr*zr, zi*zi
		if zr2+zi2 > 4 {
			return i
		}
		zi = 2*zr*zi + ci
		zr = zr2 - zi2 + cr
	}
	return maxIter
}

// render draws the picture with g goroutines and returns the sum of all
// escape counts, a checksum that must not depend on g.
func render(mode string, w, h, maxIter, g int, out []uint16) uint64 {
	var next atomic.Int64 // next_pixel
	total := int64(w * h)
	dx, dy := (x1-x0)/float64(w), (y1-y0)/float64(h)
	var wg sync.WaitGroup
	for k := 0; k < g; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				p := next.Add(1) - 1
				if p >= total {
					return
				}
				px, py := int(p)%w, int(p)/w
				cr, ci := x0+float64(px)*dx, y0+float64(py)*dy
				var n int
				if mode == "fixed" {
					n = fixedEscape(int64(cr*(1<<fracBits)), int64(ci*(1<<fracBits)), maxIter)
				} else {
					n = floatEscape(cr, ci, maxIter)
				}
				out[p] = uint16(n)
			}
		}()
	}
	wg.Wait()
	var sum uint64
	for _, n := range out {
		sum += uint64(n)
	}
	return sum
}

func main() {
	sizes := map[string]*string{
		"fixed": flag.String("fixed", "2048x1536x1024", "fixed-point picture: WIDTHxHEIGHTxITERATIONS"),
		"float": flag.String("float", "320x240x1024", "float64 picture: WIDTHxHEIGHTxITERATIONS"),
	}
	gs := flag.String("g", "1,2,4,8,16,32", "goroutine counts")
	modes := flag.String("modes", "fixed,float", "arithmetic: fixed, float")
	flag.Parse()

	for _, mode := range strings.Split(*modes, ",") {
		spec, ok := sizes[mode]
		if !ok {
			guest.Fail("mandelbrot", fmt.Errorf("unknown mode %q", mode))
		}
		d := guest.Ints(strings.ReplaceAll(*spec, "x", ","))
		if len(d) != 3 {
			guest.Fail("mandelbrot", fmt.Errorf("bad size %q", *spec))
		}
		w, h, iter := d[0], d[1], d[2]
		out := make([]uint16, w*h)
		render(mode, 64, 48, iter, 2, out[:64*48]) // warm up: translate the code once
		for _, g := range guest.Ints(*gs) {
			start := time.Now()
			sum := render(mode, w, h, iter, g, out)
			el := time.Since(start)
			guest.Report("mandelbrot", "mode", mode, "g", g, "cpus", runtime.NumCPU(),
				"w", w, "h", h, "iter", iter, "ms", guest.MS(el), "checksum", sum)
		}
	}
	guest.PowerOff()
}
