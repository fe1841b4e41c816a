// Test program random: crypto/rand and the kernel's random devices.
// It prints 16 random bytes (the harness checks that two boots differ),
// checks that calls differ, runs a statistical smoke test on 1 MiB (byte
// histogram chi-square and compressibility), reads /dev/urandom and
// /dev/random, and completes a TLS 1.3 handshake in memory (key generation,
// nonces and the handshake all draw on crypto/rand). With the argument
// "noentropy" it instead expects the machine to have no entropy source:
// getrandom with GRND_NONBLOCK must fail with EAGAIN, while GRND_INSECURE
// and /dev/urandom still give bytes, as on Linux before its pool is ready.
package main

import (
	"bytes"
	"compress/flate"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

const (
	grndNonblock = 1
	grndInsecure = 4
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL random: "+format+"\n", args...)
	os.Exit(1)
}

func getrandom(buf []byte, flags uintptr) (int, error) {
	n, _, errno := syscall.Syscall(sysGetrandom, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), flags)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func readDevice(path string, n int) []byte {
	f, err := os.Open(path)
	if err != nil {
		fail("open %s: %v", path, err)
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := io.ReadFull(f, buf); err != nil {
		fail("read %s: %v", path, err)
	}
	return buf
}

func noEntropy() {
	buf := make([]byte, 16)
	if _, err := getrandom(buf, grndNonblock); !errors.Is(err, syscall.EAGAIN) {
		fail("getrandom(GRND_NONBLOCK) without entropy: err %v, want EAGAIN", err)
	}
	if n, err := getrandom(buf, grndInsecure); err != nil || n != len(buf) {
		fail("getrandom(GRND_INSECURE): %d, %v", n, err)
	}
	readDevice("/dev/urandom", 64)
	fmt.Println("random: no entropy: EAGAIN with GRND_NONBLOCK; GRND_INSECURE and /dev/urandom work")
	fmt.Println("PASS random")
}

// smokeTest: 1 MiB must look uniform (chi-square of the byte histogram,
// 255 degrees of freedom: 400 is beyond p = 1e-7) and must not compress.
func smokeTest() {
	buf := make([]byte, 1<<20)
	if _, err := rand.Read(buf); err != nil {
		fail("rand.Read 1 MiB: %v", err)
	}
	var hist [256]float64
	for _, b := range buf {
		hist[b]++
	}
	expect := float64(len(buf)) / 256
	chi2 := 0.0
	for _, c := range hist {
		chi2 += (c - expect) * (c - expect) / expect
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(buf)
	w.Close()
	fmt.Printf("random: 1 MiB: chi-square %.1f (255 degrees of freedom), deflate %d bytes\n", chi2, z.Len())
	if chi2 > 400 || chi2 < 150 {
		fail("1 MiB byte histogram chi-square %.1f: not uniform", chi2)
	}
	if z.Len() < len(buf) {
		fail("1 MiB compressed to %d bytes: not random", z.Len())
	}
}

func tlsHandshake() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail("ecdsa key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gometal.test"},
		DNSNames: []string{"gometal.test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		fail("certificate: %v", err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	c, s := net.Pipe()
	server := tls.Server(s, &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	client := tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "gometal.test"})
	go func() {
		buf := make([]byte, 5)
		io.ReadFull(server, buf)
		server.Write(buf)
	}()
	if _, err := client.Write([]byte("hello")); err != nil {
		fail("tls write: %v", err)
	}
	echo := make([]byte, 5)
	if _, err := io.ReadFull(client, echo); err != nil || string(echo) != "hello" {
		fail("tls echo %q: %v", echo, err)
	}
	fmt.Printf("random: TLS handshake ok (%s)\n", tls.VersionName(client.ConnectionState().Version))
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "noentropy" {
		noEntropy()
		return
	}
	a, b := make([]byte, 16), make([]byte, 16)
	rand.Read(a)
	rand.Read(b)
	if bytes.Equal(a, b) {
		fail("two calls gave the same bytes %x", a)
	}
	fmt.Printf("random: %x\n", a)
	if _, err := getrandom(make([]byte, 16), grndNonblock); err != nil {
		fail("getrandom(GRND_NONBLOCK) with an entropy source: %v", err)
	}
	u, r := readDevice("/dev/urandom", 64), readDevice("/dev/random", 64)
	if bytes.Equal(u, r) || bytes.Equal(u, make([]byte, 64)) {
		fail("/dev/urandom and /dev/random gave %x and %x", u, r)
	}
	smokeTest()
	tlsHandshake()
	fmt.Println("PASS random")
}
