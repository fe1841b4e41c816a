// Test program hello: the smallest possible check that a Go program boots.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("hello, gometal")
	pid := os.Getpid()
	fmt.Println("pid", pid)
	if pid <= 0 {
		fmt.Printf("FAIL hello: os.Getpid() = %d, want > 0\n", pid)
		os.Exit(1)
	}
	fmt.Println("PASS hello")
}
