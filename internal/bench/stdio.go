package bench

// The standard-streams benchmark: how fast a program's stdin and stdout
// move data (bench/stdio copies stdin to stdout), the path a filter such
// as jq takes with `gometal run prog < in > out`.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"gometal.dev/gometal/internal/initramfs"
)

func init() {
	register(&benchmark{name: "stdio", title: "Standard streams: stdin to stdout throughput",
		plan: func(s *Session) int { return s.O.Runs * len(stdioModes) * len(s.Kinds) }, run: runStdio})
}

// stdioModes are bench/stdio's modes: both directions, and each alone.
var stdioModes = []string{"copy", "in", "out"}

// countingHash counts and hashes what the program writes to stdout.
type countingHash struct {
	n int64
	h hash.Hash
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

func runStdio(s *Session) Section {
	// Linux sees the console ports only through Debian's virtio_mmio
	// module, which the initramfs then carries (gometal ignores it).
	kinds, linuxNote := []Kind{Gometal}, ""
	var extras []initramfs.Mapping
	if len(s.Kinds) > 1 && s.LinuxK != nil && s.LinuxK.VirtioMMIO != "" {
		kinds = s.Kinds
		extras = []initramfs.Mapping{{Host: s.LinuxK.VirtioMMIO, Guest: linuxModulePath(s.LinuxK.VirtioMMIO)}}
	} else if len(s.Kinds) > 1 {
		linuxNote = "\nLinux: not measured: no virtio_mmio module in the Linux cache (Debian builds the\nvirtio-mmio transport as a module, and without it Linux sees no console port).\n"
	}
	prog, err := s.M.BuildGoWith("stdio", "./bench/stdio", extras)
	if err != nil {
		return notMeasured("building bench/stdio failed", err)
	}
	mib := 64
	if s.O.Quick {
		mib = 16
	}
	data := make([]byte, mib<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	want := sha256.Sum256(data)
	sm := newSamples()
	key := func(k Kind, mode string) string { return fmt.Sprintf("%s/%s", k, mode) }
	for run := 1; run <= s.O.Runs; run++ {
		for _, mode := range stdioModes {
			for _, k := range kinds {
				out := &countingHash{h: sha256.New()}
				spec := Spec{Kind: k, Cores: 2, Prog: prog, Args: []string{"-mode", mode, "-mib", fmt.Sprint(mib)},
					Timeout: 5 * time.Minute, Stdout: out, Ports: true}
				if k == Linux {
					spec.Args = append(spec.Args, "-ports", linuxModulePath(s.LinuxK.VirtioMMIO))
				}
				if mode != "out" {
					spec.Stdin = strings.NewReader(string(data))
				}
				b := s.Boot(spec, fmt.Sprintf("%s %d MiB run %d/%d", mode, mib, run, s.O.Runs))
				if why := checkStdio(b, mode, out, data, want); why != "" {
					sm.failed(key(k, mode), why)
					continue
				}
				ms, _ := Num(b.Results[0], "ms")
				sm.add(key(k, mode), float64(len(data))/1e6/(ms/1000))
			}
		}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "bench/stdio at 2 harts: %d MiB of random bytes through stdin to stdout (copy), read\n", mib)
	body.WriteString("from stdin (in), written to stdout (out); MB/s from the program's first read or\nwrite to its last, median of the runs. Both kernels carry the streams on the\nsame virtio console ports (QEMU virtserialport 1-3), wired to the host by\n`gometal run`'s relays (socket pairs); on Linux the program first loads Debian's\nvirtio_mmio module and moves its stdio onto /dev/vport*p1-3. Every copy is\nchecked byte for byte (SHA-256).\n\n")
	header := []string{"mode"}
	for _, k := range kinds {
		header = append(header, fmt.Sprintf("%s MB/s", k))
	}
	var rows [][]string
	for _, mode := range stdioModes {
		row := []string{mode}
		for _, k := range kinds {
			row = append(row, sm.cell(key(k, mode), "%.1f"))
		}
		rows = append(rows, row)
	}
	body.WriteString(table(header, rows))
	body.WriteString(linuxNote)
	notes := []string{fmt.Sprintf("stdin→stdout copy on gometal: %s MB/s (%d MiB, byte-exact)", sm.cell(key(Gometal, "copy"), "%.1f"), mib)}
	return Section{Body: body.String(), Notes: notes}
}

// linuxModulePath is where the module lies in the initramfs.
func linuxModulePath(host string) string {
	return "/" + filepath.Base(host)
}

// checkStdio says why a stdio boot does not count ("" when it does).
func checkStdio(b *Boot, mode string, out *countingHash, data []byte, want [32]byte) string {
	switch {
	case !b.OK():
		return b.Why()
	case len(b.Results) == 0:
		return "no result line"
	}
	n, _ := Num(b.Results[0], "bytes")
	if mode != "out" && (int(n) != len(data) || Str(b.Results[0], "sha256") != hex.EncodeToString(want[:])) {
		return fmt.Sprintf("the program read %d bytes, not the %d sent, or other bytes", int(n), len(data))
	}
	if mode != "in" && (out.n != int64(n) || hex.EncodeToString(out.h.Sum(nil)) != Str(b.Results[0], "sha256")) {
		return fmt.Sprintf("stdout carried %d bytes, the program wrote %d, or other bytes", out.n, int(n))
	}
	return ""
}
