// UDP and AF_UNIX phases.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

func udp() {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		srv, err := net.ListenPacket("udp", addr)
		check("listen udp "+addr, err)
		go func() {
			buf := make([]byte, 2048)
			for {
				n, from, err := srv.ReadFrom(buf)
				if err != nil {
					return
				}
				srv.WriteTo(buf[:n], from)
			}
		}()
		c, err := net.Dial("udp", srv.LocalAddr().String())
		check("dial udp", err)
		for i := 0; i < 20; i++ {
			msg := []byte(fmt.Sprintf("datagram %d", i))
			_, err = c.Write(msg)
			check("udp write", err)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			got := make([]byte, 100)
			n, err := c.Read(got)
			check("udp read", err)
			if !bytes.Equal(got[:n], msg) {
				fail("udp echo: %q", got[:n])
			}
		}
		c.Close()
		srv.Close()
	}
	// A connected UDP socket learns that nobody listens (ECONNREFUSED).
	dead, err := net.ListenPacket("udp", "127.0.0.1:0")
	check("listen", err)
	addr := dead.LocalAddr().String()
	dead.Close()
	c, err := net.Dial("udp", addr)
	check("dial", err)
	c.Write([]byte("anyone?"))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, syscall.ECONNREFUSED) {
		fail("udp to closed port: %v, want ECONNREFUSED", err)
	}
	c.Close()
	udpAddresses()
	fmt.Println("udp: IPv4 and IPv6 round trips, ECONNREFUSED, autobind and peer filter ok")
}

func unixSockets() {
	dir, err := os.MkdirTemp("", "sock")
	check("MkdirTemp", err)
	buf := make([]byte, 100)
	defer os.RemoveAll(dir)
	for _, name := range []string{filepath.Join(dir, "s"), "@gometal-abstract"} {
		l, err := net.Listen("unix", name)
		check("listen unix "+name, err)
		go echoServer(l)
		if name[0] == '/' {
			fi, err := os.Stat(name)
			if err != nil || fi.Mode()&os.ModeSocket == 0 {
				fail("the bound path is no socket file: %v %v", fi, err)
			}
		}
		echoOnce("unix", name)
		if _, err := net.Listen("unix", name); err == nil {
			fail("second listen on %s succeeded", name)
		}
		l.Close()
	}
	if _, err := net.Dial("unix", filepath.Join(dir, "nobody")); !errors.Is(err, syscall.ENOENT) {
		fail("dial a missing unix path: %v, want ENOENT", err)
	}
	// seqpacket keeps message boundaries.
	pl, err := net.Listen("unixpacket", filepath.Join(dir, "pkt"))
	check("listen unixpacket", err)
	go func() {
		c, err := pl.Accept()
		check("accept unixpacket", err)
		c.Write([]byte("one"))
		c.Write([]byte("two"))
		c.Close()
	}()
	pc, err := net.Dial("unixpacket", filepath.Join(dir, "pkt"))
	check("dial unixpacket", err)
	for _, want := range []string{"one", "two", ""} {
		n, err := pc.Read(buf[:100])
		if string(buf[:n]) != want || (want != "" && err != nil) {
			fail("unixpacket read %q %v, want %q", buf[:n], err, want)
		}
	}
	pc.Close()
	pl.Close()
	// Datagrams with addresses.
	a, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, "a"), Net: "unixgram"})
	check("unixgram a", err)
	b, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, "b"), Net: "unixgram"})
	check("unixgram b", err)
	_, err = a.WriteTo([]byte("to b"), b.LocalAddr())
	check("unixgram write", err)
	n, from, err := b.ReadFrom(buf)
	check("unixgram read", err)
	if string(buf[:n]) != "to b" || from.String() != a.LocalAddr().String() {
		fail("unixgram: %q from %v", buf[:n], from)
	}
	// An unbound sender has no address (Linux: a zero length).
	anon, err := net.DialUnix("unixgram", nil, b.LocalAddr().(*net.UnixAddr))
	check("unixgram dial", err)
	_, err = anon.Write([]byte("anon"))
	check("unixgram anonymous write", err)
	if _, from, err = b.ReadFrom(buf); err != nil || from != nil {
		fail("unixgram from an unbound sender: %v %v, want no address", from, err)
	}
	anon.Close()
	a.Close()
	b.Close()
	// socketpair: both types.
	for _, ty := range []int{syscall.SOCK_STREAM, syscall.SOCK_DGRAM} {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, ty, 0)
		check("socketpair", err)
		f0, f1 := os.NewFile(uintptr(fds[0]), "s0"), os.NewFile(uintptr(fds[1]), "s1")
		_, err = f0.Write([]byte("pair"))
		check("socketpair write", err)
		got := make([]byte, 4)
		_, err = io.ReadFull(f1, got)
		check("socketpair read", err)
		if string(got) != "pair" {
			fail("socketpair: %q", got)
		}
		f0.Close()
		if ty == syscall.SOCK_STREAM {
			if n, err := f1.Read(got); n != 0 || err != io.EOF {
				fail("socketpair read after peer close: %d %v, want EOF", n, err)
			}
		}
		f1.Close()
	}
	fmt.Println("unix: stream (path, abstract), seqpacket, datagram, socketpair ok")
}

// udpAddresses: sendto on an unbound socket binds it to the wildcard (as
// Linux's autobind: getsockname 0.0.0.0:port), and a connected socket
// takes only its peer's datagrams.
func udpAddresses() {
	dst, err := net.ListenPacket("udp4", "127.0.0.1:0")
	check("listen", err)
	defer dst.Close()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	check("socket", err)
	defer syscall.Close(fd)
	to := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: dst.LocalAddr().(*net.UDPAddr).Port}
	check("sendto", syscall.Sendto(fd, []byte("x"), 0, to))
	sa, err := syscall.Getsockname(fd)
	check("getsockname", err)
	if a := sa.(*syscall.SockaddrInet4); a.Addr != [4]byte{} || a.Port == 0 {
		fail("after sendto an unbound socket is %v:%d, want 0.0.0.0:port", a.Addr, a.Port)
	}
	// c is connected to peer; a datagram from stranger is not for it.
	peer, err := net.ListenPacket("udp4", "127.0.0.1:0")
	check("listen", err)
	defer peer.Close()
	stranger, err := net.ListenPacket("udp4", "127.0.0.1:0")
	check("listen", err)
	defer stranger.Close()
	c, err := net.Dial("udp4", peer.LocalAddr().String())
	check("dial", err)
	defer c.Close()
	_, err = stranger.WriteTo([]byte("not for you"), c.LocalAddr())
	check("stranger write", err)
	_, err = peer.WriteTo([]byte("for you"), c.LocalAddr())
	check("peer write", err)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 100)
	n, err := c.Read(buf)
	check("connected read", err)
	if string(buf[:n]) != "for you" {
		fail("a connected socket received %q, want only its peer's datagram", buf[:n])
	}
}
