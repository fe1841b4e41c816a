// Test program cputopo: /sys/devices/system/cpu/cpuN/topology and
// /proc/cpuinfo as Linux shows them on QEMU's virt machine (each CPU its
// own core, one cluster, package 0), and a library that counts physical
// cores from them, github.com/shirou/gopsutil's cpu.Counts, finding
// them all (issue 30: it found 0). Argument: the CPUs the machine has.
// It runs on Linux as well.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL cputopo: "+format+"\n", args...)
	os.Exit(1)
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

func main() {
	n := runtime.NumCPU()
	if len(os.Args) > 1 {
		want, _ := strconv.Atoi(os.Args[1])
		if n != want {
			fail("NumCPU %d, want %d", n, want)
		}
	}
	all := fmt.Sprintf("0-%d", n-1)
	if n == 1 {
		all = "0"
	}
	allMask := fmt.Sprintf("%x", (1<<n)-1)
	for c := 0; c < n; c++ {
		dir := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/", c)
		want := map[string]string{
			"physical_package_id":  "0",
			"core_id":              strconv.Itoa(c),
			"core_cpus_list":       strconv.Itoa(c),
			"thread_siblings_list": strconv.Itoa(c),
			"core_cpus":            fmt.Sprintf("%x", 1<<c),
			"thread_siblings":      fmt.Sprintf("%x", 1<<c),
			"core_siblings_list":   all,
			"package_cpus_list":    all,
			"die_cpus_list":        all,
			"core_siblings":        allMask,
			"package_cpus":         allMask,
		}
		for name, w := range want {
			if got := read(dir + name); got != w {
				fail("%s%s = %q, want %q", dir, name, got, w)
			}
		}
		// One cluster (cluster_id 0, all CPUs) with QEMU's cpu-map, or
		// none known (-1, the package's CPUs) without one: alike here.
		if id := read(dir + "cluster_id"); id != "0" && id != "-1" {
			fail("%scluster_id = %q", dir, id)
		}
		if l := read(dir + "cluster_cpus_list"); l != all {
			fail("%scluster_cpus_list = %q, want %q", dir, l, all)
		}
	}
	fmt.Printf("cputopo: %d CPUs, each its own core in package 0\n", n)
	cpuinfo(n)
	physical, err := cpu.Counts(false)
	if err != nil || physical != n {
		fail("gopsutil cpu.Counts(false) = %d (%v), want %d", physical, err, n)
	}
	logical, err := cpu.Counts(true)
	if err != nil || logical != n {
		fail("gopsutil cpu.Counts(true) = %d (%v), want %d", logical, err, n)
	}
	fmt.Printf("cputopo: gopsutil counts %d physical and %d logical cores\n", physical, logical)
	fmt.Println("PASS cputopo")
}

// cpuinfo: a paragraph per CPU with the fields Linux prints on the
// architecture, numbered in order.
func cpuinfo(n int) {
	fields := map[string][]string{
		"riscv64": {"processor", "hart", "isa", "mmu", "mvendorid", "marchid", "mimpid"},
		"arm64":   {"processor", "BogoMIPS", "Features", "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision"},
	}[runtime.GOARCH]
	paras := strings.Split(strings.TrimSpace(read("/proc/cpuinfo")), "\n\n")
	if len(paras) != n {
		fail("/proc/cpuinfo has %d paragraphs, want %d", len(paras), n)
	}
	for i, p := range paras {
		got := map[string]string{}
		for _, line := range strings.Split(p, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				fail("/proc/cpuinfo line %q has no colon", line)
			}
			got[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		for _, f := range fields {
			if _, ok := got[f]; !ok {
				fail("/proc/cpuinfo paragraph %d lacks %q: %q", i, f, p)
			}
		}
		if got["processor"] != strconv.Itoa(i) {
			fail("/proc/cpuinfo paragraph %d is processor %q", i, got["processor"])
		}
	}
	fmt.Printf("cputopo: /proc/cpuinfo has %d paragraphs with %s's fields\n", n, runtime.GOARCH)
}
