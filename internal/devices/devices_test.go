package devices

import (
	"reflect"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	sel, err := Select([]string{"edu@1", "rtc-alarm", "serial=tcp:127.0.0.1:4555", "blk=/tmp/fat.img"})
	if err != nil {
		t.Fatal(err)
	}
	wantKernel := []string{"uio=pci:1234:11e8@1", "uio=dt:google,goldfish-rtc", "uio=pci:1b36:0002", "uio=pci:1af4:1042"}
	if !reflect.DeepEqual(sel.Kernel, wantKernel) {
		t.Errorf("kernel = %q, want %q", sel.Kernel, wantKernel)
	}
	q := strings.Join(sel.QEMU, " ")
	for _, want := range []string{
		"-device edu,dma_mask=0xffffffff",
		"-chardev socket,id=uioserial2,host=127.0.0.1,port=4555,server=on,wait=off -device pci-serial,chardev=uioserial2",
		"-drive file=/tmp/fat.img,if=none,format=raw,id=uioblk3 -device virtio-blk-pci,disable-legacy=on,drive=uioblk3",
	} {
		if !strings.Contains(q, want) {
			t.Errorf("QEMU args %q lack %q", q, want)
		}
	}
}

func TestSelectErrors(t *testing.T) {
	for _, bad := range []string{"nope", "edu=1", "serial", "serial=udp:1:2", "serial=tcp:h:99999", "blk=a,b", "edu@x", "blk="} {
		if _, err := Select([]string{bad}); err == nil {
			t.Errorf("Select(%q) succeeded", bad)
		}
	}
}
