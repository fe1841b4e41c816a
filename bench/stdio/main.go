// Command stdio is the standard-streams throughput benchmark: it copies
// its stdin to its stdout (io.Copy, 32 KiB at a time, as a filter would)
// until end of file, hashing what passes, and reports on stderr the bytes,
// the time from its first read to the end, and the SHA-256, so the host
// can check the copy and compute MB/s. -mode in only reads stdin; -mode out
// -mib N only writes N MiB of zeros to stdout: the two directions apart.
// -ports MODULE (Linux only) first moves the streams onto the console
// ports (ports_linux.go).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"gometal.dev/gometal/bench/internal/guest"
)

func main() {
	mode := flag.String("mode", "copy", "copy, in or out")
	mib := flag.Int("mib", 64, "for -mode out: MiB to write")
	ports := flag.String("ports", "", "Linux: load this virtio_mmio module and use the console ports")
	flag.Parse()
	var report io.Writer = os.Stderr
	if *ports != "" {
		console, err := useConsolePorts(*ports)
		if err != nil {
			guest.ReportTo(console, "stdio", "mode", *mode, "error", err.Error())
			time.Sleep(300 * time.Millisecond)
			guest.PowerOff()
		}
		report = console
	}
	h := sha256.New()
	start := time.Now()
	var n int64
	var err error
	switch *mode {
	case "copy":
		n, err = io.Copy(io.MultiWriter(os.Stdout, h), os.Stdin)
	case "in":
		n, err = io.Copy(h, os.Stdin)
	case "out":
		buf := make([]byte, 32<<10)
		for n < int64(*mib)<<20 && err == nil {
			var w int
			w, err = os.Stdout.Write(buf)
			h.Write(buf[:w])
			n += int64(w)
		}
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	elapsed := time.Since(start)
	if err != nil {
		guest.ReportTo(report, "stdio", "mode", *mode, "error", err.Error())
	} else {
		guest.ReportTo(report, "stdio", "mode", *mode, "bytes", n, "ms", guest.MS(elapsed), "sha256", hex.EncodeToString(h.Sum(nil)))
	}
	if *ports != "" {
		// Linux's port writes complete asynchronously: let the last ones
		// reach the host before the power goes.
		time.Sleep(300 * time.Millisecond)
	}
	guest.PowerOff()
}
