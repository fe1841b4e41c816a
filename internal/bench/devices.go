package bench

import (
	"fmt"
	"path/filepath"
	"strings"

	"gometal.dev/gometal/internal/devices"
	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/linuxkernel"
)

func init() {
	register(&benchmark{name: "devices", title: "Devices through UIO: a Go driver of QEMU's edu PCI device",
		plan: func(s *Session) int { return s.O.Runs * 2 * len(s.Kinds) }, run: runDevices})
}

// runDevices boots bench/devices with the edu device on 1 and N harts, on
// gometal (-device edu) and on Linux (uio + uio_pci_generic, loaded by the
// program as /init).
func runDevices(s *Session) Section {
	sel, err := devices.Select([]string{"edu"})
	if err != nil {
		return notMeasured("the edu device", err)
	}
	kinds, linuxNote := []Kind{Gometal}, ""
	var extras []initramfs.Mapping
	if len(s.Kinds) > 1 && s.LinuxK != nil {
		mods, err := linuxkernel.Modules(s.O.LinuxDir, s.LinuxK, linuxkernel.UIOModules, s.O.Log)
		if err != nil {
			linuxNote = fmt.Sprintf("\nLinux: not measured: %v\n", err)
		} else {
			kinds = s.Kinds
			for _, m := range mods {
				extras = append(extras, initramfs.Mapping{Host: m, Guest: "/modules/" + filepath.Base(m)})
			}
			linuxNote = fmt.Sprintf("\nLinux loads %s (from %s) and binds edu to uio_pci_generic before measuring.\n",
				strings.Join(baseNames(mods), " and "), s.LinuxK.Package)
		}
	}
	prog, err := s.M.BuildGoWith("devices", "./bench/devices", extras)
	if err != nil {
		return notMeasured("building bench/devices failed", err)
	}
	args := []string{"-n", "10000", "-regs", "200000"}
	if s.O.Quick {
		args = []string{"-n", "2000", "-regs", "50000"}
	}
	sm, harts := deviceRuns(s, sel, kinds, prog, args, []string{"p50_us", "p99_us", "max_us", "per_s", "writes_per_s", "reads_per_s"},
		func(res map[string]any) string { return Str(res, "what") + "/" + Str(res, "load") })
	var body strings.Builder
	fmt.Fprintf(&body, "bench/devices (`%s`) drives QEMU's edu device (`-device edu,dma_mask=0xffffffff`)\nthrough UIO with the gometal.dev/gometal/uio package; medians of %d run(s).\nInterrupt response: edu raises, the goroutine blocked in uio.Wait runs (µs);\n\"gc\": a goroutine per hart allocates throughout. Events: interrupt round trips\n(raise, wake, acknowledge, re-enable) per second. Registers: 32-bit MMIO accesses\nper second.\n%s\n", strings.Join(args, " "), s.O.Runs, linuxNote)
	header := []string{"kernel", "harts", "irq idle p50/p99/max µs", "irq under GC p50/p99/max µs", "events/s idle", "events/s GC", "reg writes/s", "reg reads/s"}
	var rows [][]string
	for _, k := range kinds {
		for _, c := range harts {
			p := fmt.Sprintf("%s/c%d/", k, c)
			lat := func(load string) string {
				return fmt.Sprintf("%s / %s / %s", sm.cell(p+"irq/"+load+"/p50_us", "%.0f"), sm.cell(p+"irq/"+load+"/p99_us", "%.0f"), sm.cell(p+"irq/"+load+"/max_us", "%.0f"))
			}
			rows = append(rows, []string{string(k), fmt.Sprint(c), lat("idle"), lat("gc"),
				sm.cell(p+"events/idle/per_s", "%.0f"), sm.cell(p+"events/gc/per_s", "%.0f"),
				sm.cell(p+"regwrite//writes_per_s", "%.0f"), sm.cell(p+"regwrite//reads_per_s", "%.0f")})
		}
	}
	body.WriteString(table(header, rows))
	return Section{Body: body.String()}
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

// deviceRuns boots prog with the selected devices on 1 and N harts under
// each kernel, s.O.Runs times, and collects the given fields of its
// results under "KIND/cN/" + key(result) + "/" + field.
func deviceRuns(s *Session, sel devices.Selection, kinds []Kind, prog *Prog, args, fields []string, key func(map[string]any) string) (*samples, []int) {
	harts := []int{1, s.MaxCores()}
	if harts[1] == 1 {
		harts = harts[:1]
	}
	sm := newSamples()
	for r := 1; r <= s.O.Runs; r++ {
		for _, c := range harts {
			for _, k := range kinds {
				spec := Spec{Kind: k, Cores: c, Prog: prog, Args: args, Timeout: bootTimeout(s), QEMU: sel.QEMU}
				if k == Gometal {
					spec.KernelArgs = strings.Join(sel.Kernel, " ")
				}
				b := s.Boot(spec, fmt.Sprintf("cores=%d run %d/%d", c, r, s.O.Runs))
				if !b.OK() {
					sm.failed(fmt.Sprintf("%s/c%d", k, c), b.Why())
				}
				for _, res := range b.Results {
					prefix := fmt.Sprintf("%s/c%d/%s/", k, c, key(res))
					for _, f := range fields {
						if v, ok := Num(res, f); ok {
							sm.add(prefix+f, v)
						}
					}
				}
			}
		}
	}
	return sm, harts
}
