package initramfs

import (
	"bufio"
	"fmt"
	"os"
)

// InitPath is where the kernel (gometal's or Linux's) looks for the program.
const InitPath = "init"

// Create writes an archive to archivePath holding the program at /init
// (mode 0755) plus the extra files. This is the whole initramfs that
// `gometal run` boots, and the one a Linux kernel can boot for comparison.
func Create(archivePath, program string, extras []Mapping) error {
	data, err := os.ReadFile(program)
	if err != nil {
		return err
	}
	f, err := os.Create(archivePath)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	w := NewWriter(bw)
	err = w.AddFile(InitPath, 0o755, data)
	for _, m := range extras {
		if err != nil {
			break
		}
		if err = w.AddHost(m.Host, m.Guest); err != nil {
			err = fmt.Errorf("-add %s:%s: %w", m.Host, m.Guest, err)
		}
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
