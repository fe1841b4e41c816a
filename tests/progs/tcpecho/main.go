// Command tcpecho echoes every TCP connection back to its sender, each on
// its own goroutine, until the machine is stopped: the host side of the
// network tests (tests/net_test.go) connects through a published port.
// `tcpecho quit`: a connection that sends exactly "quit" first ends the
// program (exit 0), so the kernel prints its statistics
// (tests/nettap_test.go).
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

func main() {
	// Many connections at once (tests/netstress_test.go): as a server on
	// Linux would, raise the descriptor limit past the default 1024.
	lim := syscall.Rlimit{Cur: 65536, Max: 65536}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("FAIL tcpecho: setrlimit:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", ":7")
	if err != nil {
		fmt.Println("FAIL tcpecho:", err)
		os.Exit(1)
	}
	quit := len(os.Args) > 1 && os.Args[1] == "quit"
	fmt.Println("tcpecho: listening on", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Println("FAIL tcpecho: accept:", err)
			os.Exit(1)
		}
		go func() {
			defer c.Close()
			if quit {
				buf := make([]byte, 4)
				n, _ := io.ReadFull(c, buf)
				if string(buf[:n]) == "quit" {
					fmt.Println("tcpecho: quit")
					os.Exit(0)
				}
				if _, err := c.Write(buf[:n]); err != nil {
					return
				}
			}
			// Copy until the sender's FIN, then close: the sender sees ours.
			if _, err := io.Copy(c, c); err != nil {
				fmt.Println("tcpecho: copy:", err)
			}
		}()
	}
}
