package uio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Where UIO devices are; variables so host tests can point them elsewhere.
var (
	sysRoot = "/sys/class/uio"
	devRoot = "/dev"
)

// MapInfo describes one memory map, as /sys/class/uio/uioN/maps/mapM says.
type MapInfo struct {
	Name   string
	Addr   uint64 // physical address
	Offset uint64 // offset of the region in its first page
	Size   uint64
}

// Info is what sysfs says about one UIO device.
type Info struct {
	Index   int
	Name    string
	Version string
	// Vendor and Device are the PCI ids (0 for a platform device).
	Vendor, Device uint16
	Maps           []MapInfo
}

// List returns every UIO device, by index.
func List() ([]Info, error) {
	entries, err := os.ReadDir(sysRoot)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "uio")
		i, err := strconv.Atoi(n)
		if !ok || err != nil {
			continue
		}
		info, err := readInfo(i)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

func readText(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

func readHex(path string) (uint64, error) {
	s, err := readText(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
}

func readInfo(index int) (Info, error) {
	dir := filepath.Join(sysRoot, fmt.Sprintf("uio%d", index))
	info := Info{Index: index}
	var err error
	if info.Name, err = readText(filepath.Join(dir, "name")); err != nil {
		return Info{}, err
	}
	info.Version, _ = readText(filepath.Join(dir, "version"))
	if v, err := readHex(filepath.Join(dir, "device", "vendor")); err == nil {
		info.Vendor = uint16(v)
	}
	if d, err := readHex(filepath.Join(dir, "device", "device")); err == nil {
		info.Device = uint16(d)
	}
	for m := 0; ; m++ {
		mdir := filepath.Join(dir, "maps", fmt.Sprintf("map%d", m))
		if _, err := os.Stat(mdir); err != nil {
			break
		}
		var mi MapInfo
		mi.Name, _ = readText(filepath.Join(mdir, "name"))
		if mi.Addr, err = readHex(filepath.Join(mdir, "addr")); err != nil {
			return Info{}, err
		}
		if mi.Size, err = readHex(filepath.Join(mdir, "size")); err != nil {
			return Info{}, err
		}
		mi.Offset, _ = readHex(filepath.Join(mdir, "offset"))
		info.Maps = append(info.Maps, mi)
	}
	return info, nil
}

// Matches says whether the device answers to name: its sysfs name, its
// node "uioN", or "pci:VVVV:DDDD" (PCI ids in hex, as gometal's -device
// catalogue and Linux's new_id use them).
func (i Info) Matches(name string) bool {
	if name == i.Name || name == fmt.Sprintf("uio%d", i.Index) {
		return true
	}
	if i.Vendor == 0 {
		return false
	}
	return strings.EqualFold(name, fmt.Sprintf("pci:%04x:%04x", i.Vendor, i.Device))
}

// ErrNotFound: no UIO device answers to the name.
var ErrNotFound = errors.New("uio: no such device")

// Device is an open UIO device.
type Device struct {
	Info
	f     *os.File
	cfgMu sync.Mutex
	cfg   *os.File // device/config, once used
}

// Open opens the first device that answers to name (see Info.Matches).
func Open(name string) (*Device, error) {
	list, err := List()
	if err != nil {
		return nil, fmt.Errorf("uio: %w", err)
	}
	for _, i := range list {
		if i.Matches(name) {
			f, err := os.OpenFile(filepath.Join(devRoot, fmt.Sprintf("uio%d", i.Index)), os.O_RDWR, 0)
			if err != nil {
				return nil, err
			}
			return &Device{Info: i, f: f}, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
}

// Close closes the device; mapped regions stay valid until unmapped.
func (d *Device) Close() error {
	d.cfgMu.Lock()
	if d.cfg != nil {
		d.cfg.Close()
	}
	d.cfgMu.Unlock()
	return d.f.Close()
}

// File is /dev/uioN. Its Fd method would switch the descriptor to
// blocking mode (taking it out of Go's netpoller, so Wait would block a
// thread); use RawFd for system calls of your own.
func (d *Device) File() *os.File { return d.f }

// RawFd is the descriptor of /dev/uioN, left in the netpoller's
// non-blocking mode; valid until Close.
func (d *Device) RawFd() int {
	fd := -1
	if rc, err := d.f.SyscallConn(); err == nil {
		rc.Control(func(f uintptr) { fd = int(f) })
	}
	return fd
}

// Map maps map m (registers, or the DMA region) into memory.
func (d *Device) Map(m int) (*Region, error) {
	if m < 0 || m >= len(d.Maps) {
		return nil, fmt.Errorf("uio%d: no map %d (it has %d)", d.Index, m, len(d.Maps))
	}
	size := int((d.Maps[m].Offset + d.Maps[m].Size + uint64(os.Getpagesize()) - 1) &^ uint64(os.Getpagesize()-1))
	mem, err := syscall.Mmap(d.RawFd(), int64(m*os.Getpagesize()), size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("uio%d: mmap map %d: %w", d.Index, m, err)
	}
	return &Region{mem: mem[d.Maps[m].Offset:], Phys: d.Maps[m].Addr}, nil
}

// configPath is the PCI config space file of the device.
func (d *Device) configPath() string {
	return filepath.Join(sysRoot, fmt.Sprintf("uio%d", d.Index), "device", "config")
}

// configFile is device/config, opened on first use and kept open (Linux
// drivers re-enable interrupts through it after every interrupt).
func (d *Device) configFile() (*os.File, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if d.cfg == nil {
		f, err := os.OpenFile(d.configPath(), os.O_RDWR, 0)
		if err != nil {
			return nil, err
		}
		d.cfg = f
	}
	return d.cfg, nil
}

// ReadConfig reads len(b) bytes of PCI config space at off.
func (d *Device) ReadConfig(b []byte, off int64) error {
	f, err := d.configFile()
	if err != nil {
		return err
	}
	_, err = f.ReadAt(b, off)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// WriteConfig writes b to PCI config space at off.
func (d *Device) WriteConfig(b []byte, off int64) error {
	f, err := d.configFile()
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, off)
	return err
}
