// Command matmul multiplies two N×N float64 matrices with the textbook
// triple loop in i-k-j order, the same algorithm as csrc/matmul.c, so
// that the two languages can be compared on the same kernel. It reports the
// time (guest clock) and a checksum, then powers the machine off.
//
//	matmul [-n 384] [-reps 1]
package main

import (
	"flag"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

func multiply(n int, a, b, c []float64) {
	for i := 0; i < n; i++ {
		ci := c[i*n : i*n+n]
		for j := range ci {
			ci[j] = 0
		}
		for k := 0; k < n; k++ {
			aik := a[i*n+k]
			bk := b[k*n : k*n+n]
			for j := 0; j < n; j++ {
				ci[j] += aik * bk[j]
			}
		}
	}
}

func main() {
	n := flag.Int("n", 384, "matrix size")
	reps := flag.Int("reps", 1, "multiplications (the time is for all of them)")
	flag.Parse()
	N := *n
	a, b, c := make([]float64, N*N), make([]float64, N*N), make([]float64, N*N)
	for i := 0; i < N; i++ {
		for j := 0; j < N; j++ {
			a[i*N+j] = float64((i*7+j*3)%17) / 16
			b[i*N+j] = float64((i*5+j*11)%13) / 12
		}
	}
	multiply(8, a, b, c) // warm up
	start := time.Now()
	for r := 0; r < *reps; r++ {
		multiply(N, a, b, c)
	}
	el := time.Since(start)
	var sum float64
	for _, v := range c {
		sum += v
	}
	guest.Report("matmul", "lang", "go", "n", N, "reps", *reps, "ms", guest.MS(el), "checksum", sum)
	guest.PowerOff()
}
