package machine

import (
	"debug/elf"
	"testing"
)

// TestTable checks what the rest of gometal assumes of the table.
func TestTable(t *testing.T) {
	names := map[string]bool{}
	for _, m := range Machines {
		if names[m.Name] {
			t.Errorf("two machines named %s", m.Name)
		}
		names[m.Name] = true
		if m.Arch == nil || ArchOfELF(m.Arch.ELF) != m.Arch {
			t.Errorf("%s: architecture %v is not in Arches", m.Name, m.Arch)
		}
		if m.MinCPUs < 1 || m.MinCPUs > m.MaxCPUs {
			t.Errorf("%s: CPUs %d to %d", m.Name, m.MinCPUs, m.MaxCPUs)
		}
		if m.Boot.Load != LoadKernel {
			t.Errorf("%s: gometal boots with -kernel; Boot is %s", m.Name, m.Boot.Name)
		}
		if m.Type == "" || m.UART == "" || m.LinuxConsole == "" || m.Exit == 0 {
			t.Errorf("%s: incomplete: %+v", m.Name, m)
		}
		if m.Supported && m.MinMemory == 0 {
			t.Errorf("%s: no minimum memory", m.Name)
		}
		if m.CPU == "" && m.Arch.NeedsCPU != "" {
			t.Errorf("%s: no -cpu, but %s", m.Name, m.Arch.NeedsCPU)
		}
		if m.Supported && (m.Virtio == NoVirtio || m.Exit == ExitConsole) {
			t.Errorf("%s: gometal run needs virtio consoles and an exit device the host sees", m.Name)
		}
	}
	for _, a := range Arches {
		if d := a.Default(); d.Arch != a {
			t.Errorf("%s: default machine %s is for %s", a.Name, d.Name, d.Arch.Name)
		}
	}
	if Default() != RISCV64Virt || !RISCV64Virt.Supported {
		t.Errorf("the default machine is %s", Default().Name)
	}
}

func TestArchOfELF(t *testing.T) {
	for em, want := range map[elf.Machine]*Arch{elf.EM_RISCV: RISCV64, elf.EM_AARCH64: ARM64, elf.EM_X86_64: nil, elf.EM_386: nil} {
		if got := ArchOfELF(em); got != want {
			t.Errorf("ArchOfELF(%v) = %v, want %v", em, got, want)
		}
	}
}

// TestResolveArch: the one rule. A binary's ELF decides and -arch or
// -machine must agree with it; else -arch, -machine, $GOARCH, the host,
// among the architectures gometal runs (riscv64 and arm64), else riscv64.
func TestResolveArch(t *testing.T) {
	cases := []struct {
		in   ArchInputs
		want *Arch
		err  string
	}{
		{ArchInputs{Host: "amd64"}, RISCV64, ""},
		{ArchInputs{Host: "riscv64"}, RISCV64, ""},
		{ArchInputs{Host: "arm64"}, ARM64, ""},                                     // an arm64 host boots arm64
		{ArchInputs{GOARCH: "amd64", Host: "amd64"}, RISCV64, ""},                  // a host GOARCH is the user's, not ours
		{ArchInputs{GOARCH: "arm64", Host: "amd64"}, ARM64, ""},                    // $GOARCH=arm64 is one gometal runs
		{ArchInputs{GOARCH: "riscv64", Host: "arm64"}, RISCV64, ""},                // $GOARCH wins over the host
		{ArchInputs{Flag: "riscv64", GOARCH: "arm64", Host: "arm64"}, RISCV64, ""}, // -arch wins over both
		{ArchInputs{Flag: "arm64", Host: "amd64"}, ARM64, ""},
		{ArchInputs{Flag: "amd64", Host: "amd64"}, nil, `-arch "amd64": want riscv64 or arm64`},
		{ArchInputs{Machine: ARM64VirtMax, GOARCH: "riscv64"}, ARM64, ""}, // -machine wins over $GOARCH
		{ArchInputs{Flag: "riscv64", Machine: ARM64Virt}, nil, "-machine arm64-virt runs arm64 programs; this one is riscv64"},
		// A prebuilt binary is what its ELF says, whatever $GOARCH or the host.
		{ArchInputs{Binary: ARM64, BinaryName: "prog", GOARCH: "riscv64", Host: "riscv64"}, ARM64, ""},
		{ArchInputs{Binary: ARM64, BinaryName: "prog", Flag: "arm64"}, ARM64, ""},
		{ArchInputs{Binary: ARM64, BinaryName: "prog", Flag: "riscv64"}, nil, "prog: built for arm64, not -arch riscv64"},
		{ArchInputs{Binary: RISCV64, BinaryName: "prog", Machine: ARM64Virt}, nil, "-machine arm64-virt runs arm64 programs; this one is riscv64"},
		{ArchInputs{Binary: ARM64, BinaryName: "prog", Machine: ARM64VirtGICv2}, ARM64, ""},
	}
	for _, c := range cases {
		got, err := ResolveArch(c.in)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("ResolveArch(%+v) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := RISCV64Virt.Check(); err != nil {
		t.Errorf("riscv64-virt: %v", err)
	}
	want := "machine riscv64-sifive_u is not supported yet: gometal's kernel boots on riscv64-virt, arm64-virt, arm64-virt-gicv2 and arm64-virt-max"
	if err := RISCV64SifiveU.Check(); err == nil || err.Error() != want {
		t.Errorf("sifive_u: %v; want %q", err, want)
	}
	if err := ARM64Virt.Check(); err != nil {
		t.Errorf("arm64-virt: %v", err)
	}
	if got := SupportedArches(); got != "riscv64 and arm64" {
		t.Errorf("SupportedArches() = %q", got)
	}
}

// TestMemory: the minimum, and one line below it.
func TestMemory(t *testing.T) {
	if err := ARM64Virt.CheckMemory(16 << 20); err != nil {
		t.Errorf("16M: %v", err)
	}
	if err := RISCV64Virt.CheckMemory(1 << 10); err == nil || err.Error() != "riscv64-virt boots with at least 16M of memory" {
		t.Errorf("1K: %v", err)
	}
	for n, want := range map[uint64]string{16 << 20: "16M", 1 << 30: "1G", 1536 << 20: "1536M", 3 << 10: "3K", 100: "100B"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNamed(t *testing.T) {
	if m, err := Named("arm64-virt-gicv2"); err != nil || m != ARM64VirtGICv2 {
		t.Errorf("Named: %v, %v", m, err)
	}
	if _, err := Named("pdp11"); err == nil {
		t.Error("Named(pdp11) succeeded")
	}
}

func TestStrings(t *testing.T) {
	for in, want := range map[string]string{"": "nothing", "a": "a", "a b": "a and b", "a b c": "a, b and c"} {
		var names []string
		for _, r := range in {
			if r != ' ' {
				names = append(names, string(r))
			}
		}
		if got := join(names); got != want {
			t.Errorf("join(%q) = %q, want %q", names, got, want)
		}
	}
	if got := ARM64.BuildHint(); got != "GOOS=linux GOARCH=arm64 CGO_ENABLED=0" {
		t.Errorf("BuildHint = %q", got)
	}
	if got := ARM64VirtGICv2.MachineArg(); got != "virt,gic-version=2" {
		t.Errorf("MachineArg = %q", got)
	}
	if got := RISCV64Virt.MachineArg(); got != "virt" {
		t.Errorf("MachineArg = %q", got)
	}
}

// TestVirtioTransport: -virtio's values, the device names on each
// transport, and WithVirtio leaving a board (no virtio) alone.
func TestVirtioTransport(t *testing.T) {
	for in, want := range map[string]Transport{"": NoVirtio, "mmio": VirtioMMIO, "pci": VirtioPCI} {
		if got, err := ParseTransport(in); err != nil || got != want {
			t.Errorf("ParseTransport(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseTransport("isa"); err == nil {
		t.Error("ParseTransport(isa): no error")
	}
	if got := VirtioPCI.Device("virtio-9p"); got != "virtio-9p-pci" {
		t.Errorf("VirtioPCI.Device = %q", got)
	}
	if got := VirtioMMIO.Device("virtio-9p"); got != "virtio-9p-device" {
		t.Errorf("VirtioMMIO.Device = %q", got)
	}
	m := ARM64Virt.WithVirtio(VirtioPCI)
	if m == ARM64Virt || m.Virtio != VirtioPCI || ARM64Virt.Virtio != VirtioMMIO || m.Name != ARM64Virt.Name {
		t.Errorf("WithVirtio(pci) = %+v (the table's machine: %v)", m, ARM64Virt.Virtio)
	}
	if RISCV64Virt.WithVirtio(NoVirtio) != RISCV64Virt || RISCV64SifiveU.WithVirtio(VirtioPCI) != RISCV64SifiveU {
		t.Error("WithVirtio changed a machine it should leave alone")
	}
}
