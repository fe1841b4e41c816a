// Test program nilderef: hardware faults and runtime checks become ordinary,
// recoverable Go panics. A nil dereference needs the kernel to deliver
// SIGSEGV with si_addr; bounds and divide checks are software checks.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

type big struct {
	pad [16]int
	v   int
}

var nilPtr *big // a global so the compiler cannot prove it nil

func fail(format string, a ...any) {
	fmt.Printf("FAIL nilderef: "+format+"\n", a...)
	os.Exit(1)
}

// catch runs f and returns the runtime.Error it panicked with.
func catch(what string, f func()) (msg string) {
	defer func() {
		r := recover()
		if r == nil {
			fail("%s: no panic", what)
		}
		err, ok := r.(runtime.Error)
		if !ok {
			fail("%s: recovered %T %v, want a runtime.Error", what, r, r)
		}
		msg = err.Error()
	}()
	f()
	return ""
}

//go:noinline
func load(p *big) int { return p.v }

//go:noinline
func store(p *big, v int) { p.v = v }

//go:noinline
func index(s []int, i int) int { return s[i] }

//go:noinline
func div(a, b int) int { return a / b }

func expect(what, msg, want string) {
	fmt.Printf("%s: recovered %q\n", what, msg)
	if !strings.Contains(msg, want) {
		fail("%s: message %q does not contain %q", what, msg, want)
	}
}

func main() {
	for i := 0; i < 3; i++ {
		msg := catch("nil load", func() { _ = load(nilPtr) })
		expect(fmt.Sprintf("nil load #%d", i+1), msg, "nil pointer dereference")
	}
	msg := catch("nil store", func() { store(nilPtr, 7) })
	expect("nil store", msg, "nil pointer dereference")

	s := []int{1, 2, 3}
	msg = catch("index", func() { _ = index(s, len(s)+2) })
	expect("index out of range", msg, "index out of range")

	msg = catch("divide", func() { _ = div(len(s), len(s)-3) })
	expect("divide by zero", msg, "integer divide by zero")

	// The program still works normally after the faults.
	done := make(chan int)
	go func() {
		defer func() { recover(); done <- 1 }()
		_ = load(nilPtr)
	}()
	<-done
	fmt.Println("nil dereference in a goroutine recovered")
	fmt.Println("PASS nilderef")
}
