// Command openflags checks the open(2) flags whose values differ between
// architectures (arm64 swaps O_DIRECTORY and O_NOFOLLOW with O_DIRECT and
// O_LARGEFILE): O_DIRECTORY on a file is ENOTDIR, O_NOFOLLOW on a symlink
// is ELOOP, os.ReadDir of a file fails with ENOTDIR, and os.Root refuses a
// symlink that leaves it.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	dir, err := os.MkdirTemp("", "openflags")
	check(err)
	file := filepath.Join(dir, "file")
	check(os.WriteFile(file, []byte("x"), 0o644))
	link := filepath.Join(dir, "link")
	check(os.Symlink(file, link))
	check(os.Symlink("/etc", filepath.Join(dir, "out")))

	_, err = syscall.Open(file, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	want(err, syscall.ENOTDIR, "O_DIRECTORY on a file")
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	check(err)
	syscall.Close(fd)
	_, err = syscall.Open(link, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	want(err, syscall.ELOOP, "O_NOFOLLOW on a symlink")
	fd, err = syscall.Open(file, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	check(err)
	syscall.Close(fd)
	_, err = os.ReadDir(file)
	want(err, syscall.ENOTDIR, "ReadDir of a file")
	root, err := os.OpenRoot(dir)
	check(err)
	if _, err := root.Open("out/passwd"); err == nil {
		fail("os.Root opened a path through a symlink that leaves it")
	}
	f, err := root.Open("link")
	if err == nil {
		f.Close() // an absolute symlink leaves the root too
		fail("os.Root followed an absolute symlink")
	}
	fmt.Println("openflags ok")
	fmt.Println("PASS openflags")
}

func want(err, errno error, what string) {
	if !errors.Is(err, errno) {
		fail(fmt.Sprintf("%s: %v, want %v", what, err, errno))
	}
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Println("FAIL:", msg)
	os.Exit(1)
}
