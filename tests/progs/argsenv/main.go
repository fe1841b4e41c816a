// Test program argsenv: command-line arguments and environment variables
// reach the program exactly, including spaces, quotes, empty strings and
// non-ASCII text.
package main

import (
	"fmt"
	"os"
	"slices"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL argsenv: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	fmt.Printf("os.Args = %q\n", os.Args)
	want := []string{"alpha", "two words", "q\"uote", "", "ünï"}
	if len(os.Args) < 1 || !slices.Equal(os.Args[1:], want) {
		fail("os.Args[1:] = %q, want %q", os.Args[min(1, len(os.Args)):], want)
	}
	if os.Args[0] != "/init" {
		fmt.Printf("note: os.Args[0] = %q (expected \"/init\" on gometal)\n", os.Args[0])
	}

	if v := os.Getenv("GOMETAL_TEST"); v != "yes please" {
		fail("GOMETAL_TEST = %q, want %q", v, "yes please")
	}
	if v, ok := os.LookupEnv("EMPTY"); !ok || v != "" {
		fail("LookupEnv(EMPTY) = %q, %v; want \"\", true", v, ok)
	}
	if v, ok := os.LookupEnv("GOMETAL_SURELY_UNSET"); ok {
		fail("LookupEnv(GOMETAL_SURELY_UNSET) = %q, true; want unset", v)
	}
	found := 0
	for _, kv := range os.Environ() {
		if kv == "GOMETAL_TEST=yes please" || kv == "EMPTY=" {
			found++
		}
	}
	if found != 2 {
		fail("os.Environ() = %q: want GOMETAL_TEST and EMPTY entries", os.Environ())
	}
	fmt.Println("GOMETAL_TEST =", os.Getenv("GOMETAL_TEST"))

	if err := os.Setenv("GOMETAL_SET", "x"); err != nil {
		fail("Setenv: %v", err)
	}
	if os.Getenv("GOMETAL_SET") != "x" {
		fail("Setenv did not stick")
	}
	fmt.Println("PASS argsenv")
}
