package qemu

import (
	"slices"
	"testing"

	"gometal.dev/gometal/internal/machine"
)

func TestNetArgs(t *testing.T) {
	if args := netArgs(nil, machine.VirtioMMIO); args != nil {
		t.Errorf("no network: %q", args)
	}
	got := netArgs(&Net{Forwards: []Forward{{Proto: "tcp", Host: 8080, Guest: 80}, {Proto: "udp", Host: 5353, Guest: 53}}}, machine.VirtioMMIO)
	want := []string{"-netdev", "user,id=net0,hostfwd=tcp:127.0.0.1:8080-:80,hostfwd=udp:127.0.0.1:5353-:53", "-device", "virtio-net-device,netdev=net0"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs = %q, want %q", got, want)
	}
	vhostNet = "/nonexistent"
	got = netArgs(&Net{Tap: "tap3"}, machine.VirtioMMIO)
	want = []string{"-netdev", "tap,id=net0,ifname=tap3,script=no,downscript=no", "-device", "virtio-net-device,netdev=net0"}
	if !slices.Equal(got, want) {
		t.Errorf("netArgs(tap) = %q, want %q", got, want)
	}
	vhostNet = t.TempDir()
	if got := netArgs(&Net{Tap: "tap3"}, machine.VirtioMMIO); got[1] != want[1]+",vhost=on" {
		t.Errorf("with /dev/vhost-net: %q", got[1])
	}
	cfg := Config{Machine: machine.RISCV64Virt, Binary: "q", Net: &Net{}}
	if !slices.Contains(cfg.Args(), "virtio-net-device,netdev=net0") {
		t.Errorf("Config.Args lacks the device: %q", cfg.Args())
	}
}
