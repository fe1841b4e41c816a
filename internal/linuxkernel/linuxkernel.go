// Package linuxkernel fetches and caches the Linux kernel that `gometal
// bench` boots for comparison: Debian's riscv64 kernel package from the
// trixie suite (linux-image-riscv64 and the linux-image-VERSION-riscv64
// package it depends on).
//
// Nothing about the mirror is written into the repository: its URL is read
// at run time from this machine's apt configuration (/etc/apt/sources.list
// and /etc/apt/sources.list.d/*). apt-get runs under a private
// configuration (its own sources file, package lists, cache and status
// file, architecture riscv64), so the machine's apt state is not touched.
// The package is unpacked with dpkg-deb into the cache directory (by
// default ~/.cache/gometal/linux/) and only /boot is kept: the uncompressed
// vmlinux, which QEMU boots directly, and the config-* file.
package linuxkernel

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"gometal.dev/gometal/internal/machine"
)

// Suite is the Debian release fetched from.
const (
	Suite     = "trixie"
	EnvKernel = "GOMETAL_LINUX_KERNEL" // an explicit vmlinux skips the fetch
)

// Arch and MetaPkg name what is fetched: the kernel for the default
// machine's architecture (bench compares on riscv64 so far), by the names
// the machine table gives it.
var (
	Arch    = machine.Default().Arch.Name
	MetaPkg = machine.Default().Arch.LinuxImage
)

// SetArch makes Fetch and Modules fetch a's kernel (bench -arch). The
// cache directory is shared: each package unpacks under its own name.
func SetArch(a *machine.Arch) { Arch, MetaPkg = a.Name, a.LinuxImage }

// Kernel is a fetched kernel.
type Kernel struct {
	Package string // e.g. linux-image-6.12.107+deb13-riscv64
	Version string // the Debian package version
	Image   string // path to vmlinux
	Config  string // path to config-*, "" if unknown
	Mirror  string // where it came from
	// VirtioMMIO is the virtio-mmio transport module (CONFIG_VIRTIO_MMIO=m
	// in Debian's kernel): without it Linux sees no virtio device on QEMU
	// virt.
	VirtioMMIO string
}

// VirtioMMIOModule is where the transport module lies under /usr/lib/modules/VERSION.
const VirtioMMIOModule = "kernel/drivers/virtio/virtio_mmio.ko"

// DefaultCacheDir is ~/.cache/gometal/linux (XDG_CACHE_HOME respected).
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "gometal", "linux"), nil
}

// Fetch returns the cached kernel, downloading it first when the cache is
// empty. log receives one line per slow step.
func Fetch(cacheDir string, log io.Writer) (*Kernel, error) {
	if p := os.Getenv(EnvKernel); p != "" {
		k := &Kernel{Package: "(from $" + EnvKernel + ")", Image: p}
		if cfg, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "config-*")); len(cfg) > 0 {
			k.Config = cfg[0]
		}
		return k, nil
	}
	if k, err := cached(cacheDir); err == nil {
		return k, nil
	}
	for _, tool := range []string{"apt-get", "apt-cache", "dpkg-deb", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("fetching the Linux kernel needs %s (Debian's apt/dpkg tools): %v", tool, err)
		}
	}
	mirror, err := Mirror()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "fetching Debian %s %s from %s (cached in %s)\n", Suite, MetaPkg, mirror, cacheDir)
	apt := filepath.Join(cacheDir, "apt")
	for _, d := range []string{"lists/partial", "cache/archives/partial", "parts", "prefs"} {
		if err := os.MkdirAll(filepath.Join(apt, d), 0o755); err != nil {
			return nil, err
		}
	}
	sources := filepath.Join(apt, "sources.list")
	line := fmt.Sprintf("deb [arch=%s] %s %s main\n", Arch, mirror, Suite)
	if err := os.WriteFile(sources, []byte(line), 0o644); err != nil {
		return nil, err
	}
	status := filepath.Join(apt, "status")
	if err := os.WriteFile(status, nil, 0o644); err != nil {
		return nil, err
	}
	opts := aptOptions(apt)
	if _, err := command(cacheDir, "apt-get", append(opts, "-q", "update")...); err != nil {
		return nil, err
	}
	show, err := command(cacheDir, "apt-cache", append(opts, "show", MetaPkg)...)
	if err != nil {
		return nil, err
	}
	pkg, err := dependency(show)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "downloading %s\n", pkg)
	dl := filepath.Join(cacheDir, "download")
	os.RemoveAll(dl)
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dl)
	if _, err := command(dl, "apt-get", append(opts, "-q", "download", pkg)...); err != nil {
		return nil, err
	}
	debs, _ := filepath.Glob(filepath.Join(dl, pkg+"_*.deb"))
	if len(debs) != 1 {
		return nil, fmt.Errorf("apt-get download %s left %d .deb files", pkg, len(debs))
	}
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(debs[0]), pkg+"_"), "_"+Arch+".deb")
	version = strings.ReplaceAll(version, "%3a", ":")
	dest := filepath.Join(cacheDir, pkg)
	os.RemoveAll(dest)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	// Only /boot is needed, and the one module the console-port benchmark
	// loads; all the modules would be hundreds of MiB.
	sh := `dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" --wildcards './boot/*' './usr/lib/modules/*/` + VirtioMMIOModule + `*'`
	if _, err := command(dl, "sh", "-c", sh, "sh", debs[0], dest); err != nil {
		return nil, err
	}
	meta := fmt.Sprintf("package=%s\nversion=%s\nmirror=%s\n", pkg, version, mirror)
	if err := os.WriteFile(filepath.Join(dest, "META"), []byte(meta), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cacheDir, "current"), []byte(pkg+"\n"), 0o644); err != nil {
		return nil, err
	}
	return cached(cacheDir)
}

// aptOptions point apt-get and apt-cache at the private configuration
// under apt (see the package comment).
func aptOptions(apt string) []string {
	return []string{
		"-o", "APT::Architecture=" + Arch,
		"-o", "APT::Architectures::=" + Arch,
		"-o", "Dir::Etc::SourceList=" + filepath.Join(apt, "sources.list"),
		"-o", "Dir::Etc::SourceParts=" + filepath.Join(apt, "parts"),
		"-o", "Dir::Etc::PreferencesParts=" + filepath.Join(apt, "prefs"),
		"-o", "Dir::State::Lists=" + filepath.Join(apt, "lists"),
		"-o", "Dir::State::Status=" + filepath.Join(apt, "status"),
		"-o", "Dir::Cache=" + filepath.Join(apt, "cache"),
		"-o", "APT::Sandbox::User=root", // download into a directory _apt cannot write
		"-o", "Acquire::Languages=none",
	}
}

// cached returns the kernel recorded in cacheDir/current.
func cached(cacheDir string) (*Kernel, error) {
	cur, err := os.ReadFile(filepath.Join(cacheDir, "current"))
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cacheDir, strings.TrimSpace(string(cur)))
	meta, err := os.ReadFile(filepath.Join(dir, "META"))
	if err != nil {
		return nil, err
	}
	k := &Kernel{}
	for _, l := range strings.Split(string(meta), "\n") {
		key, val, _ := strings.Cut(l, "=")
		switch key {
		case "package":
			k.Package = val
		case "version":
			k.Version = val
		case "mirror":
			k.Mirror = val
		}
	}
	imgs, _ := filepath.Glob(filepath.Join(dir, "boot", "vmlinu[xz]-*"))
	if len(imgs) == 0 {
		return nil, fmt.Errorf("no vmlinux in %s", dir)
	}
	k.Image = imgs[0]
	if cfg, _ := filepath.Glob(filepath.Join(dir, "boot", "config-*")); len(cfg) > 0 {
		k.Config = cfg[0]
	}
	mods, _ := filepath.Glob(filepath.Join(dir, "usr", "lib", "modules", "*", VirtioMMIOModule+"*"))
	if len(mods) == 0 {
		return nil, fmt.Errorf("no virtio_mmio module in %s (an older cache): fetching again", dir)
	}
	k.VirtioMMIO = mods[0]
	return k, nil
}

// depRe matches the versioned kernel package for Arch (read at each call:
// SetArch may change it).
func depRe() *regexp.Regexp {
	return regexp.MustCompile(`(linux-image-[^ ,()]+-` + regexp.QuoteMeta(Arch) + `)\b`)
}

// dependency finds the versioned image package the meta-package depends
// on; with several versions listed, the first Depends line wins (apt-cache
// show prints the candidate first).
func dependency(show string) (string, error) {
	for _, l := range strings.Split(show, "\n") {
		if strings.HasPrefix(l, "Depends:") {
			if m := depRe().FindStringSubmatch(l); m != nil {
				return m[1], nil
			}
		}
	}
	return "", fmt.Errorf("apt-cache show %s: no linux-image dependency found", MetaPkg)
}

func command(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		tail := strings.TrimSpace(string(out))
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return string(out), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args[len(args)-min(2, len(args)):], " "), err, tail)
	}
	return string(out), nil
}

// SourceFiles are where apt's sources are read from.
var SourceFiles = func() []string {
	files := []string{"/etc/apt/sources.list"}
	more, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	files = append(files, more...)
	more, _ = filepath.Glob("/etc/apt/sources.list.d/*.sources")
	return append(files, more...)
}

// Mirror returns the Debian archive URL configured on this machine: the
// first URI of a "deb" source whose path ends in /debian (not the
// security archive, not third-party repositories).
func Mirror() (string, error) {
	var uris []string
	for _, f := range SourceFiles() {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		uris = append(uris, ParseSources(string(data), strings.HasSuffix(f, ".sources"))...)
	}
	for _, u := range uris {
		if strings.HasSuffix(strings.TrimRight(u, "/"), "/debian") {
			return strings.TrimRight(u, "/"), nil
		}
	}
	return "", errors.New("no Debian mirror (a deb source ending in /debian) in /etc/apt/sources.list or /etc/apt/sources.list.d/")
}

// ParseSources returns the URIs of "deb" entries in one-line (sources.list)
// or deb822 (.sources) format.
func ParseSources(text string, deb822 bool) []string {
	var uris []string
	if !deb822 {
		sc := bufio.NewScanner(strings.NewReader(text))
		for sc.Scan() {
			f := strings.Fields(strings.SplitN(sc.Text(), "#", 2)[0])
			if len(f) < 2 || f[0] != "deb" {
				continue
			}
			i := 1
			if strings.HasPrefix(f[1], "[") { // options: [arch=... signed-by=...]
				for i < len(f) && !strings.HasSuffix(f[i], "]") {
					i++
				}
				i++
			}
			if i < len(f) {
				uris = append(uris, f[i])
			}
		}
		return uris
	}
	for _, stanza := range regexp.MustCompile(`\n\s*\n`).Split(text, -1) {
		fields := map[string]string{}
		for _, l := range strings.Split(stanza, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			k, v, ok := strings.Cut(l, ":")
			if ok && !strings.HasPrefix(k, " ") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if en := strings.ToLower(fields["enabled"]); en == "no" {
			continue
		}
		if !strings.Contains(" "+fields["types"]+" ", " deb ") {
			continue
		}
		uris = append(uris, strings.Fields(fields["uris"])...)
	}
	return uris
}

// ConfigCheck is one kernel option the benchmark depends on.
type ConfigCheck struct {
	Option, Why, Value string // Value: "y", "m", or "" (not set)
}

// Needed lists what booting the benchmark initramfs needs built in on
// riscv64 (no modules can be loaded: the initramfs holds only /init),
// then what the stdio, files and net groups load as modules.
var Needed = append([]ConfigCheck{
	{Option: "CONFIG_SERIAL_8250", Why: "the virt UART (ns16550a)"},
	{Option: "CONFIG_SERIAL_8250_CONSOLE", Why: "console=ttyS0"},
	{Option: "CONFIG_SERIAL_OF_PLATFORM", Why: "finding the UART in the device tree"},
	{Option: "CONFIG_BLK_DEV_INITRD", Why: "the initramfs with the benchmark as /init"},
	{Option: "CONFIG_RISCV_SBI", Why: "SBI: timer, IPIs, HSM, and the SRST poweroff"},
	{Option: "CONFIG_POWER_RESET_SYSCON_POWEROFF", Why: "poweroff through virt's test device (the SBI path is the fallback)"},
	{Option: "CONFIG_RTC_DRV_GOLDFISH", Why: "the wall clock (virt's goldfish RTC)"},
}, neededModules...)

// NeededArm64 is Needed for arm64 virt (PL011, PSCI, GIC, the generic timer).
var NeededArm64 = append([]ConfigCheck{
	{Option: "CONFIG_SERIAL_AMBA_PL011", Why: "the virt UART (PL011)"},
	{Option: "CONFIG_SERIAL_AMBA_PL011_CONSOLE", Why: "console=ttyAMA0"},
	{Option: "CONFIG_BLK_DEV_INITRD", Why: "the initramfs with the benchmark as /init"},
	{Option: "CONFIG_ARM_PSCI_FW", Why: "PSCI: starting CPUs, and the SYSTEM_OFF poweroff"},
	{Option: "CONFIG_ARM_GIC_V3", Why: "the interrupt controller (virt,gic-version=3)"},
	{Option: "CONFIG_ARM_ARCH_TIMER", Why: "the generic timer"},
	{Option: "CONFIG_RTC_DRV_PL031", Why: "the wall clock (virt's PL031 RTC)"},
}, neededModules...)

// neededModules are the options of the groups that load modules.
var neededModules = []ConfigCheck{
	{Option: "CONFIG_VIRTIO_CONSOLE", Why: "stdio benchmark: the console ports"},
	{Option: "CONFIG_VIRTIO_MMIO", Why: "stdio benchmark: virtio on virt (a module: the stdio initramfs carries it)"},
	{Option: "CONFIG_MODULE_DECOMPRESS", Why: "stdio benchmark: loading the module as shipped (.ko.xz)"},
	{Option: "CONFIG_NET_9P_VIRTIO", Why: "files benchmark: the virtio-9p transport (a module: the files initramfs carries it)"},
	{Option: "CONFIG_9P_FS", Why: "files benchmark: the 9p file system (a module, as are netfs and 9pnet)"},
	{Option: "CONFIG_VIRTIO_NET", Why: "net benchmark: virtio-net (a module, as are failover and net_failover: the net initramfs carries them)"},
	{Option: "CONFIG_INET", Why: "net benchmark: TCP/IPv4 (lo and eth0 brought up by the program)"},
}

// NeededFor is the list for the architecture a (GOARCH name).
func NeededFor(a string) []ConfigCheck {
	if a == "arm64" {
		return NeededArm64
	}
	return Needed
}

// CheckConfig reads a kernel config file and fills in each option's value.
func CheckConfig(path string) ([]ConfigCheck, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "CONFIG_") {
			vals[k] = v
		}
	}
	out := append([]ConfigCheck(nil), NeededFor(Arch)...)
	for i := range out {
		out[i].Value = vals[out[i].Option]
	}
	return out, nil
}

// LoadedSize is the memory a kernel image occupies once loaded: for an ELF
// the sum of its PT_LOAD segments' memory sizes; for a RISC-V or arm64
// Linux Image (what Debian ships as vmlinux-*/vmlinuz-*: a PE/EFI-stub image
// with the boot header; gometal's arm64 kernel is one too) the header's
// image_size field, which includes the BSS.
func LoadedSize(path string) (uint64, error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		var n uint64
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				n += p.Memsz
			}
		}
		return n, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h [64]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return 0, err
	}
	if string(h[48:53]) != "RISCV" && string(h[56:60]) != "RSC\x05" && string(h[56:60]) != "ARM\x64" {
		return 0, fmt.Errorf("%s: neither ELF nor a RISC-V or arm64 Image", path)
	}
	return binary.LittleEndian.Uint64(h[16:24]), nil
}
