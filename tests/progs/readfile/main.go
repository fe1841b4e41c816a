// Test program readfile: files packed into the initramfs are readable with
// the ordinary os package. The harness packs tests/testdata/hello.txt at
// /data/hello.txt.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const path = "/data/hello.txt"

// want must equal tests/testdata/hello.txt.
const want = "Hello from the initramfs!\nline two: ünïcödé\n"

func fail(format string, a ...any) {
	fmt.Printf("FAIL readfile: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("ReadFile: %v", err)
	}
	fmt.Printf("read %d bytes: %q\n", len(data), data)
	if string(data) != want {
		fail("content %q, want %q", data, want)
	}

	f, err := os.Open(path)
	if err != nil {
		fail("Open: %v", err)
	}
	st, err := f.Stat()
	if err != nil {
		fail("Stat: %v", err)
	}
	if st.Size() != int64(len(want)) || st.IsDir() || !st.Mode().IsRegular() {
		fail("Stat: size %d mode %v, want size %d regular file", st.Size(), st.Mode(), len(want))
	}
	if off, err := f.Seek(6, io.SeekStart); err != nil || off != 6 {
		fail("Seek: %d, %v", off, err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "from" {
		fail("Read after Seek: %q, %v; want \"from\"", buf, err)
	}
	if off, err := f.Seek(-3, io.SeekEnd); err != nil || off != int64(len(want)-3) {
		fail("Seek from end: %d, %v", off, err)
	}
	rest, err := io.ReadAll(f)
	if err != nil || string(rest) != want[len(want)-3:] {
		fail("read tail: %q, %v", rest, err)
	}
	if err := f.Close(); err != nil {
		fail("Close: %v", err)
	}
	fmt.Println("open/stat/seek/read ok")

	if _, err := os.ReadFile("/nonexistent"); !errors.Is(err, os.ErrNotExist) {
		fail("ReadFile(/nonexistent) = %v, want ErrNotExist", err)
	}
	if _, err := os.Stat("/data/missing.txt"); !errors.Is(err, os.ErrNotExist) {
		fail("Stat(/data/missing.txt) = %v, want ErrNotExist", err)
	}
	fmt.Println("missing files report ErrNotExist")
	fmt.Println("PASS readfile")
}
