package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// checkSystem: /proc/stat, meminfo, cpuinfo, uptime, loadavg, version,
// sys/kernel, the CPU lists, each against what the program knows.
func checkSystem() {
	cpus := 0
	var btime int64
	for _, line := range strings.Split(strings.TrimSpace(read("/proc/stat")), "\n") {
		f := strings.Fields(line)
		switch {
		case f[0] == "cpu":
			if len(f) != 11 || number(f[1]) == 0 {
				fail("stat: %q", line)
			}
		case strings.HasPrefix(f[0], "cpu"):
			cpus++
		case f[0] == "btime":
			btime = int64(number(f[1]))
		case f[0] == "ctxt", f[0] == "processes", f[0] == "procs_running":
			if number(f[1]) == 0 {
				fail("stat: %q", line)
			}
		}
	}
	if cpus != runtime.NumCPU() || time.Since(time.Unix(btime, 0)) > time.Hour || time.Until(time.Unix(btime, 0)) > time.Minute {
		fail("stat: %d cpu lines for %d CPUs, btime %d (now %d)", cpus, runtime.NumCPU(), btime, time.Now().Unix())
	}
	mem := keyValues("/proc/meminfo")
	var si syscall.Sysinfo_t
	syscall.Sysinfo(&si)
	total, free, avail := kB("meminfo", "MemTotal", mem), kB("meminfo", "MemFree", mem), kB("meminfo", "MemAvailable", mem)
	if total != uint64(si.Totalram)*uint64(si.Unit)/1024 || free > total || avail < free || avail > total {
		fail("meminfo: total %d free %d available %d, sysinfo total %d", total, free, avail, si.Totalram)
	}
	if n := strings.Count(read("/proc/cpuinfo"), "processor\t:"); n != runtime.NumCPU() {
		fail("cpuinfo: %d processors for %d CPUs", n, runtime.NumCPU())
	}
	var up, idle float64
	if n, _ := fmt.Sscanf(read("/proc/uptime"), "%f %f", &up, &idle); n != 2 || up <= 0 || idle < 0 {
		fail("uptime: %q", read("/proc/uptime"))
	}
	la := strings.Fields(read("/proc/loadavg"))
	if len(la) != 5 || !strings.Contains(la[3], "/") {
		fail("loadavg: %q", la)
	}
	for _, a := range la[:3] {
		if _, err := strconv.ParseFloat(a, 64); err != nil {
			fail("loadavg: %q", la)
		}
	}
	var u syscall.Utsname
	syscall.Uname(&u)
	release := utsString(u.Release[:])
	if v := read("/proc/version"); !strings.HasPrefix(v, "Linux version "+release+" ") {
		fail("version %q, uname release %q", v, release)
	}
	if r := read("/proc/sys/kernel/osrelease"); r != release+"\n" {
		fail("osrelease %q", r)
	}
	if t := read("/proc/sys/kernel/ostype"); t != "Linux\n" {
		fail("ostype %q", t)
	}
	h, _ := os.Hostname()
	if hn := read("/proc/sys/kernel/hostname"); hn != h+"\n" {
		fail("hostname %q, os.Hostname %q", hn, h)
	}
	for _, p := range []string{"/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max"} {
		if number(strings.TrimSpace(read(p))) == 0 {
			fail("%s is 0", p)
		}
	}
	want := "0\n"
	if runtime.NumCPU() > 1 {
		want = fmt.Sprintf("0-%d\n", runtime.NumCPU()-1)
	}
	if on := read("/sys/devices/system/cpu/online"); on != want {
		fail("cpu/online %q, want %q", on, want)
	}
	read("/sys/devices/system/cpu/possible")
	fmt.Printf("procfs: stat, meminfo, cpuinfo, uptime, loadavg, version, sys/kernel, cpu lists ok (%d MiB, %d CPUs)\n", total/1024, cpus)
}

func utsString[T int8 | uint8](b []T) string {
	s := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

// checkMounts: mountinfo parses as procfs's parseMountInfo does (at least
// 10 fields, a "-" separator) and has the root and /proc.
func checkMounts() {
	points := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(read("/proc/self/mountinfo")), "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
			}
		}
		if len(f) < 10 || sep < 6 || len(f) < sep+4 || !strings.Contains(f[2], ":") {
			fail("mountinfo: %q", line)
		}
		points[f[4]] = f[sep+1]
	}
	if points["/"] == "" || points["/proc"] != "proc" {
		fail("mountinfo: %v", points)
	}
	if m := read("/proc/mounts"); !strings.Contains(m, " /proc proc ") {
		fail("mounts: %q", m)
	}
	fmt.Println("procfs: mountinfo and mounts ok")
}
