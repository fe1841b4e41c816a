package guest

// Work is the CPU benchmarks' unit of integer arithmetic: a xorshift
// loop with no calls that the compiler can neither remove nor vectorise,
// returning a sum that depends on every step (cpubound, gothreads).
//
//go:noinline
func Work(seed uint64, n int) uint64 {
	x, sum := seed|1, uint64(0)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		sum += x
	}
	return sum
}
