package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuildErrors(t *testing.T) {
	t.Setenv("GOARCH", "")
	img := filepath.Join(t.TempDir(), "x.img")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"build", "prog"}, "build: -o: the image file to write is required"},
		{[]string{"build", "-o", img}, "build: no package or binary given"},
		{[]string{"build", "-o", img, "-arch", "amd64", "prog"}, `-arch "amd64": want riscv64 or arm64`},
		{[]string{"build", "-o", img, "-arch", "mips", "prog"}, "-arch \"mips\": want riscv64"},
		{[]string{"build", "-o", img, "-on-exit", "explode", "prog"}, "-on-exit \"explode\": want one of poweroff, reboot, halt"},
		{[]string{"build", "-o", img, "-cores", "99", "prog"}, `invalid value "99" for flag -cores: want a number of CPUs, 1 to 64`},
		{[]string{"build", "-o", img, "-cores", "0", "prog"}, `invalid value "0" for flag -cores`},
		{[]string{"build", "-o", img, "-arch", "riscv64", "-earlycon", "pl011,0x9000000", "."}, "-earlycon is for arm64 images; this one is riscv64"},
		{[]string{"build", "-o", img, "-arch", "arm64", "-earlycon", "cdns,0x1000", "prog"}, `-earlycon "cdns,0x1000": want none, pl011,ADDRESS`},
		{[]string{"build", "-o", img, "./no/such/prog"}, "./no/such/prog: no such file or directory"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := dispatch(c.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("gometal %q: exit %d, stderr %q; want 2, %q", c.args, code, stderr.String(), c.want)
		}
	}
	if _, err := os.Stat(img); err == nil {
		t.Error("a failed build left an image behind")
	}
}

func TestBuildKernelOptions(t *testing.T) {
	f, err := parseBuildFlags([]string{"-o", "x.img", "-v", "-cores", "2", "-sched", "random", "-on-exit", "halt", "prog", "a"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"verbose", "cores=2", "sched=random", "onexit=halt"}
	if got := f.kernelOptions(); !slices.Equal(got, want) {
		t.Errorf("kernel options %q, want %q", got, want)
	}
	f, err = parseBuildFlags([]string{"-o", "x.img", "prog"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.kernelOptions(); len(got) != 0 {
		t.Errorf("defaults give kernel options %q, want none (power off, all CPUs)", got)
	}
}

func TestRunImageRefusesProgramFlags(t *testing.T) {
	f, err := parseRunFlags([]string{"-env", "A=b", "app.img"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sealedFlags(f); err == nil || !strings.Contains(err.Error(), "-env: app.img is a built image") {
		t.Errorf("sealedFlags: %v", err)
	}
	f, _ = parseRunFlags([]string{"-cores", "2", "-mem", "1G", "app.img"})
	if err := sealedFlags(f); err != nil {
		t.Errorf("machine flags refused: %v", err)
	}
}
