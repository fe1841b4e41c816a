package linuxkernel

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// UIOModules are the modules Linux needs for UIO on PCI devices, in load
// order (uio_pci_generic depends on uio), relative to /usr/lib/modules/VERSION.
var UIOModules = []string{"kernel/drivers/uio/uio.ko", "kernel/drivers/uio/uio_pci_generic.ko"}

// Modules returns the host paths of the given modules (paths relative to
// /usr/lib/modules/VERSION, without .xz) of the cached kernel k, extracting
// them from the kernel package first if the cache lacks them (Fetch keeps
// only /boot and virtio_mmio; this downloads the package once more).
func Modules(cacheDir string, k *Kernel, mods []string, log io.Writer) ([]string, error) {
	dir := filepath.Join(cacheDir, k.Package)
	find := func() ([]string, bool) {
		var out []string
		for _, m := range mods {
			got, _ := filepath.Glob(filepath.Join(dir, "usr", "lib", "modules", "*", m+"*"))
			if len(got) == 0 {
				return nil, false
			}
			out = append(out, got[0])
		}
		return out, true
	}
	if out, ok := find(); ok {
		return out, nil
	}
	if !strings.HasPrefix(k.Package, "linux-image-") {
		return nil, fmt.Errorf("linux kernel %s: not from the package cache, so no modules", k.Package)
	}
	fmt.Fprintf(log, "downloading %s again for modules %s\n", k.Package, strings.Join(mods, ", "))
	apt := filepath.Join(cacheDir, "apt")
	dl := filepath.Join(cacheDir, "download-modules")
	os.RemoveAll(dl)
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dl)
	if _, err := command(dl, "apt-get", append(aptOptions(apt), "-q", "download", k.Package)...); err != nil {
		return nil, err
	}
	debs, _ := filepath.Glob(filepath.Join(dl, k.Package+"_*.deb"))
	if len(debs) != 1 {
		return nil, fmt.Errorf("apt-get download %s left %d .deb files", k.Package, len(debs))
	}
	sh := `deb="$1"; dest="$2"; shift 2; dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --wildcards "$@"`
	args := []string{"-c", sh, "sh", debs[0], dir}
	for _, m := range mods {
		args = append(args, "./usr/lib/modules/*/"+m+"*")
	}
	if _, err := command(dl, "sh", args...); err != nil {
		return nil, err
	}
	if out, ok := find(); ok {
		return out, nil
	}
	return nil, fmt.Errorf("%s has no %s", k.Package, strings.Join(mods, ", "))
}

// VirtioNetModules are what Linux needs for virtio-net, in load order
// (virtio_net depends on net_failover, which depends on failover); the
// virtio-mmio transport (Kernel.VirtioMMIO) comes first.
var VirtioNetModules = []string{"kernel/net/core/failover.ko", "kernel/drivers/net/net_failover.ko", "kernel/drivers/net/virtio_net.ko"}
