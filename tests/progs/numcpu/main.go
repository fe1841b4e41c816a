// Test program numcpu: the runtime sees exactly the number of harts the VM
// was given (first argument).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
)

func main() {
	ncpu, procs := runtime.NumCPU(), runtime.GOMAXPROCS(0)
	fmt.Printf("NumCPU=%d GOMAXPROCS=%d\n", ncpu, procs)
	if len(os.Args) != 2 {
		fmt.Printf("FAIL numcpu: usage: numcpu N (args %q)\n", os.Args)
		os.Exit(1)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Printf("FAIL numcpu: %v\n", err)
		os.Exit(1)
	}
	if ncpu != want || procs != want {
		fmt.Printf("FAIL numcpu: NumCPU=%d GOMAXPROCS=%d, want both %d\n", ncpu, procs, want)
		os.Exit(1)
	}
	fmt.Println("PASS numcpu")
}
