// Command cpuid checks that EL0 reads of the arm64 ID registers are
// emulated as Linux does when it offers HWCAP_CPUID: AT_HWCAP has the
// CPUID bit, MIDR_EL1 reads as the CPU /proc/cpuinfo describes (on every
// CPU), MPIDR_EL1 as bit 31 alone, REVIDR_EL1 as zero, and the feature
// registers agree with the HWCAP bits. Go's own runtime already read
// MIDR_EL1 at start (internal/cpu's getMIDR) once it saw HWCAP_CPUID.
// riscv64 has no such registers: the program says so and passes.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

func main() {
	if runtime.GOARCH != "arm64" {
		fmt.Println("cpuid: no ID registers to read on", runtime.GOARCH)
		fmt.Println("PASS cpuid")
		return
	}
	if hwcap()&(1<<11) == 0 {
		fail("AT_HWCAP lacks HWCAP_CPUID")
	}
	info := cpuinfo()
	midr := readMIDR()
	field := func(shift uint, width uint) uint64 { return midr >> shift & (1<<width - 1) }
	if want := info["CPU implementer"]; field(24, 8) != want {
		fail("MIDR_EL1 %#x: implementer %#x, /proc/cpuinfo says %#x", midr, field(24, 8), want)
	}
	if want := info["CPU part"]; field(4, 12) != want {
		fail("MIDR_EL1 %#x: part %#x, /proc/cpuinfo says %#x", midr, field(4, 12), want)
	}
	if v := readMPIDR(); v != 1<<31 {
		fail("MPIDR_EL1 reads %#x, want 0x80000000", v)
	}
	if v := readREVIDR(); v != 0 {
		fail("REVIDR_EL1 reads %#x, want 0", v)
	}
	features := strings.Fields(infoLine("Features"))
	has := func(name string) bool {
		for _, f := range features {
			if f == name {
				return true
			}
		}
		return false
	}
	isar0, pfr0 := readISAR0(), readPFR0()
	nibble := func(reg uint64, shift uint) uint64 { return reg >> shift & 0xf }
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"cpuid", true},
		{"aes", nibble(isar0, 4) >= 1},
		{"pmull", nibble(isar0, 4) >= 2},
		{"sha1", nibble(isar0, 8) >= 1},
		{"sha2", nibble(isar0, 12) >= 1},
		{"crc32", nibble(isar0, 16) >= 1},
		{"atomics", nibble(isar0, 20) >= 2},
		{"fp", nibble(pfr0, 16) != 0xf},
		{"asimd", nibble(pfr0, 20) != 0xf},
	} {
		if has(c.name) != c.ok {
			fail("feature %s: ID registers say %v, /proc/cpuinfo's Features %q", c.name, c.ok, features)
		}
	}
	if nibble(pfr0, 0) != 1 || nibble(pfr0, 32) != 0 {
		fail("ID_AA64PFR0_EL1 %#x: want EL0 AArch64 only and no SVE", pfr0)
	}
	// Every CPU answers alike, from threads spread over them.
	var wg sync.WaitGroup
	for i := 0; i < 2*runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for j := 0; j < 200; j++ {
				if readMIDR() != midr || readISAR0() != isar0 {
					fail("the ID registers changed between reads")
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	fmt.Printf("cpuid: MIDR_EL1 %#x, ID_AA64ISAR0_EL1 %#x, ID_AA64PFR0_EL1 %#x agree with /proc/cpuinfo\n", midr, isar0, pfr0)
	fmt.Println("PASS cpuid")
}

// hwcap is AT_HWCAP from /proc/self/auxv.
func hwcap() uint64 {
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		fail("%v", err)
	}
	for i := 0; i+16 <= len(b); i += 16 {
		if binary.LittleEndian.Uint64(b[i:]) == 16 {
			return binary.LittleEndian.Uint64(b[i+8:])
		}
	}
	fail("no AT_HWCAP in /proc/self/auxv")
	return 0
}

// cpuinfo is the first CPU's numeric MIDR fields from /proc/cpuinfo.
func cpuinfo() map[string]uint64 {
	m := map[string]uint64{}
	for _, k := range []string{"CPU implementer", "CPU part"} {
		v, err := strconv.ParseUint(infoLine(k), 0, 64)
		if err != nil {
			fail("/proc/cpuinfo %s: %v", k, err)
		}
		m[k] = v
	}
	return m
}

func infoLine(key string) string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		fail("%v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	fail("no %q in /proc/cpuinfo", key)
	return ""
}

func fail(format string, args ...any) {
	fmt.Printf("FAIL cpuid: "+format+"\n", args...)
	os.Exit(1)
}
