// Test program procfs: /proc and /sys read the way Prometheus's procfs
// and gopsutil read them (issue 23). Each check parses a file as those
// libraries do and compares its figures with what the program knows from
// elsewhere (os.Args, runtime.NumCPU, the threads it started, the files
// and sockets it opened, CPU time it burned). It runs on Linux as well.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL procfs: "+format+"\n", args...)
	os.Exit(1)
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	if len(b) == 0 {
		fail("%s is empty", path)
	}
	return string(b)
}

// keyValues parses "Key:<space or tab>value" lines (status, meminfo, io)
// as procfs does.
func keyValues(path string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(read(path)), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			fail("%s: line without a colon: %q", path, line)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// kB parses "1234 kB".
func kB(path, key string, m map[string]string) uint64 {
	v, ok := m[key]
	if !ok {
		fail("%s: no %s", path, key)
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		fail("%s: %s = %q: %v", path, key, v, err)
	}
	return n
}

func number(s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		fail("%q: %v", s, err)
	}
	return n
}

func main() {
	checkSelf()
	checkStat()
	checkStatus()
	checkLimitsIO()
	checkFds()
	checkMaps()
	checkTasks()
	checkSystem()
	checkMounts()
	checkNet()
	fmt.Println("PASS procfs")
}
