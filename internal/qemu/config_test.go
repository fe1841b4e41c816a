package qemu

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gometal.dev/gometal/internal/machine"
)

func TestArgs(t *testing.T) {
	c := Config{
		Machine: machine.RISCV64Virt,
		Binary:  "/usr/bin/qemu-system-riscv64", SMP: 4, Memory: "256M",
		Kernel: "k.elf", Initrd: "initrd.cpio", Append: `verbose -- "a b"`,
		GDB: true, Extra: []string{"-d", "guest_errors"},
	}
	want := []string{"/usr/bin/qemu-system-riscv64",
		"-M", "virt", "-smp", "4", "-m", "256M", "-bios", "default",
		"-kernel", "k.elf", "-initrd", "initrd.cpio", "-append", `verbose -- "a b"`,
		"-display", "none", "-chardev", "stdio,id=con,signal=on",
		"-serial", "chardev:con", "-monitor", "none", "-no-reboot", "-nic", "none",
		"-s", "-S", "-d", "guest_errors"}
	if got := c.Args(); !reflect.DeepEqual(got, want) {
		t.Errorf("Args() =\n%q\nwant\n%q", got, want)
	}
}

// TestArgsMachines pins the exact argv of every described machine: the
// machine's own part (-M, -cpu, the firmware, the exit device) around the
// parts every boot shares.
func TestArgsMachines(t *testing.T) {
	const console = "-display none -chardev stdio,id=con,signal=on -serial chardev:con -monitor none -no-reboot"
	const semihosting = " -semihosting-config enable=on,target=native"
	want := map[string]string{
		"riscv64-virt":     "qemu-system-riscv64 -M virt -smp 2 -m 1G -bios default -kernel k -initrd i -append a " + console + " -nic none",
		"riscv64-sifive_u": "qemu-system-riscv64 -M sifive_u -smp 2 -m 1G -bios default -kernel k -initrd i -append a " + console,
		"arm64-virt":       "qemu-system-aarch64 -M virt,gic-version=3 -cpu cortex-a72 -smp 2 -m 1G -kernel k -initrd i -append a " + console + semihosting + " -nic none",
		"arm64-virt-gicv2": "qemu-system-aarch64 -M virt,gic-version=2 -cpu cortex-a72 -smp 2 -m 1G -kernel k -initrd i -append a " + console + semihosting + " -nic none",
		"arm64-virt-max":   "qemu-system-aarch64 -M virt,gic-version=3 -cpu max -smp 2 -m 1G -kernel k -initrd i -append a " + console + semihosting + " -nic none",
	}
	for _, m := range machine.Machines {
		c := Config{Machine: m, Binary: m.Arch.QEMU, SMP: 2, Memory: "1G", Kernel: "k", Initrd: "i", Append: "a"}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", m.Name, err)
		}
		got := strings.Join(c.Args(), " ")
		if w, ok := want[m.Name]; !ok {
			t.Errorf("%s: no expected argv in this test; add it:\n%s", m.Name, got)
		} else if got != w {
			t.Errorf("%s: Args() =\n%s\nwant\n%s", m.Name, got, w)
		}
	}
}

func TestValidate(t *testing.T) {
	virt := machine.RISCV64Virt
	noCPU := *machine.ARM64Virt
	noCPU.CPU = ""
	ok := Config{Machine: virt, Binary: "q", SMP: 4, Memory: "1G", StdioPorts: true, Entropy: true}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
	for _, bad := range []struct {
		c    Config
		want string
	}{
		{Config{Binary: "q"}, "no machine"},
		{Config{Machine: virt}, "no QEMU binary"},
		{Config{Machine: virt, Binary: "q", SMP: -1}, "-smp -1"},
		{Config{Machine: virt, Binary: "q", SMP: 513}, "-smp 513: riscv64-virt has 1 to 512 CPUs"},
		{Config{Machine: machine.ARM64VirtGICv2, Binary: "q", SMP: 9}, "arm64-virt-gicv2 has 1 to 8"},
		{Config{Machine: machine.RISCV64SifiveU, Binary: "q", SMP: 1}, "riscv64-sifive_u has 2 to 5"},
		{Config{Machine: virt, Binary: "q", Memory: "lots"}, "invalid memory size"},
		{Config{Machine: machine.RISCV64SifiveU, Binary: "q", StdioPorts: true, Net: &Net{}},
			"riscv64-sifive_u has no virtio devices: the stdio ports, the network (-net) need them"},
		// QEMU would start a 32-bit Cortex-A15 and the kernel would never run.
		{Config{Machine: &noCPU, Binary: "q"}, "arm64-virt names no CPU model: QEMU 7.2's virt machine defaults to a 32-bit Cortex-A15"},
	} {
		if err := bad.c.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Validate(%+v) = %v; want %q", bad.c, err, bad.want)
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
	arch := machine.RISCV64
	look := func(name string) (string, error) {
		asked = name
		if name == "missing" || name == arch.QEMU {
			return "", errors.New("not found: " + name)
		}
		return "/bin/" + name, nil
	}
	if p, _ := find("flag", "env", arch, look); p != "/bin/flag" {
		t.Errorf("flag ignored: %q", p)
	}
	if p, _ := find("", "env", arch, look); p != "/bin/env" {
		t.Errorf("env ignored: %q", p)
	}
	_, err := find("", "", arch, look)
	if !errors.Is(err, ErrNotFound) || asked != arch.QEMU ||
		err.Error() != "qemu-system-riscv64 not found; install it with: sudo apt-get install qemu-system-misc" {
		t.Errorf("default: err = %v, asked %q", err, asked)
	}
	if p, err := find("", "", machine.ARM64, look); err != nil || p != "/bin/qemu-system-aarch64" {
		t.Errorf("arm64: %q, %v; want /bin/qemu-system-aarch64", p, err)
	}
	if _, err := find("missing", "", arch, look); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("explicit missing binary: err = %v", err)
	}
}

func TestArgsDevices(t *testing.T) {
	got := strings.Join(Config{Machine: machine.RISCV64Virt, Binary: "q", Entropy: true, StdioPorts: true}.Args(), " ")
	for _, want := range []string{
		"-object rng-random,id=rng0,filename=/dev/urandom -device virtio-rng-device,rng=rng0",
		"-device virtio-serial-device,max_ports=5",
		"-chardev socket,id=port1,fd=3 -device virtserialport,chardev=port1,nr=1,name=gometal.stdin",
		"-chardev socket,id=port3,fd=5 -device virtserialport,chardev=port3,nr=3,name=gometal.stderr",
		"-chardev socket,id=port4,fd=6 -device virtserialport,chardev=port4,nr=4,name=gometal.signal",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Args() = %q\nlacks %q", got, want)
		}
	}
}

// TestArgsVirtioPCI: -virtio pci puts every virtio device on the PCIe bus.
func TestArgsVirtioPCI(t *testing.T) {
	c := Config{Machine: machine.ARM64Virt.WithVirtio(machine.VirtioPCI), Binary: "q", Entropy: true, StdioPorts: true,
		Net: &Net{}, Mounts: []Mount{{Host: "/h", Tag: "gm0"}}}
	got := strings.Join(c.Args(), " ")
	for _, want := range []string{
		"-device virtio-rng-pci,rng=rng0", "-device virtio-serial-pci,max_ports=5",
		"-device virtio-net-pci,netdev=net0", "-device virtio-9p-pci,fsdev=fs0,mount_tag=gm0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Args() = %q\nlacks %q", got, want)
		}
	}
	if strings.Contains(got, "-device,") || strings.Contains(got, "-nic none") {
		t.Errorf("Args() = %q: an MMIO device, or -nic none beside -net", got)
	}
}

func TestArgsMounts(t *testing.T) {
	c := Config{Machine: machine.RISCV64Virt, Binary: "q", Mounts: []Mount{{Host: "/h/a,b", Tag: "gm0"}, {Host: "/ro", Tag: "gm1", ReadOnly: true}}}
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

// TestArgsAccel: -accel is passed when chosen, and KVM or HVF make the
// CPU the host's (and, for arm64 under KVM, the GIC the host's).
func TestArgsAccel(t *testing.T) {
	for _, c := range []struct {
		m     *machine.Machine
		accel machine.Accel
		want  string
	}{
		{machine.RISCV64Virt, machine.AccelTCG, "-M virt -accel tcg -smp 1"},
		{machine.RISCV64Virt, machine.AccelAuto, "-M virt -smp 1"},
		{machine.RISCV64Virt, machine.AccelKVM, "-M virt -accel kvm -cpu host -smp 1"},
		{machine.ARM64Virt, machine.AccelTCG, "-M virt,gic-version=3 -accel tcg -cpu cortex-a72 -smp 1"},
		{machine.ARM64Virt, machine.AccelKVM, "-M virt,gic-version=host -accel kvm -cpu host -smp 1"},
		{machine.ARM64VirtGICv2, machine.AccelKVM, "-M virt,gic-version=host -accel kvm -cpu host -smp 1"},
		{machine.ARM64Virt, machine.AccelHVF, "-M virt,gic-version=3 -accel hvf -cpu host -smp 1"},
	} {
		args := Config{Machine: c.m, Binary: "q", SMP: 1, Accel: c.accel}.Args()
		if got := strings.Join(args[1:], " "); !strings.HasPrefix(got, c.want+" ") {
			t.Errorf("%s %s: %s\nwant prefix %s", c.m.Name, c.accel, got, c.want)
		}
	}
}
