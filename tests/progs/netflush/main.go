// Command netflush accepts one connection on port 7, writes SIZE bytes to
// it and exits at once (after closing it with "close"): what it wrote must
// still reach the peer, as on Linux, where the kernel keeps sending after
// the process is gone (tests/net_test.go reads it all from the host).
// Usage: netflush SIZE [close]
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
)

func main() {
	size, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Println("FAIL netflush: usage: netflush SIZE")
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", ":7")
	if err != nil {
		fmt.Println("FAIL netflush:", err)
		os.Exit(1)
	}
	fmt.Println("netflush: listening")
	c, err := ln.Accept()
	if err != nil {
		fmt.Println("FAIL netflush: accept:", err)
		os.Exit(1)
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i % 251)
	}
	if _, err := c.Write(data); err != nil {
		fmt.Println("FAIL netflush: write:", err)
		os.Exit(1)
	}
	if len(os.Args) > 2 && os.Args[2] == "close" {
		c.Close()
	}
	os.Exit(0)
}
