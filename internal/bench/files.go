package bench

// The file benchmark: bench/files in a host directory shared over
// virtio-9p, on gometal (-mount) and on Debian's Linux with the very same
// QEMU share (the same -fsdev/-device arguments, virtio-mmio transport);
// Linux's /init (the program) loads virtio_mmio and the 9p modules and
// mounts the share at the same guest path with Linux's default options.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gometal.dev/gometal/internal/initramfs"
	"gometal.dev/gometal/internal/linuxkernel"
	"gometal.dev/gometal/internal/qemu"
)

func init() {
	register(&benchmark{name: "files", title: "Files: a -mount'ed host directory",
		plan: func(s *Session) int { return 2 * s.O.Runs * len(s.Kinds) }, run: runFiles})
}

// filesOps are bench/files's measures, with their unit.
var filesOps = []struct{ op, unit, key string }{
	{"seqwrite", "MB/s", "mbs"}, {"seqread", "MB/s", "mbs"}, {"parread", "MB/s", "mbs"},
	{"create", "files/s", "ops"}, {"stat", "files/s", "ops"}, {"delete", "files/s", "ops"},
	{"sqliteinsert", "rows/s", "ops"}, {"sqlitequery", "queries/s", "ops"},
	{"readall", "files/s", "ops"},
}

// NinePModules are the modules Debian's kernel needs for a virtio-9p
// share, in load order (their modules.dep lines in Debian's kernel): 9p needs netfs
// and 9pnet, 9pnet_virtio needs 9pnet. virtio_mmio (the transport QEMU's
// virtio-*-device uses on virt) comes first, from Kernel.VirtioMMIO.
var NinePModules = []string{"kernel/fs/netfs/netfs.ko", "kernel/net/9p/9pnet.ko", "kernel/net/9p/9pnet_virtio.ko", "kernel/fs/9p/9p.ko"}

// filesTag and filesGuest are the share's mount tag and guest path on both
// kernels.
const filesTag, filesGuest = "gm0", "/data"

// filesLinux packs virtio_mmio and the 9p modules for the Linux boot,
// numbered so that the program's name-ordered loading (uioinit.Prepare)
// follows the dependencies; it returns the mappings and their names.
func filesLinux(s *Session) ([]initramfs.Mapping, []string, error) {
	if s.LinuxK.VirtioMMIO == "" {
		return nil, nil, fmt.Errorf("no virtio_mmio module in the Linux cache")
	}
	mods, err := linuxkernel.Modules(s.O.LinuxDir, s.LinuxK, NinePModules, s.O.Log)
	if err != nil {
		return nil, nil, err
	}
	var extras []initramfs.Mapping
	var names []string
	for i, m := range append([]string{s.LinuxK.VirtioMMIO}, mods...) {
		extras = append(extras, initramfs.Mapping{Host: m, Guest: fmt.Sprintf("/modules/%d-%s", i, filepath.Base(m))})
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".xz"))
	}
	return extras, names, nil
}

func runFiles(s *Session) Section {
	kinds, linuxNote := []Kind{Gometal}, ""
	var extras []initramfs.Mapping
	var mods []string
	if len(s.Kinds) > 1 && s.LinuxK != nil {
		var err error
		if extras, mods, err = filesLinux(s); err != nil {
			linuxNote = fmt.Sprintf("\nLinux: not measured: %v\n", err)
		} else {
			kinds = s.Kinds
		}
	} else if len(s.Kinds) == 1 {
		linuxNote = "\nLinux: not measured (run with -linux).\n"
	}
	prog, err := s.M.BuildGoWith("files", "./bench/files", extras)
	if err != nil {
		return notMeasured("building bench/files failed", err)
	}
	mib, small, rows := 256, 2000, 20000
	if s.O.Quick {
		mib, small, rows = 32, 500, 5000
	}
	sm := newSamples()
	linuxMount, linuxCached := "", ""
	for run := 1; run <= s.O.Runs; run++ {
		for _, k := range kinds {
			b, ok := filesBoot(s, k, prog, []string{"-dir", filesGuest, "-mib", fmt.Sprint(mib),
				"-small", fmt.Sprint(small), "-rows", fmt.Sprint(rows)}, fmt.Sprintf("run %d/%d", run, s.O.Runs))
			if !ok {
				for _, o := range filesOps {
					sm.failed(string(k)+"/"+o.op, b.Why())
				}
				continue
			}
			for _, r := range b.Results {
				if Str(r, "op") == "mount" {
					linuxMount = Str(r, "options")
				}
				for _, o := range filesOps {
					if Str(r, "op") == o.op {
						v, _ := Num(r, o.key)
						sm.add(string(k)+"/"+o.op, v)
					}
				}
			}
			sm.add(string(k)+"/wall", b.Wall.Seconds())
			if m := filesReadAll(s, k, prog, sm, fmt.Sprintf("run %d/%d, readall", run, s.O.Runs)); m != "" {
				linuxCached = m
			}
		}
	}
	sec := filesSection(s, kinds, sm, mods, linuxMount, linuxNote, mib, small, rows)
	sec.Body += fmt.Sprintf("\nreadall: a read-only share of %d files (%.1f MiB, in %d directories), mounted cache=loose on both\n"+
		"(gometal: -mount HOST:/data:ro,cache=loose; Linux: `%s`): walked, then 10 goroutines\n"+
		"each stat and read every file, 3 times over; files/s over it all, the walk included.\n",
		filesReadAllFiles, float64(filesReadAllBytes())/(1<<20), filesReadAllDirs, linuxCached)
	return sec
}

// The readall share: files of sizes around page and message boundaries.
const filesReadAllFiles, filesReadAllDirs = 200, 4

var filesReadAllSizes = []int{0, 100, 3000, 4096, 4097, 9000, 20000, 40000, 65537, 70000}

func filesReadAllBytes() int {
	n := 0
	for i := 0; i < filesReadAllFiles; i++ {
		n += filesReadAllSizes[i%len(filesReadAllSizes)]
	}
	return n
}

// filesReadAll boots bench/files -readall 10 once on kernel k, on a fresh
// read-only share mounted cache=loose, into sm; returns Linux's line of
// /proc/mounts for the share.
func filesReadAll(s *Session, k Kind, prog *Prog, sm *samples, what string) string {
	share, err := os.MkdirTemp(s.M.Dir, "share-")
	if err == nil {
		defer os.RemoveAll(share)
		for i := 0; i < filesReadAllFiles && err == nil; i++ {
			dir := filepath.Join(share, fmt.Sprintf("d%d", i%filesReadAllDirs))
			if err = os.MkdirAll(dir, 0o755); err == nil {
				data := []byte(strings.Repeat(fmt.Sprintf("%07d\n", i), filesReadAllSizes[i%len(filesReadAllSizes)]/8+1))
				err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), data[:filesReadAllSizes[i%len(filesReadAllSizes)]], 0o644)
			}
		}
	}
	if err != nil {
		sm.failed(string(k)+"/readall", fmt.Sprintf("no share: %v", err))
		return ""
	}
	args := []string{"-dir", filesGuest, "-readall", "10", "-passes", "3"}
	spec := Spec{Kind: k, Cores: 2, Mem: "1G", Prog: prog, Timeout: 10 * time.Minute, Args: args,
		Mounts: []qemu.Mount{{Host: share, Tag: filesTag, ReadOnly: true}}}
	if k == Gometal {
		spec.KernelArgs = "mount=" + filesTag + ":" + filesGuest + ":ro,cache=loose"
	} else {
		spec.Args = append([]string{"-linux-mount", filesTag}, args...)
	}
	b := s.Boot(spec, what)
	if !b.OK() {
		sm.failed(string(k)+"/readall", b.Why())
		return ""
	}
	mount := ""
	for _, r := range b.Results {
		switch Str(r, "op") {
		case "readall":
			v, _ := Num(r, "ops")
			sm.add(string(k)+"/readall", v)
		case "mount":
			mount = Str(r, "options")
		}
	}
	return mount
}

// filesBoot boots bench/files once on kernel k with a fresh, empty share.
func filesBoot(s *Session, k Kind, prog *Prog, args []string, what string) (*Boot, bool) {
	share, err := os.MkdirTemp(s.M.Dir, "share-")
	if err != nil {
		return &Boot{Err: fmt.Errorf("no share directory: %v", err)}, false
	}
	defer os.RemoveAll(share)
	spec := Spec{Kind: k, Cores: 2, Mem: "1G", Prog: prog, Timeout: 20 * time.Minute, Args: args,
		Mounts: []qemu.Mount{{Host: share, Tag: filesTag}}}
	if k == Gometal {
		spec.KernelArgs = "mount=" + filesTag + ":" + filesGuest
	} else {
		spec.Args = append([]string{"-linux-mount", filesTag}, args...)
	}
	b := s.Boot(spec, what)
	return b, b.OK()
}

func filesSection(s *Session, kinds []Kind, sm *samples, mods []string, linuxMount, linuxNote string, mib, small, rows int) Section {
	var body strings.Builder
	fmt.Fprintf(&body, "bench/files at 2 harts, -m 1G, in a host directory shared over virtio-9p\n"+
		"(QEMU's local backend, security_model=none, virtio-9p-device on virtio-mmio):\n"+
		"a %d MiB file written in 1 MiB writes + fsync, then read back; parread: 4 threads\n"+
		"reading 4 files of a quarter of that size at once, 1 MiB reads; %d files of 1 KiB\n"+
		"created, stat'ed and deleted; %d SQLite rows inserted in transactions of 1000, then\n"+
		"%d point queries. Median of %d run(s), each on a fresh empty share. gometal mounts\n"+
		"the share with -mount (its own 9P2000.L client; README.md, \"Host directories\").\n",
		mib, small, rows, rows/4, s.O.Runs)
	if len(kinds) > 1 {
		fmt.Fprintf(&body, "Linux (%s) loads %s,\nthen mounts the share "+
			"at the same path as `mount -t 9p -o trans=virtio,version=9p2000.L gm0 /data`\nwould, "+
			"with no other option, so with the defaults a user gets; /proc/mounts then reads\n"+
			"`%s`.\nLinux shows cache= and msize= only where they differ from its defaults: cache=none\n"+
			"(every read, write and lookup goes to the host) and msize 128 KiB plus the 9P header.\n",
			s.LinuxK.Package, strings.Join(mods, ", "), linuxMount)
	}
	body.WriteString(linuxNote + "\n")
	header := []string{"measure", "unit", "gometal"}
	if len(kinds) > 1 {
		header = append(header, "Linux", "gometal/Linux")
	}
	var rowsOut [][]string
	for _, o := range filesOps {
		row := []string{o.op, o.unit, sm.cell("gometal/"+o.op, "%.0f")}
		if len(kinds) > 1 {
			row = append(row, sm.cell("linux/"+o.op, "%.0f"), sm.ratio("gometal/"+o.op, "linux/"+o.op))
		}
		rowsOut = append(rowsOut, row)
	}
	wall := []string{"boot wall time", "s", sm.cell("gometal/wall", "%.1f")}
	if len(kinds) > 1 {
		wall = append(wall, sm.cell("linux/wall", "%.1f"), "")
	}
	body.WriteString(table(header, append(rowsOut, wall)))
	note := fmt.Sprintf("files on a 9p share (gometal): seq write %s MB/s, read %s MB/s, SQLite %s inserts/s",
		sm.cell("gometal/seqwrite", "%.0f"), sm.cell("gometal/seqread", "%.0f"), sm.cell("gometal/sqliteinsert", "%.0f"))
	if len(kinds) > 1 {
		note += fmt.Sprintf("; gometal/Linux: seq write %s, read %s, SQLite inserts %s",
			sm.ratio("gometal/seqwrite", "linux/seqwrite"), sm.ratio("gometal/seqread", "linux/seqread"),
			sm.ratio("gometal/sqliteinsert", "linux/sqliteinsert"))
	}
	return Section{Body: body.String(), Notes: []string{note}}
}
