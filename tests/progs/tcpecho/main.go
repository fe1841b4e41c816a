// Command tcpecho echoes every TCP connection back to its sender, each on
// its own goroutine, until the machine is stopped: the host side of the
// network tests (tests/net_test.go) connects through a published port.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	ln, err := net.Listen("tcp", ":7")
	if err != nil {
		fmt.Println("FAIL tcpecho:", err)
		os.Exit(1)
	}
	fmt.Println("tcpecho: listening on", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Println("FAIL tcpecho: accept:", err)
			os.Exit(1)
		}
		go func() {
			defer c.Close()
			// Copy until the sender's FIN, then close: the sender sees ours.
			if _, err := io.Copy(c, c); err != nil {
				fmt.Println("tcpecho: copy:", err)
			}
		}()
	}
}
