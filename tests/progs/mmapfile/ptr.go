package main

import "unsafe"

// unsafePointer is the address of b's first byte, for msync.
func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
