// Test program virtiopci: what a program booted with `gometal run -virtio
// pci -net -mount HOST:/share` reaches over virtio-pci functions instead of
// virtio-mmio slots: stdout (the virtio console), random numbers (the
// entropy device keyed the kernel's generator), a file on the 9P share,
// and a TCP exchange with the host through the network device. Usage:
// virtiopci HOSTPORT; /share/in.txt must hold "over 9p\n".
package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL virtiopci: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: virtiopci HOSTPORT")
	}
	fmt.Println("virtiopci: hello over the console")
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		fail("rand: %v", err)
	}
	data, err := os.ReadFile("/share/in.txt")
	if err != nil || string(data) != "over 9p\n" {
		fail("/share/in.txt: %q, %v", data, err)
	}
	if err := os.WriteFile("/share/out.txt", []byte("written by the guest\n"), 0o644); err != nil {
		fail("write /share/out.txt: %v", err)
	}
	c, err := net.DialTimeout("tcp", "10.0.2.2:"+os.Args[1], 20*time.Second)
	if err != nil {
		fail("dial: %v", err)
	}
	if _, err := c.Write([]byte("echo over pci\n")); err != nil {
		fail("write: %v", err)
	}
	c.(*net.TCPConn).CloseWrite()
	reply, err := io.ReadAll(c)
	if err != nil || string(reply) != "ECHO OVER PCI\n" {
		fail("echo: %q, %v", reply, err)
	}
	fmt.Println("PASS virtiopci")
}
