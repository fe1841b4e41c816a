//go:build riscv64

package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

const kernelAddr = 0xffffffc080200000

// Linux 6.11's bits past golang.org/x/sys v0.49's list.
const (
	extZca = 1 << 43
	extZcd = 1 << 45
)

// The IMA_EXT_0 bits this test checks, by the ISA name that gives them.
var extBits = map[string]uint64{
	"zba": unix.RISCV_HWPROBE_EXT_ZBA, "zbb": unix.RISCV_HWPROBE_EXT_ZBB, "zbs": unix.RISCV_HWPROBE_EXT_ZBS,
	"zbc": unix.RISCV_HWPROBE_EXT_ZBC, "zihintpause": unix.RISCV_HWPROBE_EXT_ZIHINTPAUSE,
	"zicond": unix.RISCV_HWPROBE_EXT_ZICOND, "zacas": unix.RISCV_HWPROBE_EXT_ZACAS, "zfa": unix.RISCV_HWPROBE_EXT_ZFA,
	"zfh": unix.RISCV_HWPROBE_EXT_ZFH, "zfhmin": unix.RISCV_HWPROBE_EXT_ZFHMIN, "ztso": unix.RISCV_HWPROBE_EXT_ZTSO,
	"zihintntl": unix.RISCV_HWPROBE_EXT_ZIHINTNTL, "zbkb": unix.RISCV_HWPROBE_EXT_ZBKB, "zkt": unix.RISCV_HWPROBE_EXT_ZKT,
}

// expected: the IMA_EXT_0 bits an ISA string gives (within mask, the bits
// this test knows). V and Zicboz stay clear: the kernel enables neither.
func expected(isa string) (want, mask uint64) {
	isa = strings.ToLower(strings.TrimPrefix(strings.ToLower(isa), "rv64"))
	parts := strings.Split(isa, "_")
	letters := strings.ReplaceAll(parts[0], "g", "imafd")
	has := func(l string) bool { return strings.Contains(letters, l) }
	mask = unix.RISCV_HWPROBE_IMA_FD | unix.RISCV_HWPROBE_IMA_C | unix.RISCV_HWPROBE_IMA_V | unix.RISCV_HWPROBE_EXT_ZICBOZ | extZca | extZcd
	for _, b := range extBits {
		mask |= b
	}
	if has("f") || has("d") {
		want |= unix.RISCV_HWPROBE_IMA_FD
	}
	if has("c") {
		want |= unix.RISCV_HWPROBE_IMA_C | extZca
		if has("d") {
			want |= extZcd
		}
	}
	for _, name := range parts[1:] {
		want |= extBits[name]
	}
	return want, mask
}

func probe(args []string) {
	if len(args) != 3 {
		fail("usage: hwprobe RISCV_ISA TIMEBASE_HZ MVENDORID,MARCHID,MIMPID (got %q)", args)
		return
	}
	timebase, _ := strconv.ParseUint(args[1], 0, 64)
	keys := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1, 1 << 40}
	pairs := make([]unix.RISCVHWProbePairs, len(keys))
	for i, k := range keys {
		pairs[i] = unix.RISCVHWProbePairs{Key: k, Value: 0xdead}
	}
	if err := unix.RISCVHWProbe(pairs, nil, 0); err != nil {
		fail("RISCVHWProbe: %v", err)
		return
	}
	v := func(key int64) uint64 { return pairs[key].Value }
	fmt.Printf("hwprobe: mvendorid %#x marchid %#x mimpid %#x\n", v(0), v(1), v(2))
	if ids := fmt.Sprintf("%#x,%#x,%#x", v(0), v(1), v(2)); ids != args[2] {
		fail("machine ids %s, QEMU's are %s", ids, args[2])
	}
	want, mask := expected(args[0])
	if got := v(unix.RISCV_HWPROBE_KEY_IMA_EXT_0); got&mask != want {
		fail("IMA_EXT_0 %#x (checked bits %#x), want %#x from %s", got, got&mask, want, args[0])
	}
	fmt.Printf("hwprobe: IMA_EXT_0 %#x for %s\n", v(4), args[0])
	if v(3) != unix.RISCV_HWPROBE_BASE_BEHAVIOR_IMA {
		fail("BASE_BEHAVIOR %#x, want IMA", v(3))
	}
	if v(5) != v(9) || v(9) > unix.RISCV_HWPROBE_MISALIGNED_UNSUPPORTED {
		fail("CPUPERF_0 %d and MISALIGNED_SCALAR_PERF %d: want one value of 0..4", v(5), v(9))
	}
	if v(6) != 0 {
		fail("ZICBOZ_BLOCK_SIZE %d without Zicboz", v(6))
	}
	if v(8) != timebase {
		fail("TIME_CSR_FREQ %d, the device tree says %d", v(8), timebase)
	}
	for _, i := range []int{10, 11, 12} {
		if pairs[i].Key != -1 || pairs[i].Value != 0 {
			fail("unknown key %d answered %+v, want key -1 value 0", keys[i], pairs[i])
		}
	}
	userTop(v(7))
	goCPU(want)
	cpuSets(pairs[4].Value)
	badPointers()
}

// userTop: the highest user address is where Linux's access_ok stops.
func userTop(top uint64) {
	null, err := syscall.Open("/dev/null", syscall.O_WRONLY, 0)
	if err != nil {
		fail("open /dev/null: %v", err)
		return
	}
	defer syscall.Close(null)
	write := func(p, n uint64) (uintptr, syscall.Errno) {
		r, _, e := syscall.Syscall(syscall.SYS_WRITE, uintptr(null), uintptr(p), uintptr(n))
		return r, e
	}
	for _, c := range []struct {
		p, n  uint64
		fault bool
	}{{top, 0, false}, {top - 4096, 4096, false}, {top - 4096, 4097, true}, {top + 1, 0, true}} {
		if r, e := write(c.p, c.n); (e == syscall.EFAULT) != c.fault || (!c.fault && r != uintptr(c.n)) {
			fail("write(/dev/null, %#x, %d) = %d, %v; EFAULT wanted: %v", c.p, c.n, r, e, c.fault)
		}
	}
	fmt.Printf("hwprobe: highest user address %#x, where access_ok stops\n", top)
}

// goCPU: golang.org/x/sys/cpu reads the same call.
func goCPU(want uint64) {
	has := func(b uint64) bool { return want&b != 0 }
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"C", cpu.RISCV64.HasC, has(unix.RISCV_HWPROBE_IMA_C)},
		{"V", cpu.RISCV64.HasV, false},
		{"Zba", cpu.RISCV64.HasZba, has(unix.RISCV_HWPROBE_EXT_ZBA)},
		{"Zbb", cpu.RISCV64.HasZbb, has(unix.RISCV_HWPROBE_EXT_ZBB)},
		{"Zbc", cpu.RISCV64.HasZbc, has(unix.RISCV_HWPROBE_EXT_ZBC)},
		{"Zbs", cpu.RISCV64.HasZbs, has(unix.RISCV_HWPROBE_EXT_ZBS)},
	} {
		if c.got != c.want {
			fail("golang.org/x/sys/cpu: Has%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	fmt.Printf("hwprobe: golang.org/x/sys/cpu: C %v V %v Zba %v Zbb %v Zbc %v Zbs %v\n",
		cpu.RISCV64.HasC, cpu.RISCV64.HasV, cpu.RISCV64.HasZba, cpu.RISCV64.HasZbb, cpu.RISCV64.HasZbc, cpu.RISCV64.HasZbs)
}

// cpuSets: the set and flags arguments, with Linux's errnos.
func cpuSets(ext0 uint64) {
	one := []unix.RISCVHWProbePairs{{Key: unix.RISCV_HWPROBE_KEY_IMA_EXT_0}}
	var set unix.CPUSet
	set.Set(0)
	if err := unix.RISCVHWProbe(one, &set, 0); err != nil || one[0].Value != ext0 {
		fail("IMA_EXT_0 for CPU 0: %#x, %v; want %#x", one[0].Value, err, ext0)
	}
	set.Zero()
	set.Set(1000) // no such CPU
	if err := unix.RISCVHWProbe(one, &set, 0); err != syscall.EINVAL {
		fail("a set of no online CPU: %v, want EINVAL", err)
	}
	if err := unix.RISCVHWProbe(one, nil, 2); err != syscall.EINVAL {
		fail("flags 2: %v, want EINVAL", err)
	}
	if err := unix.RISCVHWProbe(one, nil, unix.RISCV_HWPROBE_WHICH_CPUS); err != syscall.EINVAL {
		fail("WHICH_CPUS without a set: %v, want EINVAL", err)
	}
	// WHICH_CPUS from an empty set (every CPU): who has these extensions?
	which := func(pairs ...unix.RISCVHWProbePairs) int {
		set.Zero()
		if err := unix.RISCVHWProbe(pairs, &set, unix.RISCV_HWPROBE_WHICH_CPUS); err != nil {
			fail("WHICH_CPUS %+v: %v", pairs, err)
		}
		return set.Count()
	}
	if n := which(unix.RISCVHWProbePairs{Key: unix.RISCV_HWPROBE_KEY_IMA_EXT_0, Value: ext0}); n != runtime.NumCPU() {
		fail("WHICH_CPUS with this IMA_EXT_0: %d CPUs, want all %d", n, runtime.NumCPU())
	}
	if n := which(unix.RISCVHWProbePairs{Key: unix.RISCV_HWPROBE_KEY_IMA_EXT_0, Value: unix.RISCV_HWPROBE_IMA_V}); n != 0 {
		fail("WHICH_CPUS with V: %d CPUs, want none", n)
	}
	unknown := []unix.RISCVHWProbePairs{{Key: 3, Value: 1}, {Key: 99, Value: 5}}
	if n := which(unknown...); n != 0 || unknown[1].Key != -1 || unknown[1].Value != 0 {
		fail("WHICH_CPUS with key 99: %d CPUs, pair %+v; want none and key -1", n, unknown[1])
	}
	fmt.Printf("hwprobe: CPU sets and WHICH_CPUS as Linux (%d CPUs)\n", runtime.NumCPU())
}

// badPointers: pairs and sets are copied as Linux copies them.
func badPointers() {
	call := func(pairs, n, setsize, cpus, flags uintptr) syscall.Errno {
		_, _, e := syscall.Syscall6(unix.SYS_RISCV_HWPROBE, pairs, n, setsize, cpus, flags, 0)
		return e
	}
	var p unix.RISCVHWProbePairs
	for _, c := range []struct {
		what string
		e    syscall.Errno
		want syscall.Errno
	}{
		{"pairs at a kernel address", call(kernelAddr, 1, 0, 0, 0), syscall.EFAULT},
		{"no pairs at a kernel address", call(kernelAddr, 0, 0, 0, 0), 0},
		{"a set at a kernel address", call(uintptr(unsafe.Pointer(&p)), 1, 8, kernelAddr, 0), syscall.EFAULT},
		{"WHICH_CPUS, a set at a kernel address", call(uintptr(unsafe.Pointer(&p)), 1, 8, kernelAddr, unix.RISCV_HWPROBE_WHICH_CPUS), syscall.EFAULT},
	} {
		if c.e != c.want {
			fail("%s: %v, want %v", c.what, c.e, c.want)
		}
	}
}
