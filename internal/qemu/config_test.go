package qemu

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	c := Config{
		Binary: "/usr/bin/qemu-system-riscv64", SMP: 4, Memory: "256M",
		Kernel: "k.elf", Initrd: "initrd.cpio", Append: `verbose -- "a b"`,
		GDB: true, Extra: []string{"-d", "guest_errors"},
	}
	want := []string{"/usr/bin/qemu-system-riscv64",
		"-M", "virt", "-smp", "4", "-m", "256M", "-bios", "default",
		"-kernel", "k.elf", "-initrd", "initrd.cpio", "-append", `verbose -- "a b"`,
		"-display", "none", "-chardev", "stdio,id=con,signal=on",
		"-serial", "chardev:con", "-monitor", "none", "-no-reboot",
		"-s", "-S", "-d", "guest_errors"}
	if got := c.Args(); !reflect.DeepEqual(got, want) {
		t.Errorf("Args() =\n%q\nwant\n%q", got, want)
	}
}

func TestArgsMinimal(t *testing.T) {
	got := strings.Join(Config{Binary: "q", Machine: "sifive_u", BIOS: "none"}.Args(), " ")
	want := "q -M sifive_u -bios none -display none -chardev stdio,id=con,signal=on -serial chardev:con -monitor none -no-reboot"
	if got != want {
		t.Errorf("Args() = %q, want %q", got, want)
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Binary: "q", SMP: 4, Memory: "1G"}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
	for _, bad := range []Config{{}, {Binary: "q", SMP: -1}, {Binary: "q", SMP: 513}, {Binary: "q", Memory: "lots"}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) succeeded", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]uint64{"256M": 256 << 20, "1G": 1 << 30, "1g": 1 << 30,
		"2048": 2048 << 20, "512k": 512 << 10, "1.5G": 3 << 29, "1T": 1 << 40}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "0", "-1M", "1X", "1e3M", "0x10M", "1_000M"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}

func TestFind(t *testing.T) {
	var asked string
	look := func(name string) (string, error) {
		asked = name
		if name == "missing" || name == DefaultBinary {
			return "", errors.New("not found: " + name)
		}
		return "/bin/" + name, nil
	}
	if p, _ := find("flag", "env", look); p != "/bin/flag" {
		t.Errorf("flag ignored: %q", p)
	}
	if p, _ := find("", "env", look); p != "/bin/env" {
		t.Errorf("env ignored: %q", p)
	}
	if _, err := find("", "", look); err != ErrNotFound || asked != DefaultBinary {
		t.Errorf("default: err = %v, asked %q", err, asked)
	}
	if _, err := find("missing", "", look); err == nil || err == ErrNotFound {
		t.Errorf("explicit missing binary: err = %v", err)
	}
}

func TestArgsDevices(t *testing.T) {
	got := strings.Join(Config{Binary: "q", Entropy: true, StdioPorts: true}.Args(), " ")
	for _, want := range []string{
		"-object rng-random,id=rng0,filename=/dev/urandom -device virtio-rng-device,rng=rng0",
		"-device virtio-serial-device,max_ports=4",
		"-chardev socket,id=port1,fd=3 -device virtserialport,chardev=port1,nr=1,name=gometal.stdin",
		"-chardev socket,id=port3,fd=5 -device virtserialport,chardev=port3,nr=3,name=gometal.stderr",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Args() = %q\nlacks %q", got, want)
		}
	}
}

func TestArgsMounts(t *testing.T) {
	c := Config{Binary: "q", Mounts: []Mount{{Host: "/h/a,b", Tag: "gm0"}, {Host: "/ro", Tag: "gm1", ReadOnly: true}}}
	got := strings.Join(c.Args(), " ")
	for _, want := range []string{
		"-fsdev local,id=fs0,path=/h/a,,b,security_model=none -device virtio-9p-device,fsdev=fs0,mount_tag=gm0",
		"-fsdev local,id=fs1,path=/ro,security_model=none,readonly=on -device virtio-9p-device,fsdev=fs1,mount_tag=gm1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Args() = %q\nlacks %q", got, want)
		}
	}
}
