package machine

import "testing"

func TestChooseAccel(t *testing.T) {
	linuxAMD := Host{OS: "linux", Arch: "amd64", KVM: true}
	linuxARM := Host{OS: "linux", Arch: "arm64", KVM: true}
	linuxARMNoKVM := Host{OS: "linux", Arch: "arm64"}
	linuxRV := Host{OS: "linux", Arch: "riscv64", KVM: true}
	mac := Host{OS: "darwin", Arch: "arm64"}
	for _, c := range []struct {
		name  string
		req   Accel
		host  Host
		guest *Arch
		want  Accel
		note  bool
	}{
		{"amd64 host riscv64 guest auto", AccelAuto, linuxAMD, RISCV64, AccelTCG, false},
		{"amd64 host arm64 guest auto", AccelAuto, linuxAMD, ARM64, AccelTCG, false},
		{"amd64 host riscv64 guest kvm", AccelKVM, linuxAMD, RISCV64, AccelTCG, true},
		{"amd64 host riscv64 guest tcg", AccelTCG, linuxAMD, RISCV64, AccelTCG, false},
		{"arm64 host arm64 guest kvm auto", AccelAuto, linuxARM, ARM64, AccelKVM, false},
		{"arm64 host arm64 guest kvm explicit", AccelKVM, linuxARM, ARM64, AccelKVM, false},
		{"arm64 host arm64 guest no kvm auto", AccelAuto, linuxARMNoKVM, ARM64, AccelTCG, false},
		{"arm64 host arm64 guest no kvm explicit", AccelKVM, linuxARMNoKVM, ARM64, AccelTCG, true},
		{"arm64 host riscv64 guest auto", AccelAuto, linuxARM, RISCV64, AccelTCG, false},
		{"arm64 host arm64 guest tcg explicit", AccelTCG, linuxARM, ARM64, AccelTCG, false},
		{"arm64 host hvf on linux", AccelHVF, linuxARM, ARM64, AccelTCG, true},
		{"riscv64 host riscv64 guest auto", AccelAuto, linuxRV, RISCV64, AccelKVM, false},
		{"darwin arm64 auto", AccelAuto, mac, ARM64, AccelHVF, false},
		{"darwin arm64 hvf", AccelHVF, mac, ARM64, AccelHVF, false},
		{"darwin arm64 kvm", AccelKVM, mac, ARM64, AccelTCG, true},
		{"darwin arm64 riscv64 guest auto", AccelAuto, mac, RISCV64, AccelTCG, false},
		{"darwin arm64 riscv64 guest hvf", AccelHVF, mac, RISCV64, AccelTCG, true},
	} {
		got, note := ChooseAccel(c.req, c.host, c.guest)
		if got != c.want || (note != "") != c.note {
			t.Errorf("%s: got %s, note %q; want %s, note %v", c.name, got, note, c.want, c.note)
		}
	}
}

func TestParseAccel(t *testing.T) {
	for in, want := range map[string]Accel{"": AccelAuto, "auto": AccelAuto, "kvm": AccelKVM, "hvf": AccelHVF, "tcg": AccelTCG} {
		if got, err := ParseAccel(in); err != nil || got != want {
			t.Errorf("ParseAccel(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseAccel("xen"); err == nil {
		t.Error("ParseAccel(xen) succeeded")
	}
}

// Semihosting needs TCG: under KVM or HVF an arm64 machine's exit status
// comes from the console line instead (qemu.Run reads it).
func TestExitFor(t *testing.T) {
	for _, c := range []struct {
		m    *Machine
		a    Accel
		want Exit
	}{
		{ARM64Virt, AccelTCG, ExitSemihosting},
		{ARM64Virt, "", ExitSemihosting},
		{ARM64Virt, AccelKVM, ExitConsole},
		{ARM64Virt, AccelHVF, ExitConsole},
		{RISCV64Virt, AccelKVM, ExitTestDevice},
	} {
		if got := c.m.ExitFor(c.a); got != c.want {
			t.Errorf("%s under %q: exit %d, want %d", c.m.Name, c.a, got, c.want)
		}
		if c.want == ExitConsole && len(c.m.ExitFor(c.a).QEMUArgs())+len(c.m.ExitFor(c.a).KernelArgs()) != 0 {
			t.Errorf("%s under %q: semihosting still asked for", c.m.Name, c.a)
		}
	}
}
