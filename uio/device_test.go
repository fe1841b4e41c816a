package uio

import (
	"os"
	"path/filepath"
	"testing"
)

// A fake sysfs laid out as gometal (and Linux) write it.
func fakeSysfs(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"uio0/name":             "uio_pci_generic\n",
		"uio0/version":          "0.01.0\n",
		"uio0/device/vendor":    "0x1234\n",
		"uio0/device/device":    "0x11e8\n",
		"uio0/maps/map0/name":   "BAR0\n",
		"uio0/maps/map0/addr":   "0x0000000040000000\n",
		"uio0/maps/map0/offset": "0x0\n",
		"uio0/maps/map0/size":   "0x0000000000100000\n",
		"uio0/maps/map1/name":   "dma\n",
		"uio0/maps/map1/addr":   "0x0000000087f00000\n",
		"uio0/maps/map1/size":   "0x0000000000100000\n",
		"uio1/name":             "rtc\n",
		"uio1/maps/map0/addr":   "0x0000000000101000\n",
		"uio1/maps/map0/size":   "0x0000000000001000\n",
		"notuio/name":           "x\n",
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := sysRoot
	sysRoot = root
	t.Cleanup(func() { sysRoot = old })
}

func TestListAndMatch(t *testing.T) {
	fakeSysfs(t)
	list, err := List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("List() = %d devices, want 2: %+v", len(list), list)
	}
	edu := list[0]
	if edu.Vendor != 0x1234 || edu.Device != 0x11e8 || len(edu.Maps) != 2 {
		t.Errorf("uio0 = %+v", edu)
	}
	if edu.Maps[1] != (MapInfo{Name: "dma", Addr: 0x87f00000, Size: 0x100000}) {
		t.Errorf("map1 = %+v", edu.Maps[1])
	}
	for _, name := range []string{"uio_pci_generic", "uio0", "pci:1234:11e8", "PCI:1234:11E8"} {
		if !edu.Matches(name) {
			t.Errorf("uio0 does not match %q", name)
		}
	}
	rtc := list[1]
	if !rtc.Matches("rtc") || rtc.Matches("pci:0000:0000") || rtc.Maps[0].Addr != 0x101000 {
		t.Errorf("uio1 = %+v", rtc)
	}
}
