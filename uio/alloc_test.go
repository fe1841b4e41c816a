package uio

import "testing"

func TestAllocatorAlignsAndReuses(t *testing.T) {
	a := newAllocator(4096)
	x, err := a.alloc(100, 0)
	if err != nil || x != 0 {
		t.Fatalf("first alloc = %d, %v", x, err)
	}
	y, _ := a.alloc(10, 256)
	if y != 256 {
		t.Errorf("aligned alloc at %d, want 256", y)
	}
	z, _ := a.alloc(50, 8)
	if z != 104 {
		t.Errorf("the gap before 256 should be used first: got %d", z)
	}
	if _, err := a.alloc(4096, 0); err != errDMAFull {
		t.Errorf("oversized alloc: %v", err)
	}
	a.free(x, 100)
	a.free(z, 50)
	a.free(y, 10)
	if len(a.holes) != 1 || a.holes[0] != (span{0, 4096}) {
		t.Errorf("after freeing everything: %v", a.holes)
	}
	if _, err := a.alloc(4096, 4096); err != nil {
		t.Errorf("whole region: %v", err)
	}
	if _, err := a.alloc(1, 3); err == nil {
		t.Error("alignment 3 accepted")
	}
}
