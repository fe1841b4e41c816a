// Test program stdin: the console's input reaches os.Stdin. The harness
// pipes "hello stdin\n" into gometal and checks the echoed content.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Printf("FAIL stdin: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("got %d bytes: %q\n", len(data), data)
	if len(data) == 0 {
		fmt.Println("FAIL stdin: no input")
		os.Exit(1)
	}
	fmt.Println("PASS stdin")
}
