package main

// The Linux side: Debian's kernel builds virtio-mmio and 9p as modules, so
// as /init the program loads them (packed under /modules, numbered in
// dependency order) and mounts the share itself, with exactly the options
// of `mount -t 9p -o trans=virtio,version=9p2000.L TAG DIR` and nothing
// else, so the defaults (cache mode, msize) are those a Linux user gets;
// for -readall, `-o ro,trans=virtio,version=9p2000.L,cache=loose`, as
// gometal's `ro,cache=loose`.

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"gometal.dev/gometal/internal/uioinit"
)

// mountLinux loads the modules, mounts tag at dir (read-only and
// cache=loose if cached) and returns the mount's line in /proc/mounts (the
// options Linux chose).
func mountLinux(tag, dir string, cached bool) (string, error) {
	flags, opts := uintptr(0), "trans=virtio,version=9p2000.L"
	if cached {
		flags, opts = syscall.MS_RDONLY, opts+",cache=loose"
	}
	if _, err := uioinit.Prepare(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// The virtio device is probed when virtio_mmio loads, and the 9p
	// transport finds its channel when 9pnet_virtio does; retry briefly in
	// case either is still settling (ENOENT: no channel with that tag yet).
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err = syscall.Mount(tag, dir, "9p", flags, opts); err == nil {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("mount -t 9p %s %s: %v", tag, dir, err)
	}
	mounts, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(l); len(f) >= 4 && f[1] == dir {
			return l, nil
		}
	}
	return "", fmt.Errorf("%s is not in /proc/mounts", dir)
}
