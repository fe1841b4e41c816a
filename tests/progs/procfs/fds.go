package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// checkFds: fd/ lists the open descriptors (Prometheus's process_open_fds
// counts them), links name what they are, fdinfo has the offset.
func checkFds() {
	count := func() int {
		d, err := os.Open("/proc/self/fd")
		if err != nil {
			fail("%v", err)
		}
		names, err := d.Readdirnames(-1)
		d.Close()
		if err != nil {
			fail("fd: %v", err)
		}
		return len(names) - 1 // the directory's own descriptor
	}
	before := count()
	f, err := os.Create("/tmp/procfs-fd")
	if err != nil {
		fail("%v", err)
	}
	f.WriteString("twelve bytes")
	r, w, _ := os.Pipe()
	if after := count(); after != before+3 {
		fail("fd: %d entries with 3 more files open, %d before", after, before)
	}
	if link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd())); err != nil || link != "/tmp/procfs-fd" {
		fail("fd: file link %q %v", link, err)
	}
	if link, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.Fd())); !strings.HasPrefix(link, "pipe:[") {
		fail("fd: pipe link %q", link)
	}
	info := keyValues(fmt.Sprintf("/proc/self/fdinfo/%d", f.Fd()))
	flags, _ := strconv.ParseUint(info["flags"], 8, 64)
	if info["pos"] != "12" || flags&syscall.O_CLOEXEC == 0 || flags&syscall.O_ACCMODE != syscall.O_RDWR {
		fail("fdinfo: %v", info)
	}
	f.Close()
	r.Close()
	w.Close()
	if after := count(); after != before {
		fail("fd: %d entries after closing, %d before", after, before)
	}
	fmt.Println("procfs: fd and fdinfo ok")
}

// checkMaps: an anonymous mapping shows with its rights; the stack, vDSO
// and program image are named; smaps_rollup's Rss matches status.
func checkMaps() {
	mem, err := syscall.Mmap(-1, 0, 3<<20, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		fail("mmap: %v", err)
	}
	start := fmt.Sprintf("%08x-", uintptrOf(mem))
	exe, _ := os.Executable()
	found := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(read("/proc/self/maps")), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || len(f[1]) != 4 || !strings.Contains(f[3], ":") {
			fail("maps: %q", line)
		}
		if strings.HasPrefix(line, start) && f[1] == "r--p" {
			found["mmap"] = true
		}
		if len(f) == 6 {
			found[f[5]] = true
		}
	}
	for _, want := range []string{"mmap", "[stack]", "[vdso]", exe} {
		if !found[want] {
			fail("maps: no %s line (found %v)", want, found)
		}
	}
	syscall.Munmap(mem)
	rollup := keyValues("/proc/self/smaps_rollup")
	if kB("smaps_rollup", "Rss", rollup) == 0 || kB("smaps_rollup", "Pss", rollup) == 0 {
		fail("smaps_rollup: %v", rollup)
	}
	fmt.Println("procfs: maps and smaps_rollup ok")
}

// checkTasks: task/ has one entry per thread, each with its own stat.
func checkTasks() {
	const locked = 4
	var ready, done sync.WaitGroup
	ready.Add(locked)
	done.Add(1)
	tids := make(chan int, locked)
	for i := 0; i < locked; i++ {
		go func() {
			runtime.LockOSThread()
			tids <- syscall.Gettid()
			ready.Done()
			done.Wait()
		}()
	}
	ready.Wait()
	entries := taskEntriesMatchingStatus()
	if len(entries) < locked+1 {
		fail("task: %d entries, want at least %d", len(entries), locked+1)
	}
	for i := 0; i < locked; i++ {
		tid := <-tids
		s := parseStat(fmt.Sprintf("/proc/self/task/%d/stat", tid))
		if s.pid != tid || s.state != "S" && s.state != "R" {
			fail("task/%d/stat: pid %d state %s", tid, s.pid, s.state)
		}
		st := keyValues(fmt.Sprintf("/proc/self/task/%d/status", tid))
		if st["Pid"] != strconv.Itoa(tid) || st["Tgid"] != strconv.Itoa(os.Getpid()) {
			fail("task/%d/status: Pid %s Tgid %s", tid, st["Pid"], st["Tgid"])
		}
	}
	done.Done()
	if _, err := os.Stat("/proc/self/task/999999"); err == nil {
		fail("task/999999 exists")
	}
	fmt.Printf("procfs: task ok (%d threads)\n", len(entries))
}

// taskEntriesMatchingStatus reads task/ and status's Threads until a read of
// task/ before and after status agree with it: the runtime may start a thread
// (sysmon, a template thread) at any moment, as it may on Linux, so one
// disagreement is a race in this program, three in a row are a kernel bug.
func taskEntriesMatchingStatus() []os.DirEntry {
	read := func() []os.DirEntry {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			fail("task: %v", err)
		}
		return entries
	}
	var before, after []os.DirEntry
	var threads uint64
	for attempt := 0; attempt < 3; attempt++ {
		before = read()
		threads = number(keyValues("/proc/self/status")["Threads"])
		after = read()
		if len(before) == len(after) && uint64(len(after)) == threads {
			return after
		}
	}
	fail("task: %d then %d entries, status says %d threads", len(before), len(after), threads)
	return nil
}
