// Test program panic: an uncaught panic prints the standard Go crash report
// and exits with status 2.
package main

import "fmt"

func main() {
	fmt.Println("about to panic")
	panic("gometal test panic")
}
