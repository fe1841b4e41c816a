package tests

// The boot cases: which programs boot, with what arguments, at which hart
// counts and policies, and what their output must contain.

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"gometal.dev/gometal/internal/kstats"
)

// bootCase is one program booted on gometal.
type bootCase struct {
	name    string // subtest name; also the PASS/FAIL tag unless tag is set
	prog    string // binary name under tests/progs (or examples/ if example)
	example bool   // prog is an example, not a test program
	args    func(cores int) []string
	env     []string // -env KEY=VALUE
	add     []string // -add HOST:GUEST (HOST relative to the module root)
	mem     string   // -mem, default the CLI's; memMinimum: the machine's least
	stdin   string
	status  int      // expected exit status
	want    []string // required output substrings
	once    []string // substrings that must appear exactly once
	noPass  bool     // no "PASS <name>" line expected
	cores   []int    // default {1, 4}
	smp     bool     // also at smpCores under every policy (and not at cores)
	skipEnv string   // skip when this environment variable is set non-empty
	kargs   string   // -kernel-args
	devices []string // -device (UIO devices)
	// notOn names the architectures the case cannot boot on, each with
	// the reason its subtests there skip with.
	notOn map[string]string
}

// bootRun is one boot of a case: a hart count and a policy ("" for the
// kernel's default).
type bootRun struct {
	cores int
	sched string
}

func (r bootRun) name() string {
	if r.sched == "" {
		return fmt.Sprintf("smp%d", r.cores)
	}
	return fmt.Sprintf("smp%d/%s", r.cores, r.sched)
}

// runs lists the boots of a case: every smpCores × policy for an SMP case
// (one policy at 1 core, see policiesAt), else cores (default 1 and 4)
// with the default policy.
func (c bootCase) runs() []bootRun {
	if c.smp {
		var rs []bootRun
		for _, n := range smpCores {
			for _, p := range policiesAt(n) {
				rs = append(rs, bootRun{cores: n, sched: p})
			}
		}
		return rs
	}
	cores := c.cores
	if cores == nil {
		cores = []int{1, 4}
	}
	var rs []bootRun
	for _, n := range cores {
		rs = append(rs, bootRun{cores: n})
	}
	return rs
}

// policies is the kernel's placement policies, or the subset GOMETAL_TEST_POLICIES names.
func policies() []string {
	s := os.Getenv("GOMETAL_TEST_POLICIES")
	if s == "" {
		return kstats.SchedPolicies
	}
	var ps []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			ps = append(ps, p)
		}
	}
	return ps
}

// policiesAt is the policies the SMP cases boot under at `cores` CPUs.
// With one CPU every policy puts every thread on CPU 0, so one boot
// covers them: adaptive's, whose wake path does the most (per-thread
// estimates), or the first policy GOMETAL_TEST_POLICIES names.
func policiesAt(cores int) []string {
	ps := policies()
	if cores > 1 || len(ps) == 0 {
		return ps
	}
	if slices.Contains(ps, "adaptive") {
		return []string{"adaptive"}
	}
	return ps[:1]
}

// noGoldfish: -device rtc-alarm is riscv64 virt's Goldfish RTC; arm64
// virt has a PL031 instead, which the alarm example does not drive.
var noGoldfish = map[string]string{"arm64": "arm64 virt has no Goldfish RTC (-device rtc-alarm); its PL031 is another device"}

// memMinimum as a case's mem is the least memory its machine boots in
// (internal/machine's MinMemory).
const memMinimum = "minimum"

func fixed(args ...string) func(int) []string { return func(int) []string { return args } }

func cases() []bootCase {
	var cs []bootCase
	for _, group := range [][]bootCase{basicCases(), fileCases(), limitCases(), smpCases(), netCases(), deviceCases(), exitCases()} {
		cs = append(cs, group...)
	}
	return cs
}

// basicCases are the basics: output, arguments and environment, timers,
// faults, memory, files from the initramfs, stdin, hostile calls.
func basicCases() []bootCase {
	return []bootCase{
		{name: "hello", prog: "hello", want: []string{"hello, gometal"}},
		// At the machine's minimum memory (internal/machine's table, which
		// -mem below it is refused against: TestBadInput) hello still boots.
		{name: "hello-minmem", prog: "hello", mem: memMinimum, noPass: true, want: []string{"hello, gometal", "PASS hello"}},
		{name: "concurrency", prog: "concurrency", smp: true, want: []string{"mutex counter ok: 16000"}},
		{name: "timers", prog: "timers", want: []string{"monotonic: 1000 readings"}},
		{name: "openflags", prog: "openflags", want: []string{"openflags ok"}},
		// arm64: EL0 reads of the ID registers emulated (HWCAP_CPUID), on
		// threads over every CPU; riscv64 has none and only says so.
		{name: "cpuid", prog: "cpuid", cores: []int{4}, want: []string{"cpuid: "}},
		// riscv64: riscv_hwprobe against QEMU's device tree and ids
		// (hwprobe_test.go); arm64 has no such call (ENOSYS, as Linux).
		{name: "hwprobe", prog: "hwprobe", cores: []int{1, 4}, args: hwprobeArgs, want: []string{"hwprobe: "}},
		{name: "argsenv", prog: "argsenv",
			args: fixed("alpha", "two words", `q"uote`, "", "ünï"),
			env:  []string{"GOMETAL_TEST=yes please", "EMPTY="}},
		{name: "procworld", prog: "procworld",
			once: []string{"gometal: the program tried to start a process (fork/exec)"},
			want: []string{"os/exec: function not implemented"}},
		{name: "numcpu", prog: "numcpu", smp: true,
			args: func(cores int) []string { return []string{strconv.Itoa(cores)} }},
		{name: "preempt", prog: "preempt", smp: true, want: []string{"GC 5 done", "spinners stopped"}},
		{name: "nilderef", prog: "nilderef", want: []string{"nil pointer dereference"}},
		{name: "panic", prog: "panic", status: 2, noPass: true,
			want: []string{"about to panic", "panic: gometal test panic", "goroutine 1"}},
		{name: "bigalloc", prog: "bigalloc", mem: "256M",
			want: []string{"after FreeOSMemory"}},
		{name: "readfile", prog: "readfile",
			add: []string{"tests/testdata/hello.txt:/data/hello.txt"}},
		{name: "stdin", prog: "stdin", stdin: "hello stdin\n", skipEnv: "GOMETAL_SKIP_STDIN",
			want: []string{`got 12 bytes: "hello stdin\n"`}},
		{name: "hostile", prog: "hostile",
			once: []string{"unsupported syscall 450", "tried to start a process"}},
	}
}

// fileCases are files: the in-memory file system, /proc and /sys,
// databases, mmap, locks.
func fileCases() []bootCase {
	return []bootCase{
		{name: "files", prog: "files"},
		// /proc and /sys as Linux has them (issue 23), parsed as
		// Prometheus's procfs parses them and checked against what the
		// program knows (arguments, threads, files, sockets, CPU time).
		{name: "procfs", prog: "procfs", env: []string{"PROCFS_MARK=yes"},
			args: func(int) []string { return []string{"one", "two words"} },
			want: []string{"procfs: stat ok", "procfs: status and statm ok", "procfs: fd and fdinfo ok", "procfs: task ok",
				"procfs: net/tcp, tcp6, udp, dev, route, snmp ok"}},
		// SQLite through the kernel's locks, fsync and pread/pwrite: 100k rows
		// in transactions of 1000 on 4 harts, 10k on one; the program checks
		// count and sum after reopening.
		{name: "sqlitedb", prog: "sqlitedb", args: sqliteRows,
			want: []string{" rows, id sum ", "reopened, integrity ok"}},
		{name: "mmapfile", prog: "mmapfile", want: []string{"mmap shared: stores reach the file",
			"mmap private: stores stay", "mmap errors:", "golang.org/x/exp/mmap: read ok"}},
		{name: "mmap-sigbus", prog: "mmapfile", args: fixed("sigbus"), status: 2, noPass: true, cores: []int{1},
			want: []string{"the last page ends in zeros", "signal SIGBUS: bus error code=0x2"}},
		{name: "bboltdb", prog: "bboltdb", want: []string{"bbolt: 5000 keys put, read by 4 readers, reopened and checked"}},
		{name: "filelocks", prog: "filelocks", want: []string{"locks: OFD, POSIX, flock", "offsets: pwrite/pread at 512 GiB"}},
	}
}

// limitCases are tracing, hostile programs and limits: each ends cleanly
// at its limit.
func limitCases() []bootCase {
	return []bootCase{
		// trace names errors: the hostile program's calls, as the kernel logs them.
		{name: "trace", prog: "hostile", args: fixed("trace"), kargs: "trace", cores: []int{1},
			want: []string{
				"write(0x1, 0xffffffc080200000, 0x10, 0x0) = -1 EFAULT (14)",
				"close(0x3e7, 0x0, 0x0, 0x0) = -1 EBADF (9)",
				"unknown(0x0, 0x0, 0x0, 0x0) = -1 ENOSYS (38)",
				"clock_gettime(0x63, ",
				") = -1 EINVAL (22)",
			}},
		{name: "exhaust", prog: "exhaust", mem: "256M",
			want: []string{"EMFILE after", "ENOSPC after", "200 locked goroutines"}},
		// Hostile programs (issue 14): each probe once broke the kernel.
		{name: "badbuf", prog: "badbuf"},
		// Linux's access_ok before any file sees a call: every call that
		// takes a user range, with a kernel address, a range past the top
		// of user space and one that wraps (issue 30).
		{name: "useraccess", prog: "useraccess", cores: []int{1},
			want: []string{"useraccess: write: kernel address, wrapping: EFAULT; past the top: EFAULT", "useraccess: iovecs checked before a byte moves"}},
		// A short run of the syscall fuzzer (make stress runs 1M calls).
		{name: "fuzz", prog: "fuzz", args: fixed("1", "20000", "8"), want: []string{"20000 calls on 8 threads"}},
		{name: "limits-pipes", prog: "limits", args: fixed("pipes"), mem: "64M",
			want: []string{"pipes: EMFILE after", "still working after the probe"}},
		{name: "limits-dgrams", prog: "limits", args: fixed("dgrams"), mem: "64M",
			want: []string{"dgrams: 1000 sockets filled", "still working after the probe"}},
		{name: "limits-nofile", prog: "limits", args: fixed("nofile"), mem: "64M",
			want: []string{"nofile: EMFILE after", "still working after the probe"}},
		{name: "limits-watches", prog: "limits", args: fixed("watches"), mem: "64M", kargs: "stats",
			want: []string{"watches: ENOSPC after", "still working after the probe", "gometal: kernel memory: heap_total_kib", `"watches_max":`}},
		{name: "limits-bigdir", prog: "limits", args: fixed("bigdir"), mem: "64M",
			want: []string{"files listed and removed", "still working after the probe"}},
		{name: "limits-rename", prog: "limits", args: fixed("rename"),
			want: []string{"the tree is whole", "still working after the probe"}},
		{name: "limits-threads", prog: "limits", args: fixed("threads"), mem: "64M", status: 137, noPass: true,
			want: []string{"threads: 256 started", "gometal: cannot start thread"}},
		{name: "manythreads", prog: "manythreads", mem: "512M", cores: []int{1}, kargs: "stats",
			want: []string{"manythreads: 10000 threads running at once", `"threads_peak":100`}},
		{name: "heapstress", prog: "heapstress", cores: []int{4}, want: []string{"lists checked"}},
		{name: "limits-threadsoom", prog: "limits", args: fixed("threadsoom"), mem: "64M", status: 137, noPass: true,
			want: []string{"threadsoom: holding 40 MiB", "give the VM more memory (-mem)"}},
	}
}

// smpCases are threads on every CPU at once: arithmetic, the GC, wakeups,
// epoll, locked threads.
func smpCases() []bootCase {
	return []bootCase{
		{name: "arith", prog: "arith", smp: true, want: []string{"arith: 16 goroutines"}},
		{name: "gcheavy", prog: "gcheavy", smp: true, mem: "256M", want: []string{"checked by 8 consumers"}},
		{name: "blockwake", prog: "blockwake", smp: true,
			want: []string{"ring: 64 goroutines", "cond: 8 producers", "sleepers: 200 goroutines", "blockwake: all phases"}},
		{name: "wakerace", prog: "wakerace", smp: true,
			want: []string{"masked: futex wait with SIGUSR1 blocked ended connection timed out", "signals: 4 waiters", "no EINTR", "exits: 8 groups"}},
		// epoll's reporting (issue 11): level, edge, one-shot, exclusive,
		// many watched and few ready, a close on the ready list, one file
		// in two instances, cross-thread wakeups, a socket watched before
		// it connects.
		{name: "epollsem", prog: "epollsem",
			want: []string{"epollsem: many: 1000 watched, 3 ready reported", "epollsem: closed ok", "epollsem: two ok", "epollsem: socket ok"}},
		{name: "lockthread", prog: "lockthread", smp: true,
			want: []string{"tid 1 = pid", "returned locked (threads exited)", "work after thread exits ok"}},
	}
}

// netCases are sockets on loopback.
func netCases() []bootCase {
	return []bootCase{
		// Sockets (issue 11): loopback TCP/UDP over IPv4 and IPv6, AF_UNIX,
		// net/http; the kernel's socket count shows the sequential
		// connections left nothing behind (sockets_open at exit).
		{name: "net", prog: "net", kargs: "stats", mem: "256M",
			want: []string{"raw: errnos and options ok", "echo: 127.0.0.1, ::1 and dual-stack [::] ok",
				"concurrent: 100 connections", "bulk: 8 MiB each way, checksums match", "halfclose: reply after CloseWrite ok",
				"refused: ECONNREFUSED ok", "backlog: 200 connections", "reset: ECONNRESET ok", "udp: IPv4 and IPv6",
				"unix: stream (path, abstract), seqpacket, datagram, socketpair ok", "http: 20 concurrent requests ok",
				"seq: 10000 sequential connections ok"}},
		// recv's MSG_WAITALL on loopback TCP and AF_UNIX stream: the whole
		// of a stream sent in pieces in one call, what came when
		// SO_RCVTIMEO expires, the rest at end of file (TestNetWaitAll:
		// the same through the device).
		{name: "waitall", prog: "waitall",
			want: []string{"waitall: loopback TCP ok", "waitall: unix stream ok"}},
		// UDP control messages and SO_REUSEPORT spreading (issue 23).
		{name: "udpctl", prog: "udpctl",
			want: []string{"udpctl: IPv4 IP_PKTINFO, IP_TTL, IP_TOS ok", "udpctl: IPv6 IPV6_PKTINFO, IPV6_HOPLIMIT, IPV6_TCLASS ok",
				"udpctl: dual-stack IPV6_PKTINFO ok", "udpctl: sendmsg control messages ok", "udpctl: sendmmsg and recvmmsg ok", "udpctl: SO_REUSEPORT TCP spread", "udpctl: SO_REUSEPORT UDP spread"}},
		// Socket options as Linux has them (issue 30): the table read back,
		// classic BPF filters from golang.org/x/net/bpf on UDP and AF_UNIX
		// datagrams, a TCP_DEFER_ACCEPT listener.
		{name: "sockopts", prog: "sockopts",
			want: []string{"options set and read back", "SO_PEERCRED, IP_FREEBIND ok", "BPF filter on UDP kept 2 of 4 datagrams",
				"BPF filter on AF_UNIX datagrams kept 2 of 4", "bad programs refused", "TCP_DEFER_ACCEPT: data accepted at once"}},
		// CPU topology in sysfs and /proc/cpuinfo's fields; gopsutil
		// counts the physical cores from them (issue 30).
		{name: "cputopo", prog: "cputopo", args: func(cores int) []string { return []string{strconv.Itoa(cores)} },
			want: []string{"each its own core in package 0", "paragraphs with", "gopsutil counts"}},
	}
}

// deviceCases are devices through UIO, and the examples.
func deviceCases() []bootCase {
	return []bootCase{
		// UIO (issue 10): a Go driver for QEMU's edu PCI device.
		{name: "uioedu", prog: "uioedu", devices: []string{"edu"},
			want: []string{"liveness ok", "interrupts ok: 200 raised", "dma ok: 1024 bytes", "bad mmaps ok"}},
		// Interrupt affinity at run time: /proc/irq/N/smp_affinity.
		{name: "uioirq", prog: "uioirq", devices: []string{"edu"}, cores: []int{4},
			want: []string{"affinity ok: hart 3 took all 20", "affinity ok: bad masks EINVAL"}},
		// The UIO conformance program (tools/uioconf runs it on Linux too).
		{name: "uioconf", prog: "uioconf", devices: []string{"edu"},
			want: []string{"ok epoll-edge-once", "ok masked-until-enabled", "ok pending-delivered", "latency: 2000 interrupts"}},
		{name: "example-edu", prog: "edu", example: true, noPass: true, devices: []string{"edu"},
			want: []string{"liveness: wrote 0xcafe, read back 0xffff3501", "12! = 479001600", "interrupts: 1000 raised", "equal=true"}},
		{name: "example-alarm", prog: "alarm", example: true, noPass: true, devices: []string{"rtc-alarm"}, notOn: noGoldfish,
			want: []string{"alarm 5: interrupt 5", "alarm: 5 alarms delivered"}},
		{name: "example-robot", prog: "robot", example: true, noPass: true, devices: []string{"edu", "rtc-alarm"}, notOn: noGoldfish,
			add:  []string{"examples/robot/testdata/laser.gob:/data/laser.gob"},
			want: []string{"GC cycles meanwhile", "robot: laser ", "robot: bumper ", "robot: clock "}},
		{name: "example-hello", prog: "hello", example: true, noPass: true,
			want: []string{"Hello from Go on gometal!", "GOMAXPROCS=", "pipeline:", "ok=true", "slept 100ms", "Bye!"}},
	}
}

// exitCases are os.Exit's statuses reaching the host.
func exitCases() []bootCase {
	var cs []bootCase
	for _, n := range []int{0, 1, 3, 42, 255} {
		c := bootCase{name: fmt.Sprintf("exitcode-%d", n), prog: "exitcode",
			args: fixed(strconv.Itoa(n)), status: n, noPass: true,
			want: []string{fmt.Sprintf("exiting with %d", n)}}
		if n != 0 && n != 42 {
			c.cores = []int{1} // saves boots
		}
		cs = append(cs, c)
	}
	return cs
}

// sqliteRows: the full 100k rows on 4 harts, a tenth on one.
func sqliteRows(cores int) []string {
	if cores == 1 {
		return []string{"-rows", "10000"}
	}
	return []string{"-rows", "100000"}
}
