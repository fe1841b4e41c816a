// Test program exitcode: exits with the status given as its first argument.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Printf("FAIL exitcode: usage: exitcode N (args %q)\n", os.Args)
		os.Exit(1)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Printf("FAIL exitcode: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("exiting with", n)
	os.Exit(n)
}
