package bench

// The file benchmark: bench/files in a host directory mounted with
// -mount (virtio-9p), on gometal. gometal works on its in-memory copy of
// the share and writes it back at exit, so the figures are those of its
// in-memory tree; the boot's wall time includes the write-back.

import (
	"fmt"
	"os"
	"strings"
	"time"

	"gometal.dev/gometal/internal/qemu"
)

func init() {
	register(&benchmark{name: "files", title: "Files: a -mount'ed host directory",
		plan: func(s *Session) int { return s.O.Runs }, run: runFiles})
}

// filesOps are bench/files's measures, with their unit.
var filesOps = []struct{ op, unit, key string }{
	{"seqwrite", "MB/s", "mbs"}, {"seqread", "MB/s", "mbs"},
	{"create", "files/s", "ops"}, {"stat", "files/s", "ops"}, {"delete", "files/s", "ops"},
	{"sqliteinsert", "rows/s", "ops"}, {"sqlitequery", "queries/s", "ops"},
}

func runFiles(s *Session) Section {
	prog, err := s.M.BuildGo("files", "./bench/files")
	if err != nil {
		return notMeasured("building bench/files failed", err)
	}
	mib, small, rows := 256, 2000, 20000
	if s.O.Quick {
		mib, small, rows = 32, 500, 5000
	}
	sm := newSamples()
	for run := 1; run <= s.O.Runs; run++ {
		share, err := os.MkdirTemp(s.M.Dir, "share-")
		if err != nil {
			return notMeasured("no share directory", err)
		}
		spec := Spec{Kind: Gometal, Cores: 2, Mem: "1G", Prog: prog, Timeout: 10 * time.Minute,
			Args:   []string{"-dir", "/data", "-mib", fmt.Sprint(mib), "-small", fmt.Sprint(small), "-rows", fmt.Sprint(rows)},
			Mounts: []qemu.Mount{{Host: share, Tag: "gm0"}}, KernelArgs: "mount=gm0:/data"}
		b := s.Boot(spec, fmt.Sprintf("run %d/%d", run, s.O.Runs))
		os.RemoveAll(share)
		if !b.OK() {
			sm.failed("all", b.Why())
			continue
		}
		for _, r := range b.Results {
			for _, o := range filesOps {
				if Str(r, "op") == o.op {
					v, _ := Num(r, o.key)
					sm.add(o.op, v)
				}
			}
		}
		sm.add("wall", b.Wall.Seconds())
	}
	var body strings.Builder
	fmt.Fprintf(&body, "bench/files at 2 harts, -m 1G, in a host directory mounted with -mount (virtio-9p):\n"+
		"a %d MiB file written in 1 MiB writes + fsync, then read back; %d files of 1 KiB\n"+
		"created, stat'ed and deleted; %d SQLite rows inserted in transactions of 1000, then\n"+
		"%d point queries. Median of the runs. gometal works on its in-memory copy of the\n"+
		"share and writes changes back at fsync and exit, so the figures are the in-memory\n"+
		"tree's plus those write-backs. Linux: not measured (see below).\n\n", mib, small, rows, rows/4)
	var rowsOut [][]string
	for _, o := range filesOps {
		rowsOut = append(rowsOut, []string{o.op, o.unit, sm.cell(o.op, "%.0f")})
	}
	rowsOut = append(rowsOut, []string{"boot wall time", "s", sm.cell("wall", "%.1f")})
	body.WriteString(table([]string{"measure", "unit", "gometal"}, rowsOut))
	body.WriteString("\nLinux: not measured. The comparison needs Debian's 9p modules (netfs, 9pnet,\n" +
		"9pnet_virtio, 9p) in the Linux initramfs and a mount in its /init\n" +
		"(../shared/docs/linux-baseline.md); that harness is not written yet.\n")
	notes := []string{fmt.Sprintf("files on a -mount share (gometal, in memory): seq write %s MB/s, read %s MB/s, SQLite %s inserts/s",
		sm.cell("seqwrite", "%.0f"), sm.cell("seqread", "%.0f"), sm.cell("sqliteinsert", "%.0f"))}
	return Section{Body: body.String(), Notes: notes}
}
