package main

// bench -tap: the network benchmark also measures bulk TCP through a tap
// device, and that tap lives in a network namespace the bench makes for
// itself, so the traffic never touches the host's own network. The bench
// makes the namespace (root: `ip netns add`, `ip tuntap add`), runs itself
// again inside it (`ip netns exec`; QEMU must open the tap in the tap's
// namespace, and the host's load generator must reach 10.0.2.15 there),
// and removes it. QEMU's user network works inside as well, so the other
// boots run there unchanged. Debian's Linux kernel is fetched before, as
// the namespace has no route to the mirror.

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"gometal.dev/gometal/internal/bench"
)

// benchNSEnv names the namespace the bench runs in (set for the inner run).
const benchNSEnv = "GOMETAL_BENCH_NETNS"

func inBenchNS() bool { return os.Getenv(benchNSEnv) != "" }

// runInBenchNS makes the namespace and its tap (10.0.2.2/24 on the host's
// side; multiqueue with mq), runs `gometal bench args...` inside, and
// removes the namespace.
func runInBenchNS(args []string, mq bool) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("bench: -tap needs root (a network namespace and a tap device)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("bench: -tap needs ip(8): %v", err)
	}
	name := fmt.Sprintf("gmbench%d", os.Getpid())
	ip := func(a ...string) error {
		if out, err := exec.Command("ip", a...).CombinedOutput(); err != nil {
			return fmt.Errorf("bench: ip %s: %v: %s", strings.Join(a, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := ip("netns", "add", name); err != nil {
		return err
	}
	defer ip("netns", "del", name)
	tuntap := []string{"-n", name, "tuntap", "add", "dev", bench.TapDevice, "mode", "tap", "vnet_hdr"}
	if mq {
		tuntap = append(tuntap, "multi_queue")
	}
	for _, step := range [][]string{
		{"-n", name, "link", "set", "lo", "up"},
		tuntap,
		{"-n", name, "addr", "add", "10.0.2.2/24", "dev", bench.TapDevice},
		{"-n", name, "link", "set", bench.TapDevice, "up"},
	} {
		if err := ip(step...); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", name, self, "bench"}, args...)...)
	cmd.Env = append(os.Environ(), benchNSEnv+"="+name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bench in network namespace %s: %v", name, err)
	}
	return nil
}
