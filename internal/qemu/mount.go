package qemu

// Host directories shared with the guest over virtio-9p.

import (
	"fmt"
	"strings"

	"gometal.dev/gometal/internal/machine"
)

// Mount is a host directory the guest sees through a virtio-9p device
// whose mount tag is Tag. The share uses QEMU's local backend with
// security_model=none: files the guest creates belong to the user running
// QEMU with the modes the guest gave them, so the host can use them as any
// other file (with "mapped" they would be 0600 and carry the guest's
// owner in extended attributes). The backend opens every path below the
// shared directory without following symlinks, so the guest cannot reach
// anything outside it.
type Mount struct {
	Host     string // the host directory (QEMU needs it absolute or relative to its cwd)
	Tag      string // the virtio-9p mount tag the kernel looks for
	ReadOnly bool   // QEMU refuses every write
}

// mountArgs are the -fsdev/-device pairs for the mounts on transport t.
func mountArgs(mounts []Mount, t machine.Transport) []string {
	var args []string
	for i, m := range mounts {
		id := fmt.Sprintf("fs%d", i)
		fsdev := "local,id=" + id + ",path=" + escapeComma(m.Host) + ",security_model=none"
		if m.ReadOnly {
			fsdev += ",readonly=on"
		}
		args = append(args, "-fsdev", fsdev, "-device", t.Device("virtio-9p")+",fsdev="+id+",mount_tag="+m.Tag)
	}
	return args
}

// escapeComma doubles commas, QEMU's quoting inside an option value.
func escapeComma(s string) string { return strings.ReplaceAll(s, ",", ",,") }
