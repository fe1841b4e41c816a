package qemu

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gometal.dev/gometal/internal/machine"
)

func TestNetArgs(t *testing.T) {
	if args := netArgs(nil, machine.VirtioMMIO, 1); args != nil {
		t.Errorf("no network: %q", args)
	}
	got := netArgs(&Net{Forwards: []Forward{{Proto: "tcp", Host: 8080, Guest: 80}, {Proto: "udp", Host: 5353, Guest: 53}}}, machine.VirtioMMIO, 4)
	want := []string{"-netdev", "user,id=net0,hostfwd=tcp:127.0.0.1:8080-:80,hostfwd=udp:127.0.0.1:5353-:53", "-device", "virtio-net-device,netdev=net0"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs = %q, want %q", got, want)
	}
	vhostNet = "/nonexistent"
	got = netArgs(&Net{Tap: "tap3"}, machine.VirtioMMIO, 4)
	want = []string{"-netdev", "tap,id=net0,ifname=tap3,script=no,downscript=no", "-device", "virtio-net-device,netdev=net0"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs(tap) = %q, want %q", got, want)
	}
	vhostNet = t.TempDir()
	if got := netArgs(&Net{Tap: "tap3"}, machine.VirtioMMIO, 4); got[1] != want[1]+",vhost=on" {
		t.Errorf("with /dev/vhost-net: %q", got[1])
	}
	cfg := Config{Machine: machine.RISCV64Virt, Binary: "q", Net: &Net{}}
	if !slices.Contains(cfg.Args(), "virtio-net-device,netdev=net0") {
		t.Errorf("Config.Args lacks the device: %q", cfg.Args())
	}
}

// A multiqueue tap (IFF_MULTI_QUEUE in tun_flags) gets a queue pair per
// CPU, at least two (it refuses single-queue opens); any other tap, or one
// whose flags cannot be read, gets one, with the arguments as before.
func TestTapQueues(t *testing.T) {
	dir := t.TempDir()
	tunFlags = filepath.Join(dir, "%s")
	defer func() { tunFlags = "/sys/class/net/%s/tun_flags" }()
	vhostNet = "/nonexistent"
	os.WriteFile(filepath.Join(dir, "mq"), []byte("0x1102\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sq"), []byte("0x1002\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "junk"), []byte("what\n"), 0o644)
	for _, c := range []struct {
		tap   string
		cores int
		want  int
	}{{"mq", 4, 4}, {"mq", 2, 2}, {"mq", 1, 2}, {"sq", 4, 1}, {"junk", 4, 1}, {"absent", 4, 1}} {
		if got := tapQueues(c.tap, c.cores); got != c.want {
			t.Errorf("tapQueues(%s, %d) = %d, want %d", c.tap, c.cores, got, c.want)
		}
	}
	got := netArgs(&Net{Tap: "mq"}, machine.VirtioMMIO, 4)
	want := []string{"-netdev", "tap,id=net0,ifname=mq,script=no,downscript=no,queues=4", "-device", "virtio-net-device,netdev=net0,mq=on"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs(mq tap, mmio) = %q, want %q", got, want)
	}
	got = netArgs(&Net{Tap: "mq"}, machine.VirtioPCI, 2)
	want = []string{"-netdev", "tap,id=net0,ifname=mq,script=no,downscript=no,queues=2", "-device", "virtio-net-pci,netdev=net0,mq=on,vectors=6"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs(mq tap, pci) = %q, want %q", got, want)
	}
	got = netArgs(&Net{Tap: "sq"}, machine.VirtioPCI, 4)
	want = []string{"-netdev", "tap,id=net0,ifname=sq,script=no,downscript=no", "-device", "virtio-net-pci,netdev=net0"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs(single-queue tap) = %q, want %q", got, want)
	}
}
