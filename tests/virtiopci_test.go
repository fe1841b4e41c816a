package tests

// virtio over PCI Express: `gometal run -virtio pci` puts the stdio
// console, the entropy device, a -mount share and the -net device on the
// PCIe bus as virtio-*-pci functions instead of virtio-mmio slots. One
// program (tests/progs/virtiopci) uses each of them, on riscv64 and arm64;
// the kernel's boot log names the functions it drives. (UEFI with ACPI
// tables only finds virtio-pci the same way: TestImageArm64Firmware.)

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestVirtioPCI(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go serveUpper(ln)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	forArches(t, func(t *testing.T, a *arch) {
		t.Parallel()
		bootVirtioPCI(t, a.prog("virtiopci"), port)
	})
}

// bootVirtioPCI boots prog with every virtio device on PCI and checks
// that each one worked.
func bootVirtioPCI(t *testing.T, prog, port string) {
	share := t.TempDir()
	writeFiles(t, share, map[string]string{"in.txt": "over 9p\n"})
	bootSem <- struct{}{}
	defer func() { <-bootSem }()
	ctx, cancel := context.WithTimeout(context.Background(), guestTimeout+30*time.Second)
	defer cancel()
	args := []string{"run", "-virtio", "pci", "-v", "-cores", "2", "-timeout", strconv.Itoa(int(guestTimeout.Seconds())) + "s",
		"-net", "-mount", share + ":/share", prog, port}
	cmd := exec.CommandContext(ctx, gometal, args...)
	cmd.Dir = modRoot
	cmd.Env = gometalEnv()
	cmd.WaitDelay = 5 * time.Second
	b, err := cmd.CombinedOutput()
	out := string(b)
	status, err := exitStatus(err)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"-device virtio-serial-pci", "-device virtio-9p-pci", "-device virtio-net-pci", "-device virtio-rng-pci",
		"Console, INTx pin 1 on line Some(", "_9P, INTx pin 1 on line Some(", "Network, INTx pin 1 on line Some(",
		"keyed from virtio-rng", "virtiopci: hello over the console", "PASS virtiopci",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the output", want)
		}
	}
	if status != 0 || t.Failed() {
		t.Fatalf("status %d\n%s", status, tail(out, 60))
	}
	if got := mustRead(t, filepath.Join(share, "out.txt")); got != "written by the guest\n" {
		t.Errorf("out.txt on the share: %q", got)
	}
}
