package kstats

import "sort"

// Median is the middle of v (the mean of the two middle values for an even
// count), 0 for none; v is not modified. The harnesses that boot the kernel
// many times (bench, stress, scaling) report medians of their boots.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}
