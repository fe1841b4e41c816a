package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// checkSelf: /proc/self, cmdline, environ, exe, cwd, comm, auxv.
func checkSelf() {
	self, err := os.Readlink("/proc/self")
	if err != nil || self != strconv.Itoa(os.Getpid()) {
		fail("/proc/self -> %q, %v; pid %d", self, err, os.Getpid())
	}
	cmdline := read("/proc/self/cmdline")
	if want := strings.Join(os.Args, "\x00") + "\x00"; cmdline != want {
		fail("cmdline %q, want %q", cmdline, want)
	}
	if env := read("/proc/self/environ"); !strings.Contains(env, "PROCFS_MARK=yes\x00") {
		fail("environ lacks PROCFS_MARK=yes: %q", env)
	}
	exe, _ := os.Executable()
	if link, err := os.Readlink("/proc/self/exe"); err != nil || link != exe {
		fail("exe -> %q %v, os.Executable %q", link, err, exe)
	}
	wd, _ := os.Getwd()
	os.Chdir("/tmp")
	if cwd, err := os.Readlink("/proc/self/cwd"); err != nil || cwd != "/tmp" {
		fail("cwd -> %q %v after chdir /tmp", cwd, err)
	}
	os.Chdir(wd)
	if comm := read("/proc/self/comm"); comm != filepath.Base(os.Args[0])+"\n" {
		fail("comm %q", comm)
	}
	auxv := []byte(read("/proc/self/auxv"))
	if len(auxv)%16 != 0 {
		fail("auxv is %d bytes", len(auxv))
	}
	pairs := map[uint64]uint64{}
	for i := 0; i+16 <= len(auxv); i += 16 {
		pairs[binary.LittleEndian.Uint64(auxv[i:])] = binary.LittleEndian.Uint64(auxv[i+8:])
	}
	const atPagesz, atRandom, atNull = 6, 25, 0
	if pairs[atPagesz] != uint64(os.Getpagesize()) || pairs[atRandom] == 0 || !bytes.Equal(auxv[len(auxv)-16:], make([]byte, 16)) {
		fail("auxv: AT_PAGESZ %d, AT_RANDOM %#x, last pair %x", pairs[atPagesz], pairs[atRandom], auxv[len(auxv)-16:])
	}
	fmt.Println("procfs: self, cmdline, environ, exe, cwd, comm, auxv ok")
}

// stat as procfs's ProcStat parses it: the name in parentheses, then
// fields from the state on.
type procStat struct {
	pid                 int
	comm, state         string
	ppid, pgrp, session int
	utime, stime        uint64
	numThreads          int
	starttime, vsize    uint64
	rss                 int
	processor           int
	fields              []string
}

func parseStat(path string) procStat {
	data := read(path)
	l, r := strings.IndexByte(data, '('), strings.LastIndexByte(data, ')')
	if l < 0 || r < 0 {
		fail("%s: no (comm): %q", path, data)
	}
	var s procStat
	s.pid = int(number(strings.TrimSpace(data[:l])))
	s.comm = data[l+1 : r]
	f := strings.Fields(data[r+2:])
	if len(f) != 50 {
		fail("%s: %d fields after the name, want 50 (52 in all)", path, len(f))
	}
	s.fields = f
	s.state = f[0]
	var err error
	for i, p := range []*int{&s.ppid, &s.pgrp, &s.session} {
		if *p, err = strconv.Atoi(f[1+i]); err != nil {
			fail("%s: field %d: %v", path, 4+i, err)
		}
	}
	s.utime, s.stime = number(f[11]), number(f[12])
	s.numThreads = int(number(f[17]))
	s.starttime, s.vsize = number(f[19]), number(f[20])
	s.rss = int(number(f[21]))
	s.processor = int(number(f[36]))
	return s
}

func burn(d time.Duration) {
	x := 1
	for start := time.Now(); time.Since(start) < d; {
		for i := 0; i < 100000; i++ {
			x = x*7 + i
		}
	}
	if x == 42 {
		fmt.Println(x)
	}
}

// checkStat: the process's stat: pid, state, threads, memory, CPU time
// that grows with work done (USER_HZ ticks).
func checkStat() {
	before := parseStat("/proc/self/stat")
	burn(300 * time.Millisecond)
	s := parseStat("/proc/self/stat")
	if s.pid != os.Getpid() || s.comm != filepath.Base(os.Args[0]) || !strings.Contains("RSD", s.state) {
		fail("stat: pid %d comm %q state %q", s.pid, s.comm, s.state)
	}
	if s.numThreads < 2 || s.vsize < 1<<20 || s.rss < 100 || s.processor >= runtime.NumCPU() {
		fail("stat: threads %d vsize %d rss %d processor %d", s.numThreads, s.vsize, s.rss, s.processor)
	}
	if cpu := (s.utime + s.stime) - (before.utime + before.stime); cpu < 10 {
		fail("stat: 300 ms of work added %d ticks of CPU time", cpu)
	}
	var uptime float64
	fmt.Sscanf(read("/proc/uptime"), "%f", &uptime)
	if start := float64(s.starttime) / 100; start > uptime {
		fail("stat: started at %.2f s, uptime %.2f s", start, uptime)
	}
	fmt.Printf("procfs: stat ok (%d threads, %d ticks)\n", s.numThreads, s.utime+s.stime)
}

// checkStatus: status's fields as procfs's ProcStatus reads them, against
// stat and statm.
func checkStatus() {
	const path = "/proc/self/status"
	m := keyValues(path)
	if m["Name"] != filepath.Base(os.Args[0]) || m["Pid"] != strconv.Itoa(os.Getpid()) || m["Tgid"] != m["Pid"] {
		fail("status: Name %q Pid %q Tgid %q", m["Name"], m["Pid"], m["Tgid"])
	}
	if uid := strings.Fields(m["Uid"]); len(uid) != 4 || uid[0] != strconv.Itoa(os.Getuid()) {
		fail("status: Uid %q", m["Uid"])
	}
	rss, size, hwm := kB(path, "VmRSS", m), kB(path, "VmSize", m), kB(path, "VmHWM", m)
	anon, file, shmem := kB(path, "RssAnon", m), kB(path, "RssFile", m), kB(path, "RssShmem", m)
	if rss == 0 || size < rss || hwm < rss || anon+file+shmem != rss {
		fail("status: VmRSS %d VmSize %d VmHWM %d RssAnon+File+Shmem %d", rss, size, hwm, anon+file+shmem)
	}
	for _, k := range []string{"VmPeak", "VmData", "VmStk", "VmExe", "VmPTE", "VmSwap"} {
		kB(path, k, m)
	}
	threads := number(m["Threads"])
	for _, k := range []string{"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches", "FDSize"} {
		number(m[k])
	}
	for _, k := range []string{"SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt"} {
		if _, err := strconv.ParseUint(m[k], 16, 64); err != nil || len(m[k]) != 16 {
			fail("status: %s %q", k, m[k])
		}
	}
	// Go catches SIGURG (23) for preemption.
	if cgt, _ := strconv.ParseUint(m["SigCgt"], 16, 64); cgt&(1<<22) == 0 {
		fail("status: SigCgt %s lacks SIGURG", m["SigCgt"])
	}
	if m["Cpus_allowed_list"] != fmt.Sprintf("0-%d", runtime.NumCPU()-1) && !(runtime.NumCPU() == 1 && m["Cpus_allowed_list"] == "0") {
		fail("status: Cpus_allowed_list %q with %d CPUs", m["Cpus_allowed_list"], runtime.NumCPU())
	}
	statm := strings.Fields(read("/proc/self/statm"))
	if len(statm) != 7 {
		fail("statm: %q", statm)
	}
	page := uint64(os.Getpagesize()) / 1024
	if res := number(statm[1]) * page; res < rss/2 || res > rss*2 {
		fail("statm: resident %d kB, status VmRSS %d kB", res, rss)
	}
	fmt.Printf("procfs: status and statm ok (VmRSS %d kB, %d threads)\n", rss, threads)
}

// limitsMatch is procfs's regular expression for a limits line.
var limitsMatch = regexp.MustCompile(`(Max \w+\s{0,1}?\w*\s{0,1}\w*)\s{2,}(\w+)\s+(\w+)`)

func checkLimitsIO() {
	lines := strings.Split(strings.TrimSpace(read("/proc/self/limits")), "\n")
	if len(lines) != 17 || !strings.HasPrefix(lines[0], "Limit ") {
		fail("limits: %d lines", len(lines))
	}
	found := map[string][2]string{}
	for _, l := range lines[1:] {
		m := limitsMatch.FindStringSubmatch(l)
		if m == nil {
			fail("limits: procfs cannot parse %q", l)
		}
		found[strings.TrimSpace(m[1])] = [2]string{m[2], m[3]}
	}
	var rl syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	if f := found["Max open files"]; f[0] != strconv.FormatUint(rl.Cur, 10) || f[1] != strconv.FormatUint(rl.Max, 10) {
		fail("limits: Max open files %v, getrlimit %d %d", f, rl.Cur, rl.Max)
	}
	before := keyValues("/proc/self/io")
	null, _ := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	buf := make([]byte, 64<<10)
	for i := 0; i < 16; i++ {
		null.Write(buf)
	}
	null.Close()
	after := keyValues("/proc/self/io")
	for _, k := range []string{"rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"} {
		number(after[k])
	}
	if w := number(after["wchar"]) - number(before["wchar"]); w < 1<<20 {
		fail("io: wchar grew by %d after 1 MiB written", w)
	}
	if c := number(after["syscw"]) - number(before["syscw"]); c < 16 {
		fail("io: syscw grew by %d after 16 writes", c)
	}
	fmt.Println("procfs: limits and io ok")
}
